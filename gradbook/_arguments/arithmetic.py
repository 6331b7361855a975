"""Arithmetic and comparison: + - * / // % **, where, clamp, lerp, addcmul, each ending in its op."""

from __future__ import annotations

import builtins
import functools
from typing import Any

import numpy as np

from .. import _factories, ops
from .._dtypes import (
    DTYPES,
    c_name,
    default_float,
    get_default_dtype,
    promote_types,
    promoted,
)
from ..autograd.grad_mode import _State
from ..tensor import Tensor
from .operands import binary, broadcast_check, lift, operand, pair


def add(a: Tensor, b: Any, alpha: Any = 1) -> Tensor:
    """a + alpha·b, broadcasting."""
    return binary(ops.AddBackward0, a, b) if alpha == 1 else binary(ops.AddBackward0, a, b, alpha=alpha)


def sub(a: Tensor, b: Any, alpha: Any = 1) -> Tensor:
    """a - alpha·b, broadcasting."""
    return binary(ops.SubBackward0, a, b) if alpha == 1 else binary(ops.SubBackward0, a, b, alpha=alpha)


def rsub(a: Tensor, b: Any) -> Tensor:
    """b - a: a number minus a tensor is ops.RsubBackward1, a tensor minus a tensor ops.SubBackward0."""
    if not operand(b) or isinstance(b, np.ndarray):
        return NotImplemented
    if isinstance(b, Tensor):
        return sub(b, a)
    return ops.RsubBackward1.apply(a.float() if a._array.dtype.kind != "f" and isinstance(b, float) else a, other=b)


def mul(a: Tensor, b: Any) -> Tensor:
    """a · b elementwise, broadcasting."""
    return binary(ops.MulBackward0, a, b)


def div(a: Tensor, b: Any, rounding_mode: str | None = None) -> Tensor:
    """a / b (true division: integer tensors give the default float dtype, float32), or rounded toward zero
    (``rounding_mode="trunc"``) or down (``"floor"``) in the promoted dtype."""
    if not operand(b):
        return NotImplemented
    if rounding_mode is not None:
        if rounding_mode not in ("trunc", "floor"):
            raise RuntimeError(
                f"div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '{rounding_mode}'"
            )
        return binary(ops.DivBackward2, a, b, rounding_mode=rounding_mode)
    a, b = pair(a, b)
    want = promoted(a._array, b._array)
    return ops.DivBackward0.apply(a, b, out_dtype=want if want.kind == "f" else default_float())


def rdiv(a: Tensor, b: Any) -> Tensor:
    """b / a for a number b: torch records it as reciprocal(a) · b."""
    if not operand(b) or isinstance(b, np.ndarray):
        return NotImplemented
    if isinstance(b, Tensor):
        return div(b, a)
    return mul(ops.ReciprocalBackward0.apply(a), b)


def _integer_division(a: Tensor, b: Tensor) -> None:
    if a._array.dtype.kind in "iub" and b._array.dtype.kind in "iub" and not np.all(b._array):
        raise RuntimeError("ZeroDivisionError")


def remainder(a: Tensor, b: Any) -> Tensor:
    """a % b, with Python's sign rule (the sign of b), as torch.remainder."""
    if not operand(b):
        return NotImplemented
    number = not isinstance(b, Tensor)
    a, b = pair(a, b)
    _integer_division(a, b)
    want = promoted(a._array, b._array)
    if number:
        return ops.RemainderBackward0.apply(a, other=b._array, out_dtype=want)
    return ops.RemainderBackward1.apply(a, b, out_dtype=want)


def floor_divide(a: Tensor, b: Any, reflected: bool = False) -> Tensor:
    """a // b (``reflected``: b // a), rounded down as Python does; torch has no derivative for it."""
    if not operand(b) or (reflected and isinstance(b, np.ndarray)):
        return NotImplemented
    return _not_differentiable("floor_divide", np.floor_divide, a, b, reflected)


def reflected_remainder(a: Tensor, b: Any) -> Tensor:
    """b % a for a number b: torch has no derivative for it."""
    if not operand(b) or isinstance(b, np.ndarray):
        return NotImplemented
    if isinstance(b, Tensor):
        return remainder(b, a)
    return _not_differentiable("remainder", np.remainder, a, b, True)


def _not_differentiable(op: str, ufunc: Any, a: Tensor, b: Any, reflected: bool) -> Tensor:
    number = not isinstance(b, Tensor)
    a, b = pair(a, b)
    x, y = (b, a) if reflected else (a, b)
    _integer_division(x, y)
    want = promoted(a._array, b._array)
    if number:
        compute = lambda t: ufunc(*((b._array, t) if reflected else (t, b._array)))  # noqa: E731
        return ops.NotImplementedBackward.apply(a, compute=compute, op=op, out_dtype=want)
    return ops.NotImplementedBackward.apply(x, y, compute=ufunc, op=op, out_dtype=want)


