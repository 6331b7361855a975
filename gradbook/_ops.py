"""THE op table: one ``Function`` per op, forward in NumPy beside its backward rules.

Each class is named after the ``grad_fn`` torch creates for the same call. Its ``vjps`` hold
one rule per input: given the upstream gradient ``g`` of the output, the rule returns
``g · ∂out/∂input`` (a vector-Jacobian product). The rules use Tensor ops, so that
``create_graph=True`` can differentiate them again. Broadcasting is undone in one place,
``unbroadcast`` in ``autograd/graph.py``.

Below the table are the small dispatch functions that the Tensor methods call: they lift
Python numbers to tensors, promote dtypes as torch does, and pick the right op.
"""

from __future__ import annotations

import builtins
import functools
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from ._tensor import Tensor
from .autograd.grad_mode import _State, no_grad
from .autograd.graph import Function


def _const(array: Any) -> Tensor:
    return Tensor._make(array)


def _quiet(fn: Any) -> Any:
    """``fn`` without NumPy's warnings: torch gives inf and nan silently (log 0, 1/0, overflow)."""

    def quiet(*args: Any, **kwargs: Any) -> Any:
        with np.errstate(all="ignore"):
            return fn(*args, **kwargs)

    return quiet


def _floating(fn: Any) -> Any:
    """``fn`` for an op with a floating-point result: integer and bool inputs are computed in
    float32, as torch does (NumPy would give float64)."""
    return staticmethod(lambda a: fn(a) if a.dtype.kind == "f" else fn(a.astype(np.float32)))


# ================================================================ the array API the rules are written in
# A rule gets NumPy arrays in a plain backward and Tensors under create_graph=True. Operators
# (+ - * / ** @ > ==), .T, .mT, .reshape, .squeeze and indexing mean the same on both; these
# helpers cover the rest.


def _or(value: Any, default: Any) -> Any:
    return default if value is None else value


def _is_tensor(x: Any) -> bool:
    return isinstance(x, Tensor)  # else a NumPy array (or a NumPy scalar, for 0-d results)


def _array(x: Any) -> np.ndarray:
    return x._array if _is_tensor(x) else x


def _constant(array: np.ndarray, like: Any) -> Any:
    """A value backward does not differentiate (a mask, a sign), in the kind of ``like``."""
    return _const(array) if _is_tensor(like) else array


def _exp(x: Any) -> Any:
    return x.exp() if _is_tensor(x) else np.exp(x)


def _log(x: Any) -> Any:
    return x.log() if _is_tensor(x) else np.log(x)


def _cos(x: Any) -> Any:
    return x.cos() if _is_tensor(x) else np.cos(x)


def _sin(x: Any) -> Any:
    return x.sin() if _is_tensor(x) else np.sin(x)


def _where(condition: Any, a: Any, b: Any) -> Any:
    return where(condition, a, b) if _is_tensor(condition) else np.where(condition, a, b)


def _sum(x: Any, dim: int) -> Any:
    """Σ along ``dim``, keeping it as size 1."""
    if _is_tensor(x):
        return x.sum(dim, keepdim=True)
    return x.sum(axis=dim if x.ndim else None, keepdims=True)


def _unsqueeze(x: Any, dim: int) -> Any:
    return x.unsqueeze(dim) if _is_tensor(x) else np.expand_dims(x, dim)


def _expand(x: Any, shape: tuple) -> Any:
    return x.expand(shape) if _is_tensor(x) else np.broadcast_to(x, shape)


def _swapaxes(x: Any, dim0: int, dim1: int) -> Any:
    return x.transpose(dim0, dim1) if _is_tensor(x) else np.swapaxes(x, dim0, dim1)


def _permute(x: Any, dims: tuple) -> Any:
    return x.permute(dims) if _is_tensor(x) else np.transpose(x, dims)


def _scatter(g: Any, shape: tuple, index: Any) -> Any:
    """Zeros of ``shape`` with g added at ``index``: the adjoint of indexing."""
    if _is_tensor(g):
        return IndexPutBackward0.apply(g, shape=shape, index=index)
    return IndexPutBackward0.forward(g, shape, index)


# ================================================================ arithmetic


class AddBackward0(Function):
    """out = self + alpha·other;  ∂out/∂self = 1,  ∂out/∂other = alpha (usually 1)."""

    inputs = ("self", "other")
    alpha = 1
    forward = staticmethod(lambda a, b, alpha=1: np.add(a, b) if alpha == 1 else a + alpha * b)
    vjps = (lambda n, g: g, lambda n, g: g if n.alpha == 1 else g * n.alpha)


class SubBackward0(Function):
    """out = self - alpha·other;  ∂out/∂self = 1,  ∂out/∂other = -alpha (usually -1)."""

    inputs = ("self", "other")
    alpha = 1
    forward = staticmethod(lambda a, b, alpha=1: np.subtract(a, b) if alpha == 1 else a - alpha * b)
    vjps = (lambda n, g: g, lambda n, g: -g if n.alpha == 1 else g * -n.alpha)


class RsubBackward1(Function):
    """out = other - self, for a number ``other`` (``1 - x``);  ∂out/∂self = -1."""

    forward = staticmethod(lambda a, other: np.subtract(other, a, dtype=a.dtype))
    vjps = (lambda n, g: -g,)


class MulBackward0(Function):
    """out = self · other;  ∂out/∂self = other,  ∂out/∂other = self."""

    inputs = ("self", "other")
    saves = ("self", "other")
    forward = np.multiply
    vjps = (lambda n, g, a, b: g * b, lambda n, g, a, b: g * a)


class DivBackward0(Function):
    """out = self / other;  ∂out/∂self = 1/other,  ∂out/∂other = -self/other²."""

    inputs = ("self", "other")
    saves = ("self", "other")
    forward = _quiet(np.true_divide)
    vjps = (lambda n, g, a, b: g / b, lambda n, g, a, b: -g * a / (b * b))


class ReciprocalBackward0(Function):
    """out = 1/self;  ∂out/∂self = -1/self² = -out²."""

    saves = ("result",)
    forward = _floating(_quiet(np.reciprocal))
    vjps = (lambda n, g, out: -g * out * out,)


class NegBackward0(Function):
    """out = -self;  ∂out/∂self = -1."""

    forward = np.negative
    vjps = (lambda n, g: -g,)


class PowBackward0(Function):
    """out = self ** exponent, for a number exponent;  ∂out/∂self = exponent · self^(exponent-1)."""

    saves = ("self",)  # the exponent is a number, kept as a param
    forward = _quiet(lambda a, exponent: np.power(a, exponent))
    vjps = (lambda n, g, x: g * 0 if n.exponent == 0 else g * n.exponent * x ** (n.exponent - 1),)


class PowBackward1(Function):
    """out = self ** exponent, both tensors.

    ∂out/∂self = exponent · self^(exponent-1),  ∂out/∂exponent = out · ln(self).
    """

    inputs = ("self", "exponent")
    saves = ("self", "exponent", "result")
    forward = _quiet(np.power)
    vjps = (
        lambda n, g, x, e, out: g * _where(e == 0, 0.0, e * x ** (e - 1)),
        lambda n, g, x, e, out: g * _where((x == 0) & (e >= 0), 0.0, out * _log(x)),
    )


