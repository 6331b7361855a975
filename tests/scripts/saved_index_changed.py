"""An index, a mask or the indices an op returned, changed in place before backward: torch refuses with
its version error, as for any saved tensor (found by an outside review)."""

import sys

torch = __import__(sys.argv[1])


def run(make, change):
    x = torch.tensor([[3.0, 1.0, 2.0], [0.0, 5.0, 4.0]], requires_grad=True)
    y, k = make(x)
    change(k)
    try:
        y.sum().backward()
        print("grad", x.grad)
    except RuntimeError as e:
        print("RuntimeError:", str(e).split(" Hint")[0])


i = torch.tensor([[0, 0], [1, 2]])
run(lambda x: (x.gather(1, i), i), lambda k: k.fill_(2))
m = torch.tensor([[True, False, False], [False, True, False]])
run(lambda x: (x.masked_fill(m, 0.0), m), lambda k: k.fill_(False))
j = torch.tensor([0, 2])
run(lambda x: (x.index_select(1, j), j), lambda k: k.fill_(1))


def mx(x):
    v, ix = x.max(1)
    return v, ix


run(mx, lambda k: k.fill_(0))


def srt(x):
    v, ix = x.sort(1)
    return v, ix


run(srt, lambda k: k.fill_(0))


def tk(x):
    v, ix = x.topk(2, 1)
    return v, ix


run(tk, lambda k: k.fill_(0))
run(lambda x: (x.gather(1, i), i), lambda k: None)
s = torch.tensor([[0, 1], [2, 0]])
run(lambda x: (x.scatter(1, s, 7.0), s), lambda k: k.add_(0))
