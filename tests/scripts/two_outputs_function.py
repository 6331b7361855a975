"""A custom autograd.Function with two differentiable outputs (polar coordinates), as in a lesson on
writing your own rules: the output numbers in the graph, the gradient of either output alone (the
other one's arrives as zeros), hooks and retain_grad on the second output, a non-tensor output in
between, autograd.grad with respect to an output, and gradcheck."""

import math
import sys

torch = __import__(sys.argv[1])


SHOW = True  # print what backward receives (not during gradcheck)


class Polar(torch.autograd.Function):
    """(x, y) -> (r, theta): r = sqrt(x² + y²), theta = atan2(y, x)."""

    @staticmethod
    def forward(ctx, x, y):
        r = (x * x + y * y).sqrt()
        theta = torch.tensor([math.atan2(float(b), float(a)) for a, b in zip(x, y)], dtype=x.dtype)
        ctx.save_for_backward(x, y, r)
        return r, theta

    @staticmethod
    def backward(ctx, grad_r, grad_theta):
        x, y, r = ctx.saved_tensors
        if SHOW:
            print("  backward got", grad_r, grad_theta)
        # dr/dx = x/r, dr/dy = y/r; dtheta/dx = -y/r², dtheta/dy = x/r²
        return grad_r * x / r - grad_theta * y / r**2, grad_r * y / r + grad_theta * x / r**2


x = torch.tensor([3.0, 1.0], dtype=torch.float64, requires_grad=True)
y = torch.tensor([4.0, 1.0], dtype=torch.float64, requires_grad=True)
r, theta = Polar.apply(x, y)
print(r, theta)
print(r.grad_fn is theta.grad_fn, r.output_nr, theta.output_nr, r.grad_fn.name())
print([k for _, k in (r + theta).grad_fn.next_functions])

print("r alone")
r.sum().backward(retain_graph=True)
print(x.grad, y.grad)

print("theta alone")
x.grad = y.grad = None
theta.sum().backward(retain_graph=True)
print(x.grad, y.grad)

print("both, theta seeded directly")
x.grad = y.grad = None
theta.backward(torch.tensor([1.0, 2.0], dtype=torch.float64), retain_graph=True)
print(x.grad, y.grad)

print("hooks and retain_grad on the second output")
x.grad = y.grad = None
r, theta = Polar.apply(x, y)
theta.retain_grad()
handle = theta.register_hook(lambda g: g * 10)
(r * theta).sum().backward()
print(theta.grad, x.grad, y.grad, theta.retains_grad)

print("autograd.grad with respect to an output")
r, theta = Polar.apply(x, y)
loss = (r**2 + theta).sum()
print(torch.autograd.grad(loss, [theta, r, x]))


class WithCount(torch.autograd.Function):
    """Returns (2x, a count, 3x): the count is no tensor, and the outputs keep their places."""

    @staticmethod
    def forward(ctx, x):
        return x * 2, 7, x * 3

    @staticmethod
    def backward(ctx, ga, gcount, gb):
        print("  backward got", ga, gcount, gb)
        return 2 * ga + 3 * gb


a, count, b = WithCount.apply(x)
print(a.output_nr, count, b.output_nr, [k for _, k in (a * b).grad_fn.next_functions])
x.grad = None
b.sum().backward()
print(x.grad)

SHOW = False
inputs = (
    torch.tensor([0.5, 2.0], dtype=torch.float64, requires_grad=True),
    torch.tensor([1.5, -0.5], dtype=torch.float64, requires_grad=True),
)
print(torch.autograd.gradcheck(lambda u, v: Polar.apply(u, v), inputs))

r, theta = Polar.apply(x, y)
z = theta * theta  # saves theta, output 1 of Polar
theta.add_(1)
try:
    z.sum().backward()
except RuntimeError as e:
    print(str(e).split(" Hint")[0])
