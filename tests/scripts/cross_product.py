"""torch.cross and torch.linalg.cross: values, gradients, the saved dim, the deprecation warning, the errors."""

import sys
import warnings

torch = __import__(sys.argv[1])
torch.manual_seed(0)
x = torch.randn(4, 3, dtype=torch.float64, requires_grad=True)
y = torch.randn(4, 3, dtype=torch.float64, requires_grad=True)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    z = torch.cross(x, y)
print([str(c.message).split(" (Triggered")[0] for c in caught])
print(z, z.grad_fn.name(), z.grad_fn._saved_dim)
(z * torch.arange(12.0, dtype=torch.float64).reshape(4, 3)).sum().backward()
print(x.grad, y.grad)
w = torch.linalg.cross(x, y[:1])
print(w.shape, w.grad_fn._saved_dim in (-1, 2**64 - 1))  # torch shows dim=-1 as 2**64 - 1
print(x.cross(y, dim=1).grad_fn._saved_dim, torch.cross(x.t(), y.t(), dim=0).shape)
for f in [
    lambda: torch.linalg.cross(torch.ones(2), torch.ones(2)),
    lambda: torch.cross(torch.ones(2, 2), torch.ones(2, 2)),
    lambda: torch.cross(torch.ones(3, 2), torch.ones(3, 2), dim=1),
    lambda: torch.linalg.cross(torch.ones(3), torch.ones(2, 3)),
    lambda: torch.linalg.cross(torch.ones(2, 3), torch.ones(4, 3)),
    lambda: torch.linalg.cross(torch.ones(3), torch.ones(3, dtype=torch.float64)),
    lambda: torch.cross(torch.ones(3), torch.ones(3), dim=2),
]:
    try:
        f()
    except (RuntimeError, IndexError) as e:
        print(type(e).__name__, e)
