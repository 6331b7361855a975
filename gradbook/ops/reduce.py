"""Reductions: sum, mean, prod, var, std, norms, max and min, logsumexp, cumulative sums and products."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._cascade import torch_sum
from .op import Op
from .rules import (
    array_mean,
    as_array,
    constant,
    dtype_of,
    exp,
    expand,
    is_tensor,
    select,
    shape_of,
    sum_keepdim,
    unsqueeze,
    where,
)


class SumBackward0(Op):
    """out = Σ self (all elements)"""

    forward = staticmethod(lambda a: torch_sum(a))
    rules = {"∂out/∂selfᵢ = 1: g copied to every element": lambda n, g: expand(g, shape_of(n))}


class SumBackward1(Op):
    """out = Σ self along ``dim``"""

    forward = staticmethod(lambda a, dim, keepdim: torch_sum(a, dim, keepdim))
    rules = {"∂out/∂selfᵢ = 1: g copied back along dim": lambda n, g: expand(_unreduce(g, n), shape_of(n))}


class MeanBackward0(Op):
    """out = (Σ self) / N"""

    forward = staticmethod(lambda a: array_mean(a, None, False))
    rules = {"∂out/∂selfᵢ = 1/N": lambda n, g: expand(g, shape_of(n)) / max(math.prod(shape_of(n)), 1)}


class MeanBackward1(Op):
    """out = mean of self along ``dim``"""

    forward = staticmethod(lambda a, dim, keepdim: array_mean(a, dim, keepdim))
    rules = {
        "∂out/∂selfᵢ = 1/(number averaged)": (
            lambda n, g: expand(_unreduce(g, n), shape_of(n)) / math.prod(shape_of(n)[d] for d in n.dim)
        ),
    }


class ProdBackward0(Op):
    """out = ∏ self (all elements)"""

    saves = ("self", "result")
    forward = staticmethod(lambda a: np.multiply.reduce(a, axis=None))
    rules = {
        "∂out/∂selfᵢ = ∏ of the other elements": (
            lambda n, g, self, result: g * _prod_others(self.reshape(-1), 0, result).reshape(shape_of(n))
        ),
    }


class ProdBackward1(Op):
    """out = ∏ self along ``dim``"""

    saves = ("self", "result")
    forward = staticmethod(lambda a, dim, keepdim: np.multiply.reduce(a, axis=dim, keepdims=keepdim))
    rules = {
        "∂out/∂selfᵢ = ∏ of the other elements along dim": (
            lambda n, g, self, result: _unreduce(g, n) * _prod_others(self, n.dim[0], _unreduce(result, n))
        ),
    }


class CumsumBackward0(Op):
    """outᵢ = Σ_{j ≤ i} selfⱼ along ``dim``"""

    forward = staticmethod(
        lambda a, dim: np.cumsum(a, axis=dim, dtype=a.dtype if a.dtype.kind == "f" else np.int64).reshape(a.shape)
    )
    rules = {"∂/∂selfⱼ: Σ_{i ≥ j} gᵢ (g summed from the end)": lambda n, g: _reverse_cumsum(g, n.dim)}


class VarBackward0(Op):
    """out = Σ (self - mean)² / (N - correction), over ``dim`` (all elements if None)"""

    saves = ("self",)
    forward = staticmethod(lambda a, dim, correction, keepdim: _var(a, dim, correction, keepdim))
    rules = {
        "∂out/∂selfᵢ = 2 (selfᵢ - mean) / (N - correction)": (
            lambda n, g, self: _unreduce(g, n) * (self - _mean_of(self, n)) * (2 / _dof(n))
        ),
    }


class StdBackward0(Op):
    """out = √var(self), over ``dim`` (all elements if None)"""

    saves = ("self", "result")
    forward = staticmethod(
        lambda a, dim, correction, keepdim: np.sqrt(_var(a.astype(np.float64), dim, correction, keepdim)).astype(
            a.dtype
        )
    )
    rules = {
        "∂out/∂selfᵢ = (selfᵢ - mean) / ((N - correction) · out)": (
            lambda n, g, self, result: _unreduce(g, n) * (self - _mean_of(self, n)) / (_dof(n) * _unreduce(result, n))
        ),
    }


class LinalgVectorNormBackward0(Op):
    """out = (Σ |self|ᵖ)^(1/p) over ``dim`` (all elements if None); p = ∞: max |self|"""

    saves = ("self", "result")
    unexposed = ("dtype",)  # torch computes in dtype without keeping it

    @staticmethod
    def forward(a: np.ndarray, ord: float, dim: Any, keepdim: bool, dtype: Any = None) -> np.ndarray:  # noqa: A002
        x = np.abs(a if dtype is None else a.astype(dtype))
        if ord == math.inf:
            return np.maximum.reduce(x, axis=dim, keepdims=keepdim)
        if ord == 2:
            return np.sqrt(np.add.reduce(x * x, axis=dim, keepdims=keepdim))
        if ord == 1:
            return np.add.reduce(x, axis=dim, keepdims=keepdim)
        return np.add.reduce(x**ord, axis=dim, keepdims=keepdim) ** (1 / ord)

    rules = {
        "∂out/∂self = self·|self|ᵖ⁻² / outᵖ⁻¹ (2-norm: self / out)": (
            lambda n, g, self, result: _unreduce(g, n) * _norm_grad(self, _unreduce(result, n), n)
        ),
    }


class MaxBackward1(Op):
    """out = max of all elements"""

    saves = ("self", "result")
    forward = staticmethod(lambda a: np.maximum.reduce(a, axis=None))
    rules = {
        "∂out/∂selfᵢ = 1/k at each of the k maxima, else 0": (
            lambda n, g, self, result: select(g, _share(self, result, n))
        ),
    }


class MinBackward1(MaxBackward1):
    """out = min of all elements"""

    forward = staticmethod(lambda a: np.minimum.reduce(a, axis=None))
    rules = {"∂out/∂selfᵢ = 1/k at each of the k minima, else 0": MaxBackward1._vjps[0]}


class MaxBackward0(Op):
    """values = max along ``dim`` (``indices`` say where, shaped as values)"""

    saves = ("indices",)
    forward = staticmethod(
        lambda a, dim, keepdim, indices: (
            np.take_along_axis(a, _kept(indices, dim, keepdim), dim).squeeze(axis=dim if not keepdim else ())
            if a.ndim
            else a.copy()  # a 0-d tensor: itself, index 0
        )
    )
    rules = {
        "∂out/∂self = 1 at the maximum, else 0": (
            lambda n, g: select(g if n.keepdim else unsqueeze(g, n.dim), _one_hot(n))
        ),
    }


class MinBackward0(MaxBackward0):
    """values = min along ``dim`` (``indices`` say where)"""

    rules = {"∂out/∂self = 1 at the minimum, else 0": MaxBackward0._vjps[0]}


class AmaxBackward0(Op):
    """out = the largest value along ``dim`` (all dimensions if empty)"""

    saves = ("self", "result")
    forward = staticmethod(lambda a, dim, keepdim: np.max(a, axis=dim, keepdims=keepdim))
    rules = {
        "∂out/∂selfᵢ = 1/k at each of the k maxima, else 0": (
            lambda n, g, self, result: _unreduce(g, n) * constant(_ties(self, _unreduce(result, n), n), g)
        ),
    }


class AminBackward0(AmaxBackward0):
    """out = the smallest value along ``dim`` (all dimensions if empty)"""

    forward = staticmethod(lambda a, dim, keepdim: np.min(a, axis=dim, keepdims=keepdim))
    rules = {"∂out/∂selfᵢ = 1/k at each of the k minima, else 0": AmaxBackward0._vjps[0]}


class LogsumexpBackward0(Op):
    """out = log Σ e^self along ``dim``"""

    saves = ("self", "result")
    forward = staticmethod(lambda a, dim, keepdim: _logsumexp(a, dim, keepdim))
    rules = {
        "∂out/∂selfᵢ = e^(selfᵢ - out) (the softmax)": (
            lambda n, g, self, result: _unreduce(g, n) * exp(self - _unreduce(result, n))
        ),
    }


class CumprodBackward0(Op):
    """outᵢ = ∏_{j ≤ i} selfⱼ along ``dim``"""

    saves = ("self", "result")
    forward = staticmethod(lambda a, dim: np.cumprod(a, axis=dim, dtype=a.dtype if a.dtype.kind == "f" else np.int64))
    rules = {
        "∂/∂selfⱼ: Σ_{i ≥ j} gᵢ · outᵢ / selfⱼ": (lambda n, g, self, result: _cumprod_grad(g, self, result, n.dim)),
    }


def _reverse_cumsum(g: Any, dim: int) -> Any:
    """Σ_{i ≥ j} gᵢ along dim: the adjoint of cumsum."""
    if is_tensor(g):
        return sum_keepdim(g, dim) - g.cumsum(dim) + g  # cumsum records again, so it can be differentiated
    return np.flip(np.cumsum(np.flip(g, dim), axis=dim), dim) if g.ndim else g


def _prod_others(x: Any, dim: int, result: Any) -> Any:
    """At each element, the product of the other elements along dim (exact where x has zeros)."""
    if not np.any(as_array(x) == 0):
        return result / x
    if is_tensor(x):  # for each element, its row of elements along dim with a 1 in its own place
        k = x._array.shape[dim]
        eye = np.eye(k, dtype=bool).reshape((k, k) + (1,) * (x.ndim - dim - 1))
        rows = unsqueeze(x, dim).expand(x.shape[:dim] + (k,) + x.shape[dim:])
        return where(constant(eye, x), 1.0, rows).prod(dim + 1)
    ones = np.ones_like(np.take(x, [0], axis=dim))
    before = np.cumprod(np.concatenate([ones, np.take(x, range(x.shape[dim] - 1), axis=dim)], axis=dim), axis=dim)
    flipped = np.flip(x, dim)
    after = np.cumprod(np.concatenate([ones, np.take(flipped, range(x.shape[dim] - 1), axis=dim)], axis=dim), axis=dim)
    return before * np.flip(after, dim)


def _var(a: np.ndarray, dim: Any, correction: float, keepdim: bool) -> np.ndarray:
    """Σ (a - mean)² / max(N - correction, 0), as torch (nan or inf when N ≤ correction), computed
    in float64 and rounded once to a's dtype."""
    x = a.astype(np.float64)
    count = a.size if dim is None else math.prod(a.shape[d] for d in dim)
    mean = np.add.reduce(x, axis=dim, keepdims=True) / max(count, 1)
    total = np.add.reduce(np.square(x - mean), axis=dim, keepdims=keepdim)
    return (total / max(count - correction, 0)).astype(a.dtype)