class PowBackward2(Function):
    """out = base ** exponent, for a number base (``2 ** x``);  ∂out/∂exponent = out · ln(base)."""

    inputs = ("exponent",)
    saves = ("exponent", "result")  # base is a number, kept as a param
    forward = staticmethod(_quiet(lambda e, base: np.power(np.asarray(base, dtype=e.dtype), e)))
    vjps = (lambda n, g, e, out: g * 0 if n.base == 0 else g * out * float(np.log(n.base)),)


# ================================================================ matrix products


class DotBackward0(Function):
    """out = Σᵢ selfᵢ tensorᵢ;  ∂out/∂self = tensor,  ∂out/∂tensor = self."""

    inputs = ("self", "tensor")
    saves = ("self", "tensor")
    forward = np.dot
    vjps = (lambda n, g, a, b: g * b, lambda n, g, a, b: g * a)


class MvBackward0(Function):
    """out = self @ vec (matrix · vector);  ∂/∂self: g ⊗ vec,  ∂/∂vec: selfᵀ @ g."""

    inputs = ("self", "vec")
    saves = ("self", "vec")
    forward = np.matmul
    vjps = (lambda n, g, m, v: _unsqueeze(g, 1) * v, lambda n, g, m, v: m.mT @ g)


class MmBackward0(Function):
    """out = self @ mat2;  ∂/∂self: g @ mat2ᵀ,  ∂/∂mat2: selfᵀ @ g."""

    inputs = ("self", "mat2")
    saves = ("self", "mat2")
    forward = np.matmul
    vjps = (lambda n, g, a, b: g @ b.mT, lambda n, g, a, b: a.mT @ g)


class BmmBackward0(Function):
    """out = self @ mat2 over (broadcast) batch dimensions; the rules of MmBackward0 per batch."""

    inputs = ("self", "mat2")
    saves = ("self", "mat2")
    forward = np.matmul
    vjps = (lambda n, g, a, b: g @ b.mT, lambda n, g, a, b: a.mT @ g)


class AddmmBackward0(Function):
    """out = self + mat1 @ mat2 (``nn.Linear`` on a batch: bias + x @ Wᵀ)."""

    inputs = ("self", "mat1", "mat2")
    saves = ("mat1", "mat2")
    forward = staticmethod(lambda b, m1, m2: np.add(np.matmul(m1, m2), b))
    vjps = (lambda n, g, m1, m2: g, lambda n, g, m1, m2: g @ m2.mT, lambda n, g, m1, m2: m1.mT @ g)


# ================================================================ elementwise functions


class ExpBackward0(Function):
    """out = eˢᵉˡᶠ;  ∂out/∂self = eˢᵉˡᶠ = out."""

    saves = ("result",)
    forward = _floating(_quiet(np.exp))
    vjps = (lambda n, g, out: g * out,)


class LogBackward0(Function):
    """out = ln(self);  ∂out/∂self = 1/self."""

    saves = ("self",)
    forward = _floating(_quiet(np.log))
    vjps = (lambda n, g, x: g / x,)


class SqrtBackward0(Function):
    """out = √self;  ∂out/∂self = 1/(2√self) = 1/(2·out)."""

    saves = ("result",)
    forward = _floating(_quiet(np.sqrt))
    vjps = (lambda n, g, out: g / (2 * out),)


class AbsBackward0(Function):
    """out = |self|;  ∂out/∂self = sign(self) (0 at 0, as in torch)."""

    saves = ("self",)
    forward = np.abs
    vjps = (lambda n, g, x: g * _constant(np.sign(_array(x)), g),)


class SinBackward0(Function):
    """out = sin(self);  ∂out/∂self = cos(self)."""

    saves = ("self",)
    forward = _floating(np.sin)
    vjps = (lambda n, g, x: g * _cos(x),)


class CosBackward0(Function):
    """out = cos(self);  ∂out/∂self = -sin(self)."""

    saves = ("self",)
    forward = _floating(np.cos)
    vjps = (lambda n, g, x: g * -_sin(x),)


class TanhBackward0(Function):
    """out = tanh(self);  ∂out/∂self = 1 - tanh² = 1 - out²."""

    saves = ("result",)
    forward = _floating(np.tanh)
    vjps = (lambda n, g, out: g * (1 - out * out),)


def _sigmoid(a: np.ndarray) -> np.ndarray:
    with np.errstate(over="ignore"):  # torch's formula: e⁻ᵃ overflows to inf and σ to 0 (not a subnormal)
        return 1 / (1 + np.exp(-a))


class SigmoidBackward0(Function):
    """out = σ(self) = 1/(1+e⁻ˢᵉˡᶠ);  ∂out/∂self = σ(1-σ) = out·(1-out)."""

    saves = ("result",)
    forward = _floating(_sigmoid)
    vjps = (lambda n, g, out: g * out * (1 - out),)


class ReluBackward0(Function):
    """out = max(self, 0);  ∂out/∂self = 1 where out > 0, else 0."""

    saves = ("result",)
    forward = staticmethod(lambda a: np.maximum(a, 0, dtype=a.dtype))
    vjps = (lambda n, g, out: g * (out > 0),)


class ClampBackward1(Function):
    """out = min(max(self, min), max);  ∂out/∂self = 1 inside [min, max], else 0."""

    saves = ("self",)
    forward = staticmethod(lambda a, min, max: np.clip(a, min, max).astype(a.dtype, copy=False))
    vjps = (lambda n, g, x: g * ((x >= _or(n.min, -np.inf)) & (x <= _or(n.max, np.inf))),)


class MaximumBackward0(Function):
    """out = max(self, other);  the gradient goes to the larger input (split in half on ties)."""

    inputs = ("self", "other")
    saves = ("self", "other")
    forward = np.maximum
    vjps = (
        lambda n, g, a, b: g * _constant(_picked(_array(a) > _array(b), _array(a) == _array(b), n), g),
        lambda n, g, a, b: g * _constant(_picked(_array(b) > _array(a), _array(a) == _array(b), n), g),
    )


class MinimumBackward0(Function):
    """out = min(self, other);  the gradient goes to the smaller input (split in half on ties)."""

    inputs = ("self", "other")
    saves = ("self", "other")
    forward = np.minimum
    vjps = (
        lambda n, g, a, b: g * _constant(_picked(_array(a) < _array(b), _array(a) == _array(b), n), g),
        lambda n, g, a, b: g * _constant(_picked(_array(b) < _array(a), _array(a) == _array(b), n), g),
    )


class WhereBackward0(Function):
    """out = condition ? self : other;  the gradient goes to the input that was picked."""

    inputs = ("self", "other")
    saves = ("condition",)
    forward = staticmethod(lambda a, b, condition: np.where(condition, a, b))
    vjps = (lambda n, g: g * _constant(n.condition, g), lambda n, g: g * _constant(~n.condition, g))


class SoftmaxBackward0(Function):
    """out = eˢᵉˡᶠ / Σ eˢᵉˡᶠ along dim;  vjp: out · (g - Σ g·out)."""

    saves = ("result",)

    @staticmethod
    def forward(a: np.ndarray, dim: int) -> np.ndarray:
        dim = dim if a.ndim else None
        e = np.exp(a - a.max(axis=dim, keepdims=True))
        return e / e.sum(axis=dim, keepdims=True)

    vjps = (lambda n, g, out: out * (g - _sum(g * out, n.dim)),)


