"""A custom Function that saves its own output (exp, whose derivative is itself), as the
"Extending torch.autograd" tutorial does: the saved output is the tensor the caller got, an in-place
change of it is caught at backward, and saved_tensors_hooks see and rebuild what it saved."""

import sys

torch = __import__(sys.argv[1])


class Exp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        result = x.exp()
        ctx.save_for_backward(x, result)
        return result

    @staticmethod
    def backward(ctx, grad_output):
        _, result = ctx.saved_tensors
        return grad_output * result  # d(eˣ)/dx = eˣ


x = torch.tensor([0.0, 1.0], requires_grad=True)
y = Exp.apply(x)
print(y.grad_fn.saved_tensors)
y.sum().backward()
print(x.grad)

y = Exp.apply(x)
y.mul_(2)  # the output Exp saved is changed: backward must refuse
try:
    y.sum().backward()
except RuntimeError as e:
    print(str(e).split(" Hint")[0])

log = []


def pack(t):
    log.append(("pack", t.requires_grad, t.grad_fn.name() if t.grad_fn is not None else None))
    return ("kept", t.detach().clone())


def unpack(box):
    log.append(("unpack", box[0]))
    return box[1]


x.grad = None
with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
    y = Exp.apply(x)
print(log)
log.clear()
saved = y.grad_fn.saved_tensors
print(saved, log)
(z,) = torch.autograd.grad(y.sum(), x, create_graph=True)
print(z)
z.sum().backward()  # the rebuilt input is still x: the second derivative reaches x.grad
print(x.grad)


class Twice(torch.autograd.Function):  # saves nothing: a second backward works, saved_tensors is gone
    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, g):
        return g * 2


x = torch.tensor([1.0], requires_grad=True)
y = Twice.apply(x)
print(y.grad_fn.saved_tensors)
y.backward()
try:
    print(y.grad_fn.saved_tensors)
except RuntimeError as e:
    print(str(e)[:60])
y.backward()
print(x.grad)
