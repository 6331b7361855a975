"""The ops of ``gradbook.nn.functional`` that torch records as one node each.

Written like the op table in ``gradbook/ops.py`` (one class per op, named after torch's
``grad_fn``; ``forward`` in NumPy; one backward rule per input, in the helpers of ``ops.py``, so
that it runs on arrays in a plain backward and on Tensors under ``create_graph=True``). Where
torch records a composition (``l1_loss`` is Sub, Abs, Mean; ``dropout`` is a Mul), functional.py
composes the existing ops instead.
"""

from __future__ import annotations

import functools
import math
from typing import Any

import numpy as np

from ..ops import (
    ErfBackward0,
    Op,
    _array,
    _constant,
    _erf_of,
    _exp,
    _is_tensor,
    _mean,
    _scatter,
    _select,
    _sigmoid,
    _sum,
    _where,
)

_SQRT_2_OVER_PI = math.sqrt(2 / math.pi)
_GELU_KAPPA = 0.044715
_BCE_EPSILON = 1e-12  # torch's floor for x(1-x) in the gradient of binary_cross_entropy


def _reduce(loss: np.ndarray, reduction: str) -> np.ndarray:
    """Each loss (``none``), their sum, or their mean."""
    if reduction == "none":
        return loss
    if reduction == "sum":
        return np.add.reduce(loss, axis=None)
    return _mean(loss, None, False)


def _per_element(n: Op, g: Any) -> Any:
    """The upstream gradient of one element's loss: g, or g/N for the mean."""
    return g / math.prod(n._meta[0][0]) if n.reduction == "mean" else g


def _erf(x: Any) -> Any:
    return ErfBackward0.apply(x) if _is_tensor(x) else _erf_of(x)


def _tanh(x: Any) -> Any:
    return x.tanh() if _is_tensor(x) else np.tanh(x)


def _log(x: Any) -> Any:
    return x.log() if _is_tensor(x) else np.log(x)


def _clip(x: Any, low: float, high: float) -> Any:
    return x.clamp(low, high) if _is_tensor(x) else np.clip(x, low, high)


def _weighted(x: Any, weight: np.ndarray | None, like: Any) -> Any:
    """x times a loss's ``weight`` (a constant), if it has one."""
    return x if weight is None else x * _constant(weight, like)


def _float_target(a: np.ndarray, t: np.ndarray) -> np.ndarray:
    """An integer target counts in the input's dtype (NumPy would promote float32 to float64)."""
    return t if t.dtype.kind == "f" else t.astype(a.dtype)


# ================================================================ activations


class LeakyReluBackward0(Op):
    """out = self where self > 0, else negative_slope · self"""

    saves = ("self",)
    forward = staticmethod(lambda a, negative_slope: np.where(a > 0, a, a * a.dtype.type(negative_slope)))
    rules = {
        "∂out/∂self = 1 where self > 0, else negative_slope": (
            lambda n, g, self: _where(self > 0, g, g * n.negative_slope)
        ),
    }


def _gelu(a: np.ndarray, approximate: str) -> np.ndarray:
    if approximate == "tanh":
        return 0.5 * a * (1 + np.tanh(_SQRT_2_OVER_PI * (a + _GELU_KAPPA * a * a * a)))
    return a * 0.5 * (1 + _erf_of(a * math.sqrt(0.5)))


def _gelu_slope(x: Any, approximate: str) -> Any:
    if approximate == "tanh":
        t = _tanh(_SQRT_2_OVER_PI * (x + _GELU_KAPPA * x * x * x))
        return 0.5 * (1 + t) + 0.5 * x * (1 - t * t) * _SQRT_2_OVER_PI * (1 + 3 * _GELU_KAPPA * x * x)
    return 0.5 * (1 + _erf(x * math.sqrt(0.5))) + x * _exp(-0.5 * x * x) / math.sqrt(2 * math.pi)


