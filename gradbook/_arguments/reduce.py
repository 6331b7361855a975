"""Reductions' arguments: ``dim``, ``keepdim``, ``correction``, and max/min's (values, indices) pairs."""

from __future__ import annotations

import builtins
import warnings
from typing import Any

import numpy as np

from .. import ops
from .._dtypes import (
    DTYPES,
    default_float,
    scalar_name,
    to_dtype,
)
from ..autograd.inplace import watch
from ..tensor import Tensor
from .operands import ReturnType, check_dim, check_dims
from .shape import narrow


def var(cls: type[ops.Op], t: Tensor, dim: Any, unbiased: Any, keepdim: bool, correction: Any = None) -> Tensor:
    """var/std, with torch's overloads: ``var(dim, unbiased, keepdim)``, ``var(unbiased)``, ``correction=``."""
    if isinstance(dim, builtins.bool):  # x.var(False): the old spelling of unbiased
        dim, unbiased = None, dim
    if t._array.dtype.kind != "f":
        raise RuntimeError("std and var only support floating point and complex dtypes")
    if correction is not None and unbiased is not None:  # torch has no overload with both
        name = cls.__name__[:3].lower()
        got = f"correction={type(correction).__name__}, unbiased={type(unbiased).__name__}"  # sorted, as torch
        raise TypeError(f"{name}() received an invalid combination of arguments - got ({got}, ), but expected one of:")
    if correction is None:
        correction = 0 if unbiased is False else 1
    dims = None if dim is None else check_dims(dim, t.ndim)
    count = t._array.size if dims is None else int(np.prod([t._array.shape[d] for d in dims]))
    if count - correction <= 0:
        warnings.warn(
            f"{cls.__name__[:3].lower()}(): degrees of freedom is <= 0. Correction should be strictly less than the "
            "reduction factor (input numel divided by output numel).",
            UserWarning,
            stacklevel=3,
        )
    return cls.apply(t, dim=dims, correction=correction, keepdim=keepdim)


def vector_norm(  # noqa: A002
    t: Tensor, ord: Any, dim: Any, keepdim: bool, caller: str = "linalg.vector_norm", dtype: Any = None
) -> Tensor:
    """The p-norm of all elements, or along ``dim`` (p > 0 or inf), computed in ``dtype`` if given."""
    if t._array.dtype.kind != "f":
        raise RuntimeError(
            "linalg.vector_norm: Expected a floating point or complex tensor as input. Got "
            f"{scalar_name(t._array.dtype)}"
        )
    if isinstance(ord, str) or not float(ord) > 0:
        raise NotImplementedError(
            f"gradbook's {caller} takes p > 0 or inf (got {ord!r}); matrix norms such as 'nuc' are not there: "
            "compute them from the singular values in NumPy"
        )
    dims = None if dim is None else check_dims(dim, t.ndim)
    if dtype is not None:
        d = to_dtype(dtype, caller)
        if d.numpy.kind != "f":
            raise RuntimeError(
                f"linalg.vector_norm: dtype should be floating point or complex, but got {scalar_name(d.numpy)}"
            )
        if d.numpy.itemsize < t._array.dtype.itemsize:
            raise RuntimeError(
                f"linalg.vector_norm: the dtype of the input ({scalar_name(t._array.dtype)}) should be convertible "
                f"without narrowing to the specified dtype ({scalar_name(d.numpy)})"
            )
        return ops.LinalgVectorNormBackward0.apply(t, ord=float(ord), dim=dims, keepdim=keepdim, dtype=d.numpy)
    return ops.LinalgVectorNormBackward0.apply(t, ord=float(ord), dim=dims, keepdim=keepdim)


def reduce(whole: type[ops.Op], along: type[ops.Op], t: Tensor, dim: Any, keepdim: bool) -> Tensor:
    """sum/mean: over everything (``whole`` op), or along ``dim`` (``along`` op)."""
    if whole is ops.MeanBackward0 and t._array.dtype.kind != "f":
        raise RuntimeError(
            "mean(): could not infer output dtype. Input dtype must be either a floating point or "
            f"complex dtype. Got: {scalar_name(t._array.dtype)}"
        )
    if dim is None and not keepdim:
        return whole.apply(t)
    every = dim is None or (isinstance(dim, (tuple, list)) and not dim)  # None with keepdim, or (): every dim
    return along.apply(t, dim=tuple(range(t.ndim)) if every else check_dims(dim, t.ndim), keepdim=keepdim)


class _Max(ReturnType):
    name = "max"


class _Min(ReturnType):
    name = "min"


def extreme(t: Tensor, dim: Any, keepdim: bool, which: str) -> Any:
    """max/min: of everything, ``(values, indices)`` along ``dim``, or with a tensor in place of
    ``dim``, elementwise (``torch.max(a, b)`` is ``torch.maximum(a, b)``)."""
    if isinstance(dim, Tensor) and keepdim is False:
        return t.maximum(dim) if which == "max" else t.minimum(dim)
    if dim is None:
        if t._array.size == 0:
            raise RuntimeError(
                f"{which}(): Expected reduction dim to be specified for input.numel() == 0. Specify the reduction "
                "dim with the 'dim' argument."
            )
        return (ops.MaxBackward1 if which == "max" else ops.MinBackward1).apply(t)
    d = check_dim(dim, t.ndim)
    indices = (np.argmax if which == "max" else np.argmin)(t._array, axis=d, keepdims=keepdim)  # saved as returned
    values = (ops.MaxBackward0 if which == "max" else ops.MinBackward0).apply(
        t, dim=d, keepdim=keepdim, indices=indices
    )
    idx = Tensor._make(indices)
    return (_Max if which == "max" else _Min)((watch(values, idx), idx))  # torch saves the indices it returns


def arg_extreme(fn: Any, t: Tensor, dim: Any, keepdim: bool) -> Tensor:
    if dim is None:  # the flat index; with keepdim, in a tensor of t's rank
        flat = np.asarray(fn(t._array), dtype=np.int64)
        return Tensor._make(flat.reshape((1,) * t.ndim) if keepdim else flat)
    d = check_dim(dim, t.ndim)
    return Tensor._make(fn(t._array, axis=d, keepdims=keepdim))


def amax(t: Tensor, dim: Any, keepdim: bool, cls: type[ops.Op]) -> Tensor:
    every = dim is None or (isinstance(dim, (tuple, list)) and not dim)
    dims = tuple(range(t.ndim)) if every else check_dims(dim, t.ndim)
    return cls.apply(t, dim=dims, keepdim=keepdim)


def logsumexp(t: Tensor, dim: Any, keepdim: bool) -> Tensor:
    t = t if t.is_floating_point() else t.to(DTYPES[default_float()])  # an integer tensor: its float logsumexp
    return ops.LogsumexpBackward0.apply(t, dim=check_dims(dim, t.ndim), keepdim=keepdim)


def diff(t: Tensor, n: int, dim: int) -> Tensor:
    """Differences of neighbours along dim, n times (each a SubBackward0 of two slices, as torch)."""
    d = check_dim(dim, t.ndim)
    for _ in range(n):
        size = t._array.shape[d]
        t = narrow(t, d, 1, size - 1) - narrow(t, d, 0, size - 1)
    return t
