"""torch.utils.data's samplers and ConcatDataset: the same seeds give torch's orders, lengths and errors."""

import sys

torch = __import__(sys.argv[1])
data = __import__(sys.argv[1] + ".utils.data", fromlist=["x"])
torch.manual_seed(0)
ds = data.TensorDataset(torch.arange(10.0))
print(list(data.SequentialSampler(ds)), len(data.SequentialSampler(ds)))
print(list(data.RandomSampler(ds)), list(data.RandomSampler(ds, num_samples=13)))
print(list(data.RandomSampler(ds, replacement=True, num_samples=40)))
g = torch.Generator().manual_seed(5)
print(list(data.RandomSampler(ds, generator=g)), list(data.SubsetRandomSampler([3, 5, 7, 9], generator=g)))
print(list(data.SubsetRandomSampler([1, 2, 3])), list(data.WeightedRandomSampler([0.1, 0.9, 0.4], 6)))
print(list(data.WeightedRandomSampler([1.0, 0.0, 3.0], 2, replacement=False, generator=g)))
print(list(data.BatchSampler(data.SequentialSampler(range(7)), 3, False)), len(data.BatchSampler(range(7), 3, True)))
loader = data.DataLoader(ds, batch_size=4, shuffle=True)
print(type(loader.sampler).__name__, type(loader.batch_sampler).__name__, len(loader), [b[0].tolist() for b in loader])
loader = data.DataLoader(ds, batch_sampler=data.BatchSampler(data.RandomSampler(ds), 3, drop_last=True))
print(loader.batch_size, loader.drop_last, len(loader), [b[0].tolist() for b in loader])
loader = data.DataLoader(ds, sampler=data.SubsetRandomSampler(range(0, 10, 2)), batch_size=2)
print(len(loader), [b[0].tolist() for b in loader])
both = data.ConcatDataset([ds, data.TensorDataset(torch.arange(100.0, 103.0))])
print(len(both), both[9], both[10], both[-1], both.cumulative_sizes, len(ds + ds))
for f in [
    lambda: data.ConcatDataset([]),
    lambda: both[-14],
    lambda: data.RandomSampler([]),
    lambda: data.RandomSampler(ds, replacement=1),
    lambda: data.BatchSampler(range(3), 0, False),
    lambda: data.WeightedRandomSampler([[1.0]], 2),
    lambda: data.WeightedRandomSampler([1.0], 0),
    lambda: data.DataLoader([], shuffle=True),
]:
    try:
        f()
    except (AssertionError, ValueError, TypeError) as e:
        print(type(e).__name__, e)
