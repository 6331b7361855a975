"""gradbook.utils.data: datasets and the DataLoader that batches them, as torch.utils.data.

A dataset is anything with ``len()`` and ``[i]``. ``DataLoader`` draws indices (in order, or
shuffled with ``gradbook.randperm`` as torch's RandomSampler: the same seed gives torch's order),
groups them into batches and stacks each batch with ``default_collate``: tensors become one tensor
with a new first dimension, numbers a tensor, tuples a list of batched fields.

>>> import gradbook as torch
>>> from gradbook.utils.data import DataLoader, TensorDataset
>>> ds = TensorDataset(torch.arange(5.0), torch.arange(5))
>>> ds[1]
(tensor(1.), tensor(1))
>>> for x, y in DataLoader(ds, batch_size=2):
...     print(x, y)
tensor([0., 1.]) tensor([0, 1])
tensor([2., 3.]) tensor([2, 3])
tensor([4.]) tensor([4])
"""

from __future__ import annotations

import bisect
import collections.abc
import copy
import itertools
import math
import re
import warnings
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Generic, TypeVar

import numpy as np

from .. import _distributions
from .._dtypes import float64
from .._factories import (
    Generator,
    as_tensor,
    default_generator,
    generator_of,
    multinomial,
    randint,
    randperm,
    tensor,
)
from .._functions import stack
from ..tensor import Tensor

__all__ = [
    "BatchSampler",
    "ConcatDataset",
    "DataLoader",
    "Dataset",
    "RandomSampler",
    "Sampler",
    "SequentialSampler",
    "Subset",
    "SubsetRandomSampler",
    "TensorDataset",
    "WeightedRandomSampler",
    "default_collate",
    "default_convert",
    "random_split",
]

COLLATE_ERROR = "default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found {}"
_STRING_ARRAY = re.compile(r"[SaUO]")  # NumPy dtypes of strings and objects: not collated into tensors
_T_co = TypeVar("_T_co", covariant=True)


class Dataset(Generic[_T_co]):
    """Base class of map-style datasets: a subclass defines ``__getitem__`` (and ``__len__``).

    As in torch it is generic: ``class Pairs(Dataset[tuple[Tensor, int]])`` names the sample type.
    """

    def __getitem__(self, index: Any) -> _T_co:
        raise NotImplementedError("Subclasses of Dataset should implement __getitem__.")

    def __add__(self, other: Dataset[_T_co]) -> ConcatDataset[_T_co]:
        return ConcatDataset([self, other])


class TensorDataset(Dataset[tuple[Tensor, ...]]):
    """Sample i is ``(t[i] for t in tensors)``: the tensors must agree on their first size.

    >>> import gradbook as torch
    >>> len(TensorDataset(torch.zeros(4, 2), torch.zeros(4)))
    4
    """

    def __init__(self, *tensors: Tensor) -> None:
        if any(tensors[0].size(0) != t.size(0) for t in tensors):
            raise AssertionError("Size mismatch between tensors")
        self.tensors = tensors

    def __getitem__(self, index: Any) -> tuple[Tensor, ...]:
        return tuple(t[index] for t in self.tensors)

    def __len__(self) -> int:
        return self.tensors[0].size(0)


class Subset(Dataset[_T_co]):
    """The samples of ``dataset`` at ``indices``, in that order.

    >>> Subset(["a", "b", "c"], [2, 0])[0]
    'c'
    """

    def __init__(self, dataset: Dataset[_T_co], indices: Sequence[int]) -> None:
        self.dataset = dataset
        self.indices = indices

    def __getitem__(self, idx: Any) -> Any:  # a list of positions gives the dataset's answer for a list
        if isinstance(idx, list):
            return self.dataset[[self.indices[i] for i in idx]]
        return self.dataset[self.indices[idx]]

    def __len__(self) -> int:
        return len(self.indices)


class ConcatDataset(Dataset[_T_co]):
    """The samples of several datasets, one after the other (``ds1 + ds2`` makes one).

    >>> ConcatDataset([["a", "b"], ["c"]])[2]
    'c'
    """

    def __init__(self, datasets: Iterable[Dataset[_T_co]]) -> None:
        self.datasets = list(datasets)
        if not self.datasets:
            raise AssertionError("datasets should not be an empty iterable")
        self.cumulative_sizes = list(itertools.accumulate(len(d) for d in self.datasets))

    def __len__(self) -> int:
        return self.cumulative_sizes[-1]

    def __getitem__(self, idx: int) -> _T_co:
        if idx < 0:
            if -idx > len(self):
                raise ValueError("absolute value of index should not exceed dataset length")
            idx = len(self) + idx
        which = bisect.bisect_right(self.cumulative_sizes, idx)
        return self.datasets[which][idx - (self.cumulative_sizes[which - 1] if which else 0)]


