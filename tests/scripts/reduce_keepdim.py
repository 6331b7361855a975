"""Reductions over every dim with keepdim=True (dim=None or dim=()), and var/std's argument combinations."""

import sys

torch = __import__(sys.argv[1])
x = torch.arange(6.0).reshape(2, 3).requires_grad_()
for text in [
    "x.sum(None, True)",
    "x.sum(dim=())",
    "x.sum(dim=[])",
    "x.mean(None, True)",
    "x.mean(dim=())",
    "x.argmax(None, True)",
    "x.argmin(None, True)",
    "x.amax(dim=None, keepdim=True)",
    "x.amax(dim=())",
    "x.amin(dim=None, keepdim=True)",
    "x.sum((), True)",
    "x[0, 0].sum(dim=())",
    "x.std(None, keepdim=True)",
    "x.norm(dim=None, keepdim=True)",
    "x.std(unbiased=True, correction=0)",
    "x.var(correction=0)",
]:
    try:
        r = eval(text)
        print(text, r, r.grad_fn.name() if r.grad_fn is not None else None)
    except (TypeError, RuntimeError) as e:
        print(text, type(e).__name__, str(e).split("\n")[0])
