"""Elementwise functions: exp, log, trigonometry, rounding, clamping, where."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._dtypes import default_float
from .op import Op
from .rules import (
    as_array,
    clamped,
    constant,
    cos,
    dtype_of,
    erf_array,
    exp,
    or_default,
    select,
    sigmoid_array,
    sin,
    unary,
    zeros_like,
)


def rounded(fn: Any) -> Any:
    """``floating(fn)``, computed in float64 and rounded once to float32: the result then has
    torch's bits far more often than NumPy's float32 kernel gives them (exp: 99% instead of 61%;
    ``benchmarks/float32_numerics.py`` measures each function)."""

    def forward(a: np.ndarray) -> np.ndarray:
        want = a.dtype if a.dtype.kind == "f" else default_float()
        return fn(a) if want == np.float64 else fn(a.astype(np.float64)).astype(want)

    forward.rounded = True  # type: ignore[attr-defined]  (read by the benchmark)
    return staticmethod(forward)


def floating(fn: Any) -> Any:
    """``fn`` for an op with a floating-point result: integer and bool inputs are computed in
    float32, as torch does (NumPy would give float64)."""
    return staticmethod(lambda a: fn(a) if a.dtype.kind == "f" else fn(a.astype(default_float())))


class ExpBackward0(Op):
    """out = eˢᵉˡᶠ"""

    saves = ("result",)
    forward = rounded(np.exp)
    rules = {"∂out/∂self = eˢᵉˡᶠ = out": lambda n, g, result: g * result}


class LogBackward0(Op):
    """out = ln(self)"""

    saves = ("self",)
    forward = rounded(np.log)
    rules = {"∂out/∂self = 1/self": lambda n, g, self: g / self}


class SqrtBackward0(Op):
    """out = √self"""

    saves = ("result",)
    forward = floating(np.sqrt)
    rules = {"∂out/∂self = 1/(2√self) = 1/(2·out)": lambda n, g, result: g / (2 * result)}


class RsqrtBackward0(Op):
    """out = 1/√self"""

    saves = ("result",)
    forward = floating(lambda a: 1 / np.sqrt(a))
    rules = {"∂out/∂self = -½·self^(-3/2) = -½·out³": lambda n, g, result: -0.5 * g * (result * result * result)}


def _not_for_bool(kernel: str) -> Any:
    raise NotImplementedError(f"\"{kernel}\" not implemented for 'Bool'")


class AbsBackward0(Op):
    """out = |self|"""

    saves = ("self",)
    forward = staticmethod(lambda a: np.abs(a) if a.dtype != np.bool_ else _not_for_bool("abs_cpu"))
    rules = {
        "∂out/∂self = sign(self) (0 at 0)": lambda n, g, self: g * constant(np.nan_to_num(np.sign(as_array(self))), g),
    }  # torch: 0 at nan too


class SinBackward0(Op):
    """out = sin(self)"""

    saves = ("self",)
    forward = rounded(np.sin)
    rules = {"∂out/∂self = cos(self)": lambda n, g, self: g * cos(self)}


class CosBackward0(Op):
    """out = cos(self)"""

    saves = ("self",)
    forward = rounded(np.cos)
    rules = {"∂out/∂self = -sin(self)": lambda n, g, self: g * -sin(self)}


class TanhBackward0(Op):
    """out = tanh(self)"""

    saves = ("result",)
    forward = floating(np.tanh)  # float64 would give torch's bits 99.8% of the time, not 67%, but the MLP
    # benchmark's medium step 14% slower (benchmarks/float32_numerics.py)
    rules = {"∂out/∂self = 1 - tanh² = 1 - out²": lambda n, g, result: g * (1 - result * result)}


class SigmoidBackward0(Op):
    """out = σ(self) = 1/(1+e⁻ˢᵉˡᶠ)"""

    saves = ("result",)
    forward = floating(sigmoid_array)
    rules = {"∂out/∂self = σ(1-σ) = out·(1-out)": lambda n, g, result: g * result * (1 - result)}


class ClampBackward1(Op):
    """out = min(max(self, min), max)"""

    saves = ("self",)
    forward = staticmethod(lambda a, min, max: clamped(a, min, max).astype(a.dtype, copy=False))
    rules = {
        "∂out/∂self = 1 inside [min, max], else 0": (
            lambda n, g, self: select(
                g, (as_array(self) >= or_default(n.min, -np.inf)) & (as_array(self) <= or_default(n.max, np.inf))
            )
        ),
    }


class MaximumBackward0(Op):
    """out = max(self, other), elementwise"""

    inputs = ("self", "other")
    saves = ("self", "other")
    forward = np.maximum
    rules = {
        "∂out/∂self = 1 where self > other, ½ on ties": (lambda n, g, self, other: select(g, _picked(self, other, n))),
        "∂out/∂other = 1 where other > self, ½ on ties": (lambda n, g, self, other: select(g, _picked(other, self, n))),
    }


class MinimumBackward0(Op):
    """out = min(self, other), elementwise"""

    inputs = ("self", "other")
    saves = ("self", "other")
    forward = np.minimum
    rules = {
        "∂out/∂self = 1 where self < other, ½ on ties": (lambda n, g, self, other: select(g, _picked(other, self, n))),
        "∂out/∂other = 1 where other < self, ½ on ties": (lambda n, g, self, other: select(g, _picked(self, other, n))),
    }


class WhereBackward0(Op):
    """out = condition ? self : other"""

    inputs = ("self", "other")
    saves = ("condition",)
    forward = staticmethod(lambda a, b, condition: np.where(condition, a, b))
    rules = {
        "∂out/∂self = 1 where condition, else 0": lambda n, g: select(g, n.condition),
        "∂out/∂other = 1 where not condition, else 0": lambda n, g: select(g, ~n.condition),
    }


class Log1PBackward0(Op):
    """out = ln(1 + self)"""

    saves = ("self",)
    forward = rounded(np.log1p)
    rules = {"∂out/∂self = 1/(1 + self)": lambda n, g, self: g / (self + 1)}


class Expm1Backward0(Op):
    """out = eˢᵉˡᶠ - 1"""

    saves = ("result",)
    forward = rounded(np.expm1)
    rules = {"∂out/∂self = eˢᵉˡᶠ = out + 1": lambda n, g, result: g * (result + 1)}


class Exp2Backward0(Op):
    """out = 2ˢᵉˡᶠ"""

    saves = ("result",)
    forward = rounded(np.exp2)
    rules = {"∂out/∂self = 2ˢᵉˡᶠ · ln 2 = out · ln 2": lambda n, g, result: g * result * math.log(2)}


class Log2Backward0(Op):
    """out = log₂(self)"""

    saves = ("self",)
    forward = rounded(np.log2)
    rules = {"∂out/∂self = 1/(self · ln 2)": lambda n, g, self: g / (self * math.log(2))}


class Log10Backward0(Op):
    """out = log₁₀(self)"""

    saves = ("self",)
    forward = rounded(np.log10)
    rules = {"∂out/∂self = 1/(self · ln 10)": lambda n, g, self: g / (self * math.log(10))}


class ErfBackward0(Op):
    """out = erf(self) = 2/√π ∫₀ˢᵉˡᶠ e^(-t²) dt"""

    saves = ("self",)
    forward = floating(lambda a: erf_array(a))
    rules = {"∂out/∂self = 2/√π · e^(-self²)": lambda n, g, self: g * (2 / math.sqrt(math.pi)) * exp(-self * self)}


class SignBackward0(Op):
    """out = -1, 0 or 1, the sign of self"""

    forward = staticmethod(  # (0 < a) - (a < 0), as torch: 0 at nan, +0 at -0
        lambda a: (a > 0).astype(a.dtype) - (a < 0).astype(a.dtype) if a.dtype.kind != "b" else a.copy()
    )
    rules = {"∂out/∂self = 0 (a step function)": lambda n, g: zeros_like(g)}


class FloorBackward0(Op):
    """out = ⌊self⌋"""

    forward = staticmethod(lambda a: np.floor(a) if a.dtype.kind == "f" else a.copy())
    rules = {"∂out/∂self = 0 (a step function)": lambda n, g: zeros_like(g)}


class CeilBackward0(Op):
    """out = ⌈self⌉"""

    forward = staticmethod(lambda a: np.ceil(a) if a.dtype.kind == "f" else a.copy())
    rules = {"∂out/∂self = 0 (a step function)": lambda n, g: zeros_like(g)}


class RoundBackward0(Op):
    """out = self rounded to the nearest integer (halves to even)"""

    forward = staticmethod(lambda a: np.round(a) if a.dtype.kind == "f" else a.copy())
    rules = {"∂out/∂self = 0 (a step function)": lambda n, g: zeros_like(g)}


class RoundBackward1(Op):
    """out = self rounded to ``decimals`` decimal places (halves to even)"""

    forward = staticmethod(lambda a, decimals: np.round(a, decimals) if a.dtype.kind == "f" else a.copy())
    rules = {"∂out/∂self = 0 (a step function)": lambda n, g: zeros_like(g)}


class AtanBackward0(Op):
    """out = atan(self)"""

    saves = ("self",)
    forward = rounded(np.arctan)
    rules = {"∂out/∂self = 1 / (1 + self²)": lambda n, g, self: g / (self * self + 1)}


class AsinBackward0(Op):
    """out = asin(self)"""

    saves = ("self",)
    forward = rounded(np.arcsin)
    rules = {"∂out/∂self = 1 / √(1 - self²)": lambda n, g, self: g * (1 - self * self) ** -0.5}


class AcosBackward0(Op):
    """out = acos(self)"""

    saves = ("self",)
    forward = rounded(np.arccos)
    rules = {"∂out/∂self = -1 / √(1 - self²)": lambda n, g, self: g * -((1 - self * self) ** -0.5)}


class SinhBackward0(Op):
    """out = sinh(self)"""

    saves = ("self",)
    forward = rounded(np.sinh)
    rules = {"∂out/∂self = cosh(self)": lambda n, g, self: g * unary(self, "cosh", np.cosh)}


class CoshBackward0(Op):
    """out = cosh(self)"""

    saves = ("self",)
    forward = rounded(np.cosh)
    rules = {"∂out/∂self = sinh(self)": lambda n, g, self: g * unary(self, "sinh", np.sinh)}


class Atan2Backward0(Op):
    """out = atan2(self, other): the angle of the point (other, self)"""

    inputs = ("self", "other")
    saves = ("self", "other")
    forward = staticmethod(lambda a, b: _atan2(a, b))
    rules = {
        "∂out/∂self = other / (self² + other²)": lambda n, g, self, other: g * other / (self * self + other * other),
        "∂out/∂other = -self / (self² + other²)": lambda n, g, self, other: g * -self / (self * self + other * other),
    }


class HypotBackward0(Op):
    """out = √(self² + other²)"""

    inputs = ("self", "other")
    saves = ("self", "other", "result")
    forward = staticmethod(np.hypot)
    rules = {
        "∂out/∂self = self / out": lambda n, g, self, result: g * self / result,
        "∂out/∂other = other / out": lambda n, g, other, result: g * other / result,
    }


class LogaddexpBackward0(Op):
    """out = log(eˢᵉˡᶠ + eᵒᵗʰᵉʳ)"""

    inputs = ("self", "other")
    saves = ("self", "other")
    forward = staticmethod(np.logaddexp)
    rules = {
        "∂out/∂self = 1 / (1 + e^(other - self))": lambda n, g, self, other: g / (exp(other - self) + 1),
        "∂out/∂other = 1 / (1 + e^(self - other))": lambda n, g, self, other: g / (exp(self - other) + 1),
    }


class TruncBackward0(Op):
    """out = self rounded toward 0"""

    forward = staticmethod(np.trunc)
    rules = {"∂out/∂self = 0 (a step function)": lambda n, g: zeros_like(g)}


class FracBackward0(Op):
    """out = self - trunc(self)"""

    forward = staticmethod(lambda a: a - np.trunc(a))
    rules = {"∂out/∂self = 1": lambda n, g: g}


class ClampMinBackward0(Op):
    """out = max(self, min)"""

    saves = ("self",)
    forward = staticmethod(lambda a, min: clamped(a, low=a.dtype.type(min)))
    rules = {"∂out/∂self = 1 where self ≥ min, else 0": lambda n, g, self: select(g, as_array(self) >= n.min)}


class ClampMaxBackward0(Op):
    """out = min(self, max)"""

    saves = ("self",)
    forward = staticmethod(lambda a, max: clamped(a, high=a.dtype.type(max)))
    rules = {"∂out/∂self = 1 where self ≤ max, else 0": lambda n, g, self: select(g, as_array(self) <= n.max)}


class NanToNumBackward0(Op):
    """out = self, with nan, +inf and -inf replaced by numbers"""

    saves = ("self",)
    forward = staticmethod(lambda a, nan, posinf, neginf: np.nan_to_num(a, nan=nan, posinf=posinf, neginf=neginf))
    rules = {
        "∂out/∂self = 1 where self is finite, else 0": lambda n, g, self: g * constant(np.isfinite(as_array(self)), g)
    }


def _picked(mine: Any, theirs: Any, n: Op) -> np.ndarray:
    """For maximum (minimum with the arguments swapped): ½ on ties, 0 where this input lost, else 1
    (torch's formula, so a nan on either side passes the gradient to both)."""
    a, b = as_array(mine), as_array(theirs)
    return np.where(a == b, 0.5, np.where(a < b, 0.0, 1.0)).astype(dtype_of(n))


def _atan2(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """atan2 in the dtype torch gives (the floating type of the two; float32 for integers and bools),
    computed in float64 and rounded once for float32."""
    want = np.result_type(a, b)
    want = want if want.kind == "f" else default_float()
    if want == np.float32:
        return np.arctan2(a.astype(np.float64), b.astype(np.float64)).astype(np.float32)
    return np.arctan2(a.astype(want), b.astype(want))
