"""NumPy's argument names, which torch's argument parser takes: axis= for dim=, keepdims= for keepdim=."""

import sys

torch = __import__(sys.argv[1])
x = torch.arange(6.0).reshape(2, 3)
calls = {
    "sum": lambda: x.sum(axis=1, keepdims=True),
    "mean": lambda: torch.mean(x, axis=0),
    "cumsum": lambda: x.cumsum(axis=1),
    "function cumsum": lambda: torch.cumsum(x, axis=0),
    "cumprod": lambda: x.cumprod(axis=0),
    "prod": lambda: x.prod(axis=1, keepdims=True),
    "max": lambda: x.max(axis=1),
    "min": lambda: torch.min(x, axis=0, keepdims=True),
    "amax": lambda: x.amax(axis=0),
    "argmax": lambda: x.argmax(axis=1),
    "argmin": lambda: torch.argmin(x, axis=0, keepdims=True),
    "std": lambda: x.std(axis=1),
    "var": lambda: x.var(axis=0, keepdims=True),
    "logsumexp": lambda: x.logsumexp(axis=1),
    "softmax": lambda: x.softmax(axis=1),
    "log_softmax": lambda: torch.log_softmax(x, axis=0),
    "norm": lambda: x.norm(dim=1),
    "cat": lambda: torch.cat([x, x], axis=1),
    "stack": lambda: torch.stack([x, x], axis=1).shape,
    "unsqueeze": lambda: x.unsqueeze(axis=0).shape,
    "squeeze": lambda: x.unsqueeze(0).squeeze(axis=0).shape,
    "sort": lambda: x.sort(axis=0, descending=True),
    "argsort": lambda: x.argsort(axis=1),
    "flatten": lambda: x.flatten(),
    "both axis and dim": lambda: x.cumsum(0, axis=0),
}
for name, call in calls.items():
    try:
        print(name, call())
    except (TypeError, RuntimeError) as e:
        print(name, type(e).__name__)