class LogSoftmaxBackward0(Function):
    """out = self - ln Σ eˢᵉˡᶠ along dim;  vjp: g - softmax · Σ g."""

    saves = ("result",)

    @staticmethod
    def forward(a: np.ndarray, dim: int) -> np.ndarray:
        dim = dim if a.ndim else None
        shifted = a - a.max(axis=dim, keepdims=True)
        return shifted - np.log(np.exp(shifted).sum(axis=dim, keepdims=True))

    vjps = (lambda n, g, out: g - _exp(out) * _sum(g, n.dim),)


# ================================================================ reductions


class SumBackward0(Function):
    """out = Σ self (all elements);  ∂out/∂selfᵢ = 1, so g is copied to every element."""

    forward = staticmethod(lambda a: a.sum())
    vjps = (lambda n, g: _expand(g, n._meta[0][0]),)


class SumBackward1(Function):
    """out = Σ self along ``dim``;  g is copied back along the summed dimensions."""

    forward = staticmethod(lambda a, dim, keepdim: a.sum(axis=dim, keepdims=keepdim))
    vjps = (lambda n, g: _expand(_unreduce(g, n), n._meta[0][0]),)


class MeanBackward0(Function):
    """out = (Σ self) / N;  ∂out/∂selfᵢ = 1/N."""

    forward = staticmethod(lambda a: _mean(a, None, False))
    vjps = (lambda n, g: _expand(g, n._meta[0][0]) / max(math.prod(n._meta[0][0]), 1),)


class MeanBackward1(Function):
    """out = mean of self along ``dim``;  ∂out/∂selfᵢ = 1/(number of elements averaged)."""

    forward = staticmethod(lambda a, dim, keepdim: _mean(a, dim, keepdim))
    vjps = (lambda n, g: _expand(_unreduce(g, n), n._meta[0][0]) / math.prod(n._meta[0][0][d] for d in n.dim),)


def _mean(a: np.ndarray, dim: Any, keepdim: bool) -> np.ndarray:
    """np.mean in the input's dtype, without NumPy's Python-level wrapper (the same arithmetic)."""
    count = a.size if dim is None else math.prod(a.shape[d] for d in dim)
    total = np.add.reduce(a, axis=dim, keepdims=keepdim)
    if count == 0:
        return np.full_like(total, np.nan)  # the mean of nothing, silently as in torch
    return total / a.dtype.type(count)


def _unreduce(g: Tensor, n: Function) -> Tensor:
    """Put back the dimensions a reduction without keepdim removed, as size 1."""
    if n.keepdim:
        return g
    shape = list(n._meta[0][0])
    for d in n.dim:
        shape[d] = 1
    return g.reshape(shape)


class MaxBackward1(Function):
    """out = max of all elements;  the gradient is shared evenly among the maxima."""

    saves = ("self", "result")
    forward = staticmethod(lambda a: np.max(a))
    vjps = (lambda n, g, x, out: g * _constant(_share(_array(x) == _array(out), n), g),)


class MinBackward1(MaxBackward1):
    """out = min of all elements;  the gradient is shared evenly among the minima."""

    forward = staticmethod(lambda a: np.min(a))


def _share(mask: np.ndarray, n: Function) -> np.ndarray:
    return (mask / mask.sum()).astype(n._meta[0][1])


def _picked(wins: np.ndarray, ties: np.ndarray, n: Function) -> np.ndarray:
    """1 where this input was picked, ½ on ties (torch splits the gradient there)."""
    return (wins + 0.5 * ties).astype(n._meta[0][1])


class MaxBackward0(Function):
    """values = max along ``dim``;  the gradient goes to the position in ``indices``."""

    saves = ("indices",)
    forward = staticmethod(
        lambda a, dim, keepdim, indices: np.take_along_axis(a, np.expand_dims(indices, dim), dim).squeeze(
            axis=dim if not keepdim else ()
        )
    )
    vjps = (lambda n, g: (g if n.keepdim else _unsqueeze(g, n.dim)) * _constant(_one_hot(n), g),)


class MinBackward0(MaxBackward0):
    """values = min along ``dim``;  the gradient goes to the position in ``indices``."""


def _one_hot(n: Function) -> np.ndarray:
    shape = n._meta[0][0]
    positions = np.arange(shape[n.dim]).reshape([-1 if d == n.dim else 1 for d in range(len(shape))])
    return (positions == np.expand_dims(n.indices, n.dim)).astype(n._meta[0][1])


# ================================================================ shape


class ViewBackward0(Function):
    """out = self with a new shape (same elements, same order);  g is reshaped back."""

    forward = staticmethod(lambda a, shape, dim=None: a.reshape(shape))  # squeeze keeps its dim too
    vjps = (lambda n, g: g.reshape(n._meta[0][0]),)


class SqueezeBackward0(ViewBackward0):
    """out = self without its size-1 dimensions;  g is reshaped back."""


class SqueezeBackward1(ViewBackward0):
    """out = self without size-1 dimension ``dim``;  g is reshaped back."""


class SqueezeBackward2(ViewBackward0):
    """out = self without size-1 dimensions ``dim`` (a tuple);  g is reshaped back."""


class SqueezeBackward4(ViewBackward0):
    """out = self without size-1 dimension ``dim``, in place (``squeeze_``, as matmul of a 1-D
    tensor leaves it);  g is reshaped back."""


class UnsqueezeBackward0(Function):
    """out = self with a new size-1 dimension at ``dim``;  g is squeezed back."""

    forward = staticmethod(lambda a, dim: np.expand_dims(a, dim))
    vjps = (lambda n, g: g.squeeze(n.dim),)


class TBackward0(Function):
    """out = selfᵀ (``t()``, up to 2-D);  g is transposed back."""

    forward = staticmethod(lambda a: a.T)
    vjps = (lambda n, g: g.T,)


class TransposeBackward0(Function):
    """out = self with dimensions ``dim0`` and ``dim1`` swapped;  g is swapped back."""

    forward = staticmethod(lambda a, dim0, dim1: np.swapaxes(a, dim0, dim1))
    vjps = (lambda n, g: _swapaxes(g, n.dim0, n.dim1),)


class PermuteBackward0(Function):
    """out = self with dimensions reordered by ``dims`` (also ``.T``);  g gets the inverse order."""

    forward = staticmethod(lambda a, dims: np.transpose(a, dims))
    vjps = (lambda n, g: _permute(g, tuple(int(d) for d in np.argsort(n.dims))),)


class ExpandBackward0(Function):
    """out = self repeated along size-1 (or new leading) dimensions;  g is summed back."""

    forward = staticmethod(lambda a, size: np.broadcast_to(a, size))
    vjps = (lambda n, g: g,)  # the engine's unbroadcast sums it back


class CloneBackward0(Function):
    """out = a copy of self;  ∂out/∂self = 1."""

    forward = staticmethod(lambda a: a.copy())
    vjps = (lambda n, g: g,)


class ToCopyBackward0(Function):
    """out = self converted to ``dtype``;  g is converted back (by the engine)."""

    forward = staticmethod(lambda a, dtype: a.astype(dtype))
    vjps = (lambda n, g: g,)

    @classmethod
    def apply(cls, t: Tensor, dtype: np.dtype) -> Tensor:  # type: ignore[override]
        if dtype.kind != "f":  # an integer or bool result is never differentiable (x.long())
            return _const(t._array.astype(dtype))
        return super().apply(t, dtype=dtype)