def random_split(dataset: Any, lengths: Sequence[int | float], generator: Any = None) -> list[Subset]:
    """Split ``dataset`` at random into Subsets of ``lengths`` (counts, or fractions summing to 1).

    Fractions are rounded down, then the leftover items go one each to the first splits.

    >>> [len(s) for s in random_split(range(10), [0.25, 0.75])]
    [3, 7]
    """
    if math.isclose(sum(lengths), 1) and sum(lengths) <= 1:
        counts = []
        for i, frac in enumerate(lengths):
            if frac < 0 or frac > 1:
                raise ValueError(f"Fraction at index {i} is not between 0 and 1")
            counts.append(math.floor(len(dataset) * frac))
        for i in range(len(dataset) - sum(counts)):
            counts[i % len(counts)] += 1
        lengths = counts
        for i, length in enumerate(lengths):
            if length == 0:
                warnings.warn(
                    f"Length of split at index {i} is 0. This might result in an empty dataset.", stacklevel=2
                )
    if sum(lengths) != len(dataset):
        raise ValueError("Sum of input lengths does not equal the length of the input dataset!")
    indices = randperm(sum(lengths), generator=generator).tolist()
    ends = itertools.accumulate(lengths)
    return [Subset(dataset, indices[end - length : end]) for end, length in zip(ends, lengths)]


# ------------------------------------------------ collating samples into a batch


