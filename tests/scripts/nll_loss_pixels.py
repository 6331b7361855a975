"""cross_entropy and nll_loss with a class per pixel: (N, C, d1, ...) scores and (N, d1, ...) targets, as a
segmentation lesson uses them (4-D through NllLoss2DBackward0, 3-D and 5-D viewed as 4-D): values, gradients,
graphs, every reduction with weight and ignore_index, and the errors for targets of the wrong shape."""

import sys

torch = __import__(sys.argv[1])
F = torch.nn.functional


def names(t):
    out, seen, todo = [], set(), [t.grad_fn]
    while todo:
        n = todo.pop()
        if n is None or id(n) in seen:
            continue
        seen.add(id(n))
        out.append(n.name())
        todo.extend(f for f, _ in n.next_functions)
    return out


def attempt(f):
    try:
        print(f())
    except Exception as e:  # noqa: BLE001
        print(type(e).__name__, e)


torch.manual_seed(0)
w = torch.tensor([0.5, 1.0, 2.0], dtype=torch.float64)
for shape in [(2, 3, 4, 5), (2, 3, 4), (1, 3, 2, 2, 3)]:
    x = torch.randn(*shape, dtype=torch.float64, requires_grad=True)
    t = torch.randint(0, 3, (shape[0], *shape[2:]))
    for kw in [{}, {"reduction": "sum"}, {"reduction": "none"}, {"weight": w}, {"ignore_index": 1},
               {"weight": w, "ignore_index": 0, "reduction": "none"}]:  # fmt: skip
        for loss_fn in (F.cross_entropy, lambda a, b, **k: F.nll_loss(a.log_softmax(1), b, **k)):
            x.grad = None
            loss = loss_fn(x, t, **kw)
            loss.sum().backward()
            print(shape, kw, list(loss.shape), names(loss))
            print(round(loss.detach().sum().item(), 10), round(x.grad.abs().sum().item(), 10))
    print(round(torch.nn.CrossEntropyLoss()(x, t).item(), 10))

torch.manual_seed(1)
x = torch.randn(3, 4, 5, 6)  # float32: torch's digits
t = torch.randint(0, 4, (3, 5, 6))
print(F.cross_entropy(x, t).item(), F.cross_entropy(x, t, reduction="sum").item())

x4 = torch.randn(2, 3, 4, 5)
x3 = torch.randn(2, 3, 4)
attempt(lambda: F.nll_loss(x4, torch.randint(0, 3, (2, 4))))
attempt(lambda: F.nll_loss(x4, torch.randint(0, 3, (2, 4, 6))))
attempt(lambda: F.nll_loss(x4, torch.randint(0, 3, (3, 4, 5))))
attempt(lambda: F.nll_loss(x3, torch.randint(0, 3, (2, 5))))
attempt(lambda: F.nll_loss(x3, torch.randint(0, 3, (2, 4, 1))))
attempt(lambda: F.nll_loss(torch.randn(2, 3, 4, 5, 6), torch.randint(0, 3, (2, 4, 5, 7))))
attempt(lambda: F.nll_loss(x3, torch.full((2, 4), 3)))
attempt(lambda: F.nll_loss(x4, torch.zeros(2, 4, 5, dtype=torch.long), weight=torch.ones(2)))
attempt(lambda: F.nll_loss(torch.tensor(1.0), torch.tensor(0)))
