"""div(rounding_mode=): "trunc" and "floor" on floats and ints, the zero gradient (DivBackward2), the refusal."""

import sys

torch = __import__(sys.argv[1])
a = torch.tensor([7.0, -7.0, 7.5], requires_grad=True)
b = torch.tensor([2.0, 2.0, -2.0])
for mode in ("trunc", "floor"):
    y = a.div(b, rounding_mode=mode)
    print(y, y.grad_fn.name(), y.grad_fn._saved_rounding_mode)
    y.sum().backward()
    print(a.grad)
    a.grad = None
    print(torch.tensor([7, -7]).div(2, rounding_mode=mode), torch.divide(torch.tensor([7, -7]), 2, rounding_mode=mode))
    print(torch.div(7.0, torch.tensor([2, -2]), rounding_mode=mode))
print(torch.tensor([7, -7]).div(2, rounding_mode=None))
try:
    a.div(b, rounding_mode="foo")
except RuntimeError as e:
    print(type(e).__name__, e)
