"""The cases an outside review of forward_ad and torch.func found wrong (2026-12-07), each as torch runs it:
tangents through ops whose inputs depend on each other, hessians of everyday functions, tangents through
views and in-place changes, in-place ops whose tensor argument requires grad (pow_, scatter_, masked_fill_),
randomness in jacfwd, vmap's out_dims and empty batches, and the transforms' argument errors."""

import sys

torch = __import__(sys.argv[1])
func = __import__(sys.argv[1] + ".func", fromlist=["grad"])
fw = torch.autograd.forward_ad
F = torch.nn.functional


def attempt(f):
    try:
        print(f())
    except Exception as e:  # noqa: BLE001
        print(type(e).__name__, e)


def tangent(t):
    v = fw.unpack_dual(t).tangent
    return None if v is None else v.detach()


x = torch.tensor([1.0], requires_grad=True)
with fw.dual_level():
    d = fw.make_dual(x, torch.tensor([1.0]))
    print(tangent(d * 3 + d), tangent(d + d * 3), tangent((d * 3) * 4 + d * 5), tangent(d * d.exp()))
    h = torch.nn.Linear(1, 1)
    print(tangent(h(d) + d).shape, tangent(d * torch.sigmoid(d)))

p = torch.tensor([0.3, -0.7, 1.1], dtype=torch.float64)
for name, f in [
    ("norm", lambda v: v.norm()),
    ("logsumexp", lambda v: v.logsumexp(0)),
    ("softmax", lambda v: (v.softmax(0) * torch.arange(3.0, dtype=torch.float64)).sum()),
    ("var", lambda v: v.var()),
    ("std", lambda v: v.std()),
    ("gelu", lambda v: F.gelu(v).sum()),
    ("silu", lambda v: F.silu(v).sum()),
    ("layer_norm", lambda v: (F.layer_norm(v, (3,)) * torch.arange(3.0, dtype=torch.float64)).sum()),
    ("rational", lambda v: (1 / (v**2 + 1)).sum()),
    ("cumprod", lambda v: v.cumprod(0).sum()),
    ("mlp", lambda v: torch.tanh(v @ torch.ones(3, 2, dtype=torch.float64)).pow(2).sum()),
]:
    hess = func.hessian(f)(p)
    print(name, (hess * 1e8).round() / 1e8 + 0.0, (hess - func.jacrev(func.jacrev(f))(p)).abs().max() < 1e-10)

with fw.dual_level():
    d = fw.make_dual(torch.tensor([1.0, 2.0]), torch.tensor([0.3, 0.7]))
    y = torch.zeros(3)
    y[1:].copy_(d)
    print("copy into a slice", tangent(y))
    m = torch.ones(2, 2)
    m.view(-1)[:2].mul_(d)
    print("view mul_", tangent(m), tangent((m * m).sum()))
    rows = torch.ones(2, 2)
    for r in rows:
        r.mul_(d)
    print("rows", tangent(rows))
    g = torch.zeros(2, 2)
    g.diagonal().copy_(d)
    print("diagonal", tangent(g))
    z = torch.zeros(2)
    first = z[0]
    z.copy_(d)
    print("a view taken before", tangent(first), tangent(z))
    u = torch.zeros(4)
    u.view(2, 2)[1] = d
    print("reshape then setitem", tangent(u))
    x0 = torch.tensor([1.0, 2.0])
    e = fw.make_dual(x0, torch.tensor([0.3, 0.7]))
    x0.mul_(2)
    print("the primal changed", e, tangent(e * e))
    w = torch.tensor([2.0, 3.0])
    w.pow_(d)
    print("pow_", tangent(w))
    s = torch.zeros(3)
    s.scatter_(0, torch.tensor([2, 0]), d)
    print("scatter_", tangent(s))
    s.scatter_add_(0, torch.tensor([2, 2]), d)
    print("scatter_add_", tangent(s))
    q = torch.tensor([1.0, 0.0, 2.0])
    q.index_put_((torch.tensor([0, 2]),), d)
    print("index_put_", tangent(q))
    q.index_put_((torch.tensor([0, 0]),), d, accumulate=True)
    print("index_put_ accumulate", tangent(q))
    k = fw.make_dual(torch.tensor(2.0), torch.tensor(0.5))
    print("masked_fill", tangent(torch.zeros(3).masked_fill(torch.tensor([True, False, True]), k)))
    with torch.inference_mode():
        print("inference_mode", tangent(d * d))
    attempt(lambda: fw.make_dual(torch.ones(2), fw.make_dual(torch.ones(2), torch.ones(2))))
