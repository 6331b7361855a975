"""torch.autograd.Variable, as programs written before torch 0.4 use it: a new leaf sharing the data,
volatile's warning, the errors, isinstance."""

import sys
import warnings
from importlib import import_module

torch = __import__(sys.argv[1])
Variable = import_module(sys.argv[1] + ".autograd").Variable
t = torch.ones(2)
v = Variable(t, requires_grad=True)
print(repr(v), v is t, v.is_leaf)
w = Variable(t)
print(repr(w), w is t, w.requires_grad)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    x = Variable(t, volatile=True)
print(repr(x), x.requires_grad, [(c.category.__name__, str(c.message)) for c in caught])
print(isinstance(t, Variable), isinstance(1.0, Variable), Variable.__module__, repr(Variable))
print(repr(Variable()))
for f in [
    lambda: Variable([1.0, 2.0]),
    lambda: Variable(torch.tensor([1, 2]), requires_grad=True),
    lambda: Variable(t, foo=1),
    lambda: Variable(t, requires_grad=True, volatile=True),
    lambda: Variable(t, requires_grad="yes"),
    lambda: Variable(t, requires_grad=None),
]:
    try:
        f()
    except Exception as e:  # noqa: BLE001
        print(type(e).__name__, e)
y = v * 2
print(Variable(y) is y, Variable(y).grad_fn, Variable(y).requires_grad)
z = Variable(t, True)
(z * 3).sum().backward()
print(z.grad)
t.add_(1)
print(v, v.data)