class ZeroBackward0(Function):
    """out = self filled with zeros (``zero_``);  ∂out/∂self = 0."""

    forward = staticmethod(np.zeros_like)
    vjps = (lambda n, g: _constant(np.zeros_like(_array(g)), g),)


class FillBackward2(Function):
    """out = self filled with the number ``value`` (``fill_``);  ∂out/∂self = 0."""

    forward = staticmethod(lambda a, value: np.full_like(a, value))
    vjps = (lambda n, g: _constant(np.zeros_like(_array(g)), g),)


class CopyBackwards(Function):
    """out = src broadcast into self's shape and dtype (``copy_``);  ∂out/∂self = 0,  ∂out/∂src = 1."""

    inputs = ("self", "src")
    forward = staticmethod(lambda a, src: np.broadcast_to(src, a.shape).astype(a.dtype))
    vjps = (lambda n, g: _constant(np.zeros_like(_array(g)), g), lambda n, g: g)

    def name(self) -> str:
        return "torch::autograd::CopyBackwards"  # a hand-written node in torch, named like AccumulateGrad


class SelectBackward0(Function):
    """out = self[index] along ``dim``;  g goes back to that position, zeros elsewhere."""

    forward = staticmethod(lambda a, dim, index: a[(slice(None),) * dim + (index,)])
    vjps = (lambda n, g: _scatter(g, n._meta[0][0], (slice(None),) * n.dim + (n.index,)),)


class SliceBackward0(Function):
    """out = self[start:end:step] along ``dim``;  g goes back to those positions, zeros elsewhere."""

    forward = staticmethod(lambda a, dim, start, end, step: a[(slice(None),) * dim + (slice(start, end, step),)])
    vjps = (lambda n, g: _scatter(g, n._meta[0][0], (slice(None),) * n.dim + (slice(n.start, n.end, n.step),)),)


class IndexBackward0(Function):
    """out = self[indices] (integer arrays or a boolean mask);  g is added back at each index."""

    saves = ("indices",)
    forward = staticmethod(lambda a, indices: a[indices])
    vjps = (lambda n, g: _scatter(g, n._meta[0][0], n.indices),)


class IndexPutBackward0(Function):
    """out = zeros(shape) with self added at ``index``: the backward of indexing, differentiable."""

    @staticmethod
    def forward(g: np.ndarray, shape: tuple, index: Any) -> np.ndarray:
        out = np.zeros(shape, dtype=g.dtype)
        np.add.at(out, index, g)  # repeated indices add up, as x[[0, 0]] uses x[0] twice
        return out

    vjps = (lambda n, g: g[n.index],)  # indexing means the same on arrays and Tensors


class CatBackward0(Function):
    """out = the inputs joined along ``dim``;  each input gets its slice of g."""

    forward = staticmethod(lambda *arrays, dim, sizes: np.concatenate(arrays, axis=dim))

    @property
    def vjps(self) -> list:  # type: ignore[override]
        ends = np.cumsum(self.sizes)
        return [
            lambda n, g, s=end - size, e=end: g[(slice(None),) * n.dim + (slice(int(s), int(e)),)]
            for size, end in zip(self.sizes, ends)
        ]


class StackBackward0(Function):
    """out = the inputs stacked along a new dimension ``dim``;  input i gets g selected at i."""

    forward = staticmethod(lambda *arrays, dim: np.stack(arrays, axis=dim))

    @property
    def vjps(self) -> list:  # type: ignore[override]
        return [lambda n, g, i=i: g[(slice(None),) * n.dim + (i,)] for i in range(len(self.next_functions))]


# ================================================================ losses (gradbook.nn.functional)


class MseLossBackward0(Function):
    """out = mean((self - target)²);  ∂out/∂self = 2(self - target)/N,  ∂out/∂target = the negative."""

    inputs = ("self", "target")
    saves = ("self", "target")

    @staticmethod
    def forward(a: np.ndarray, t: np.ndarray, reduction: str) -> np.ndarray:
        sq = np.square(a - t)
        if a.dtype != t.dtype:  # torch's promotion (NumPy's differs for integer targets)
            sq = sq.astype(_promoted(a, t), copy=False)
        return sq if reduction == "none" else sq.sum(dtype=sq.dtype) if reduction == "sum" else _mean(sq, None, False)

    vjps = (
        lambda n, g, x, t: (x - t) * (g * (2 / _mse_count(n))),
        lambda n, g, x, t: (x - t) * (g * (-2 / _mse_count(n))),
    )


def _mse_count(n: Function) -> int:
    if n.reduction != "mean":
        return 1
    a, b = n._meta[0][0], n._meta[1][0]
    return math.prod(a if a == b else np.broadcast_shapes(a, b))


class NllLossBackward0(Function):
    """out = -mean of self[i, target[i]] (self holds log-probabilities);  -1/N at each target.

    ``self`` is (N, C) with N targets, or (C,) with one 0-d target (a single example).
    """

    saves = ("self", "target")

    @staticmethod
    def forward(a: np.ndarray, target: Tensor, reduction: str, ignore_index: int) -> np.ndarray:
        t = target._array.reshape(-1)  # class indices: a param, not a differentiable input
        keep = t != ignore_index
        picked = -a.reshape(-1, a.shape[-1])[np.arange(t.size), np.where(keep, t, 0)]
        picked = np.where(keep, picked, 0).astype(a.dtype)
        if reduction == "none":
            return picked if a.ndim == 2 else picked.reshape(())
        if reduction == "sum":
            return picked.sum()
        count = int(keep.sum())  # every target ignored: the mean of nothing is nan
        return picked.sum() / a.dtype.type(count) if count else a.dtype.type(np.nan)

    vjps = (lambda n, g, x: (_unsqueeze(g, 1) if g.ndim else g) * _constant(_nll_weights(n), g),)


def _nll_weights(n: Function) -> np.ndarray:
    """∂out/∂self for a seed of 1: -1 at each kept target (divided by their number for the mean)."""
    shape, dtype = n._meta[0]
    t = n.target._array.reshape(-1)
    keep = t != n.ignore_index
    w = np.zeros((t.size, shape[-1]), dtype=dtype)
    w[np.arange(t.size)[keep], t[keep]] = -1
    return w.reshape(shape) / (max(int(keep.sum()), 1) if n.reduction == "mean" else 1)


# ================================================================ dispatch: numbers, dtypes, shapes


def _scalar_dtype(value: Any, like: np.dtype) -> np.dtype:
    """The dtype torch gives ``tensor <op> value`` for a Python number (it never widens floats)."""
    if isinstance(value, (bool, np.bool_)):
        return like
    if isinstance(value, (int, np.integer)):
        return like if like.kind != "b" else np.dtype(np.int64)
    return like if like.kind == "f" else np.dtype(np.float32)


def _lift(value: Any, like: Tensor) -> Tensor:
    """A Tensor for ``value``: tensors pass through, numbers take the dtype torch would give."""
    if isinstance(value, Tensor):
        return value
    if isinstance(value, (builtins.int, builtins.float, np.number, np.bool_)):
        return _const(np.array(value, dtype=_scalar_dtype(value, like._array.dtype)))
    from ._tensor import tensor

    return tensor(value)