def pow(a: Tensor, exponent: Any) -> Tensor:  # noqa: A001
    """a ** exponent: ops.PowBackward0 for a number exponent, ops.PowBackward1 for a tensor."""
    if not operand(exponent):
        return NotImplemented
    if isinstance(exponent, np.ndarray):
        exponent = _factories.tensor(exponent)
    if isinstance(exponent, Tensor):
        return binary(ops.PowBackward1, *pair(a, exponent))
    if a._array.dtype.kind != "f" and isinstance(exponent, float):
        a = a.float()
    elif a._array.dtype.kind in "iu" and isinstance(exponent, builtins.int) and exponent < 0:
        raise RuntimeError("Integers to negative integer powers are not allowed.")
    return ops.PowBackward0.apply(a, exponent=exponent)


def rpow(a: Tensor, base: Any) -> Tensor:
    """base ** a for a number base (ops.PowBackward2)."""
    if not operand(base) or isinstance(base, np.ndarray):
        return NotImplemented
    if isinstance(base, Tensor):
        return pow(base, a)
    if a._array.dtype.kind != "f":  # an integer base keeps integer exponents integer (2 ** arange)
        a = a.long() if isinstance(base, (builtins.int, np.integer)) else a.float()
    return ops.PowBackward2.apply(a, base=base)


def compare(ufunc: Any, a: Tensor, b: Any) -> Any:
    """A comparison or logical op: a bool tensor, never recorded (``x == None`` is False, as in torch)."""
    if b is None and ufunc in (np.equal, np.not_equal):
        return ufunc is np.not_equal
    if not operand(b):
        return NotImplemented
    a, b = pair(a, b)
    return Tensor._make(ufunc(a._array, b._array))


def where(condition: Tensor, input: Any, other: Any) -> Tensor:  # noqa: A002
    """condition ? input : other, elementwise; the gradient flows to the input that was picked.

    >>> import gradbook as torch
    >>> x = torch.tensor([-1.0, 2.0])
    >>> torch.where(x > 0, x, 0.0)
    tensor([0., 2.])
    """
    cond = condition._array if isinstance(condition, Tensor) else np.asarray(condition)
    like = input if isinstance(input, Tensor) else other if isinstance(other, Tensor) else None
    like = like if like is not None else Tensor._make(np.zeros((), default_float()))  # two numbers
    a, b = lift(input, like), lift(other, like)
    broadcast_check(cond.shape, a._array.shape)  # torch broadcasts condition, input, other in turn
    broadcast_check(np.broadcast_shapes(cond.shape, a._array.shape), b._array.shape)
    return ops.WhereBackward0.apply(a, b, condition=cond.astype(bool), out_dtype=promoted(a._array, b._array))


def number_bound(bound: Any, fn: str) -> Any:
    """A clamp bound as a number. A tensor bound that requires grad, or of several elements, needs torch's
    ClampBackward0 (gradients into the bound, elementwise bounds), which gradbook has not yet: refused
    with a clear message, never dropped silently."""
    if not isinstance(bound, Tensor):
        return bound
    if bound.requires_grad and _State.enabled:
        raise NotImplementedError(
            f"gradbook: {fn} with a bound that requires grad is not supported yet (torch sends a gradient into "
            "the bound); use torch.maximum(x, bound) or torch.minimum(x, bound)"
        )
    if bound._array.size != 1:
        raise NotImplementedError(
            f"gradbook: {fn} with a bound of {bound._array.size} elements is not supported yet; use "
            "torch.maximum(x, bound) or torch.minimum(x, bound)"
        )
    return bound.item()


def clamp(t: Tensor, min: Any = None, max: Any = None) -> Tensor:  # noqa: A002
    """Limit values to [min, max]; the gradient is 1 inside and 0 where clipped."""
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    min, max = number_bound(min, "clamp"), number_bound(max, "clamp")
    if t._array.dtype.kind != "f" and (isinstance(min, float) or isinstance(max, float)):
        t = t.to(get_default_dtype())  # an integer tensor clamped to float bounds gives a float, as in torch
    return ops.ClampBackward1.apply(t, min=min, max=max)


def lerp(t: Tensor, end: Tensor, weight: Any) -> Tensor:
    if isinstance(weight, Tensor):
        raise NotImplementedError("gradbook's lerp takes a number as weight; write start + weight * (end - start)")
    if t._array.dtype != end._array.dtype:
        raise RuntimeError(
            f"expected dtype {c_name(t._array.dtype)} for `end` but got dtype {c_name(end._array.dtype)}"
        )
    return ops.LerpBackward0.apply(t, end, weight=float(weight))


def addcmul(t: Tensor, tensor1: Tensor, tensor2: Tensor, value: Any) -> Tensor:
    return ops.AddcmulBackward0.apply(*_promoted_together(t, tensor1, tensor2), value=value)


def _promoted_together(*tensors: Tensor) -> tuple[Tensor, ...]:
    """The tensors in their promoted dtype (torch's rule), each converted only if it must be."""
    want = functools.reduce(promote_types, (x._array.dtype for x in tensors))
    return tuple(x if x._array.dtype == want else x.to(DTYPES[want]) for x in tensors)