def _dof(n: Op) -> float:
    """N - correction, for var and std."""
    shape = shape_of(n)
    return (math.prod(shape) if n.dim is None else math.prod(shape[d] for d in n.dim)) - n.correction


def _mean_of(x: Any, n: Op) -> Any:
    """The mean var and std subtract, shaped to broadcast against x."""
    if n.dim is None:
        return x.mean() if is_tensor(x) else np.add.reduce(x, axis=None) / x.dtype.type(max(x.size, 1))
    return x.mean(n.dim, keepdim=True) if is_tensor(x) else array_mean(x, n.dim, True)


def _unreduce(g: Any, n: Op) -> Any:
    """Put back the dimensions a reduction without keepdim removed, as size 1."""
    if n.keepdim:
        return g
    shape = list(shape_of(n))
    for d in range(len(shape)) if n.dim is None else n.dim:
        shape[d] = 1
    return g.reshape(shape)


def _norm_grad(x: Any, norm: Any, n: Op) -> Any:
    """∂‖x‖ₚ/∂x (norm shaped to broadcast against x), with torch's 0 where the norm is 0."""
    p = n.ord
    if p == 2:
        return where(constant(as_array(norm) == 0, x), 0.0, x / norm)
    sign = constant(np.sign(as_array(x)), x)
    if p == 1:
        return sign
    if p == math.inf:  # shared among the elements at the maximum, as torch
        at_max = (np.abs(as_array(x)) == as_array(norm)).astype(as_array(x).dtype)
        dims = None if n.dim is None else n.dim
        return sign * constant(at_max / np.add.reduce(at_max, axis=dims, keepdims=True), x)
    return where(constant(as_array(norm) == 0, x), 0.0, x * abs(x) ** (p - 2) / norm ** (p - 1))