_KIND_RANK = {"b": 0, "u": 1, "i": 1, "f": 2}
_SCALAR_TYPE = {
    "float16": "Half",
    "float32": "Float",
    "float64": "Double",
    "int32": "Int",
    "int64": "Long",
    "uint8": "Byte",
    "bool": "Bool",
}  # torch's names of dtypes in messages


def _type_name(t: Tensor) -> str:
    """``gradbook.FloatTensor``: the legacy type name torch's messages use for a tensor."""
    return f"gradbook.{_SCALAR_TYPE[t._array.dtype.name]}Tensor"


def _promote_types(x: np.dtype, y: np.dtype) -> np.dtype:
    kx, ky = _KIND_RANK[x.kind], _KIND_RANK[y.kind]
    if kx != ky:  # int with float gives that float (NumPy would widen to float64)
        return x if kx > ky else y
    return np.promote_types(x, y)


def _promoted(a: np.ndarray, b: np.ndarray) -> np.dtype:
    """torch's result dtype: a 0-d tensor only changes the dtype if it is of a higher kind."""
    if (a.ndim == 0) == (b.ndim == 0):
        return _promote_types(a.dtype, b.dtype)
    dim, zero = (a, b) if b.ndim == 0 else (b, a)
    if dim.dtype.kind == "f" or (dim.dtype.kind != "b" and zero.dtype.kind != "f"):
        return dim.dtype
    return _promote_types(dim.dtype, zero.dtype)


def _broadcast_check(a: tuple, b: tuple) -> None:
    for i in range(1, min(len(a), len(b)) + 1):
        if a[-i] != b[-i] and a[-i] != 1 and b[-i] != 1:
            raise RuntimeError(
                f"The size of tensor a ({a[-i]}) must match the size of tensor b ({b[-i]}) "
                f"at non-singleton dimension {max(len(a), len(b)) - i}"
            )


def _pair(a: Tensor, b: Any) -> tuple[Tensor, Tensor]:
    if not isinstance(b, Tensor):
        b = _lift(b, a)
    if a._array.shape != b._array.shape:
        _broadcast_check(a._array.shape, b._array.shape)
    return a, b


def _binary(cls: type[Function], a: Tensor, b: Any, **params: Any) -> Tensor:
    """A broadcasting binary op, with torch's dtype promotion and broadcasting error."""
    if not isinstance(b, Tensor):
        if type(b) is float and a._array.dtype.kind == "f" and not (a.requires_grad and _State.enabled):
            return Tensor._make(cls.forward(a._array, b, **params))  # NumPy keeps float32 for a Python float
        b = _lift(b, a)
    try:
        return _promoting(cls, a, b, **params)
    except ValueError:
        _broadcast_check(a._array.shape, b._array.shape)  # raises torch's message
        raise


def _promoting(cls: type[Function], a: Tensor, b: Tensor, **params: Any) -> Tensor:
    """``cls.apply(a, b)`` with its result in torch's promoted dtype."""
    out = cls.apply(a, b, **params)
    x, y = a._array, b._array
    if x.dtype != y.dtype:
        want = _promoted(x, y)
        if out._array.dtype != want:
            out._array = out._array.astype(want)
    return out


def add(a: Tensor, b: Any, alpha: Any = 1) -> Tensor:
    """a + alpha·b, broadcasting."""
    return _binary(AddBackward0, a, b) if alpha == 1 else _binary(AddBackward0, a, b, alpha=alpha)


def sub(a: Tensor, b: Any, alpha: Any = 1) -> Tensor:
    """a - alpha·b, broadcasting."""
    return _binary(SubBackward0, a, b) if alpha == 1 else _binary(SubBackward0, a, b, alpha=alpha)


def rsub(a: Tensor, b: Any) -> Tensor:
    """b - a: a number minus a tensor is RsubBackward1, a tensor minus a tensor SubBackward0."""
    if isinstance(b, Tensor):
        return sub(b, a)
    return RsubBackward1.apply(a.float() if a._array.dtype.kind != "f" and isinstance(b, float) else a, other=b)


def mul(a: Tensor, b: Any) -> Tensor:
    """a · b elementwise, broadcasting."""
    return _binary(MulBackward0, a, b)


def div(a: Tensor, b: Any) -> Tensor:
    """a / b (true division: integer tensors give float32)."""
    a, b = _pair(a, b)
    out = DivBackward0.apply(a, b)
    want = _promoted(a._array, b._array)
    want = want if want.kind == "f" else np.dtype(np.float32)
    if out._array.dtype != want:
        out._array = out._array.astype(want)
    return out


def rdiv(a: Tensor, b: Any) -> Tensor:
    """b / a for a number b: torch records it as reciprocal(a) · b."""
    if isinstance(b, Tensor):
        return div(b, a)
    return mul(ReciprocalBackward0.apply(a), b)


def pow(a: Tensor, exponent: Any) -> Tensor:  # noqa: A001
    """a ** exponent: PowBackward0 for a number exponent, PowBackward1 for a tensor."""
    if isinstance(exponent, Tensor):
        return _binary(PowBackward1, *_pair(a, exponent))
    if a._array.dtype.kind != "f" and isinstance(exponent, float):
        a = a.float()
    return PowBackward0.apply(a, exponent=exponent)


def rpow(a: Tensor, base: Any) -> Tensor:
    """base ** a for a number base (PowBackward2)."""
    if isinstance(base, Tensor):
        return pow(base, a)
    if a._array.dtype.kind != "f":  # an integer base keeps integer exponents integer (2 ** arange)
        a = a.long() if isinstance(base, (builtins.int, np.integer)) else a.float()
    return PowBackward2.apply(a, base=base)


def compare(ufunc: Any, a: Tensor, b: Any) -> Tensor:
    """A comparison or logical op: a bool tensor, never recorded."""
    a, b = _pair(a, b)
    return _const(ufunc(a._array, b._array))


def fill(t: Tensor, value: Any) -> Tensor:
    """t filled with ``value``, in t's dtype: a number (``fill_``) or a tensor broadcast (``copy_``).

    torch records ``fill_`` with a 0-d tensor as FillBackward3; here any tensor is a copy_.
    """
    if not isinstance(value, Tensor):
        return FillBackward2.apply(t, value=value)
    shape, src = t._array.shape, value._array.shape
    if src != shape:
        _broadcast_check(shape, src)
        if np.broadcast_shapes(shape, src) != shape:
            full = list(np.broadcast_shapes(shape, src))
            raise RuntimeError(f"output with shape {list(shape)} doesn't match the broadcast shape {full}")
    return CopyBackwards.apply(t, value)


def zero(t: Tensor, _: Any = None) -> Tensor:
    """t filled with zeros (``zero_``)."""
    return ZeroBackward0.apply(t)