attempt(lambda: fw.make_dual(torch.ones(2), torch.ones(2), level=0))
level = fw.enter_dual_level()
attempt(lambda: fw.exit_dual_level(level=level + 1))
fw.exit_dual_level()

for op in ["mul_", "div_", "add_", "sub_", "pow_", "copy_"]:
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    b = torch.tensor([5.0, 6.0])
    getattr(b, op)(a)
    (b + a).sum().backward()
    print(op, a.grad)
a = torch.tensor([1.0, 2.0], requires_grad=True)
b = torch.zeros(3)
b.scatter_(0, torch.tensor([2, 0]), a)
(b * torch.tensor([1.0, 2.0, 3.0])).sum().backward()
print("scatter_ backward", a.grad)
a.grad = None
b = torch.zeros(3)
b.scatter_add_(0, torch.tensor([2, 2]), a)
(b * torch.tensor([1.0, 2.0, 3.0])).sum().backward()
print("scatter_add_ backward", a.grad)
v = torch.tensor(2.0, requires_grad=True)
c = torch.zeros(3)
c.masked_fill_(torch.tensor([True, False, True]), v)
c.sum().backward()
print("masked_fill_ backward", c, v.grad)

torch.manual_seed(0)
print(func.jacfwd(lambda v: v * torch.rand(2), randomness="same")(torch.ones(2)))
attempt(lambda: func.jacfwd(lambda v: v * torch.rand(2))(torch.ones(2)))
print(func.jvp(lambda v: v * v, (torch.tensor(2.0),), (torch.tensor(1.0),)))
with torch.inference_mode():
    print("jvp under inference_mode", func.jvp(lambda v: v * v, (torch.tensor(2.0),), (torch.tensor(1.0),)))
attempt(lambda: func.vmap(lambda v: v * 2, out_dims=None)(torch.arange(6.0).reshape(2, 3)))
print(func.vmap(lambda v: torch.ones(2), out_dims=None)(torch.ones(2, 3)))
print(func.vmap(lambda v: v * 2)(torch.ones(0, 3)), func.vmap(lambda v: v * 2, out_dims=1)(torch.ones(0, 3)).shape)
print(func.vmap(lambda v: v, out_dims=(1,))(torch.ones(2, 3)).shape)
attempt(lambda: func.vmap(lambda v: (v, v), out_dims=[0, 1])(torch.ones(2, 3)))
attempt(lambda: func.vmap(lambda v: v, chunk_size=0)(torch.ones(2)))
attempt(lambda: func.vmap(lambda v: v, chunk_size=-1)(torch.ones(2)))
xs = torch.ones(2)
attempt(lambda: func.grad(lambda v: (v.pow(2).sum(), "hello"), has_aux=True)(xs))
attempt(lambda: func.grad(lambda v: (v.pow(2).sum(), 3), has_aux=True)(xs))
attempt(lambda: func.jacrev(lambda v: v.long())(xs))
attempt(lambda: func.vjp(lambda v: (v * 2, v.argmax()), xs))
attempt(lambda: func.vjp(lambda v: 3.0, xs))
attempt(lambda: func.jacrev(lambda v: 3.0)(xs))
attempt(lambda: func.jvp(lambda v: 3.0, (xs,), (xs,)))
attempt(lambda: func.jacrev(lambda v: v * 2, has_aux=True)(xs))
attempt(lambda: func.jvp(lambda: torch.ones(2), (), ()))
attempt(lambda: func.jvp(lambda v: v * 2, (torch.ones(2),), (torch.ones(3),)))
attempt(lambda: func.grad(lambda a, b: (a * b).sum(), argnums=(1, -1))(xs, xs))
out, vjp_fn = func.vjp(lambda v: (v * 2, v), xs)
attempt(lambda: vjp_fn(torch.ones(2), torch.ones(2)))


class Tied(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a = torch.nn.Linear(2, 2, bias=False)
        self.b = torch.nn.Linear(2, 2, bias=False)
        self.b.weight = self.a.weight

    def forward(self, v):
        return self.b(self.a(v))


tied = Tied()
print(func.functional_call(tied, {"a.weight": torch.eye(2) * 2}, (torch.ones(1, 2),)))
attempt(lambda: func.functional_call(tied, {"a.weight": torch.eye(2) * 2, "b.weight": torch.eye(2)}, (xs,)))
attempt(lambda: func.functional_call(tied, [torch.zeros(2, 3)], xs))
