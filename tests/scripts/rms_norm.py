"""nn.RMSNorm and F.rms_norm: values, gradients, the graph torch's composite records (Pow, Mean, AddBackward1,
Rsqrt, Mul), eps=None as the dtype's epsilon, float16 computed in float32, the repr and the errors."""

import sys

torch = __import__(sys.argv[1])
F = torch.nn.functional


def names(t):
    out, seen, todo = [], set(), [t.grad_fn]
    while todo:
        n = todo.pop()
        if n is None or id(n) in seen:
            continue
        seen.add(id(n))
        out.append(n.name())
        todo.extend(f for f, _ in n.next_functions)
    return out


def attempt(f):
    try:
        print(f())
    except Exception as e:  # noqa: BLE001
        print(type(e).__name__, e)


torch.manual_seed(0)
x = torch.randn(2, 3, 4, dtype=torch.float64, requires_grad=True)
m = torch.nn.RMSNorm(4)
print(m, m.weight, m.eps, list(m.state_dict()))
print(torch.nn.RMSNorm([3, 4], eps=1e-5, elementwise_affine=False), torch.nn.RMSNorm(4, eps=1e-6))
m = m.double()
y = m(x)
print(y[0, 0], names(y))
(y * torch.arange(24.0, dtype=torch.float64).reshape(2, 3, 4)).sum().backward()
print(x.grad[1], m.weight.grad)
z = F.rms_norm(x, (3, 4), eps=0.1)
print(z[1, 2], names(z))
print(F.rms_norm(torch.tensor([[3.0, 4.0]]), (2,)))
h = torch.ones(2, 4, dtype=torch.float16, requires_grad=True)
print(F.rms_norm(h, (4,), weight=torch.ones(4, dtype=torch.float16, requires_grad=True)), names(F.rms_norm(h, (4,))))
attempt(lambda: F.rms_norm(x, (3,)))
attempt(lambda: F.rms_norm(x, (2, 4)))
attempt(lambda: F.rms_norm(x, (3, 4), weight=torch.ones(4)))
attempt(lambda: F.rms_norm(x, 4))
attempt(lambda: F.rms_norm(torch.ones(2, 4).long(), (4,)))
attempt(lambda: torch.nn.RMSNorm(4)(torch.randn(3)))
