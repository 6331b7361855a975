"""Numbers and tensors as operands: lifting ``2`` in ``x * 2`` to a tensor (a wrapped number), torch's
dtype promotion, broadcasting errors, and dimension arguments."""

from __future__ import annotations

import builtins
from collections.abc import Sequence
from typing import Any

import numpy as np

from .. import _factories, ops
from .._dtypes import (
    promote_types,
    promoted,
    restore_numpy,
    scalar_dtype,
    silence_numpy,
)
from ..autograd.grad_mode import _State
from ..tensor import Tensor


def lift(value: Any, like: Tensor) -> Tensor:
    """A Tensor for ``value``: tensors pass through, numbers take the dtype torch would give (an
    integer that does not fit wraps, as torch's C++ conversion does; beyond 64 bits it refuses)."""
    if isinstance(value, Tensor):
        return value
    if isinstance(value, (builtins.int, np.integer)) and not isinstance(value, (builtins.bool, np.bool_)):
        if not -(2**63) <= value < 2**64:
            raise OverflowError("int too big to convert")
        want = scalar_dtype(value, like._array.dtype)
        t = Tensor._make(np.array(value if value < 2**63 else value - 2**64, dtype=np.int64).astype(want))
    elif isinstance(value, (builtins.float, np.number, np.bool_)):
        t = Tensor._make(np.array(value, dtype=scalar_dtype(value, like._array.dtype)))
    else:
        return _factories.tensor(value)
    t.__class__ = ops.WrappedNumber.of(value)  # saved, never packed by saved_tensors_hooks
    return t


_OPERANDS = (Tensor, builtins.int, builtins.float, np.number, np.bool_, np.ndarray)


def operand(value: Any) -> bool:
    """Whether an operator takes ``value`` as its other operand (as torch's do): a tensor, a
    number, or a NumPy array on the right (``x * np.ones(3)``). Anything else gets NotImplemented,
    so Python raises its own TypeError (and ``x * [1, 2]`` asks the list, as with torch)."""
    return isinstance(value, _OPERANDS)


def tensor_argument(value: Any, method: str, name: str = "other") -> Tensor:
    """A method's tensor argument, with torch's error for anything else."""
    if not isinstance(value, Tensor):
        raise TypeError(f"{method}(): argument '{name}' (position 1) must be Tensor, not {type(value).__name__}")
    return value


def argument(value: Any, method: str, name: str = "other") -> Any:
    """A method's tensor-or-number argument, with torch's error for anything else."""
    if not isinstance(value, (Tensor, builtins.int, builtins.float, np.number, np.bool_)):
        raise TypeError(f"{method}(): argument '{name}' (position 1) must be Tensor, not {type(value).__name__}")
    return value


def broadcast_check(a: tuple, b: tuple) -> None:
    for i in range(1, min(len(a), len(b)) + 1):
        if a[-i] != b[-i] and a[-i] != 1 and b[-i] != 1:
            raise RuntimeError(
                f"The size of tensor a ({a[-i]}) must match the size of tensor b ({b[-i]}) "
                f"at non-singleton dimension {max(len(a), len(b)) - i}"
            )


def pair(a: Tensor, b: Any) -> tuple[Tensor, Tensor]:
    if not isinstance(b, Tensor):
        b = lift(b, a)
    if a._array.shape != b._array.shape:
        broadcast_check(a._array.shape, b._array.shape)
    return a, b


def binary(cls: type[ops.Op], a: Tensor, b: Any, **params: Any) -> Tensor:
    """``cls.apply(a, b)`` for a broadcasting binary op, with torch's dtype promotion, numbers
    lifted to tensors and torch's broadcasting error. For two tensors of one dtype it is just
    ``cls.apply(a, b)``."""
    if isinstance(b, Tensor) and a._array.dtype is b._array.dtype:
        try:
            return cls.apply(a, b, **params)
        except ValueError:
            broadcast_check(a._array.shape, b._array.shape)  # raises torch's message
            raise
    if type(b) is float and a._array.dtype.kind == "f" and not (a.requires_grad and _State.enabled or _State.dual):
        quiet = silence_numpy()  # the fast path for x * 0.5: NumPy keeps float32 for a Python float
        try:
            return Tensor._make(cls.forward(a._array, b, **params))
        finally:
            restore_numpy(quiet)
    if not isinstance(b, _OPERANDS):
        return NotImplemented  # Python raises its TypeError (or asks b: [1, 2] * x)
    if isinstance(b, np.ndarray):  # a NumPy array counts as a tensor of its own dtype, 0-d or not
        b = _factories.tensor(b)
        return promoting(cls, a, b, want=promote_types(a._array.dtype, b._array.dtype), **params)
    if not isinstance(b, Tensor):
        b = lift(b, a)
    try:
        return promoting(cls, a, b, **params)
    except ValueError:
        broadcast_check(a._array.shape, b._array.shape)  # raises torch's message
        raise


def promoting(cls: type[ops.Op], a: Tensor, b: Tensor, want: np.dtype | None = None, **params: Any) -> Tensor:
    """``cls.apply(a, b)`` with its result in torch's promoted dtype (or ``want``)."""
    x, y = a._array, b._array
    if x.dtype != y.dtype or want is not None:
        want = want if want is not None else promoted(x, y)
    return cls.apply(a, b, out_dtype=want, **params)


def check_dim(d: int, ndim: int) -> int:
    """A dimension index in range, counting negative ones from the end, as torch checks it."""
    lo, hi = (-1, 0) if ndim == 0 else (-ndim, ndim - 1)
    if not lo <= d <= hi:
        raise IndexError(f"Dimension out of range (expected to be in range of [{lo}, {hi}], but got {d})")
    return d % max(ndim, 1)


def check_dims(dim: Any, ndim: int) -> tuple[int, ...]:
    if type(dim) is int and 0 <= dim < ndim:
        return (dim,)
    dims = tuple(sorted({check_dim(d, ndim) for d in (dim if isinstance(dim, (tuple, list)) else (dim,))}))
    return dims if ndim else ()  # a 0-d tensor accepts dim 0 or -1, and there is nothing to reduce


class ReturnType(tuple):
    _fields = ("values", "indices")

    @property
    def values(self) -> Tensor:
        return self[0]

    @property
    def indices(self) -> Tensor:
        return self[1]

    def __repr__(self) -> str:
        return f"gradbook.return_types.{self.name}(\nvalues={self[0]!r},\nindices={self[1]!r})"


def tensor_list(tensors: Sequence[Any], caller: str) -> list[Tensor]:
    """cat's and stack's tensors, with torch's errors for anything else."""
    if isinstance(tensors, Tensor):
        raise TypeError(f"{caller}(): argument 'tensors' (position 1) must be tuple of Tensors, not Tensor")
    tensors = list(tensors)
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got {type(t).__name__}")
    return tensors
