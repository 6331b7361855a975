"""Arithmetic: + - * / ** %, and the ops made of them (lerp, addcmul)."""

from __future__ import annotations

from typing import Any

import numpy as np

from .op import Op
from .pointwise import floating
from .rules import as_array, constant, log, where


class AddBackward0(Op):
    """out = self + alpha·other"""

    inputs = ("self", "other")
    alpha = 1
    forward = staticmethod(lambda a, b, alpha=1: np.add(a, b) if alpha == 1 else a + alpha * b)
    rules = {
        "∂out/∂self = 1": lambda n, g: g,
        "∂out/∂other = alpha": lambda n, g: g if n.alpha == 1 else g * n.alpha,
    }


class AddBackward1(Op):
    """out = self + other, a number (ATen's own ``add(Tensor, Scalar)``: ``rms_norm``'s ``+ eps``)"""

    unexposed = ("other",)
    forward = staticmethod(lambda a, other: a + other)
    rules = {"∂out/∂self = 1": lambda n, g: g}


class MulBackward1(Op):
    """out = self · other, a number (ATen's own ``mul(Tensor, Scalar)``: label smoothing's weights)"""

    forward = staticmethod(lambda a, other: a * other)
    rules = {"∂out/∂self = other": lambda n, g: g * n.other}


class DivBackward1(Op):
    """out = self / other, a number (ATen's own ``div(Tensor, Scalar)``)"""

    forward = staticmethod(lambda a, other: a / other)
    rules = {"∂out/∂self = 1/other": lambda n, g: g / n.other}


def _bool_subtraction(a: np.ndarray, b: np.ndarray) -> Any:
    if a.dtype == b.dtype == np.bool_ and b.size:
        raise RuntimeError(
            "Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or `logical_xor()` "
            "operator instead."
        )
    raise RuntimeError(
        "Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to invert a mask, use "
        "the `~` or `logical_not()` operator instead."
    )


def _bool_negation() -> Any:
    raise RuntimeError(
        "Negation, the `-` operator, on a bool tensor is not supported. If you are trying to invert a mask, use "
        "the `~` or `logical_not()` operator instead."
    )


class SubBackward0(Op):
    """out = self - alpha·other"""

    inputs = ("self", "other")
    alpha = 1
    forward = staticmethod(
        lambda a, b, alpha=1: (
            (np.subtract(a, b) if alpha == 1 else a - alpha * b)
            if a.dtype != np.bool_ and getattr(b, "dtype", None) != np.bool_
            else _bool_subtraction(a, b)
        )
    )
    rules = {
        "∂out/∂self = 1": lambda n, g: g,
        "∂out/∂other = -alpha": lambda n, g: -g if n.alpha == 1 else g * -n.alpha,
    }


class RsubBackward1(Op):
    """out = other - self, for a number ``other`` (``1 - x``)"""

    unexposed = ("other",)  # torch keeps alpha only

    forward = staticmethod(
        lambda a, other: np.subtract(other, a, dtype=a.dtype) if a.dtype != np.bool_ else _bool_subtraction(a, a[:0])
    )
    rules = {"∂out/∂self = -1": lambda n, g: -g}


class MulBackward0(Op):
    """out = self · other"""

    inputs = ("self", "other")
    saves = ("self", "other")
    forward = np.multiply
    rules = {
        "∂out/∂self = other": lambda n, g, other: g * other,
        "∂out/∂other = self": lambda n, g, self: g * self,
    }


class DivBackward0(Op):
    """out = self / other"""

    inputs = ("self", "other")
    saves = ("self", "other")
    forward = np.true_divide
    rules = {
        "∂out/∂self = 1/other": lambda n, g, other: g / other,
        "∂out/∂other = -self/other²": lambda n, g, self, other: -g * ((self / other) / other),  # torch's order
    }


def _rounded_div(a: np.ndarray, b: np.ndarray, rounding_mode: str) -> np.ndarray:
    if rounding_mode == "floor":
        return np.floor_divide(a, b)
    quotient = np.true_divide(a, b)
    return np.trunc(quotient).astype(np.result_type(a, b), copy=False)


class DivBackward2(Op):
    """out = self / other rounded (``rounding_mode="trunc"`` toward zero, ``"floor"`` down): a step function"""

    inputs = ("self", "other")
    forward = staticmethod(_rounded_div)
    rules = {
        "∂out/∂self = 0 (rounded: flat between steps)": lambda n, g: g * 0,
        "∂out/∂other = 0 (rounded: flat between steps)": lambda n, g: g * 0,
    }


