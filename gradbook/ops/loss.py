"""The losses torch records as one node each (``gradbook.nn.functional``): mse, nll, binary cross
entropy (with logits), smooth L1, huber."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import _softmax
from .._dtypes import promoted
from ..tensor import Tensor
from .op import Op
from .rules import array_mean, clip, constant, dtype_of, is_tensor, log, shape_of, sigmoid, unsqueeze, where


class MseLossBackward0(Op):
    """out = mean((self - target)²) (or their sum, or each one)"""

    inputs = ("self", "target")
    saves = ("self", "target")

    @staticmethod
    def forward(a: np.ndarray, t: np.ndarray, reduction: str) -> np.ndarray:
        sq = np.square(a - t)
        if a.dtype != t.dtype:  # torch's promotion (NumPy's differs for integer targets)
            sq = sq.astype(promoted(a, t), copy=False)
        return (
            sq
            if reduction == "none"
            else np.add.reduce(sq, axis=None, dtype=sq.dtype)
            if reduction == "sum"
            else array_mean(sq, None, False)
        )

    rules = {
        "∂out/∂self = 2(self - target)/N": lambda n, g, self, target: (self - target) * (g * (2 / _mse_count(n))),
        "∂out/∂target = -2(self - target)/N": (lambda n, g, self, target: (self - target) * (g * (-2 / _mse_count(n)))),
    }


class NllLossBackward0(Op):
    """out = -Σ w[target[i]] · self[i, target[i]] / Σ w[target[i]] (self holds log-probabilities;
    the class weights w are 1 unless given)

    ``self`` is (N, C) with N targets, or (C,) with one 0-d target (a single example).
    """

    saves = ("self", "target", "weight")

    @staticmethod
    def forward(a: np.ndarray, target: Tensor, reduction: str, ignore_index: int, weight: Any) -> np.ndarray:
        t = target._array.reshape(-1)  # class indices: a param, not a differentiable input
        keep = t != ignore_index
        w = _kept_weights(t, keep, None if weight is None else weight._array, a.dtype)
        picked = np.where(keep, -a.reshape(-1, a.shape[-1])[np.arange(t.size), np.where(keep, t, 0)] * w, 0).astype(
            a.dtype
        )
        if reduction == "none" and a.ndim == 2:
            return picked
        loss = _softmax.nll_sum(picked, keep)  # in torch's order; one example's loss too (added to 0)
        if reduction != "mean":
            return loss
        total = _total_weight(w, keep, weight is not None)
        with np.errstate(divide="ignore", invalid="ignore"):  # nothing kept, or only weights 0: nan
            return loss / total

    rules = {"∂out/∂self = -w/Σw at each target, else 0 (w: 1 or weight)": lambda n, g, self: _nll_grad(n, g)}


class NllLoss2DBackward0(NllLossBackward0):
    """out as NllLossBackward0, one term per pixel: ``self`` (N, C, H, W) log-probabilities, ``target``
    (N, H, W) class indices, added in the order of the pixels (the class dimension moved last)."""

    @staticmethod
    def forward(a: np.ndarray, target: Tensor, reduction: str, ignore_index: int, weight: Any) -> np.ndarray:
        pixels = np.moveaxis(a, 1, -1).reshape(-1, a.shape[1])
        out = NllLossBackward0.forward(pixels, target, reduction, ignore_index, weight)
        return out.reshape(target.shape) if reduction == "none" else out


def _mse_count(n: Op) -> int:
    if n.reduction != "mean":
        return 1
    a, b = shape_of(n), shape_of(n, 1)
    return math.prod(a if a == b else np.broadcast_shapes(a, b))


def _kept_weights(t: np.ndarray, keep: np.ndarray, weight: np.ndarray | None, dtype: Any) -> np.ndarray:
    """Each target's class weight (1 without weights), 0 where the target is ignored."""
    return np.where(keep, 1 if weight is None else weight[np.where(keep, t, 0)], 0).astype(dtype)


def _total_weight(kept: np.ndarray, keep: np.ndarray, weighted: bool) -> Any:
    """What the mean divides by: the number of kept targets, or their weights added in torch's order."""
    return _softmax.nll_sum(kept, keep) if weighted else kept.dtype.type(np.count_nonzero(keep))