class GeluBackward0(Op):
    """out = self · Φ(self), Φ the normal CDF (approximate='tanh': ½ self (1 + tanh(√(2/π)(self + 0.044715 self³))))"""

    saves = ("self",)
    forward = staticmethod(_gelu)
    rules = {"∂out/∂self = Φ(self) + self · φ(self)": lambda n, g, self: g * _gelu_slope(self, n.approximate)}


def _softplus(a: np.ndarray, beta: float, threshold: float) -> np.ndarray:
    wide = a.astype(np.float64)
    out = np.where(wide * beta > threshold, wide, np.log1p(np.exp(wide * beta)) / beta)
    return out.astype(a.dtype)


class SoftplusBackward0(Op):
    """out = log(1 + e^(beta·self)) / beta (self itself where beta·self > threshold)"""

    saves = ("self",)
    forward = staticmethod(_softplus)
    rules = {
        "∂out/∂self = σ(beta·self) (1 above the threshold)": (
            lambda n, g, self: _where(
                _constant(_array(self) * n.beta > n.threshold, g), g, g * _sigmoid_any(self * n.beta)
            )
        ),
    }


class SiluBackward0(Op):
    """out = self · σ(self)"""

    saves = ("self",)
    forward = staticmethod(lambda a: (a.astype(np.float64) * _sigmoid(a.astype(np.float64))).astype(a.dtype))
    rules = {
        "∂out/∂self = σ(self) (1 + self (1 - σ(self)))": (
            lambda n, g, self: g * _sigmoid_any(self) * (1 + self * (1 - _sigmoid_any(self)))
        ),
    }


class MishBackward0(Op):
    """out = self · tanh(softplus(self))"""

    saves = ("self",)
    forward = staticmethod(lambda a: (a * np.tanh(_softplus(a.astype(np.float64), 1.0, 20.0))).astype(a.dtype))
    rules = {
        "∂out/∂self = tanh(sp) + self σ(self) (1 - tanh²(sp))": (lambda n, g, self: g * _mish_slope(self)),
    }


class EluBackward0(Op):
    """out = self where self > 0, else alpha (e^self - 1)"""

    saves = ("self",)
    forward = staticmethod(lambda a, alpha: np.where(a > 0, a, alpha * np.expm1(a.astype(np.float64))).astype(a.dtype))
    rules = {
        "∂out/∂self = 1 where self > 0, else alpha e^self": (
            lambda n, g, self: _where(_constant(_array(self) > 0, g), g, g * _exp(self) * n.alpha)
        ),
    }


class HardtanhBackward0(Op):
    """out = self limited to [min_val, max_val]"""

    saves = ("self",)
    forward = staticmethod(lambda a, min_val, max_val: np.clip(a, min_val, max_val).astype(a.dtype))
    rules = {
        "∂out/∂self = 1 strictly inside (min_val, max_val), else 0": (
            lambda n, g, self: _select(g, (_array(self) > n.min_val) & (_array(self) < n.max_val))
        ),
    }


class LogSigmoidBackward0(Op):
    """out = log σ(self) = -softplus(-self)"""

    saves = ("self",)
    forward = staticmethod(
        lambda a: (np.minimum(a, 0) - np.log1p(np.exp(-np.abs(a.astype(np.float64))))).astype(a.dtype)
    )
    rules = {"∂out/∂self = 1 - σ(self) = σ(-self)": lambda n, g, self: g * _sigmoid_any(-self)}


def _sigmoid_any(x: Any) -> Any:
    return x.sigmoid() if _is_tensor(x) else _sigmoid(x)


def _mish_slope(x: Any) -> Any:
    t = _tanh(x.exp().log1p() if _is_tensor(x) else np.log1p(np.exp(x)))
    return t + x * _sigmoid_any(x) * (1 - t * t)


# ================================================================ convolution and pooling


