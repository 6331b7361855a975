"""copy.deepcopy of tensors, parameters and modules, as torch: .grad copied for tensors (not for parameters),
shared objects stay shared, a non-leaf is refused."""

import copy
import sys

torch = __import__(sys.argv[1])
x = torch.tensor([1.0, 2.0], requires_grad=True)
(x * 3).sum().backward()
y = copy.deepcopy(x)
print(y, y.grad, y.is_leaf, y.grad is x.grad)
a, b = copy.deepcopy((x, x))
print(a is b)
p = torch.nn.Parameter(torch.ones(2))
(p * 2).sum().backward()
q = copy.deepcopy(p)
print(type(q).__name__, q, q.grad)
net = torch.nn.Linear(2, 1)
twin = copy.deepcopy(net)
print(twin.weight is net.weight, bool((twin.weight == net.weight).all()), type(twin.weight).__name__)
try:
    copy.deepcopy(x * 2)
except RuntimeError as e:
    print(type(e).__name__, e)
