"""Making tensors: ``tensor()`` and the factories (ones, zeros, arange, randn, ...), and the seed."""

from __future__ import annotations

import builtins
from typing import Any

import numpy as np

from ._dtypes import DTYPES, float32, int64
from ._dtypes import to_dtype as _to_dtype
from .tensor import Tensor

_rng = np.random.default_rng(0)


def tensor(data: Any, dtype: Any = None, requires_grad: builtins.bool = False) -> Tensor:
    """Make a leaf tensor from a number, a (nested) list, a NumPy array or a tensor (copied).

    Python floats become float32 (torch's default), ints int64, bools bool; a NumPy array keeps
    its dtype.

    >>> import gradbook as torch
    >>> torch.tensor([2, 3, 4], dtype=torch.float, requires_grad=True)
    tensor([2., 3., 4.], requires_grad=True)
    """
    if isinstance(data, Tensor):
        array = data._array.copy()
    else:
        array = np.array(data)
        if not isinstance(data, np.ndarray) and array.dtype.kind == "f":
            array = array.astype(np.float32)
    if dtype is not None:
        array = array.astype(_to_dtype(dtype).numpy)
    elif array.dtype not in DTYPES:
        kind = array.dtype.kind
        if kind in "iu":
            array = array.astype(np.int64)
        elif kind == "f":
            array = array.astype(np.float32)
        else:
            raise TypeError(f"can't convert {type(data).__name__} of dtype {array.dtype} to a tensor")
    return _new_leaf(array, requires_grad)


def _new_leaf(array: np.ndarray, requires_grad: builtins.bool) -> Tensor:
    """A leaf made by a factory: torch words the integer error differently than requires_grad_()."""
    t = Tensor._make(array)
    if requires_grad:
        if array.dtype.kind != "f":
            raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
        t.requires_grad = True
    return t


def as_tensor(data: Any, dtype: Any = None) -> Tensor:
    """Like ``tensor``, but returns a tensor unchanged (or converted) instead of copying it."""
    if isinstance(data, Tensor):
        return data if dtype is None else data.to(dtype)
    return tensor(data, dtype)


def from_numpy(array: np.ndarray) -> Tensor:
    """A tensor sharing memory with a NumPy array."""
    return Tensor._make(array)


def manual_seed(seed: builtins.int) -> None:
    """Seed gradbook's random numbers (rand, randn, nn.Linear's initial weights).

    The numbers differ from torch's for the same seed: only the determinism carries over.
    """
    global _rng
    _rng = np.random.default_rng(seed)


def _shape(size: tuple) -> tuple[builtins.int, ...]:
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = tuple(size[0])
    return tuple(builtins.int(s) for s in size)


def _leaf(array: np.ndarray, dtype: Any, requires_grad: builtins.bool) -> Tensor:
    return _new_leaf(
        array.astype((_to_dtype(dtype) if dtype is not None else float32).numpy, copy=False), requires_grad
    )


def ones(*size: Any, dtype: Any = None, requires_grad: builtins.bool = False) -> Tensor:
    """A tensor of ones with the given shape (float32 unless ``dtype`` says otherwise)."""
    return _leaf(np.ones(_shape(size)), dtype, requires_grad)


def zeros(*size: Any, dtype: Any = None, requires_grad: builtins.bool = False) -> Tensor:
    """A tensor of zeros with the given shape."""
    return _leaf(np.zeros(_shape(size)), dtype, requires_grad)


empty = zeros


def full(size: Any, fill_value: Any, dtype: Any = None, requires_grad: builtins.bool = False) -> Tensor:
    """A tensor filled with ``fill_value``; its dtype follows the value (int64, float32, bool)."""
    if dtype is None and isinstance(fill_value, (builtins.bool, builtins.int)):
        dtype = builtins.bool if isinstance(fill_value, builtins.bool) else int64
    return _leaf(np.full(_shape((size,)), fill_value), dtype, requires_grad)


def _like(t: Tensor, dtype: Any) -> Any:
    return dtype if dtype is not None else t.dtype


def ones_like(t: Tensor, dtype: Any = None, requires_grad: builtins.bool = False) -> Tensor:
    """Ones with the shape and dtype of ``t``: the usual ``gradient=`` for a non-scalar backward."""
    return _leaf(np.ones(t._array.shape), _like(t, dtype), requires_grad)


def zeros_like(t: Tensor, dtype: Any = None, requires_grad: builtins.bool = False) -> Tensor:
    """Zeros with the shape and dtype of ``t``."""
    return _leaf(np.zeros(t._array.shape), _like(t, dtype), requires_grad)


def full_like(t: Tensor, fill_value: Any, dtype: Any = None, requires_grad: builtins.bool = False) -> Tensor:
    return _leaf(np.full(t._array.shape, fill_value), _like(t, dtype), requires_grad)


def arange(
    start: Any, end: Any = None, step: Any = 1, dtype: Any = None, requires_grad: builtins.bool = False
) -> Tensor:
    """Values from ``start`` up to (not including) ``end``; int64 if all arguments are integers."""
    if end is None:
        start, end = 0, start
    if dtype is None:
        ints = all(isinstance(v, builtins.int) for v in (start, end, step))
        dtype = int64 if ints else float32
    return _leaf(np.arange(start, end, step), dtype, requires_grad)


def linspace(
    start: Any, end: Any, steps: builtins.int, dtype: Any = None, requires_grad: builtins.bool = False
) -> Tensor:
    """``steps`` evenly spaced values from ``start`` to ``end`` inclusive."""
    return _leaf(np.linspace(start, end, steps), dtype, requires_grad)


def eye(
    n: builtins.int, m: builtins.int | None = None, dtype: Any = None, requires_grad: builtins.bool = False
) -> Tensor:
    """The identity matrix (n × m)."""
    return _leaf(np.eye(n, m), dtype, requires_grad)


def rand(*size: Any, dtype: Any = None, requires_grad: builtins.bool = False) -> Tensor:
    """Uniform random numbers in [0, 1) (seed with ``manual_seed``)."""
    return _leaf(_rng.random(_shape(size)), dtype, requires_grad)


def randn(*size: Any, dtype: Any = None, requires_grad: builtins.bool = False) -> Tensor:
    """Standard normal random numbers (seed with ``manual_seed``)."""
    return _leaf(_rng.standard_normal(_shape(size)), dtype, requires_grad)


def rand_like(t: Tensor, dtype: Any = None) -> Tensor:
    return rand(t._array.shape, dtype=_like(t, dtype))


def randn_like(t: Tensor, dtype: Any = None) -> Tensor:
    return randn(t._array.shape, dtype=_like(t, dtype))


def randint(low: builtins.int, high: Any = None, size: Any = None, dtype: Any = None) -> Tensor:
    """Random integers in [low, high): ``randint(high, size)`` or ``randint(low, high, size)``."""
    if size is None:
        low, high, size = 0, low, high
    return _leaf(_rng.integers(low, high, _shape((size,))), dtype or int64, False)


def randperm(n: builtins.int, dtype: Any = None) -> Tensor:
    """A random permutation of 0 .. n-1."""
    return _leaf(_rng.permutation(n), dtype or int64, False)
