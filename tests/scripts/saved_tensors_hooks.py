"""The "Hooks for saved tensors" lesson: watch what autograd saves for backward, and when it reads
it back (pack when an op records, unpack when backward or grad_fn._saved_<name> reads)."""

import sys

torch = __import__(sys.argv[1])
packed = []


def pack(t):
    packed.append(("pack", tuple(t.shape), t.requires_grad, t.grad_fn.name() if t.grad_fn else None))
    return ("box", t)


def unpack(b):
    packed.append(("unpack",))
    return b[1]


x = torch.tensor([1.0, 2.0], requires_grad=True)
with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
    y = x * torch.tensor([2.0, 3.0])
    z = (x * x).exp()
    w = x.sin()
print(packed)
packed.clear()
print(z.grad_fn._saved_result, packed)
packed.clear()
(y.sum() + z.sum() + w.sum()).backward()
print(packed, x.grad)
try:
    _ = z.grad_fn._saved_result
except RuntimeError as e:
    print("freed:", str(e)[:40])


def bad(b):
    return 5


with torch.autograd.graph.saved_tensors_hooks(pack, bad):
    q = x.sin()
try:
    q.sum().backward()
except Exception as e:
    print(type(e).__name__, str(e)[:160])
