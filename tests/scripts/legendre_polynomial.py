"""The official tutorial "PyTorch: Defining New autograd Functions": fit sin(x) on [-π, π] with
y = a + b·P3(c + d·x), where P3 is the Legendre polynomial ½(5x³ - 3x) written as a custom
Function (forward and backward by hand), trained by plain gradient descent."""

import sys

import numpy as np

torch = __import__(sys.argv[1])


class LegendrePolynomial3(torch.autograd.Function):
    @staticmethod
    def forward(ctx, input):
        ctx.save_for_backward(input)
        return 0.5 * (5 * input**3 - 3 * input)

    @staticmethod
    def backward(ctx, grad_output):
        (input,) = ctx.saved_tensors
        return grad_output * 1.5 * (5 * input**2 - 1)  # P3'(x) = ½(15x² - 3)


dtype = torch.float
x = torch.from_numpy(np.linspace(-np.pi, np.pi, 2000)).to(dtype)
y = torch.sin(x)

a = torch.full((), 0.0, dtype=dtype, requires_grad=True)
b = torch.full((), -1.0, dtype=dtype, requires_grad=True)
c = torch.full((), 0.0, dtype=dtype, requires_grad=True)
d = torch.full((), 0.3, dtype=dtype, requires_grad=True)

learning_rate = 5e-6
P3 = LegendrePolynomial3.apply
for t in range(200):
    y_pred = a + b * P3(c + d * x)
    loss = (y_pred - y).pow(2).sum()
    if t % 50 == 49:
        print(t, f"{loss.item():.4g}")
    loss.backward()
    with torch.no_grad():
        for p in (a, b, c, d):
            p -= learning_rate * p.grad
            p.grad = None

p3_node = y_pred.grad_fn.next_functions[1][0].next_functions[1][0]  # a + (b * P3(...))
print(y_pred.grad_fn.name(), p3_node.name(), repr(p3_node).split(" object at")[0])
print(f"Result: y = {a.item():.4f} + {b.item():.4f} * P3({c.item():.4f} + {d.item():.4f} x)")
