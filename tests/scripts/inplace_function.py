"""A custom Function that works in place (ctx.mark_dirty), as torch's "Extending torch.autograd"
notes describe: the input itself comes back as the output, with the Function's node as grad_fn
and its version moved on; a leaf that requires grad is refused; without mark_dirty the caller
gets a new tensor and the input keeps its grad_fn."""

import sys

torch = __import__(sys.argv[1])


class Double_(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        x.mul_(2)
        ctx.mark_dirty(x)
        ctx.save_for_backward(x)
        return x

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return 2 * g


a = torch.tensor([1.0, 2.0], requires_grad=True)
b = a * 1
before = b._version
c = Double_.apply(b)
print(c is b, b.grad_fn.name(), b._version - before, c)
print(c.grad_fn.next_functions[0][0].name())
(c * c).sum().backward()
print(a.grad)  # d/da (2a)² = 8a
try:
    Double_.apply(a)
except RuntimeError as e:
    print(e)
with torch.no_grad():
    d = torch.ones(2)
    print(Double_.apply(d) is d, d)
e = torch.ones(2)
f = Double_.apply(e)
print(f is e, f.requires_grad, e)


class NoMark(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        x.mul_(2)
        return x

    @staticmethod
    def backward(ctx, g):
        return 2 * g


b = a.detach() * 1
b.requires_grad_()
g = b * 1
c = NoMark.apply(g)
print(c is g, c.grad_fn.name(), g.grad_fn.name())
