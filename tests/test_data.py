"""gradbook.utils.data: datasets, DataLoader, default_collate, random_split.

Without torch: batch shapes, and shuffles tested by their properties (each epoch a permutation,
every sample once), never by their values: gradbook's random numbers are not torch's. Against
torch (the oracle section): whole unshuffled loaders print the same batches, and errors read the same.
"""

from __future__ import annotations

import collections
import warnings

import numpy as np
import pytest

import gradbook
from gradbook.utils.data import DataLoader, Dataset, Subset, TensorDataset, default_collate, random_split

# ------------------------------------------------ without torch


def numbered(n):
    """A dataset whose sample i is (tensor([i, i]), i)."""
    return TensorDataset(gradbook.arange(n).float().reshape(n, 1).expand(n, 2), gradbook.arange(n))


def test_dataloader_is_reachable_as_in_torch():
    import gradbook as torch

    assert torch.utils.data.DataLoader is DataLoader and torch.utils.data.TensorDataset is TensorDataset


def test_batches_stack_samples_and_the_last_one_is_smaller():
    loader = DataLoader(numbered(10), batch_size=4)
    batches = list(loader)
    assert len(loader) == 3 and len(batches) == 3
    assert [(list(x.shape), list(y.shape)) for x, y in batches] == [([4, 2], [4]), ([4, 2], [4]), ([2, 2], [2])]
    assert batches[2][1].tolist() == [8, 9] and batches[2][0].dtype == gradbook.float32


def test_drop_last_drops_the_smaller_batch():
    loader = DataLoader(numbered(10), batch_size=4, drop_last=True)
    assert len(loader) == 2 and [y.tolist() for _, y in loader] == [[0, 1, 2, 3], [4, 5, 6, 7]]


def test_each_shuffled_epoch_is_a_permutation_with_matching_fields():
    loader = DataLoader(numbered(23), batch_size=5, shuffle=True)
    orders = []
    for _ in range(3):
        epoch = [(x, y) for x, y in loader]
        assert [len(y) for _, y in epoch] == [5, 5, 5, 5, 3]
        order = [i for _, y in epoch for i in y.tolist()]
        assert sorted(order) == list(range(23))
        for x, y in epoch:  # the fields of a sample stay together
            assert x[:, 0].tolist() == [float(i) for i in y.tolist()]
        orders.append(order)
    assert len({tuple(o) for o in orders}) > 1  # a new order each epoch (3 equal ones: odds 1 in 23!²)


def test_default_collate_follows_the_sample_structure():
    Point = collections.namedtuple("Point", "x label")
    batch = default_collate([Point(gradbook.ones(2), 1), Point(gradbook.zeros(2), 0)])
    assert type(batch) is Point and batch.x.shape == (2, 2) and batch.label.tolist() == [1, 0]
    batch = default_collate([{"x": 1.5, "name": "a"}, {"x": 2.0, "name": "b"}])
    assert batch["x"].dtype == gradbook.float64 and batch["name"] == ["a", "b"]
    assert default_collate([(1, 2.0), (3, 4.0)])[0].dtype == gradbook.int64


def test_a_custom_dataset_and_collate_fn():
    class Squares(Dataset):
        def __len__(self):
            return 5

        def __getitem__(self, i):
            return gradbook.tensor([float(i)]), i * i

    assert [y.tolist() for _, y in DataLoader(Squares(), batch_size=3)] == [[0, 1, 4], [9, 16]]
    assert list(DataLoader(Squares(), batch_size=2, collate_fn=len)) == [2, 2, 1]


def test_random_split_makes_disjoint_subsets_covering_the_dataset():
    ds = numbered(10)
    parts = random_split(ds, [0.35, 0.65])
    assert [len(p) for p in parts] == [4, 6] and all(isinstance(p, Subset) for p in parts)  # 3.5 → 3, +1 to the first
    seen = sorted(i for p in parts for i in p.indices)
    assert seen == list(range(10))
    assert parts[1][0][1].item() == parts[1].indices[0]
    assert [len(p) for p in random_split(range(7), [2, 5])] == [2, 5]


def test_a_generator_makes_the_shuffle_repeatable():
    orders = []
    for _ in range(2):
        g = gradbook.Generator().manual_seed(7)
        loader = DataLoader(numbered(8), batch_size=8, shuffle=True, generator=g)
        orders.append([next(iter(loader))[1].tolist(), [len(s) for s in random_split(range(4), [1, 3], generator=g)]])
    assert orders[0] == orders[1]
    assert sorted(orders[0][0]) == list(range(8))


def test_tensor_dataset_refuses_different_first_sizes():
    with pytest.raises(AssertionError, match="^Size mismatch between tensors$"):
        TensorDataset(gradbook.ones(3), gradbook.ones(2))


