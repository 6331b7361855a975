"""Splitting a tensor into pieces (attention heads, q/k/v, columns): split, chunk and unbind give
views that share one node, each piece its own output number; the pieces' gradients are put back
together; hooks and retain_grad on one piece; a piece changed in place is refused."""

import sys

T = __import__(sys.argv[1])
x = T.arange(6.0).reshape(2, 3).requires_grad_()
y = x * 1
a, b = y.split([1, 2], dim=1)
print(a.grad_fn.name(), a.output_nr, b.output_nr, a._base is y, a._version)
try:
    a.mul_(2)
except RuntimeError as e:
    print(str(e))
c = x.chunk(3, 0)
print(len(c), [tuple(t.shape) for t in c], c[0].grad_fn.name())
u = x.unbind(1)
print(len(u), tuple(u[0].shape), u[0].grad_fn.name(), u[2].output_nr)
(a.sum() * 2 + b.sum()).backward()
print(x.grad)
x.grad = None
p, q, r = x.unbind(1)
(q * 3).sum().backward()
print(x.grad)
x.grad = None
p, q, r = x.unbind(1)
q.retain_grad()
h = q.register_hook(lambda g: g * 10)
(p + q).sum().backward()
print(x.grad, q.grad)
print([tuple(t.shape) for t in T.ones(5, requires_grad=True).chunk(3)], T.split(x, 2, 1)[1].grad_fn.name())
try:
    x.split([1, 1], 1)
except RuntimeError as e:
    print(e)
(g,) = T.autograd.grad(x.split(1, 0)[1].square().sum(), x, create_graph=True)
print(g, g.grad_fn.name())
q_, k_, v_ = (x * 2).reshape(1, 6).split(2, dim=1)
print((q_ @ k_.T + v_.sum()).grad_fn.name(), [(f.name(), i) for f, i in (q_ * k_).grad_fn.next_functions])
with T.no_grad():
    z = T.ones(4)
    m, n = z.split(2)
    n.mul_(3)
    print(z)
print(T.ones(3).unbind(), x.detach().chunk(2, 1)[1])
