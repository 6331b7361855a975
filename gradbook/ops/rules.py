"""The helpers backward rules are written in.

A rule gets NumPy arrays in a plain ``backward()`` and Tensors under ``create_graph=True`` (so that
its own computation is recorded and can be differentiated again). Operators (+ - * / ** @ > ==),
``.T``, ``.mT``, ``.reshape``, ``.squeeze`` and indexing mean the same on both; these helpers cover
the rest, each the NumPy function on an array and the Tensor method on a Tensor."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._cascade import torch_sum
from ..tensor import Tensor


def unbroadcast(grad: Any, shape: tuple[int, ...]) -> Any:
    """Sum ``grad`` back to ``shape``: the adjoint of broadcasting ``shape`` up to ``grad.shape``.

    A broadcast input was used once per position it was copied to, so its gradient is the sum
    over those positions: over the leading dimensions it lacked, and over its size-1 dimensions.
    ``grad`` is a NumPy array or a Tensor.

    >>> import gradbook as torch
    >>> unbroadcast(torch.ones(2, 3), (3,))
    tensor([2., 2., 2.])
    """
    if isinstance(grad, Tensor):
        lead = grad._array.ndim - len(shape)
        if lead:
            grad = grad.sum(dim=tuple(range(lead)) if lead > 1 else 0)
        if grad._array.shape != shape:
            ones = tuple(i for i, n in enumerate(shape) if n == 1 and grad._array.shape[i] != 1)
            grad = grad.sum(dim=ones, keepdim=True)
        return grad
    lead = grad.ndim - len(shape)
    if grad.shape[lead:] == shape:  # only new leading dimensions (a bias): one reduction (NumPy's order:
        return np.add.reduce(grad, axis=tuple(range(lead)))  # torch's costs 10-20 µs here, for digits print hides)
    dims = tuple(range(lead)) + tuple(i + lead for i, n in enumerate(shape) if n == 1 and grad.shape[i + lead] != 1)
    return np.add.reduce(grad, axis=dims, keepdims=True).reshape(shape)


def sigmoid_array(a: np.ndarray) -> np.ndarray:
    return 1 / (1 + np.exp(-a))  # torch's formula: e⁻ᵃ overflows to inf and σ to 0 (not a subnormal)


def erf_array(a: np.ndarray) -> np.ndarray:
    return np.vectorize(math.erf, otypes=[np.float64])(a).astype(a.dtype, copy=False)  # NumPy has no erf


# A rule gets NumPy arrays in a plain backward and Tensors under create_graph=True. Operators
# (+ - * / ** @ > ==), .T, .mT, .reshape, .squeeze and indexing mean the same on both; these
# helpers cover the rest.


def in_float64(fn: Any, x: np.ndarray) -> np.ndarray:
    """``fn`` computed in float64 and rounded once, as the forward of exp, log, sin and cos is."""
    return fn(x) if x.dtype != np.float32 else fn(x.astype(np.float64)).astype(np.float32)


def is_tensor(x: Any) -> bool:
    return isinstance(x, Tensor)  # else a NumPy array (or a NumPy scalar, for 0-d results)


def as_array(x: Any) -> np.ndarray:
    return x._array if is_tensor(x) else x


def constant(array: np.ndarray, like: Any) -> Any:
    """A value backward does not differentiate (a mask, a sign), in the kind of ``like``."""
    return Tensor._make(array) if is_tensor(like) else array


def select(g: Any, factor: np.ndarray) -> Any:
    """g · factor where factor is not 0, and exactly 0 elsewhere (a bool mask is a factor of 1 or
    0): chosen, not multiplied, as torch does, so an inf or nan in g stays out of the places masked
    out (inf · 0 would be nan there)."""
    keep = factor if factor.dtype == bool else factor != 0
    if is_tensor(g):
        return where(Tensor._make(keep), g if factor.dtype == bool else g * Tensor._make(factor), 0.0)
    return kept_or_zero(keep, g if factor.dtype == bool else g * factor)


def half_in_float32(fn: Any, *arrays: Any) -> Any:
    """fn(*arrays), computed in float32 and rounded once when they are float16 arrays (ATen computes a
    Half kernel's arithmetic in float, its "opmath" type); as it is otherwise."""
    if any(is_tensor(a) for a in arrays) or arrays[0].dtype != np.float16:
        return fn(*arrays)
    return fn(*(a.astype(np.float32) for a in arrays)).astype(np.float16)


def clamped(a: np.ndarray, low: Any = None, high: Any = None) -> np.ndarray:
    """torch's clamp: a value below ``low`` becomes low, one above ``high`` becomes high, every other
    value stays itself (a nan, and a -0 at a bound of 0); with low > high, high everywhere."""
    out = a if low is None else np.where(a < low, low, a)
    return out if high is None else np.where(out > high, high, out)


_BITS = {2: np.uint16, 4: np.uint32, 8: np.uint64}


def kept_or_zero(keep: np.ndarray, a: Any) -> np.ndarray:
    """``np.where(keep, a, 0)`` for a float array, computed on its bits: each value and-ed with all
    ones or with zeros. The same values (+0 where masked out), without the branch NumPy's where
    takes per element: a mask like relu's (positive or not, at random) mispredicts it half the
    time, which made the where ~10× slower."""
    a = np.asarray(a)
    if a.size < 4096 or a.shape != np.shape(keep) or a.dtype.kind != "f" or a.dtype.itemsize not in _BITS:
        return np.where(keep, a, a.dtype.type(0))  # small, or broadcasting: NumPy's where
    bits = _BITS[a.dtype.itemsize]
    mask = keep.astype(bits)
    np.negative(mask, out=mask)  # 1 → all ones
    return np.bitwise_and(a.view(bits), mask, out=mask).view(a.dtype)


def or_default(value: Any, default: Any) -> Any:
    return default if value is None else value


def exp(x: Any) -> Any:
    return x.exp() if is_tensor(x) else in_float64(np.exp, x)


def log(x: Any) -> Any:
    return x.log() if is_tensor(x) else in_float64(np.log, x)


def cos(x: Any) -> Any:
    return x.cos() if is_tensor(x) else in_float64(np.cos, x)


def sin(x: Any) -> Any:
    return x.sin() if is_tensor(x) else in_float64(np.sin, x)


def where(condition: Any, a: Any, b: Any) -> Any:
    """condition ? a : b, where a or b may be a number."""
    if not is_tensor(condition):
        return np.where(condition, a, b)
    like = b if is_tensor(b) else a
    a, b = (v if is_tensor(v) else Tensor._make(np.asarray(v, dtype=like._array.dtype)) for v in (a, b))
    return a.where(condition, b)  # torch.where: WhereBackward0


def sum_keepdim(x: Any, dim: int) -> Any:
    """Σ along ``dim``, keeping it as size 1."""
    if is_tensor(x):
        return x.sum(dim, keepdim=True)
    return np.add.reduce(x, axis=dim if x.ndim else None, keepdims=True)


def unsqueeze(x: Any, dim: int) -> Any:
    return x.unsqueeze(dim) if is_tensor(x) else np.expand_dims(x, dim)


def expand(x: Any, shape: tuple) -> Any:
    return x.expand(shape) if is_tensor(x) else np.broadcast_to(x, shape)


def swapaxes(x: Any, dim0: int, dim1: int) -> Any:
    return x.transpose(dim0, dim1) if is_tensor(x) else np.swapaxes(x, dim0, dim1)


def permute(x: Any, dims: tuple) -> Any:
    return x.permute(dims) if is_tensor(x) else np.transpose(x, dims)


def array_mean(a: np.ndarray, dim: Any, keepdim: bool) -> np.ndarray:
    """np.mean in the input's dtype, without NumPy's Python-level wrapper (the same arithmetic)."""
    count = a.size if dim is None else math.prod(a.shape[d] for d in dim)
    total = torch_sum(a, dim, keepdim)  # in torch's order of additions (gradbook/_cascade.py)
    if count == 0:
        return np.full_like(total, np.nan)  # the mean of nothing, silently as in torch
    return total / a.dtype.type(count)


def zeros_like(g: Any) -> Any:
    """The gradient of a step function: zeros (not g · 0, which would keep g's infs as nans)."""
    return constant(np.zeros_like(as_array(g)), g)


def unary(x: Any, method: str, fn: Any, *args: Any) -> Any:
    """``x.method(*args)`` on a Tensor (recorded), ``fn(x, *args)`` on an array."""
    return getattr(x, method)(*args) if is_tensor(x) else fn(x, *args)


def erf(x: Any) -> Any:
    return x.erf() if is_tensor(x) else erf_array(x)


def tanh(x: Any) -> Any:
    return x.tanh() if is_tensor(x) else np.tanh(x)


def clip(x: Any, low: float, high: float) -> Any:
    return x.clamp(low, high) if is_tensor(x) else np.clip(x, low, high)


def sigmoid(x: Any) -> Any:
    return x.sigmoid() if is_tensor(x) else sigmoid_array(x)


def shape_of(node: Any, i: int = 0) -> tuple:
    """The shape input ``i`` of ``node`` had when the op ran: its gradient's shape."""
    return node._input_metadata[i][0]


def dtype_of(node: Any, i: int = 0) -> np.dtype:
    """The dtype input ``i`` of ``node`` had when the op ran: its gradient's dtype."""
    return node._input_metadata[i][1]
