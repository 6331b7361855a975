"""torch functions given a Python number first: add/sub/mul/div (and their aliases) take it as a tensor; others
refuse it as torch does."""

import sys

torch = __import__(sys.argv[1])
t = torch.tensor([1.0, 2.0], requires_grad=True)
i = torch.tensor([1, 2])
for text in [
    "torch.subtract(2, t)",
    "torch.multiply(2, t)",
    "torch.add(2, i)",
    "torch.add(2.5, i)",
    "torch.mul(2, 3)",
    "torch.div(1, t)",
    "torch.true_divide(3, i)",
    "torch.negative(2)",
    "torch.absolute(2)",
    "torch.exp(2.0)",
    "torch.maximum(2, t)",
    "torch.floor_divide(7, i)",
    "torch.add(2, t.double())",
]:
    try:
        r = eval(text)
        print(text[6:], r, r.dtype, r.grad_fn.name() if r.grad_fn is not None else None)
    except TypeError as e:
        print(text[6:], type(e).__name__, e)