def where(condition: Tensor, input: Any, other: Any) -> Tensor:  # noqa: A002
    """condition ? input : other, elementwise; the gradient flows to the input that was picked.

    >>> import gradbook as torch
    >>> x = torch.tensor([-1.0, 2.0])
    >>> torch.where(x > 0, x, 0.0)
    tensor([0., 2.])
    """
    cond = condition._array if isinstance(condition, Tensor) else np.asarray(condition)
    like = input if isinstance(input, Tensor) else other if isinstance(other, Tensor) else Tensor._make(np.float32(0))
    a, b = _lift(input, like), _lift(other, like)
    _broadcast_check(cond.shape, a._array.shape)  # torch broadcasts condition, input, other in turn
    _broadcast_check(np.broadcast_shapes(cond.shape, a._array.shape), b._array.shape)
    out = WhereBackward0.apply(a, b, condition=cond.astype(bool))
    if a._array.dtype != b._array.dtype:
        out._array = out._array.astype(_promoted(a._array, b._array))
    return out


def clamp(t: Tensor, min: Any = None, max: Any = None) -> Tensor:  # noqa: A002
    """Limit values to [min, max]; the gradient is 1 inside and 0 where clipped."""
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    min, max = (v.item() if isinstance(v, Tensor) else v for v in (min, max))
    if t._array.dtype.kind != "f" and (isinstance(min, float) or isinstance(max, float)):
        t = t.float()  # an integer tensor clamped to float bounds gives float32, as in torch
    return ClampBackward1.apply(t, min=min, max=max)


def matmul(a: Tensor, b: Tensor) -> Tensor:
    """Matrix product with torch's dispatch: dot (1-D·1-D), mv (2-D·1-D), mm (2-D·2-D), batched."""
    b = b if isinstance(b, Tensor) else _lift(b, a)
    x, y = a._array, b._array
    if x.ndim == 2 and y.ndim == 2 and x.shape[1] == y.shape[0] and x.dtype == y.dtype:
        return MmBackward0.apply(a, b)  # the common case first: checks below give the errors
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
        return MvBackward0.apply(a, b)
    if x.ndim == 1:
        if y.ndim > 2 and x.dtype != y.dtype:  # torch folds the product into one mv if a requires grad
            _same_dtype(*((y, x, "mv") if a.requires_grad else (x, y, "bmm")))
        out = matmul(a.unsqueeze(0), b)
        return SqueezeBackward4.apply(out, shape=y.shape[:-2] + y.shape[-1:], dim=out.ndim - 2)
    if y.ndim == 1:
        _same_dtype(x, y, "mv")
        out = matmul(a, b.unsqueeze(1))
        return SqueezeBackward4.apply(out, shape=x.shape[:-1], dim=out.ndim - 1)
    if x.shape[-1] != y.shape[-2]:
        if x.ndim == 2 and y.ndim == 2:
            _mm_shapes(x, y)
        raise RuntimeError(
            f"Expected size for first two dimensions of batch2 tensor to be: [{x.shape[0]}, {x.shape[-1]}] "
            f"but got: [{y.shape[0]}, {y.shape[-2]}]."
        )
    if x.ndim == 2 and y.ndim == 2:
        _same_dtype(x, y, "mm")
        return MmBackward0.apply(a, b)
    _broadcast_check(x.shape[:-2], y.shape[:-2])
    if x.dtype != y.dtype:  # torch folds the product into one mm for (..., n, k) @ (k, m), and for
        # (n, k) @ (..., k, m) if a requires grad; otherwise it is a bmm
        folded = y.ndim == 2 or (x.ndim == 2 and a.requires_grad)
        _same_dtype(*((x, y, "mm") if y.ndim == 2 else (y, x, "mm") if folded else (x, y, "bmm")))
    return BmmBackward0.apply(a, b)


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
    return DotBackward0.apply(a, b)


def addmm(bias: Tensor, mat1: Tensor, mat2: Tensor) -> Tensor:
    """bias + mat1 @ mat2 as one node (``F.linear``), with torch's checks."""
    b, x, y = bias._array, mat1._array, mat2._array
    d = y.dtype
    if b.dtype != d or x.dtype != d or x.shape[1] != y.shape[0] or (b.shape != y.shape[1:] and b.ndim):
        if b.dtype != d:
            t1, t2 = _SCALAR_TYPE[b.dtype.name], _SCALAR_TYPE[d.name]
            raise RuntimeError(f"self and mat2 must have the same dtype, but got {t1} and {t2}")
        _same_dtype(x, y, "addmm")
        _mm_shapes(x, y)
        _expanded_shape(b.shape, (x.shape[0], y.shape[1]))  # raises torch's message if bias does not fit
    return AddmmBackward0.apply(bias, mat1, mat2)


def _same_dtype(x: np.ndarray, y: np.ndarray, op: str) -> None:
    """Matrix products do not promote dtypes: torch refuses float32 @ float64, with these messages."""
    if x.dtype == y.dtype:
        return
    t1, t2 = _SCALAR_TYPE[x.dtype.name], _SCALAR_TYPE[y.dtype.name]
    if op == "dot":
        raise RuntimeError(f"dot : expected both vectors to have same dtype, but found {t1} and {t2}")
    if op == "mv":  # x is the matrix, y the vector
        raise RuntimeError(f"addmv input tensors must have the same dtype, but got {t2}, {t1}, and {t2}")
    if op == "bmm":
        raise RuntimeError(f"expected scalar type {t1} but found {t2}")
    if op == "addmm":  # x is mat1, y is mat2
        raise RuntimeError(f"mat1 and mat2 must have the same dtype, but got {t1} and {t2}")
    c1, c2 = _C_TYPE[x.dtype.name], _C_TYPE[y.dtype.name]
    raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: {c1} != {c2}")


def _mm_shapes(x: np.ndarray, y: np.ndarray) -> None:
    """torch's check that two matrices can be multiplied."""
    if x.shape[1] != y.shape[0]:
        raise RuntimeError(
            f"mat1 and mat2 shapes cannot be multiplied ({x.shape[0]}x{x.shape[1]} and {y.shape[0]}x{y.shape[1]})"
        )


_C_TYPE = {
    "float16": "c10::Half",
    "float32": "float",
    "float64": "double",
    "int32": "int",
    "int64": "long int",
    "uint8": "unsigned char",
    "bool": "bool",
}  # the C++ names in torch's mm message


def _dim(d: int, ndim: int) -> int:
    """A dimension index in range, counting negative ones from the end, as torch checks it."""
    lo, hi = (-1, 0) if ndim == 0 else (-ndim, ndim - 1)
    if not lo <= d <= hi:
        raise IndexError(f"Dimension out of range (expected to be in range of [{lo}, {hi}], but got {d})")
    return d % max(ndim, 1)


def _dims(dim: Any, ndim: int) -> tuple[int, ...]:
    if type(dim) is int and 0 <= dim < ndim:
        return (dim,)
    dims = tuple(sorted({_dim(d, ndim) for d in (dim if isinstance(dim, (tuple, list)) else (dim,))}))
    return dims if ndim else ()  # a 0-d tensor accepts dim 0 or -1, and there is nothing to reduce


def reduce(whole: type[Function], along: type[Function], t: Tensor, dim: Any, keepdim: bool) -> Tensor:
    """sum/mean: over everything (``whole`` op), or along ``dim`` (``along`` op)."""
    if whole is MeanBackward0 and t._array.dtype.kind != "f":
        raise RuntimeError(
            "mean(): could not infer output dtype. Input dtype must be either a floating point or "
            f"complex dtype. Got: {_SCALAR_TYPE[t._array.dtype.name]}"
        )
    if dim is None:
        return whole.apply(t)
    return along.apply(t, dim=_dims(dim, t.ndim), keepdim=keepdim)


