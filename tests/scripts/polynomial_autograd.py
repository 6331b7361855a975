"""The official "PyTorch: Tensors and autograd" tutorial: fit y = sin(x) with a third-order
polynomial, its four weights updated by hand under no_grad (the starting weights are fixed
numbers here, where the tutorial draws them, so that both libraries start alike)."""

import math
import sys

torch = __import__(sys.argv[1])

dtype = torch.float
device = torch.device("cpu")
x = torch.linspace(-math.pi, math.pi, 2000, device=device, dtype=dtype)
y = torch.sin(x)

a = torch.tensor(0.1, device=device, dtype=dtype, requires_grad=True)
b = torch.tensor(-0.2, device=device, dtype=dtype, requires_grad=True)
c = torch.tensor(0.3, device=device, dtype=dtype, requires_grad=True)
d = torch.tensor(-0.05, device=device, dtype=dtype, requires_grad=True)

learning_rate = 1e-6
for t in range(2000):
    y_pred = a + b * x + c * x**2 + d * x**3
    loss = (y_pred - y).pow(2).sum()
    if t % 500 == 499:
        print(t, f"{loss.item():.4g}")
    loss.backward()
    with torch.no_grad():
        a -= learning_rate * a.grad
        b -= learning_rate * b.grad
        c -= learning_rate * c.grad
        d -= learning_rate * d.grad
        a.grad = None
        b.grad = None
        c.grad = None
        d.grad = None

print(f"Result: y = {a.item():.3f} + {b.item():.3f} x + {c.item():.3f} x^2 + {d.item():.3f} x^3")
