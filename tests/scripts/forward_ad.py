"""torch.autograd.forward_ad: dual tensors, their reprs, tangents through ops, in-place changes, backward
through dual tensors, and the errors (no level, nested levels, wrong sizes, integer primals, a custom Function
without jvp)."""

import sys

torch = __import__(sys.argv[1])
fw_ad = __import__(sys.argv[1] + ".autograd.forward_ad", fromlist=["make_dual"])


def attempt(f):
    try:
        print(f())
    except Exception as e:  # noqa: BLE001
        print(type(e).__name__, e)


x = torch.tensor([1.0, 2.0, 3.0])
v = torch.tensor([1.0, 0.0, 0.0])
attempt(lambda: fw_ad.make_dual(x, v))
with fw_ad.dual_level() as level:
    print("level", level)
    d = fw_ad.make_dual(x, v)
    print(d)
    print(d * 2)
    y = (d.sin() * d).sum()
    print(y, fw_ad.unpack_dual(y))
    print(fw_ad.unpack_dual(x))
    print(fw_ad.unpack_dual(d.exp() / (1 + d**2)).tangent)
    print(fw_ad.unpack_dual(torch.tanh(d @ torch.ones(3, 2))).tangent)
    print(fw_ad.unpack_dual(torch.stack([d, d * d])).tangent)
    print([fw_ad.unpack_dual(p).tangent for p in d.split(2)])
    print(fw_ad.unpack_dual(torch.nn.functional.softmax(d, dim=0)).tangent)
    print(fw_ad.unpack_dual(d.detach()).tangent, fw_ad.unpack_dual(d > 1))
    with torch.no_grad():
        print("under no_grad", fw_ad.unpack_dual(d * 3).tangent)
    c = d.clone()
    c.mul_(2)
    print("mul_", fw_ad.unpack_dual(c))
    e = x.clone()
    e.add_(d)
    print("add_", fw_ad.unpack_dual(e))
    z = torch.zeros(3)
    z[1] = d[2]
    print("setitem", fw_ad.unpack_dual(z))
    attempt(lambda: fw_ad.make_dual(x, torch.ones(2)))
    attempt(lambda: fw_ad.make_dual(x.long(), torch.ones(3).long()))
    attempt(lambda: fw_ad.make_dual(x, torch.ones(3).long()))
    attempt(lambda: fw_ad.make_dual(d, v))
    attempt(lambda: fw_ad.make_dual(x, v, level=3))
    attempt(lambda: fw_ad.unpack_dual(3.0))

    def nested():
        with fw_ad.dual_level():
            pass

    attempt(nested)

    class Double(torch.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            return a * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

    attempt(lambda: Double.apply(d))
print(fw_ad.unpack_dual(d))

# forward and reverse mode together: backward through a dual tensor, and a tangent that requires grad
w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
with fw_ad.dual_level():
    dw = fw_ad.make_dual(w, torch.ones(3))
    print(dw)
    loss = (dw * dw).sum()
    print(loss)
    loss.backward()
    print(w.grad)
    t = fw_ad.unpack_dual(loss).tangent
    print(t.detach(), t.requires_grad)  # (its graph's nodes are gradbook's own: see README)
    u = torch.ones(3, requires_grad=True)
    du = fw_ad.make_dual(torch.tensor([0.5, 1.0, 2.0]), u)
    tangent = fw_ad.unpack_dual((du.log() * du).sum()).tangent
    tangent.backward()
    print(tangent.detach(), u.grad)
attempt(lambda: fw_ad.exit_dual_level())

# create_graph through float32 and float64 together (the cast back of a gradient, recorded)
a = torch.ones(3, requires_grad=True)
b = torch.ones(3, dtype=torch.float64, requires_grad=True)
(g,) = torch.autograd.grad((a * b * a).sum(), a, create_graph=True)
g.sum().backward()
print(g, a.grad, b.grad)