class _ReturnType(tuple):
    _fields = ("values", "indices")

    @property
    def values(self) -> Tensor:
        return self[0]

    @property
    def indices(self) -> Tensor:
        return self[1]

    def __repr__(self) -> str:
        return f"gradbook.return_types.{self.name}(\nvalues={self[0]!r},\nindices={self[1]!r})"


class _Max(_ReturnType):
    name = "max"


class _Min(_ReturnType):
    name = "min"


def extreme(t: Tensor, dim: Any, keepdim: bool, which: str) -> Any:
    """max/min: of everything, or ``(values, indices)`` along ``dim``."""
    if dim is None:
        if t._array.size == 0:
            raise RuntimeError(
                f"{which}(): Expected reduction dim to be specified for input.numel() == 0. Specify the reduction "
                "dim with the 'dim' argument."
            )
        return (MaxBackward1 if which == "max" else MinBackward1).apply(t)
    d = _dim(dim, t.ndim)
    indices = (np.argmax if which == "max" else np.argmin)(t._array, axis=d)
    values = (MaxBackward0 if which == "max" else MinBackward0).apply(t, dim=d, keepdim=keepdim, indices=indices)
    idx = _const(np.expand_dims(indices, d) if keepdim else indices)
    return (_Max if which == "max" else _Min)((values, idx))


def arg_extreme(fn: Any, t: Tensor, dim: Any, keepdim: bool) -> Tensor:
    if dim is None:
        return _const(np.asarray(fn(t._array), dtype=np.int64))
    d = _dim(dim, t.ndim)
    return _const(fn(t._array, axis=d, keepdims=keepdim))


def view(t: Tensor, shape: Sequence[Any]) -> Tensor:
    """Same elements in a new shape (one dimension may be -1)."""
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = shape[0]
    shape = tuple(int(s) for s in shape)
    size = t._array.size
    known = int(np.prod([s for s in shape if s != -1]))
    if shape.count(-1) > 1:
        raise RuntimeError("only one dimension can be inferred")
    if (-1 in shape and (known == 0 or size % known)) or (-1 not in shape and known != size):
        raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {size}")
    return ViewBackward0.apply(t, shape=shape)


def flatten(t: Tensor, start_dim: int = 0, end_dim: int = -1) -> Tensor:
    if t.ndim == 0:
        return view(t, (1,))
    s, e = _dim(start_dim, t.ndim), _dim(end_dim, t.ndim)
    if s == e:
        return t
    shape = t._array.shape
    return view(t, shape[:s] + (int(np.prod(shape[s : e + 1])),) + shape[e + 1 :])


def squeeze(t: Tensor, dim: Any = None) -> Tensor:
    shape = t._array.shape
    if dim is None:
        return SqueezeBackward0.apply(t, shape=tuple(s for s in shape if s != 1))
    if isinstance(dim, (tuple, list)):
        dims = _dims(dim, t.ndim)
        kept = tuple(s for i, s in enumerate(shape) if not (i in dims and s == 1))
        return SqueezeBackward2.apply(t, shape=kept, dim=dims)
    d = _dim(dim, t.ndim)
    return SqueezeBackward1.apply(t, shape=tuple(s for i, s in enumerate(shape) if not (i == d and s == 1)), dim=d)


def transpose(t: Tensor, dim0: int, dim1: int) -> Tensor:
    return TransposeBackward0.apply(t, dim0=_dim(dim0, t.ndim), dim1=_dim(dim1, t.ndim))


def t(x: Tensor) -> Tensor:
    if x.ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {x.ndim}D")
    return TBackward0.apply(x)


def permute(t: Tensor, dims: Sequence[int]) -> Tensor:
    if len(dims) != t.ndim:
        raise RuntimeError(
            "permute(sparse_coo): number of dimensions in the tensor input does not match the length of "
            f"the desired ordering of dimensions i.e. input.dim() = {t.ndim} is not equal to len(dims) = {len(dims)}"
        )
    dims = tuple(_dim(d, t.ndim) for d in dims)
    if len(set(dims)) != len(dims):
        raise RuntimeError("permute(): duplicate dims are not allowed.")
    return PermuteBackward0.apply(t, dims=dims)


def expand(t: Tensor, sizes: Sequence[int]) -> Tensor:
    shape = t._array.shape
    if len(sizes) < len(shape):
        raise RuntimeError(
            f"expand({_type_name(t)}{{{list(shape)}}}, size={list(sizes)}): the number of sizes provided "
            f"({len(sizes)}) must be greater or equal to the number of dimensions in the tensor ({len(shape)})"
        )
    return ExpandBackward0.apply(t, size=_expanded_shape(shape, sizes))


def _expanded_shape(shape: tuple, sizes: Sequence[int]) -> tuple[int, ...]:
    """The shape ``expand(*sizes)`` gives a tensor of ``shape`` (-1 keeps a size), or torch's error."""
    lead = len(sizes) - len(shape)
    target = []
    for i, s in enumerate(sizes):
        old = shape[i - lead] if i >= lead else None
        if s == -1 and old is None:
            raise RuntimeError(
                f"The expanded size of the tensor (-1) isn't allowed in a leading, non-existing dimension {i}"
            )
        if s == -1:
            s = old
        elif old is not None and old != 1 and old != s:
            raise RuntimeError(
                f"The expanded size of the tensor ({s}) must match the existing size ({old}) at non-singleton "
                f"dimension {i}.  Target sizes: {list(sizes)}.  Tensor sizes: {list(shape)}"
            )
        target.append(int(s))
    return tuple(target)


def getitem(t: Tensor, index: Any) -> Tensor:
    """Indexing as torch records it: first the basic parts (None, slices, ints) as a chain of
    Unsqueeze/Slice/Select nodes, then integer arrays and boolean masks as one IndexBackward0."""
    whole = isinstance(index, slice)  # x[a:b] on its own is recorded even when it takes everything
    parts = tuple(_index_part(p) for p in (index if isinstance(index, tuple) else (index,)))
    if sum(p is Ellipsis for p in parts) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    used = sum(_index_dims(p) for p in parts if p is not None and p is not Ellipsis)
    if used > t.ndim:
        raise IndexError(f"too many indices for tensor of dimension {t.ndim}")
    out, dim, pos, rest = t, 0, 0, []  # pos: torch's position for messages; rest: for IndexBackward0
    for p in parts:
        if p is Ellipsis:
            skip = t.ndim - used
            rest += [slice(None)] * skip
            dim, pos = dim + skip, pos + skip
            continue
        if p is None:
            out = UnsqueezeBackward0.apply(out, dim=dim)
            rest.append(slice(None))
            dim += 1
        elif isinstance(p, slice):
            size = out._array.shape[dim]
            start, end, step = p.indices(size)
            if step <= 0:
                raise ValueError("step must be greater than zero")
            if whole or (start, end, step) != (0, size, 1):
                out = SliceBackward0.apply(out, dim=dim, start=start, end=max(end, start), step=step)
            rest.append(slice(None))
            dim += 1
        elif isinstance(p, np.ndarray):
            rest.append(p)
            dim, pos = dim + _index_dims(p), pos + _index_dims(p) - 1
        else:
            i, size = int(p), out._array.shape[dim]
            if not -size <= i < size:
                raise IndexError(f"index {i} is out of bounds for dimension {pos} with size {size}")
            out = SelectBackward0.apply(out, dim=dim, index=i % size)
        pos += 1
    if any(isinstance(p, np.ndarray) for p in rest):
        _check_index_arrays(out._array.shape, rest)
        return IndexBackward0.apply(out, indices=tuple(rest))
    return out if out is not t else AliasBackward0.apply(t)  # x[:, :] and x[...] are views of x