def _fields(xp: np.ndarray, kernel: tuple, stride: tuple, dilation: tuple) -> np.ndarray:
    """(N, C, *out, *kernel): each output position's receptive field of the padded input, a view."""
    nd = len(kernel)
    span = tuple(d * (k - 1) + 1 for k, d in zip(kernel, dilation))
    windows = np.lib.stride_tricks.sliding_window_view(xp, span, axis=tuple(range(2, 2 + nd)))
    steps = tuple(slice(None, None, s) for s in stride) + tuple(slice(None, None, d) for d in dilation)
    return windows[(slice(None), slice(None)) + steps]


def _padded(x: np.ndarray, padding: tuple, value: float = 0.0) -> np.ndarray:
    """x with ``padding`` (each dimension's (before, after)) added around its spatial dimensions."""
    if not any(p for pair in padding for p in pair):
        return x
    return np.pad(x, ((0, 0), (0, 0)) + tuple(padding), constant_values=value)


def _unfields(
    fields: np.ndarray, shape: tuple, padding: tuple, kernel: tuple, stride: tuple, dilation: tuple
) -> np.ndarray:
    """The adjoint of _fields and _padded: each field's values added back where they came from."""
    nd = len(kernel)
    out = np.zeros(shape[:2] + tuple(s + a + b for s, (a, b) in zip(shape[2:], padding)), fields.dtype)
    positions = fields.shape[2 : 2 + nd]
    for offset in np.ndindex(*kernel):
        where = tuple(
            slice(o * d, o * d + s * (p - 1) + 1, s) for o, d, s, p in zip(offset, dilation, stride, positions)
        )
        out[(slice(None), slice(None)) + where] += fields[(Ellipsis,) + offset]
    return out[(slice(None), slice(None)) + tuple(slice(a, a + s) for s, (a, _) in zip(shape[2:], padding))]


_LETTERS = "hwdxyz"  # spatial dimensions of the output, then kernel offsets below


def _conv_subscripts(nd: int) -> tuple[str, str, str]:
    out, ker = _LETTERS[:nd], "klmpqr"[:nd]
    return f"ngc{out}{ker}", f"goc{ker}", f"ngo{out}"