def _share(x: Any, out: Any, n: Op) -> np.ndarray:
    """1/k at each of the k elements equal to the result (the nans, if it is nan), as torch."""
    x, out = as_array(x), as_array(out)
    mask = np.isnan(x) if np.isnan(out) else x == out
    return (mask / np.add.reduce(mask, axis=None)).astype(dtype_of(n))


def _one_hot(n: Op) -> np.ndarray:
    shape = shape_of(n)
    if not shape:
        return np.ones((), dtype_of(n))
    positions = np.arange(shape[n.dim]).reshape([-1 if d == n.dim else 1 for d in range(len(shape))])
    return (positions == _kept(n.indices, n.dim, n.keepdim)).astype(dtype_of(n))


def _logsumexp(a: np.ndarray, dim: tuple, keepdim: bool) -> np.ndarray:
    top = np.max(a, axis=dim, keepdims=True)
    top = np.where(np.isfinite(top), top, 0)  # all -inf (or an inf): no shift
    out = np.log(np.sum(np.exp(a - top), axis=dim, keepdims=True)) + top
    return out if keepdim else np.squeeze(out, axis=dim)


def _ties(x: Any, out: Any, n: Op) -> np.ndarray:
    """1/k at each of the k elements equal to the reduced value (amax, amin), per reduction."""
    mask = as_array(x) == as_array(out)
    return (mask / np.sum(mask, axis=n.dim, keepdims=True)).astype(dtype_of(n))