def default_collate(batch: Sequence[Any]) -> Any:
    """One batch from a list of samples, field by field, as torch's default_collate.

    >>> import gradbook as torch
    >>> default_collate([(torch.ones(2), 1), (torch.zeros(2), 0)])
    [tensor([[1., 1.],
            [0., 0.]]), tensor([1, 0])]
    """
    elem = batch[0]
    if isinstance(elem, Tensor):
        return stack(list(batch), 0)
    if type(elem).__module__ == "numpy" and type(elem).__name__ not in ("str_", "string_"):
        if isinstance(elem, np.ndarray):
            if _STRING_ARRAY.search(elem.dtype.str) is not None:
                raise TypeError(COLLATE_ERROR.format(elem.dtype))
            return default_collate([as_tensor(b) for b in batch])
        return as_tensor(np.array(batch))  # NumPy scalars
    if isinstance(elem, float):
        return tensor(batch, dtype=float64)
    if isinstance(elem, int):
        return tensor(batch)
    if isinstance(elem, (str, bytes)):
        return batch
    if isinstance(elem, collections.abc.Mapping):
        return _rebuilt(elem, {key: default_collate([d[key] for d in batch]) for key in elem})
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):  # a namedtuple stays one
        return type(elem)(*(default_collate(samples) for samples in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        size = len(elem)
        if not all(len(e) == size for e in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        fields = [default_collate(samples) for samples in zip(*batch)]
        return fields if isinstance(elem, tuple) else _rebuilt(elem, fields)
    raise TypeError(COLLATE_ERROR.format(type(elem)))


def default_convert(data: Any) -> Any:
    """A sample as tensors, without batching (``batch_size=None``): NumPy data becomes tensors.

    >>> default_convert((np.zeros(2), "a"))
    [tensor([0., 0.], dtype=gradbook.float64), 'a']
    """
    if isinstance(data, Tensor):
        return data
    if type(data).__module__ == "numpy" and type(data).__name__ not in ("str_", "string_"):
        if isinstance(data, np.ndarray) and _STRING_ARRAY.search(data.dtype.str) is not None:
            return data
        return as_tensor(data)
    if isinstance(data, collections.abc.Mapping):
        return _rebuilt(data, {key: default_convert(data[key]) for key in data})
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return type(data)(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        return _rebuilt(data, [default_convert(d) for d in data])
    return data


def _rebuilt(like: Any, values: Any) -> Any:
    """``values`` in a container of ``like``'s type (a copy for mutable ones), else a plain one."""
    try:
        if isinstance(like, (collections.abc.MutableMapping, collections.abc.MutableSequence)):
            clone = copy.copy(like)
            if isinstance(like, collections.abc.MutableMapping):
                clone.update(values)
            else:
                clone[:] = values
            return clone
        return type(like)(values)
    except TypeError:
        return values


# ------------------------------------------------ samplers: the order samples load in


class Sampler(Generic[_T_co]):
    """Base class of samplers: ``iter()`` gives indices (or, for a batch sampler, lists of them)."""

    def __init__(self, data_source: Any = None) -> None:
        if data_source is not None:
            warnings.warn(
                "`data_source` argument is not used and will be removed in 2.2.0.You may still have custom "
                "implementation that utilizes it.",
                UserWarning,
                stacklevel=2,
            )

    def __iter__(self) -> Iterator[_T_co]:
        raise NotImplementedError


class SequentialSampler(Sampler[int]):
    """0, 1, 2, … len(data_source) - 1: what a DataLoader without ``shuffle`` uses."""

    def __init__(self, data_source: Any) -> None:
        self.data_source = data_source

    def __iter__(self) -> Iterator[int]:
        return iter(range(len(self.data_source)))

    def __len__(self) -> int:
        return len(self.data_source)


class RandomSampler(Sampler[int]):
    """A random order, as torch draws it (``shuffle=True``): a permutation per pass from ``generator``, or
    from a new Generator seeded by one draw from the default one; with ``replacement``, 32 draws at a time."""

    def __init__(
        self, data_source: Any, replacement: bool = False, num_samples: int | None = None, generator: Any = None
    ) -> None:
        self.data_source, self.replacement, self._num_samples, self.generator = (
            data_source,
            replacement,
            num_samples,
            generator,
        )
        if not isinstance(replacement, bool):
            raise TypeError(f"replacement should be a boolean value, but got replacement={replacement}")
        if not isinstance(self.num_samples, int) or self.num_samples <= 0:
            raise ValueError(f"num_samples should be a positive integer value, but got num_samples={self.num_samples}")

    @property
    def num_samples(self) -> int:
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self) -> Iterator[int]:
        n = len(self.data_source)
        gen = self.generator
        if gen is None:
            seed = int(_distributions.random_bits(default_generator, 1, np.int64)[0])
            gen = Generator().manual_seed(seed)
        if self.replacement:
            for _ in range(self.num_samples // 32):
                yield from randint(0, n, (32,), generator=gen).tolist()
            yield from randint(0, n, (self.num_samples % 32,), generator=gen).tolist()
        else:
            for _ in range(self.num_samples // n):
                yield from randperm(n, generator=gen).tolist()
            yield from randperm(n, generator=gen).tolist()[: self.num_samples % n]

    def __len__(self) -> int:
        return self.num_samples


class SubsetRandomSampler(Sampler[int]):
    """The given indices, in a random order (``randperm`` of their count)."""

    def __init__(self, indices: Sequence[int], generator: Any = None) -> None:
        self.indices, self.generator = indices, generator

    def __iter__(self) -> Iterator[int]:
        for i in randperm(len(self.indices), generator=self.generator).tolist():
            yield self.indices[i]

    def __len__(self) -> int:
        return len(self.indices)


class WeightedRandomSampler(Sampler[int]):
    """``num_samples`` indices drawn with probability proportional to ``weights`` (``multinomial``)."""

    def __init__(self, weights: Sequence[float], num_samples: int, replacement: bool = True, generator: Any = None):
        if not isinstance(num_samples, int) or isinstance(num_samples, bool) or num_samples <= 0:
            raise ValueError(f"num_samples should be a positive integer value, but got num_samples={num_samples}")
        if not isinstance(replacement, bool):
            raise ValueError(f"replacement should be a boolean value, but got replacement={replacement}")
        weights_tensor = as_tensor(weights, dtype=float64)
        if len(weights_tensor.shape) != 1:
            raise ValueError(
                f"weights should be a 1d sequence but given weights have shape {tuple(weights_tensor.shape)}"
            )
        self.weights, self.num_samples, self.replacement, self.generator = (
            weights_tensor,
            num_samples,
            replacement,
            generator,
        )

    def __iter__(self) -> Iterator[int]:
        drawn = multinomial(self.weights, self.num_samples, self.replacement, generator=self.generator)
        yield from iter(drawn.tolist())

    def __len__(self) -> int:
        return self.num_samples


class BatchSampler(Sampler[list[int]]):
    """Lists of ``batch_size`` indices from ``sampler`` (the last one shorter unless ``drop_last``).

    >>> list(BatchSampler(SequentialSampler(range(5)), batch_size=2, drop_last=False))
    [[0, 1], [2, 3], [4]]
    """

    def __init__(self, sampler: Any, batch_size: int, drop_last: bool) -> None:
        if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size <= 0:
            raise ValueError(f"batch_size should be a positive integer value, but got batch_size={batch_size}")
        if not isinstance(drop_last, bool):
            raise ValueError(f"drop_last should be a boolean value, but got drop_last={drop_last}")
        self.sampler, self.batch_size, self.drop_last = sampler, batch_size, drop_last

    def __iter__(self) -> Iterator[list[int]]:
        indices = iter(self.sampler)
        while batch := list(itertools.islice(indices, self.batch_size)):
            if len(batch) < self.batch_size and self.drop_last:
                return
            yield batch

    def __len__(self) -> int:
        n = len(self.sampler)
        return n // self.batch_size if self.drop_last else math.ceil(n / self.batch_size)


# ------------------------------------------------ the loader


class DataLoader:
    """Batches of ``dataset``: ``batch_size`` samples each, collated by ``collate_fn``.

    ``shuffle=True`` draws a new order every epoch (every ``iter()``); ``drop_last=True`` drops a
    last, smaller batch. ``len()`` is the number of batches. Samples load in this process:
    ``num_workers`` is accepted and gives the same batches.

    >>> import gradbook as torch
    >>> loader = DataLoader(TensorDataset(torch.zeros(10, 3)), batch_size=4, shuffle=True)
    >>> len(loader), [batch[0].shape for batch in loader]
    (3, [gradbook.Size([4, 3]), gradbook.Size([4, 3]), gradbook.Size([2, 3])])
    """

    def __init__(
        self,
        dataset: Any,
        batch_size: int | None = 1,
        shuffle: bool | None = None,
        sampler: Any = None,
        batch_sampler: Any = None,
        num_workers: int = 0,
        collate_fn: Callable[[list[Any]], Any] | None = None,
        pin_memory: bool = False,
        drop_last: bool = False,
        timeout: float = 0,
        worker_init_fn: Callable[[int], None] | None = None,
        multiprocessing_context: Any = None,
        generator: Any = None,
    ) -> None:
        if num_workers < 0:
            raise ValueError("num_workers option should be non-negative; use num_workers=0 to disable multiprocessing.")
        if timeout < 0:
            raise ValueError("timeout option should be non-negative")
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None and (batch_size != 1 or shuffle or sampler is not None or drop_last):
            raise ValueError(
                "batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, and drop_last"
            )
        if batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching and is mutually exclusive with drop_last")
        if batch_sampler is None and batch_size is not None:
            if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size <= 0:
                raise ValueError(f"batch_size should be a positive integer value, but got batch_size={batch_size}")
            if not isinstance(drop_last, bool):
                raise ValueError(f"drop_last should be a boolean value, but got drop_last={drop_last}")
        if batch_sampler is not None:
            batch_size, drop_last = None, False
        if sampler is None:  # as torch: the loader's order is a sampler, its batches a BatchSampler of it
            sampler = RandomSampler(dataset, generator=generator) if shuffle else SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        self.dataset = dataset
        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self.num_workers = num_workers
        self.generator = generator
        self.collate_fn = collate_fn or (default_collate if batch_sampler is not None else default_convert)

    def __iter__(self) -> Iterator[Any]:
        # torch's iterator starts by drawing a seed for its worker processes, even with none
        _distributions.random_bits(generator_of(self.generator, "random_"), 1, np.int64)
        return self._epoch()

    def _epoch(self) -> Iterator[Any]:
        if self.batch_sampler is None:  # batch_size=None: one sample at a time, not collated into a batch
            for i in self.sampler:
                yield self.collate_fn(self.dataset[i])
            return
        for batch in self.batch_sampler:
            yield self.collate_fn([self.dataset[i] for i in batch])

    def __len__(self) -> int:
        return len(self.batch_sampler if self.batch_sampler is not None else self.sampler)
