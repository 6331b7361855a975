"""cross_entropy with label_smoothing (class indices, with weight and ignore_index, every reduction) and with class
probabilities as targets: values, gradients, the graph ATen's code records, the module's repr, and the errors."""

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
x = torch.randn(4, 5, dtype=torch.float64, requires_grad=True)
t = torch.tensor([1, 0, 4, 0])
w = torch.arange(1.0, 6.0, dtype=torch.float64)
for kw in [
    {},
    {"label_smoothing": 0.1},
    {"label_smoothing": 0.1, "reduction": "sum"},
    {"label_smoothing": 0.2, "reduction": "none"},
    {"label_smoothing": 0.1, "weight": w},
    {"label_smoothing": 0.1, "ignore_index": 0},
    {"label_smoothing": 0.3, "weight": w, "ignore_index": 0, "reduction": "none"},
    {"label_smoothing": 0.3, "weight": w, "ignore_index": 0},
    {"label_smoothing": 1.0},
    {"label_smoothing": -0.1},
]:
    x.grad = None
    loss = F.cross_entropy(x, t, **kw)
    loss.sum().backward()
    print(sorted(kw), loss, names(loss))
    print(x.grad[0])
one = torch.randn(5, dtype=torch.float64, requires_grad=True)
print(F.cross_entropy(one, torch.tensor(3), label_smoothing=0.25))
probabilities = torch.softmax(torch.randn(4, 5, dtype=torch.float64), 1)
for kw in [{}, {"label_smoothing": 0.2}, {"reduction": "sum"}, {"reduction": "none", "weight": w}, {"weight": w}]:
    x.grad = None
    loss = F.cross_entropy(x, probabilities, **kw)
    loss.sum().backward()
    print(sorted(kw), loss, names(loss), x.grad[1])
print(torch.nn.CrossEntropyLoss(label_smoothing=0.1)(x, t))
print(torch.nn.CrossEntropyLoss(label_smoothing=0.1))
attempt(lambda: F.cross_entropy(x, t, label_smoothing=1.5))
attempt(lambda: F.cross_entropy(x, probabilities.long()))
attempt(lambda: F.cross_entropy(x, probabilities, ignore_index=1))
attempt(lambda: F.cross_entropy(x, probabilities, weight=torch.ones(3, dtype=torch.float64)))
attempt(lambda: F.cross_entropy(x, probabilities, reduction="avg"))
