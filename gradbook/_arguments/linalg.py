"""Which matrix product ``@`` is (dot, mv, mm, bmm, broadcast), and addmm, with torch's shape errors."""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import _factories, ops
from .._dtypes import (
    c_name,
    scalar_name,
)
from .._messages import warn_once
from ..tensor import Tensor
from .operands import broadcast_check, check_dim
from .shape import expanded_shape, unsafe_view


def matmul(a: Tensor, b: Tensor) -> Tensor:
    """Matrix product with torch's dispatch: dot (1-D·1-D), mv (2-D·1-D), mm (2-D·2-D), batched."""
    if not isinstance(b, (Tensor, np.ndarray)):
        return NotImplemented
    b = b if isinstance(b, Tensor) else _factories.tensor(b)
    x, y = a._array, b._array
    if x.ndim == 2 and y.ndim == 2 and x.shape[1] == y.shape[0] and x.dtype == y.dtype:
        return ops.MmBackward0.apply(a, b)  # the common case first: checks below give the errors
    if x.ndim == 0 or y.ndim == 0:
        raise RuntimeError(f"both arguments to matmul need to be at least 1D, but they are {x.ndim}D and {y.ndim}D")
    if x.ndim == 1 and y.ndim == 1:
        return dot(a, b)
    if x.ndim == 2 and y.ndim == 1:
        if x.shape[1] != y.shape[0]:
            raise RuntimeError(
                f"size mismatch, got input ({x.shape[0]}), mat ({x.shape[0]}x{x.shape[1]}), vec ({y.shape[0]})"
            )
        _same_dtype(x, y, "mv")
        return ops.MvBackward0.apply(a, b)
    if x.ndim == 1:
        if y.ndim > 2 and x.dtype != y.dtype:  # torch folds the product into one mv if a requires grad
            _same_dtype(*((y, x, "mv") if a.requires_grad else (x, y, "bmm")))
        out = matmul(a.unsqueeze(0), b)
        return ops.SqueezeBackward4.apply(out, shape=y.shape[:-2] + y.shape[-1:], dim=out.ndim - 2)
    if y.ndim == 1:
        _same_dtype(x, y, "mv")
        out = matmul(a, b.unsqueeze(1))
        return ops.SqueezeBackward4.apply(out, shape=x.shape[:-1], dim=out.ndim - 1)
    if x.shape[-1] != y.shape[-2]:
        if x.ndim == 2 and y.ndim == 2:
            _mm_shapes(x, y)
        raise RuntimeError(
            f"Expected size for first two dimensions of batch2 tensor to be: [{x.shape[0]}, {x.shape[-1]}] "
            f"but got: [{y.shape[0]}, {y.shape[-2]}]."
        )
    if x.ndim == 2 and y.ndim == 2:
        _same_dtype(x, y, "mm")
        return ops.MmBackward0.apply(a, b)
    broadcast_check(x.shape[:-2], y.shape[:-2])
    if x.dtype != y.dtype:  # torch folds the product into one mm for (..., n, k) @ (k, m), and for
        # (n, k) @ (..., k, m) if a requires grad; otherwise it is a bmm
        folded = y.ndim == 2 or (x.ndim == 2 and a.requires_grad)
        _same_dtype(*((x, y, "mm") if y.ndim == 2 else (y, x, "mm") if folded else (x, y, "bmm")))
    return ops.BmmBackward0.apply(a, b)


def dot(a: Tensor, b: Tensor) -> Tensor:
    """Σᵢ aᵢ bᵢ for two 1-D tensors of the same length."""
    if a.ndim != 1 or b.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {a.ndim}D and {b.ndim}D tensors")
    _same_dtype(a._array, b._array, "dot")
    if a._array.shape != b._array.shape:
        n, m = a._array.shape[0], b._array.shape[0]
        raise RuntimeError(
            f"inconsistent tensor size, expected tensor [{n}] and src [{m}] to have the same number "
            f"of elements, but got {n} and {m} elements respectively"
        )
    return ops.DotBackward0.apply(a, b)


def addmm(bias: Tensor, mat1: Tensor, mat2: Tensor, beta: Any = 1, alpha: Any = 1) -> Tensor:
    """beta · bias + alpha · mat1 @ mat2 as one node (``F.linear``), with torch's checks."""
    b, x, y = bias._array, mat1._array, mat2._array
    d = y.dtype
    if b.dtype != d or x.dtype != d or x.shape[1] != y.shape[0] or (b.shape != y.shape[1:] and b.ndim):
        if b.dtype != d:
            t1, t2 = scalar_name(b.dtype), scalar_name(d)
            raise RuntimeError(f"self and mat2 must have the same dtype, but got {t1} and {t2}")
        _same_dtype(x, y, "addmm")
        _mm_shapes(x, y)
        expanded_shape(b.shape, (x.shape[0], y.shape[1]))  # raises torch's message if bias does not fit
    if beta == 1 and alpha == 1:
        return ops.AddmmBackward0.apply(bias, mat1, mat2)
    return ops.AddmmBackward0.apply(bias, mat1, mat2, beta=beta, alpha=alpha)