def _nll_grad(n: Op, g: Any) -> Any:
    """0 except at each kept target, where it is -w[target] · g (each example's own g for ``none``), g
    divided by the total weight Σw for the mean (nan when Σw is 0), as torch's nll_loss_backward writes."""
    shape, dtype = shape_of(n), dtype_of(n)
    classes = shape[1] if len(shape) == 4 else shape[-1]  # (N, C, H, W) for NllLoss2DBackward0
    t = n.target._array.reshape(-1)
    keep = t != n.ignore_index
    rows = np.flatnonzero(keep)
    kept = _kept_weights(t, keep, None if n.weight is None else n.weight._array, dtype)
    w = kept[rows]
    total = _total_weight(kept, keep, n.weight is not None) if n.reduction == "mean" else dtype.type(1)

    def placed(values: np.ndarray) -> np.ndarray:
        out = np.zeros((t.size, classes), dtype=dtype)
        out[rows, t[rows]] = values
        return (
            np.moveaxis(out.reshape(shape[:1] + shape[2:] + shape[1:2]), -1, 1)
            if len(shape) == 4
            else out.reshape(shape)
        )

    with np.errstate(divide="ignore", invalid="ignore"):
        if is_tensor(g):
            return (unsqueeze(g, 1) if g.ndim else g) * constant(placed(-w / total), g)
        return placed(w * -(g.reshape(-1)[rows] if g.ndim else g / total))


_BCE_EPSILON = 1e-12  # torch's floor for x(1-x) in the gradient of binary_cross_entropy


def _reduce(loss: np.ndarray, reduction: str) -> np.ndarray:
    """Each loss (``none``), their sum, or their mean."""
    if reduction == "none":
        return loss
    if reduction == "sum":
        return np.add.reduce(loss, axis=None)
    return array_mean(loss, None, False)


def _per_element(n: Op, g: Any) -> Any:
    """The upstream gradient of one element's loss: g, or g/N for the mean."""
    return g / math.prod(shape_of(n)) if n.reduction == "mean" else g


def _weighted(x: Any, weight: np.ndarray | None, like: Any) -> Any:
    """x times a loss's ``weight`` (a constant), if it has one."""
    return x if weight is None else x * constant(weight, like)


def _float_target(a: np.ndarray, t: np.ndarray) -> np.ndarray:
    """An integer target counts in the input's dtype (NumPy would promote float32 to float64)."""
    return t if t.dtype.kind == "f" else t.astype(a.dtype)


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
            _per_element(n, g) * (self - target) / where(self * (1 - self) > _BCE_EPSILON, self * (1 - self), 1e-12),
            n.weight,
            g,
        ),
        "∂out/∂target = weight · (ln(1 - self) - ln self)": lambda n, g, self: _weighted(
            _per_element(n, g) * (log(1 - self) - log(self)), n.weight, g
        ),
    }


def _bce_with_logits(a: np.ndarray, t: np.ndarray, weight: Any, pos_weight: Any, reduction: str) -> np.ndarray:
    t = _float_target(a, t)
    softplus_neg = np.maximum(-a, 0) + np.log1p(np.exp(-np.abs(a)))  # ln(1 + e⁻ˣ), computed stably
    loss = (1 - t) * a + (softplus_neg if pos_weight is None else (1 + (pos_weight - 1) * t) * softplus_neg)
    return _reduce(loss if weight is None else loss * weight, reduction)


def _bce_with_logits_self_rule(n: Op, g: Any, self: Any, target: Any) -> Any:
    p = sigmoid(self)
    slope = (
        p - target
        if n.pos_weight is None
        else (1 + (constant(n.pos_weight, g) - 1) * target) * p - constant(n.pos_weight, g) * target
    )
    return _weighted(_per_element(n, g) * slope, n.weight, g)


def _bce_with_logits_target_rule(n: Op, g: Any, self: Any) -> Any:
    slope = -self if n.pos_weight is None else (constant(n.pos_weight, g) - 1) * -log(sigmoid(self)) - self
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
            _per_element(n, g) * clip((self - target) / n.beta, -1, 1)
        ),
        "∂out/∂target = -clamp((self - target)/beta, -1, 1)": lambda n, g, self, target: (
            -_per_element(n, g) * clip((self - target) / n.beta, -1, 1)
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
            _per_element(n, g) * clip(self - target, -n.delta, n.delta)
        ),
        "∂out/∂target = -clamp(self - target, -delta, delta)": lambda n, g, self, target: (
            -_per_element(n, g) * clip(self - target, -n.delta, n.delta)
        ),
    }
