"""backward(create_graph=True): the first .grad is a new tensor (its copy recorded, CopyBackwards), never
the seed or another leaf's .grad; later backwards add into it; it can be changed in place and
differentiated again (found by an outside review)."""

import sys

torch = __import__(sys.argv[1])
x = torch.tensor([1.0, 2.0], requires_grad=True)
w = torch.tensor([1.0, 2.0], requires_grad=True)
(x + w).sum().backward(create_graph=True)
print(x.grad, x.grad is w.grad, x.grad.grad_fn.name() if x.grad.grad_fn else None)
try:
    (x * 10).sum().backward()
    print(x.grad, w.grad)
except Exception as e:
    print(type(e).__name__ + ":", e)
x = torch.tensor([1.0, 2.0], requires_grad=True)
v = torch.tensor([3.0, 4.0])
x.backward(v, create_graph=True)
print(x.grad is v)
(x * 1).sum().backward()
print(x.grad, v)
x = torch.tensor([1.0, 2.0], requires_grad=True)
x.sum().backward(create_graph=True)
with torch.no_grad():
    x.grad.mul_(2)
    print(x.grad)
x = torch.tensor([1.0, 2.0], requires_grad=True)
(x * x).sum().backward(create_graph=True)
print(x.grad)
g = x.grad
(g * g).sum().backward()
print(x.grad)
