"""Batch and layer normalisation."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .op import Op
from .rules import constant, shape_of, sum_keepdim


def batch_dims(shape: tuple) -> tuple[int, ...]:
    """The dimensions a channel's statistics run over: all but dimension 1 (N, and L of (N, C, L))."""
    return (0, *range(2, len(shape)))


def _channel(v: Any, ndim: int) -> Any:
    """A per-channel vector (C,) shaped to broadcast against (N, C) or (N, C, L)."""
    return v.reshape((1, -1) + (1,) * (ndim - 2))


def _batch_norm(
    x: np.ndarray, w: np.ndarray, b: np.ndarray, running_mean: Any, running_var: Any, training: bool, eps: float
) -> np.ndarray:
    dims = batch_dims(x.shape)
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
    shape = shape_of(n)
    if n.training:
        dims = batch_dims(shape)
        m = math.prod(shape[d] for d in dims)
        centred = x - sum_keepdim(x, dims) / m
        invstd = (sum_keepdim(centred * centred, dims) / m + n.eps) ** -0.5
        return centred * invstd, invstd
    invstd = constant(_channel((n.running_var + n.eps) ** -0.5, len(shape)), x)
    return (x - constant(_channel(n.running_mean, len(shape)), x)) * invstd, invstd


def _batch_norm_input_rule(n: Op, g: Any, input: Any, weight: Any) -> Any:
    shape = shape_of(n)
    normed, invstd = _normed(n, input)
    w = _channel(weight, len(shape))
    if not n.training:  # the statistics are constants: a per-channel scale
        return g * w * invstd
    dims = batch_dims(shape)
    m = math.prod(shape[d] for d in dims)
    return w * invstd / m * (m * g - sum_keepdim(g, dims) - normed * sum_keepdim(g * normed, dims))


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
            lambda n, g, input: sum_keepdim(g * _normed(n, input)[0], batch_dims(shape_of(n))).reshape(-1)
        ),
        "∂/∂bias: Σ g over the batch": lambda n, g: sum_keepdim(g, batch_dims(shape_of(n))).reshape(-1),
    }


def _layer_dims(n: Op) -> tuple[int, ...]:
    """The dimensions layer_norm normalises over: the last len(normalized_shape)."""
    ndim = len(shape_of(n))
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
    centred = x - sum_keepdim(x, dims) / m
    invstd = (sum_keepdim(centred * centred, dims) / m + n.eps) ** -0.5
    return centred * invstd, invstd


def _layer_norm_input_rule(n: Op, g: Any, input: Any, weight: Any) -> Any:
    normed, invstd = _layer_normed(n, input)
    dims, m = _layer_dims(n), math.prod(n.normalized_shape)
    gw = g * weight
    return invstd / m * (m * gw - sum_keepdim(gw, dims) - normed * sum_keepdim(gw * normed, dims))


def _over_rows(x: Any, n: Op) -> Any:
    """Σ over the dimensions before the normalised ones, giving normalized_shape."""
    lead = tuple(range(len(shape_of(n)) - len(n.normalized_shape)))
    return (sum_keepdim(x, lead) if lead else x).reshape(n.normalized_shape)


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