def _same_dtype(x: np.ndarray, y: np.ndarray, op: str) -> None:
    """Matrix products do not promote dtypes: torch refuses float32 @ float64, with these messages."""
    if x.dtype == y.dtype:
        return
    t1, t2 = scalar_name(x.dtype), scalar_name(y.dtype)
    if op == "dot":
        raise RuntimeError(f"dot : expected both vectors to have same dtype, but found {t1} and {t2}")
    if op == "mv":  # x is the matrix, y the vector
        raise RuntimeError(f"addmv input tensors must have the same dtype, but got {t2}, {t1}, and {t2}")
    if op == "bmm":
        raise RuntimeError(f"expected scalar type {t1} but found {t2}")
    if op == "addmm":  # x is mat1, y is mat2
        raise RuntimeError(f"mat1 and mat2 must have the same dtype, but got {t1} and {t2}")
    c1, c2 = c_name(x.dtype), c_name(y.dtype)
    raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: {c1} != {c2}")


def _mm_shapes(x: np.ndarray, y: np.ndarray) -> None:
    """torch's check that two matrices can be multiplied."""
    if x.shape[1] != y.shape[0]:
        raise RuntimeError(
            f"mat1 and mat2 shapes cannot be multiplied ({x.shape[0]}x{x.shape[1]} and {y.shape[0]}x{y.shape[1]})"
        )


def bmm(a: Tensor, b: Tensor) -> Tensor:
    """torch.bmm's checks, then the batched product (BmmBackward0, as torch records it)."""
    for name, t in (("batch1", a), ("batch2", b)):
        if t.ndim != 3:
            raise RuntimeError(f"{name} must be a 3D tensor")
    if b.shape[:2] != (a.shape[0], a.shape[2]):
        raise RuntimeError(
            f"Expected size for first two dimensions of batch2 tensor to be: [{a.shape[0]}, {a.shape[2]}] but got: "
            f"[{b.shape[0]}, {b.shape[1]}]."
        )
    return matmul(a, b)


def cross(a: Tensor, b: Tensor, dim: Any, caller: str) -> Tensor:
    """a × b along ``dim`` (``linalg.cross``: -1 by default; ``torch.cross``: the first dim of size 3, with
    torch's deprecation warning), with torch's checks."""
    if a._array.dtype != b._array.dtype:
        ours, theirs = scalar_name(a._array.dtype), scalar_name(b._array.dtype)
        raise RuntimeError(f"expected scalar type {ours} but found {theirs}")
    if a.ndim != b.ndim:
        raise RuntimeError("linalg.cross: inputs must have the same number of dimensions.")
    broadcast_check(a._array.shape, b._array.shape)
    shape = np.broadcast_shapes(a._array.shape, b._array.shape)
    if dim is None and caller == "cross":
        warn_once(
            "Using gradbook.cross without specifying the dim arg is deprecated.\nPlease either pass the dim explicitly "
            "or simply use gradbook.linalg.cross.\nThe default value of dim will change to agree with that of "
            "linalg.cross in a future release."
        )
        dim = next((i for i, n in enumerate(shape) if n == 3), None)
        if dim is None:
            raise RuntimeError("no dimension of size 3 in input")
    dim = -1 if dim is None else dim
    d = check_dim(dim, a.ndim)
    if a._array.shape[d] != 3 or b._array.shape[d] != 3:
        got = f"{a._array.shape[d]} and {b._array.shape[d]}"
        raise RuntimeError(f"linalg.cross: inputs dimension {dim} must have length 3. Got {got}")
    return ops.LinalgCrossBackward0.apply(a, b, dim=dim)


def kron(a: Tensor, b: Tensor) -> Tensor:
    """The Kronecker product, as torch builds it: each input viewed with a size-1 dim beside each of its dims,
    one broadcast multiplication, and a view to the result's shape (UnsafeView, Mul, UnsafeView)."""
    n = max(a.ndim, b.ndim)
    sa = (1,) * (n - a.ndim) + a._array.shape
    sb = (1,) * (n - b.ndim) + b._array.shape
    a_view = unsafe_view(a, tuple(d for s in sa for d in (s, 1)))
    b_view = unsafe_view(b, tuple(d for s in sb for d in (1, s)))
    return unsafe_view(a_view * b_view, tuple(x * y for x, y in zip(sa, sb)))