class ReciprocalBackward0(Op):
    """out = 1/self"""

    saves = ("result",)
    forward = floating(np.reciprocal)
    rules = {"∂out/∂self = -1/self² = -out²": lambda n, g, result: -g * result * result}


class NegBackward0(Op):
    """out = -self"""

    forward = staticmethod(lambda a: np.negative(a) if a.dtype != np.bool_ else _bool_negation())
    rules = {"∂out/∂self = -1": lambda n, g: -g}


class PowBackward0(Op):
    """out = self ** exponent, for a number exponent (kept as a param)"""

    saves = ("self",)
    forward = staticmethod(lambda a, exponent: np.power(a, exponent))
    rules = {
        "∂out/∂self = exponent · self^(exponent-1)": (
            lambda n, g, self: g * 0 if n.exponent == 0 else g * n.exponent * self ** (n.exponent - 1)
        ),
    }


class PowBackward1(Op):
    """out = self ** exponent, both tensors"""

    inputs = ("self", "exponent")
    saves = ("self", "exponent", "result")
    forward = np.power
    rules = {
        "∂out/∂self = exponent · self^(exponent-1)": lambda n, g, self, exponent: (
            g * where(exponent == 0, 0.0, exponent * self ** (exponent - 1))
        ),
        "∂out/∂exponent = out · ln(self)": (
            lambda n, g, self, exponent, result: g * where((self == 0) & (exponent >= 0), 0.0, result * log(self))
        ),
    }


class PowBackward2(Op):
    """out = base ** exponent, for a number base (``2 ** x``; the base is kept as a param)"""

    unexposed = ("base",)

    inputs = ("exponent",)
    saves = ("exponent", "result")
    forward = staticmethod(lambda e, base: np.power(np.asarray(base, dtype=e.dtype), e))
    rules = {
        "∂out/∂exponent = out · ln(base)": (
            lambda n, g, exponent, result: g * 0 if n.base == 0 else g * result * float(np.log(n.base))
        ),
    }


class RemainderBackward0(Op):
    """out = self mod other, for a number other: Python's %, with the sign of other"""

    forward = staticmethod(lambda a, other: np.remainder(a, other))
    rules = {"∂out/∂self = 1": lambda n, g: g}


class RemainderBackward1(Op):
    """out = self mod other = self - other · floor(self/other), both tensors"""

    inputs = ("self", "other")
    saves = ("self", "other")
    forward = np.remainder
    rules = {
        "∂out/∂self = 1": lambda n, g: g,
        "∂out/∂other = -floor(self/other)": (
            lambda n, g, self, other: -g * constant(np.floor(as_array(self) / as_array(other)), g)  # floor' = 0
        ),
    }


def _not_implemented(n: Op, g: Any) -> Any:
    raise RuntimeError(f"derivative for aten::{n.op} is not implemented")


class NotImplementedBackward(Op):
    """An op whose derivative torch does not implement: ``//``, and a number % a tensor

    torch records it as a node named NotImplemented; backward through it raises torch's error.
    """

    inputs = ("self", "other")
    forward = staticmethod(lambda *arrays, compute, op: compute(*arrays))
    rules = {"∂out/∂self: not implemented": _not_implemented, "∂out/∂other: not implemented": _not_implemented}

    def name(self) -> str:
        return "torch::autograd::NotImplemented"

    def _sequence_nr(self) -> int:
        return 2**64 - 1


NotImplementedBackward.__name__ = NotImplementedBackward.__qualname__ = "NotImplemented"  # torch's repr


class LerpBackward0(Op):
    """out = self + weight · (end - self), for a number weight"""

    inputs = ("self", "end")
    forward = staticmethod(lambda a, b, weight: a + a.dtype.type(weight) * (b - a))
    rules = {
        "∂out/∂self = 1 - weight": lambda n, g: g * (1 - n.weight),
        "∂out/∂end = weight": lambda n, g: g * n.weight,
    }


class AddcmulBackward0(Op):
    """out = self + value · tensor1 · tensor2"""

    inputs = ("self", "tensor1", "tensor2")
    saves = ("tensor1", "tensor2")
    forward = staticmethod(lambda a, t1, t2, value: a + value * t1 * t2)
    rules = {
        "∂out/∂self = 1": lambda n, g: g,
        "∂out/∂tensor1 = value · tensor2": lambda n, g, tensor2: g * tensor2 * n.value,
        "∂out/∂tensor2 = value · tensor1": lambda n, g, tensor1: g * tensor1 * n.value,
    }
