"""The outside review of softmax, log_softmax, nll_loss and cross_entropy (docs/reviews: the session of issue 27's
float32 digits): gradients when the kept class weights sum to 0 (nan, as torch) or every target is ignored (0), the
sign of the zeros off the targets, empty inputs, the implicit dim and dtype= of softmax, and nll_loss's errors in
torch's order and words."""

import sys
import warnings

torch = __import__(sys.argv[1])
F = torch.nn.functional


def attempt(f):
    try:
        out = f()
        print(list(out.shape), out.tolist())
    except Exception as e:  # noqa: BLE001
        print(type(e).__name__, e)


def grad_of(loss_fn, x, *args, **kwargs):
    x = torch.tensor(x, requires_grad=True)
    loss = loss_fn(x, *args, **kwargs)
    loss.sum().backward()
    return loss.detach(), x.grad


x2 = [[0.5, -1.0, 2.0], [1.0, 0.0, -0.5]]
t2 = torch.tensor([0, 2])
for fn in (F.cross_entropy, F.nll_loss):
    for kwargs in [{"weight": torch.tensor([0.0, 1.0, 0.0])}, {"ignore_index": 0, "weight": torch.tensor([1.0, 1, 0])},
                   {"ignore_index": 5}, {"reduction": "sum"}, {"reduction": "none"},
                   {"reduction": "none", "weight": torch.tensor([0.0, 1.0, 1.0])}]:  # fmt: skip
        loss, grad = grad_of(fn, x2, t2, **kwargs)
        print(fn.__name__, kwargs.keys(), loss.tolist(), grad.tolist())
    loss, grad = grad_of(fn, [0.5, -1.0, 2.0], torch.tensor(1), weight=torch.tensor([1.0, 0.0, 1.0]))
    print(loss.tolist(), grad.tolist())
seg = torch.arange(12.0).reshape(1, 3, 2, 2) / 7
loss, grad = grad_of(F.cross_entropy, seg.tolist(), torch.tensor([[[0, 1], [2, 1]]]), weight=torch.tensor([0.0, 1, 0]),
                     ignore_index=1)  # fmt: skip
print(loss.tolist(), grad.tolist())
print(F.cross_entropy(seg, torch.tensor([[[0, 1], [2, 1]]]), weight=torch.ones(3, 1)).tolist())

attempt(lambda: torch.zeros(5, 0).softmax(1))
attempt(lambda: torch.zeros(0).log_softmax(0))
attempt(lambda: torch.zeros(0, 5).softmax(0))
attempt(lambda: torch.zeros(2, 0, 3).log_softmax(1))
attempt(lambda: F.cross_entropy(torch.zeros(0, 3, 4, 4), torch.zeros(0, 4, 4, dtype=torch.long), reduction="sum"))
attempt(lambda: F.cross_entropy(torch.zeros(0, 3), torch.zeros(0, dtype=torch.long), reduction="none"))
attempt(lambda: F.cross_entropy(torch.zeros(0, 3, 4), torch.zeros(0, 4, dtype=torch.long)))
attempt(lambda: F.cross_entropy(torch.zeros(4, 0), torch.zeros(4, dtype=torch.long)))

x = torch.tensor(x2, requires_grad=True)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    attempt(lambda: F.softmax(x))
    attempt(lambda: F.log_softmax(torch.ones(2, 2, 2)))
    attempt(lambda: torch.nn.LogSoftmax()(x))
print([str(w.message) for w in caught])
for y in (
    torch.softmax(x, 1, dtype=torch.float64),
    x.log_softmax(0, dtype=torch.float64),
    F.softmax(x, 1, dtype=torch.float64),
):
    print(y.dtype, y.grad_fn.name(), y.grad_fn.next_functions[0][0].name())

x4 = torch.zeros(2, 3, 4, 5)
x2t = torch.tensor(x2)
attempt(lambda: F.nll_loss(x2t.double(), t2, weight=torch.ones(3)))
attempt(lambda: F.nll_loss(x2t, t2, weight=torch.ones(3).double()))
attempt(lambda: F.nll_loss(x4.double(), torch.zeros(2, 4, 5, dtype=torch.long), weight=torch.ones(3)))
attempt(lambda: F.nll_loss(x4, torch.zeros(2, 4, 5, dtype=torch.int32)))
attempt(lambda: F.nll_loss(x4, torch.zeros(2, 4, 5)))
attempt(lambda: F.nll_loss(x2t, torch.tensor(1)))
attempt(lambda: F.nll_loss(x2t, torch.zeros(2, 2)))
attempt(lambda: F.nll_loss(x2t, torch.zeros(2)))
attempt(lambda: F.nll_loss(x4, torch.zeros(2, 4)))
attempt(lambda: F.nll_loss(x2t, t2.to(torch.int32)))
attempt(lambda: F.nll_loss(x2t, t2, weight=torch.ones(3, 1)))
