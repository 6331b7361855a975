"""torch.autograd.functional on a small function: the Jacobian of f(x) = (x₀x₁, sin x₀ + x₁²)
and the Hessian of the Rosenbrock function, printed as torch prints them."""

import sys

torch = __import__(sys.argv[1])
from_functional = torch.autograd.functional


def f(x):
    return torch.stack([x[0] * x[1], torch.sin(x[0]) + x[1] ** 2])


def rosenbrock(x):
    return (1 - x[0]) ** 2 + 100 * (x[1] - x[0] ** 2) ** 2


x = torch.tensor([0.5, 2.0])
print("f(x) =", f(x))
print("J =", from_functional.jacobian(f, x))  # [[x₁, x₀], [cos x₀, 2x₁]]
print("H =", from_functional.hessian(rosenbrock, x))  # [[2 - 400(x₁ - 3x₀²), -400x₀], [-400x₀, 200]]

w, b = torch.tensor([[1.0, -1.0], [2.0, 0.5]]), torch.tensor([0.1, -0.2])
jw, jb = from_functional.jacobian(lambda w, b: torch.tanh(w @ x + b), (w, b))
print("shapes:", tuple(jw.shape), tuple(jb.shape))
print("d/db =", jb)
hx = from_functional.hessian(lambda x, y: (x * y).sum() + (x**3).sum(), (x, torch.tensor([1.0, 3.0])))
print("blocks:", [[tuple(h.shape) for h in row] for row in hx])
print(hx[0][0], hx[0][1], sep="\n")

out, jv = from_functional.jvp(f, x, torch.tensor([1.0, 0.0]))  # J's first column
out, vj = from_functional.vjp(f, x, torch.tensor([0.0, 1.0]))  # J's second row
out, hv = from_functional.hvp(rosenbrock, x, torch.tensor([1.0, 1.0]))
print("Jv =", jv, "vJ =", vj, "Hv =", hv)
