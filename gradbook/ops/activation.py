"""Activations: relu, softmax and log_softmax, and the ones of ``gradbook.nn.functional``."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import _softmax
from .op import Op
from .rules import (
    as_array,
    clamped,
    constant,
    erf,
    erf_array,
    exp,
    half_in_float32,
    is_tensor,
    kept_or_zero,
    select,
    sigmoid,
    sigmoid_array,
    sum_keepdim,
    tanh,
    where,
)


def _no_bool(kernel: str, name: str = "Boolean") -> Any:
    raise RuntimeError(f"{name} inputs not supported for {kernel}")


class ReluBackward0(Op):
    """out = max(self, 0)"""

    saves = ("result",)
    forward = staticmethod(lambda a: kept_or_zero(~(a < 0), a) if a.dtype != np.bool_ else _no_bool("relu"))  # -0 stays
    # (~(out <= 0), not out > 0: 1 at nan, as torch)
    rules = {"∂out/∂self = 1 where out > 0, else 0": lambda n, g, result: select(g, ~(as_array(result) <= 0))}


class SoftmaxBackward0(Op):
    """out = eˢᵉˡᶠ / Σ eˢᵉˡᶠ along dim"""

    saves = ("result",)

    @staticmethod
    def forward(a: np.ndarray, dim: int) -> np.ndarray:
        if _torch_kernel(a):  # float32: torch's own digits (gradbook/_softmax.py)
            return _softmax.softmax(a, dim)
        if not a.size:
            return a.copy()
        dim = dim if a.ndim else None
        e = np.exp(a - np.maximum.reduce(a, axis=dim, keepdims=True))
        return e / np.add.reduce(e, axis=dim, keepdims=True)

    rules = {
        "∂/∂self: out · (g - Σ g·out)": lambda n, g, result: (
            _softmax.softmax_backward(g, result, n.dim)
            if _torch_kernel(result, g)
            else result * (g - sum_keepdim(g * result, n.dim))
        )
    }


class LogSoftmaxBackward0(Op):
    """out = self - ln Σ eˢᵉˡᶠ along dim, computed stably"""

    saves = ("result",)

    @staticmethod
    def forward(a: np.ndarray, dim: int) -> np.ndarray:
        if _torch_kernel(a):
            return _softmax.log_softmax(a, dim)
        if not a.size:
            return a.copy()
        dim = dim if a.ndim else None
        shifted = a - np.maximum.reduce(a, axis=dim, keepdims=True)
        return shifted - np.log(np.add.reduce(np.exp(shifted), axis=dim, keepdims=True))

    rules = {
        "∂/∂self: g - softmax · Σ g": lambda n, g, result: (
            _softmax.log_softmax_backward(g, result, n.dim)
            if _torch_kernel(result, g)
            else g - exp(result) * sum_keepdim(g, n.dim)
        )
    }


def _torch_kernel(*arrays: Any) -> bool:
    """float32 arrays of one or more dimensions (not a graph of tensors, for create_graph)."""
    return all(isinstance(a, np.ndarray) and a.dtype == np.float32 and a.ndim and a.size for a in arrays)


_SQRT_2_OVER_PI = math.sqrt(2 / math.pi)

_GELU_KAPPA = 0.044715


class LeakyReluBackward0(Op):
    """out = self where self > 0, else negative_slope · self"""

    saves = ("self",)
    forward = staticmethod(
        lambda a, negative_slope: np.where(a > 0, a, half_in_float32(lambda a: a * a.dtype.type(negative_slope), a))
    )
    rules = {
        "∂out/∂self = 1 where self > 0, else negative_slope": (
            lambda n, g, self: where(self > 0, g, half_in_float32(lambda g: g * n.negative_slope, g))
        ),
    }


class LeakyReluBackward1(Op):
    """out = self where self > 0, else negative_slope · self, written into self (``leaky_relu_``)"""

    saves = ("result",)
    forward = LeakyReluBackward0.forward
    rules = {
        "∂out/∂self = 1 where out > 0, else negative_slope": (
            lambda n, g, result: where(result > 0, g, half_in_float32(lambda g: g * n.negative_slope, g))
        ),
    }


def _gelu(a: np.ndarray, approximate: str) -> np.ndarray:
    if approximate == "tanh":
        return 0.5 * a * (1 + np.tanh(_SQRT_2_OVER_PI * (a + _GELU_KAPPA * a * a * a)))
    return a * 0.5 * (1 + erf_array(a * math.sqrt(0.5)))


def _gelu_slope(x: Any, approximate: str) -> Any:
    if approximate == "tanh":
        t = tanh(_SQRT_2_OVER_PI * (x + _GELU_KAPPA * x * x * x))
        return 0.5 * (1 + t) + 0.5 * x * (1 - t * t) * _SQRT_2_OVER_PI * (1 + 3 * _GELU_KAPPA * x * x)
    return 0.5 * (1 + erf(x * math.sqrt(0.5))) + x * exp(-0.5 * x * x) / math.sqrt(2 * math.pi)


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
            lambda n, g, self: where(constant(as_array(self) * n.beta > n.threshold, g), g, g * sigmoid(self * n.beta))
        ),
    }


class SiluBackward0(Op):
    """out = self · σ(self)"""

    saves = ("self",)
    forward = staticmethod(lambda a: (a.astype(np.float64) * sigmoid_array(a.astype(np.float64))).astype(a.dtype))
    rules = {
        "∂out/∂self = σ(self) (1 + self (1 - σ(self)))": (
            lambda n, g, self: g * sigmoid(self) * (1 + self * (1 - sigmoid(self)))
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
            lambda n, g, self: where(
                constant(as_array(self) > 0, g), g, half_in_float32(lambda g, x: g * n.alpha * exp(x), g, self)
            )
        ),
    }


class EluBackward1(Op):
    """out = self where self > 0, else alpha (e^self - 1), written into self (``elu_``)"""

    saves = ("result",)
    forward = EluBackward0.forward
    rules = {
        "∂out/∂self = 1 where out > 0, else alpha + out": (
            lambda n, g, result: where(
                constant(as_array(result) > 0, g), g, half_in_float32(lambda g, y: g * (y + n.alpha), g, result)
            )
        ),
    }


class HardtanhBackward0(Op):
    """out = self limited to [min_val, max_val]"""

    saves = ("self",)
    forward = staticmethod(
        lambda a, min_val, max_val: (
            clamped(a, min_val, max_val).astype(a.dtype) if a.dtype != np.bool_ else _no_bool("hardtanh", "Bool")
        )
    )
    rules = {
        "∂out/∂self = 1 strictly inside (min_val, max_val), else 0": (
            lambda n, g, self: select(g, (as_array(self) > n.min_val) & (as_array(self) < n.max_val))
        ),
    }


class LogSigmoidBackward0(Op):
    """out = log σ(self) = -softplus(-self)"""

    saves = ("self",)
    forward = staticmethod(
        lambda a: (np.minimum(a, 0) - np.log1p(np.exp(-np.abs(a.astype(np.float64))))).astype(a.dtype)
    )
    rules = {"∂out/∂self = 1 - σ(self) = σ(-self)": lambda n, g, self: g * sigmoid(-self)}


def _mish_slope(x: Any) -> Any:
    t = tanh(x.exp().log1p() if is_tensor(x) else np.log1p(np.exp(x)))
    return t + x * sigmoid(x) * (1 - t * t)
