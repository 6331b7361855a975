"""F.one_hot: values, shapes, dtype, and torch's errors."""

import sys

torch = __import__(sys.argv[1])
F = torch.nn.functional
print(F.one_hot(torch.tensor([0, 2, 1])), F.one_hot(torch.tensor([[0], [1]]), 3).shape, F.one_hot(torch.tensor(1), 3))
for f in [
    lambda: F.one_hot(torch.tensor([0.0, 1.0])),
    lambda: F.one_hot(torch.tensor([-1, 0])),
    lambda: F.one_hot(torch.tensor([3]), 3),
    lambda: F.one_hot(torch.tensor([], dtype=torch.long)),
    lambda: F.one_hot(torch.tensor([1], dtype=torch.int32)),
    lambda: F.one_hot(torch.tensor([1]), 0),
    lambda: F.one_hot([1, 2]),
    lambda: F.one_hot(torch.tensor([-1]), 3),
]:
    try:
        print(f())
    except Exception as e:
        print(type(e).__name__, e)
print(F.one_hot(torch.tensor([], dtype=torch.long), 3).shape, F.one_hot(torch.tensor([], dtype=torch.long), 3).dtype)
print(F.one_hot(torch.tensor([[2, 0]]), num_classes=4).float() @ torch.ones(4, 2))