# ------------------------------------------------ against torch


@pytest.fixture
def torch():
    return pytest.importorskip("torch")


def data_module(L):
    return L.utils.data


def loader_outputs(L):
    """What a lesson prints of unshuffled loaders over NumPy data."""
    D = data_module(L)
    rng = np.random.default_rng(3)
    x, y = rng.standard_normal((7, 3)).astype(np.float32), rng.integers(0, 3, 7)
    ds = D.TensorDataset(L.tensor(x), L.tensor(y))
    lines = [str(ds[2]), str(len(ds))]
    for options in [{"batch_size": 3}, {"batch_size": 3, "drop_last": True}, {"batch_size": 7}, {"batch_size": None}]:
        loader = D.DataLoader(ds, **options)
        lines += [str(len(loader))] + [str(batch) for batch in loader]
    lines += [str(list(D.DataLoader(samples, batch_size=2))) for samples in SAMPLES]
    lines.append(str(list(D.DataLoader(D.Subset(ds, [4, 0, 6]), batch_size=2))))
    lines.append(str(list(D.DataLoader(ds, sampler=[5, 1, 3], batch_size=2))))
    return [line.replace("torch.", "gradbook.") for line in lines]


SAMPLES = [
    [1, 2, 3],
    [1.5, 2.0, -3.25],
    [True, False],
    [(1, "a"), (2, "b")],
    [[1, 2.5], [3, 4.5]],
    [{"x": np.float32(1.5), "y": np.array([1, 2])}, {"x": np.float32(-2.0), "y": np.array([3, 4])}],
    [np.ones((2, 2)), np.zeros((2, 2))],
]


@pytest.mark.oracle
def test_unshuffled_loaders_print_what_torch_prints(torch):
    assert loader_outputs(gradbook) == loader_outputs(torch)


@pytest.mark.oracle
def test_random_split_lengths_match_torch(torch):
    cases = [(10, [0.3, 0.7]), (10, [0.25, 0.25, 0.5]), (5, [0.5, 0.5]), (7, [0.1, 0.2, 0.7]), (9, [4, 5])]
    for n, lengths in cases:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            expected = [len(s) for s in torch.utils.data.random_split(range(n), lengths)]
            assert [len(s) for s in random_split(range(n), lengths)] == expected


def first_line_of_error(L, program):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            program(data_module(L), L)
        except Exception as e:  # noqa: BLE001  (the exception is the outcome)
            outcome = (type(e).__name__, str(e).split("\n")[0].replace("torch.", "gradbook."))
        else:
            outcome = None
    return outcome, [str(w.message) for w in caught]


ERRORS = {
    "size mismatch": lambda D, L: D.TensorDataset(L.ones(3), L.ones(2)),
    "batch_size 0": lambda D, L: D.DataLoader([1, 2], batch_size=0),
    "batch_size negative": lambda D, L: D.DataLoader([1, 2], batch_size=-2),
    "batch_size float": lambda D, L: D.DataLoader([1, 2], batch_size=1.5),
    "drop_last not a bool": lambda D, L: D.DataLoader([1, 2], batch_size=2, drop_last=1),
    "no batching, drop_last": lambda D, L: D.DataLoader([1, 2], batch_size=None, drop_last=True),
    "negative workers": lambda D, L: D.DataLoader([1, 2], num_workers=-1),
    "negative timeout": lambda D, L: D.DataLoader([1, 2], timeout=-1),
    "sampler and shuffle": lambda D, L: D.DataLoader([1, 2], sampler=[0, 1], shuffle=True),
    "batch_sampler and batch_size": lambda D, L: D.DataLoader([1, 2], batch_sampler=[[0, 1]], batch_size=2),
    "lengths do not add up": lambda D, L: D.random_split(range(10), [3, 8]),
    "fraction out of range": lambda D, L: D.random_split(range(10), [1.2, -0.2]),
    "empty split warns": lambda D, L: D.random_split(range(2), [0.1, 0.1, 0.8]),
    "uncollatable": lambda D, L: list(D.DataLoader([object()], batch_size=1)),
    "ragged lists": lambda D, L: list(D.DataLoader([[1, 2], [3]], batch_size=2)),
    "ragged tensors": lambda D, L: list(D.DataLoader([L.ones(2), L.ones(3)], batch_size=2)),
    "string arrays": lambda D, L: list(D.DataLoader([np.array(["a"]), np.array(["b"])], batch_size=2)),
    "no __getitem__": lambda D, L: D.Dataset()[0],
}


@pytest.mark.oracle
@pytest.mark.parametrize("case", ERRORS)
def test_errors_match_torch(torch, case):
    assert first_line_of_error(gradbook, ERRORS[case]) == first_line_of_error(torch, ERRORS[case])