def _cumprod_grad(g: Any, x: Any, result: Any, dim: int) -> Any:
    """cumprod's adjoint: Σ_{i ≥ j} gᵢ outᵢ / xⱼ. Where x has zeros it cannot divide: for each j,
    the running products of x with xⱼ set to 1 (axis dim + 1 runs over i), kept for i ≥ j."""
    if not np.any(as_array(x) == 0):
        return _reverse_cumsum(g * result, dim) / x
    shape = as_array(x).shape
    k, tail = shape[dim], (1,) * (len(shape) - dim - 1)
    wide_shape = shape[:dim] + (k,) + shape[dim:]  # [..., j, i, ...]
    place = np.broadcast_to(np.eye(k, dtype=bool).reshape((k, k) + tail), wide_shape)
    later = np.broadcast_to(np.triu(np.ones((k, k), dtype=bool)).reshape((k, k) + tail), wide_shape)
    others = where(constant(place, x), 1.0, expand(unsqueeze(x, dim), wide_shape))
    running = others.cumprod(dim + 1) if is_tensor(others) else np.cumprod(others, axis=dim + 1)
    return sum_keepdim(unsqueeze(g, dim) * running * constant(later, g), dim + 1).reshape(shape)


def _kept(indices: np.ndarray, dim: int, keepdim: bool) -> np.ndarray:
    """max's or min's indices with ``dim`` kept (as size 1)."""
    return indices if keepdim else np.expand_dims(indices, dim)
