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

import collections.abc
import copy
import itertools
import math
import re
import warnings
from collections.abc import Callable, Iterator, Sequence
from typing import Any, Generic, TypeVar

import numpy as np

from .. import _distributions
from .._dtypes import float64
from .._factories import Generator, as_tensor, default_generator, generator_of, randperm, tensor
from .._functions import stack
from ..tensor import Tensor

__all__ = ["DataLoader", "Dataset", "Subset", "TensorDataset", "default_collate", "default_convert", "random_split"]

COLLATE_ERROR = "default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found {}"
_STRING_ARRAY = re.compile(r"[SaUO]")  # NumPy dtypes of strings and objects: not collated into tensors
_T_co = TypeVar("_T_co", covariant=True)


class Dataset(Generic[_T_co]):
    """Base class of map-style datasets: a subclass defines ``__getitem__`` (and ``__len__``).

    As in torch it is generic: ``class Pairs(Dataset[tuple[Tensor, int]])`` names the sample type.
    """

    def __getitem__(self, index: Any) -> _T_co:
        raise NotImplementedError("Subclasses of Dataset should implement __getitem__.")


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
        self.dataset = dataset
        self.batch_size = batch_size if batch_sampler is None else None
        self.shuffle = bool(shuffle)
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self.num_workers = num_workers
        self.drop_last = drop_last
        self.generator = generator
        auto_batching = batch_size is not None or batch_sampler is not None
        self.collate_fn = collate_fn or (default_collate if auto_batching else default_convert)

    def _indices(self) -> Iterator[Any]:
        """This epoch's sample indices, in the order they load."""
        if self.sampler is not None:
            return iter(self.sampler)
        if self.shuffle:
            return self._shuffled()
        return iter(range(len(self.dataset)))

    def _shuffled(self) -> Iterator[int]:
        """torch's RandomSampler: a permutation from ``generator``, or without one from a new
        Generator seeded by a draw from the default one."""
        n = len(self.dataset)
        gen = self.generator
        if gen is None:
            seed = int(_distributions.random_bits(default_generator, 1, np.int64)[0])
            gen = Generator().manual_seed(seed)
        yield from randperm(n, generator=gen).tolist()
        randperm(n, generator=gen)  # exhausted, torch's sampler draws one more permutation (for 0 samples)

    def _batches(self) -> Iterator[Any]:
        """This epoch's batches of indices (single indices when batching is off)."""
        if self.batch_sampler is not None:
            return iter(self.batch_sampler)
        indices = self._indices()
        if self.batch_size is None:
            return indices
        return self._grouped(indices)

    def _grouped(self, indices: Iterator[int]) -> Iterator[list[int]]:
        while batch := list(itertools.islice(indices, self.batch_size)):
            if len(batch) < self.batch_size and self.drop_last:
                return
            yield batch

    def __iter__(self) -> Iterator[Any]:
        # torch's iterator starts by drawing a seed for its worker processes, even with none
        _distributions.random_bits(generator_of(self.generator, "random_"), 1, np.int64)
        return self._epoch()

    def _epoch(self) -> Iterator[Any]:
        auto_batching = self.batch_size is not None or self.batch_sampler is not None
        for batch in self._batches():
            if auto_batching:
                yield self.collate_fn([self.dataset[i] for i in batch])
            else:
                yield self.collate_fn(self.dataset[batch])

    def __len__(self) -> int:
        if self.batch_sampler is not None:
            return len(self.batch_sampler)
        n = len(self.sampler) if self.sampler is not None else len(self.dataset)
        if self.batch_size is None:
            return n
        return n // self.batch_size if self.drop_last else math.ceil(n / self.batch_size)