def _index_part(p: Any) -> Any:
    """An index part as getitem reads it: tensors and lists become arrays, a 0-d integer tensor an int."""
    if isinstance(p, Tensor):
        return int(p._array) if p._array.ndim == 0 and p._array.dtype.kind in "iu" else p._array
    if isinstance(p, list):
        a = np.asarray(p)
        return a.astype(np.int64) if a.size == 0 else a
    return p


def _index_dims(p: Any) -> int:
    """How many dimensions of the tensor an index part uses up (a k-d boolean mask: k)."""
    return p.ndim if isinstance(p, np.ndarray) and p.dtype == bool else 1


def _check_index_arrays(shape: tuple, rest: list) -> None:
    """torch's errors for masks and integer arrays that do not fit the tensor they index."""
    d, ints = 0, []
    for p in rest:
        if isinstance(p, np.ndarray) and p.dtype == bool:
            for j, n in enumerate(p.shape):
                if n != shape[d + j]:
                    raise IndexError(
                        f"The shape of the mask {list(p.shape)} at index {j} does not match the shape of the "
                        f"indexed tensor {list(shape)} at index {d + j}"
                    )
        elif isinstance(p, np.ndarray):
            if p.dtype.kind not in "iu":
                raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
            ints.append((p, shape[d]))
        d += _index_dims(p)
    try:
        arrays = np.broadcast_arrays(*[p for p, _ in ints])
    except ValueError:
        shapes = ", ".join(str(list(p.shape)) for p, _ in ints)
        raise IndexError(
            f"shape mismatch: indexing tensors could not be broadcast together with shapes {shapes}"
        ) from None
    if arrays:
        bad = np.stack([((a < -n) | (a >= n)).ravel() for a, (_, n) in zip(arrays, ints)])
        if bad.any():  # the first bad element, then the first array in which it is bad
            e = int(np.argmax(bad.any(axis=0)))
            k = int(np.argmax(bad[:, e]))
            raise IndexError(f"index {arrays[k].flat[e]} is out of bounds for dimension {k} with size {ints[k][1]}")


class AliasBackward0(Function):
    """out = self (a view: ``x[:]``, ``x[...]``);  ∂out/∂self = 1."""

    forward = staticmethod(lambda a: a.view())
    vjps = (lambda n, g: g,)


def setitem(t: Tensor, index: Any, value: Any) -> None:
    """``t[index] = value``: allowed where torch allows an in-place change without recording."""
    value = _lift(value, t)
    if _State.enabled and (t.requires_grad or value.requires_grad):
        if t.grad_fn is None and t.requires_grad:
            raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")
        raise RuntimeError(
            "gradbook does not record item assignment into a tensor that is part of a graph; "
            "build the result with gradbook.where or gradbook.cat instead"
        )
    if isinstance(index, tuple):
        parts = tuple(p._array if isinstance(p, Tensor) else p for p in index)
    else:
        parts = index._array if isinstance(index, Tensor) else index
    t._array[parts] = value._array
    t._version += 1


def inplace(t: Tensor, op: Any, other: Any, ufunc: Any = None) -> Tensor:
    """Run ``op(t, other)`` and write the result into t's memory (``add_``, ``-=``, ``zero_`` ...).

    Under ``no_grad`` this is a plain update, the way an optimizer changes weights. Otherwise a
    leaf that requires grad refuses, as in torch; any other tensor takes the op's grad_fn.
    """
    other_requires = isinstance(other, Tensor) and other.requires_grad
    if ufunc is not None and not (_State.enabled and (t.requires_grad or other_requires)):
        try:  # the optimizer's path: one NumPy call writing into t's memory
            ufunc(t._array, other._array if isinstance(other, Tensor) else other, out=t._array, casting="same_kind")
            t._version += 1
            return t
        except (ValueError, TypeError):
            pass  # the general path below gives torch's message
    if _State.enabled and (t.requires_grad or other_requires):
        if t.grad_fn is None and t.requires_grad:
            raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")
        before = Tensor._make(t._array.copy(), t.grad_fn)
        before.requires_grad = t.requires_grad
        out = op(before, other)
        _write(t, out)
        t.grad_fn, t.requires_grad = out.grad_fn, True
    else:
        with no_grad():
            _write(t, op(t, other))
    t._version += 1
    return t


def _write(t: Tensor, out: Tensor) -> None:
    if out._array.shape != t._array.shape:
        raise RuntimeError(
            f"output with shape {list(t._array.shape)} doesn't match the broadcast shape {list(out._array.shape)}"
        )
    if _KIND_RANK[out._array.dtype.kind] > _KIND_RANK[t._array.dtype.kind]:
        raise RuntimeError(
            f"result type {_SCALAR_TYPE[out._array.dtype.name]} can't be cast to the desired output type "
            f"{_SCALAR_TYPE[t._array.dtype.name]}"
        )
    t._array[...] = out._array


def cat(tensors: Sequence[Tensor], dim: int = 0) -> Tensor:
    """Join tensors along an existing dimension."""
    tensors = list(tensors)
    if not tensors:
        raise ValueError("torch.cat(): expected a non-empty list of Tensors")
    first = tensors[0]
    d = _dim(dim, first.ndim)
    for i, x in enumerate(tensors[1:], 1):
        if x.ndim != first.ndim:
            raise RuntimeError(f"Tensors must have same number of dimensions: got {first.ndim} and {x.ndim}")
        for k in range(first.ndim):
            if k != d and x._array.shape[k] != first._array.shape[k]:
                raise RuntimeError(
                    f"Sizes of tensors must match except in dimension {d}. Expected size "
                    f"{first._array.shape[k]} but got size {x._array.shape[k]} for tensor number {i} in the list."
                )
    return _joined(CatBackward0.apply(*tensors, dim=d, sizes=[x._array.shape[d] for x in tensors]), tensors)


def _joined(out: Tensor, tensors: list[Tensor]) -> Tensor:
    """cat/stack's result in torch's promoted dtype (NumPy makes int64 with float32 float64)."""
    dtypes = {x._array.dtype for x in tensors}
    if len(dtypes) > 1:
        want = functools.reduce(_promote_types, dtypes)
        if out._array.dtype != want:
            out._array = out._array.astype(want)
    return out


def stack(tensors: Sequence[Tensor], dim: int = 0) -> Tensor:
    """Join tensors of the same shape along a new dimension."""
    tensors = list(tensors)
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    for i, x in enumerate(tensors[1:], 1):
        if x._array.shape != tensors[0]._array.shape:
            raise RuntimeError(
                f"stack expects each tensor to be equal size, but got {list(tensors[0]._array.shape)} "
                f"at entry 0 and {list(x._array.shape)} at entry {i}"
            )
    return _joined(StackBackward0.apply(*tensors, dim=_dim(dim, tensors[0].ndim + 1)), tensors)
