"""torch.meshgrid: both indexings, its warning, its graph (a view then an expand of each input), its errors."""

import sys
import warnings

torch = __import__(sys.argv[1])
a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
b = torch.tensor([4.0, 5.0], requires_grad=True)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    X, Y = torch.meshgrid(a, b)
print([str(c.message).split(" (Triggered")[0] for c in caught])
print(X, Y, Y.grad_fn.name(), Y.grad_fn.next_functions[0][0].name())
X, Y = torch.meshgrid(a, b, indexing="xy")
print(X, Y, X.shape)
(X * Y).sum().backward()
print(a.grad, b.grad)
X, Y, Z = torch.meshgrid([a, b, torch.tensor(7.0)], indexing="xy")
print(X.shape, Z.shape, Z.requires_grad)
print(torch.meshgrid(a, indexing="ij"))
for f in [
    lambda: torch.meshgrid(a, b, indexing="foo"),
    lambda: torch.meshgrid(indexing="ij"),
    lambda: torch.meshgrid(a, b.double(), indexing="ij"),
]:
    try:
        f()
    except RuntimeError as e:
        print(type(e).__name__, e)