def _conv(
    x: np.ndarray, w: np.ndarray, b: np.ndarray, stride: tuple, padding: tuple, dilation: tuple, groups: int
) -> np.ndarray:
    nd = w.ndim - 2
    fields = _fields(_padded(x, padding), w.shape[2:], stride, dilation)
    n, c, o = x.shape[0], x.shape[1], w.shape[0]
    f, k, out = _conv_subscripts(nd)
    grouped = fields.reshape((n, groups, c // groups) + fields.shape[2:])
    y = np.einsum(f"{f},{k}->{out}", grouped, w.reshape((groups, o // groups) + w.shape[1:]), optimize=True)
    y = y.reshape((n, o) + y.shape[3:])
    return (y + b.reshape((1, -1) + (1,) * nd)).astype(x.dtype, copy=False)


def _conv_grads(n: Op, g: Any, input: Any, weight: Any) -> tuple[np.ndarray, np.ndarray]:
    """(∂/∂input, ∂/∂weight) of a convolution, from g: the fields' gradient added back, and the
    fields times g summed over the batch and positions."""
    if _is_tensor(g):
        return _conv_grads_recorded(n, g, input, weight)
    x, w, groups = input, weight, n.groups
    nd = w.ndim - 2
    f, k, out = _conv_subscripts(nd)
    bn, c, o = x.shape[0], x.shape[1], w.shape[0]
    fields = _fields(_padded(x, n.padding), w.shape[2:], n.stride, n.dilation)
    gg = g.reshape((bn, groups, o // groups) + g.shape[2:])
    wg = w.reshape((groups, o // groups) + w.shape[1:])
    grad_fields = np.einsum(f"{out},{k}->{f}", gg, wg, optimize=True).reshape(fields.shape)
    grad_input = _unfields(grad_fields, x.shape, n.padding, w.shape[2:], n.stride, n.dilation)
    grouped = fields.reshape((bn, groups, c // groups) + fields.shape[2:])
    grad_weight = np.einsum(f"{out},{f}->{k}", gg, grouped, optimize=True).reshape(w.shape)
    return grad_input.astype(x.dtype, copy=False), grad_weight.astype(w.dtype, copy=False)


@functools.lru_cache(maxsize=32)
def _field_matrix(size: tuple, kernel: tuple, stride: tuple, padding: tuple, dilation: tuple) -> np.ndarray:
    """The 0/1 matrix A with fields = x @ A: row j is input position j (of ``size``, flattened), column
    p·K + k is kernel offset k of output position p (padding reads nothing). Only for create_graph,
    where the rules must be recorded ops: x @ A and g @ Aᵀ are matmuls, differentiable again."""
    index = np.arange(math.prod(size), dtype=np.float64).reshape((1, 1) + size)
    fields = _fields(_padded(index, padding, -1.0), kernel, stride, dilation)
    flat = fields.reshape(-1)
    matrix = np.zeros((math.prod(size), flat.size))
    inside = flat >= 0
    matrix[flat[inside].astype(np.int64), np.flatnonzero(inside)] = 1.0
    return matrix


def _conv_grads_recorded(n: Op, g: Any, x: Any, w: Any) -> tuple[Any, Any]:
    """The same two gradients as recorded ops (under create_graph), through the field matrix."""
    groups = n.groups
    (bn, c), o, kernel = x.shape[:2], w.shape[0], tuple(w.shape[2:])
    size, positions = tuple(x.shape[2:]), tuple(g.shape[2:])
    a = _constant(_field_matrix(size, kernel, n.stride, n.padding, n.dilation).astype(x._array.dtype), g)
    p, k, cg, og = math.prod(positions), math.prod(kernel), c // groups, o // groups
    gp = g.reshape(bn, groups, og, p).permute(0, 1, 3, 2)  # (N, G, P, Og)
    wg = w.reshape(groups, og, cg * k)
    grad_fields = (gp @ wg).reshape(bn, groups, p, cg, k).permute(0, 1, 3, 2, 4).reshape(bn, c, p * k)
    grad_input = (grad_fields @ a.mT).reshape(x.shape)
    fields = (x.reshape(bn, c, math.prod(size)) @ a).reshape(bn, groups, cg, p, k)
    fields = fields.permute(1, 0, 3, 2, 4).reshape(groups, bn * p, cg * k)  # (G, N·P, Cg·K)
    gw = g.reshape(bn, groups, og, p).permute(1, 2, 0, 3).reshape(groups, og, bn * p)
    grad_weight = (gw @ fields).reshape(w.shape)
    return grad_input, grad_weight


class ConvolutionBackward0(Op):
    """out = Σ over each output position's receptive field of input · weight, plus bias
    (conv1d, conv2d: ``stride``, ``padding``, ``dilation``, ``groups``)"""

    inputs = ("input", "weight", "bias")
    saves = ("input", "weight")
    forward = staticmethod(_conv)
    rules = {
        "∂/∂input: g through weight, back onto each receptive field": lambda n, g, input, weight: _conv_grads(
            n, g, input, weight
        )[0],
        "∂/∂weight: Σ g · input over the batch and positions": lambda n, g, input, weight: _conv_grads(
            n, g, input, weight
        )[1],
        "∂/∂bias: Σ g over the batch and positions": lambda n, g: _sum(g, (0, *range(2, g.ndim))).reshape(-1),
    }


def _max_pool(x: np.ndarray, kernel: tuple, stride: tuple, padding: tuple, dilation: tuple) -> np.ndarray:
    fields = _fields(_padded(x, padding, -np.inf), kernel, stride, dilation)
    nd = len(kernel)
    flat = fields.reshape(fields.shape[: 2 + nd] + (-1,))
    return np.max(flat, axis=-1)


class MaxPool2DWithIndicesBackward0(Op):
    """out = the largest value of each window (``kernel_size``, ``stride``, ``padding``, ``dilation``)"""

    saves = ("self",)
    forward = staticmethod(_max_pool)
    rules = {"∂/∂self: each g to its window's largest value": lambda n, g, self: _max_pool_grad(n, g, self)}


def _window_argmax(x: np.ndarray, kernel: tuple, stride: tuple, padding: tuple, dilation: tuple) -> np.ndarray:
    """(N, C, Ho, Wo): the place, 0 .. K-1, of each window's largest value (the first, as torch)."""
    fields = _fields(_padded(x, padding, -np.inf), kernel, stride, dilation)
    return np.argmax(fields.reshape(fields.shape[:4] + (-1,)), axis=-1)


def _max_pool_grad(n: Op, g: Any, x: Any) -> Any:
    best = _window_argmax(_array(x), n.kernel, n.stride, n.padding, n.dilation)
    onehot = np.arange(math.prod(n.kernel)) == best[..., None]  # (N, C, Ho, Wo, K): the largest of each window
    if _is_tensor(g):
        return _pool_grad_recorded(n, g, _constant(onehot.astype(g._array.dtype), g), n.dilation)
    onehot = onehot.reshape(best.shape + tuple(n.kernel))
    return _unfields(onehot * g[..., None, None], x.shape, n.padding, n.kernel, n.stride, n.dilation)


def _pool_grad_recorded(n: Op, g: Any, share: Any, dilation: tuple) -> Any:
    """A pooling gradient as recorded ops: g·share on each window's K places, put back through the
    field matrix (under create_graph)."""
    shape = n._meta[0][0]
    bn, c = shape[:2]
    a = _constant(
        _field_matrix(tuple(shape[2:]), tuple(n.kernel), n.stride, n.padding, dilation).astype(g._array.dtype), g
    )
    fields = (g.unsqueeze(-1) * share).reshape(bn, c, -1)  # (N, C, P·K), in the matrix's order
    return (fields @ a.mT).reshape(shape)


class AvgPool2DBackward0(Op):
    """out = the mean of each window (padding counts as zeros: count_include_pad)"""

    forward = staticmethod(
        lambda a, kernel, stride, padding: (
            _fields(_padded(a, padding), kernel, stride, (1, 1)).mean(axis=(-2, -1)).astype(a.dtype)
        )
    )
    rules = {"∂/∂self: each g shared evenly over its window": lambda n, g: _avg_pool_grad(n, g)}


def _avg_pool_grad(n: Op, g: Any) -> Any:
    if _is_tensor(g):
        even = np.full(tuple(g.shape) + (math.prod(n.kernel),), 1 / math.prod(n.kernel), dtype=g._array.dtype)
        return _pool_grad_recorded(n, g, _constant(even, g), (1, 1))
    share = np.broadcast_to((g / math.prod(n.kernel))[..., None, None], g.shape + tuple(n.kernel))
    return _unfields(share, n._meta[0][0], n.padding, n.kernel, n.stride, (1, 1))


def pool_indices(x: np.ndarray, kernel: tuple, stride: tuple, padding: tuple, dilation: tuple) -> np.ndarray:
    """max_pool2d's indices: where each window's largest value is, as an index into its channel's
    H·W values (torch's ``return_indices``)."""
    best = _window_argmax(x, kernel, stride, padding, dilation)
    dy, dx = np.divmod(best, kernel[1])
    rows = np.arange(best.shape[2])[:, None] * stride[0] - padding[0][0] + dy * dilation[0]
    cols = np.arange(best.shape[3])[None, :] * stride[1] - padding[1][0] + dx * dilation[1]
    return (rows * x.shape[3] + cols).astype(np.int64)


# ================================================================ normalisation and lookup


def _batch_dims(shape: tuple) -> tuple[int, ...]:
    """The dimensions a channel's statistics run over: all but dimension 1 (N, and L of (N, C, L))."""
    return (0, *range(2, len(shape)))


def _channel(v: Any, ndim: int) -> Any:
    """A per-channel vector (C,) shaped to broadcast against (N, C) or (N, C, L)."""
    return v.reshape((1, -1) + (1,) * (ndim - 2))


def _batch_norm(
    x: np.ndarray, w: np.ndarray, b: np.ndarray, running_mean: Any, running_var: Any, training: bool, eps: float
) -> np.ndarray:
    dims = _batch_dims(x.shape)
    if training:
        mean = np.mean(x, axis=dims, keepdims=True, dtype=np.float64)
        var = np.mean(np.square(x - mean), axis=dims, keepdims=True)
    else:
        mean, var = _channel(running_mean, x.ndim), _channel(running_var, x.ndim)
    out = (x - mean) / np.sqrt(var + eps) * _channel(w, x.ndim) + _channel(b, x.ndim)
    return out.astype(x.dtype, copy=False)


def _normed(n: Op, x: Any) -> tuple[Any, Any]:
    """x̂ = (x - mean)·invstd and invstd, per channel: the batch's statistics in training (functions
    of x, so that create_graph differentiates through them), the running ones in eval (constants)."""
    shape = n._meta[0][0]
    if n.training:
        dims = _batch_dims(shape)
        m = math.prod(shape[d] for d in dims)
        centred = x - _sum(x, dims) / m
        invstd = (_sum(centred * centred, dims) / m + n.eps) ** -0.5
        return centred * invstd, invstd
    invstd = _constant(_channel((n.running_var + n.eps) ** -0.5, len(shape)), x)
    return (x - _constant(_channel(n.running_mean, len(shape)), x)) * invstd, invstd


def _batch_norm_input_rule(n: Op, g: Any, input: Any, weight: Any) -> Any:
    shape = n._meta[0][0]
    normed, invstd = _normed(n, input)
    w = _channel(weight, len(shape))
    if not n.training:  # the statistics are constants: a per-channel scale
        return g * w * invstd
    dims = _batch_dims(shape)
    m = math.prod(shape[d] for d in dims)
    return w * invstd / m * (m * g - _sum(g, dims) - normed * _sum(g * normed, dims))


class NativeBatchNormBackward0(Op):
    """out = weight · (input - mean)/√(var + eps) + bias, per channel (dimension 1)

    In training the mean and the (biased) variance are the batch's, over every dimension but 1;
    in eval they are ``running_mean`` and ``running_var``. ``weight`` and ``bias`` are ones and
    zeros that need no gradient when the layer has none (``affine=False``).
    """

    inputs = ("input", "weight", "bias")
    saves = ("input", "weight")
    forward = staticmethod(_batch_norm)
    rules = {
        "∂/∂input: weight·invstd/m · (m·g - Σg - x̂ Σ g·x̂)": _batch_norm_input_rule,
        "∂/∂weight: Σ g · x̂ over the batch": (
            lambda n, g, input: _sum(g * _normed(n, input)[0], _batch_dims(n._meta[0][0])).reshape(-1)
        ),
        "∂/∂bias: Σ g over the batch": lambda n, g: _sum(g, _batch_dims(n._meta[0][0])).reshape(-1),
    }


def _layer_dims(n: Op) -> tuple[int, ...]:
    """The dimensions layer_norm normalises over: the last len(normalized_shape)."""
    ndim = len(n._meta[0][0])
    return tuple(range(ndim - len(n.normalized_shape), ndim))


def _layer_norm(x: np.ndarray, w: np.ndarray, b: np.ndarray, normalized_shape: tuple, eps: float) -> np.ndarray:
    dims = tuple(range(x.ndim - len(normalized_shape), x.ndim))
    mean = np.mean(x, axis=dims, keepdims=True, dtype=np.float64)
    var = np.mean(np.square(x - mean), axis=dims, keepdims=True)
    return ((x - mean) / np.sqrt(var + eps) * w + b).astype(x.dtype, copy=False)


def _layer_normed(n: Op, x: Any) -> tuple[Any, Any]:
    """x̂ = (x - mean)·invstd and invstd over the normalised dimensions (functions of x, so that
    create_graph differentiates through them)."""
    dims = _layer_dims(n)
    m = math.prod(n.normalized_shape)
    centred = x - _sum(x, dims) / m
    invstd = (_sum(centred * centred, dims) / m + n.eps) ** -0.5
    return centred * invstd, invstd


def _layer_norm_input_rule(n: Op, g: Any, input: Any, weight: Any) -> Any:
    normed, invstd = _layer_normed(n, input)
    dims, m = _layer_dims(n), math.prod(n.normalized_shape)
    gw = g * weight
    return invstd / m * (m * gw - _sum(gw, dims) - normed * _sum(gw * normed, dims))


def _over_rows(x: Any, n: Op) -> Any:
    """Σ over the dimensions before the normalised ones, giving normalized_shape."""
    lead = tuple(range(len(n._meta[0][0]) - len(n.normalized_shape)))
    return (_sum(x, lead) if lead else x).reshape(n.normalized_shape)


class NativeLayerNormBackward0(Op):
    """out = weight · (input - mean)/√(var + eps) + bias, mean and (biased) var over the last
    dimensions (``normalized_shape``) of each row

    ``weight`` and ``bias`` are ones and zeros that need no gradient when the layer has none.
    """

    inputs = ("input", "weight", "bias")
    saves = ("input", "weight")
    forward = staticmethod(_layer_norm)
    rules = {
        "∂/∂input: invstd/m · (m·gw - Σgw - x̂ Σ gw·x̂), gw = g·weight": _layer_norm_input_rule,
        "∂/∂weight: Σ g · x̂ over the rows": lambda n, g, input: _over_rows(g * _layer_normed(n, input)[0], n),
        "∂/∂bias: Σ g over the rows": lambda n, g: _over_rows(g, n),
    }


class EmbeddingBackward0(Op):
    """out = weight[indices]: one row of weight per index"""

    inputs = ("weight",)
    forward = staticmethod(lambda w, indices, padding_idx: w[indices._array])
    rules = {
        "∂/∂weight: g added into each index's row (not padding_idx's)": lambda n, g: _scatter(
            g if n.padding_idx is None else g * _constant(_not_padding(n), g), n._meta[0][0], n.indices._array
        ),
    }


def _not_padding(n: Op) -> np.ndarray:
    return (n.indices._array != n.padding_idx)[..., None].astype(n._meta[0][1])


# ================================================================ losses


def _bce(a: np.ndarray, t: np.ndarray, weight: Any, reduction: str) -> np.ndarray:
    loss = (t - 1) * np.maximum(np.log1p(-a), -100) - t * np.maximum(np.log(a), -100)
    return _reduce(loss if weight is None else loss * weight, reduction)


class BinaryCrossEntropyBackward0(Op):
    """out = mean of -weight · (target · ln self + (1 - target) · ln(1 - self)), each log ≥ -100"""

    inputs = ("self", "target")
    saves = ("self", "target")
    forward = staticmethod(_bce)
    rules = {
        "∂out/∂self = weight·(self - target)/max(self(1 - self), 1e-12)": lambda n, g, self, target: _weighted(
            _per_element(n, g) * (self - target) / _where(self * (1 - self) > _BCE_EPSILON, self * (1 - self), 1e-12),
            n.weight,
            g,
        ),
        "∂out/∂target = weight · (ln(1 - self) - ln self)": lambda n, g, self: _weighted(
            _per_element(n, g) * (_log(1 - self) - _log(self)), n.weight, g
        ),
    }


def _bce_with_logits(a: np.ndarray, t: np.ndarray, weight: Any, pos_weight: Any, reduction: str) -> np.ndarray:
    t = _float_target(a, t)
    softplus_neg = np.maximum(-a, 0) + np.log1p(np.exp(-np.abs(a)))  # ln(1 + e⁻ˣ), computed stably
    loss = (1 - t) * a + (softplus_neg if pos_weight is None else (1 + (pos_weight - 1) * t) * softplus_neg)
    return _reduce(loss if weight is None else loss * weight, reduction)


def _bce_with_logits_self_rule(n: Op, g: Any, self: Any, target: Any) -> Any:
    p = _sigmoid_of(self)
    slope = (
        p - target
        if n.pos_weight is None
        else (1 + (_constant(n.pos_weight, g) - 1) * target) * p - _constant(n.pos_weight, g) * target
    )
    return _weighted(_per_element(n, g) * slope, n.weight, g)


def _bce_with_logits_target_rule(n: Op, g: Any, self: Any) -> Any:
    slope = -self if n.pos_weight is None else (_constant(n.pos_weight, g) - 1) * -_log(_sigmoid_of(self)) - self
    return _weighted(_per_element(n, g) * slope, n.weight, g)


class BinaryCrossEntropyWithLogitsBackward0(Op):
    """out = mean of weight · ((1 - target) · self + (1 + (pw - 1)·target) · ln(1 + e⁻ˢᵉˡᶠ)), pw = pos_weight"""

    inputs = ("self", "target")
    saves = ("self", "target")
    forward = staticmethod(_bce_with_logits)
    rules = {
        "∂out/∂self = weight·((1 + (pw - 1)·target)·σ(self) - pw·target)": _bce_with_logits_self_rule,
        "∂out/∂target = weight · ((pos_weight - 1) · ln(1 + e⁻ˢᵉˡᶠ) - self)": _bce_with_logits_target_rule,
    }


def _sigmoid_of(x: Any) -> Any:
    return x.sigmoid() if _is_tensor(x) else _sigmoid(x)


def _smooth_l1(a: np.ndarray, t: np.ndarray, beta: float, reduction: str) -> np.ndarray:
    d = np.abs(a - _float_target(a, t))
    return _reduce(np.where(d < beta, 0.5 * d * d / beta, d - 0.5 * beta), reduction)


class SmoothL1LossBackward0(Op):
    """out = mean of ½(self - target)²/beta where |self - target| < beta, else |self - target| - ½beta"""

    inputs = ("self", "target")
    saves = ("self", "target")
    forward = staticmethod(_smooth_l1)
    rules = {
        "∂out/∂self = clamp((self - target)/beta, -1, 1)": lambda n, g, self, target: (
            _per_element(n, g) * _clip((self - target) / n.beta, -1, 1)
        ),
        "∂out/∂target = -clamp((self - target)/beta, -1, 1)": lambda n, g, self, target: (
            -_per_element(n, g) * _clip((self - target) / n.beta, -1, 1)
        ),
    }


def _huber(a: np.ndarray, t: np.ndarray, delta: float, reduction: str) -> np.ndarray:
    d = np.abs(a - _float_target(a, t))
    loss = np.where(d < delta, 0.5 * d * d, delta * (d - 0.5 * delta)).astype(a.dtype, copy=False)
    return _reduce(loss, reduction)


class HuberLossBackward0(Op):
    """out = mean of ½(self - target)² where |self - target| < delta, else delta·(|self - target| - ½delta)"""

    inputs = ("self", "target")
    saves = ("self", "target")
    forward = staticmethod(_huber)
    rules = {
        "∂out/∂self = clamp(self - target, -delta, delta)": lambda n, g, self, target: (
            _per_element(n, g) * _clip(self - target, -n.delta, n.delta)
        ),
        "∂out/∂target = -clamp(self - target, -delta, delta)": lambda n, g, self, target: (
            -_per_element(n, g) * _clip(self - target, -n.delta, n.delta)
        ),
    }


# ================================================================ module hooks


class BackwardHookFunctionBackward(Op):
    """out = self: the node a module with a full backward hook puts on its inputs and outputs,
    where the hook reads their gradients"""

    forward = staticmethod(lambda a: a.copy())
    rules = {"∂out/∂self = 1": lambda n, g: g}
