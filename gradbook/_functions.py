"""The ``gradbook.<op>(tensor, ...)`` functions: each is the Tensor method of the same name."""

from __future__ import annotations

import builtins
from collections.abc import Sequence
from typing import Any

import numpy as np

from . import _ops
from ._ops import cat, dot, stack, where  # noqa: F401
from ._tensor import Tensor


def _method(name: str, doc: str) -> Any:
    def fn(input: Tensor, *args: Any, **kwargs: Any) -> Any:  # noqa: A002
        return getattr(input, name)(*args, **kwargs)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc
    return fn


abs = _method("abs", "|x|, elementwise.")  # noqa: A001
add = _method("add", "x + y (times ``alpha``).")
argmax = _method("argmax", "Index of the largest value (along ``dim``).")
argmin = _method("argmin", "Index of the smallest value (along ``dim``).")
clamp = _method("clamp", "Limit values to [min, max].")
clip = clamp
cos = _method("cos", "cos(x), elementwise.")
div = _method("div", "x / y.")
exp = _method("exp", "eˣ, elementwise.")
flatten = _method("flatten", "Flatten dimensions ``start_dim`` .. ``end_dim`` into one.")
log = _method("log", "ln(x), elementwise.")
log_softmax = _method("log_softmax", "log(softmax(x)) along ``dim``, computed stably.")
matmul = _method("matmul", "Matrix product (dot, mv, mm or batched).")
max = _method("max", "Largest value, or ``(values, indices)`` along ``dim``.")  # noqa: A001
mean = _method("mean", "Mean of all elements, or along ``dim``.")
min = _method("min", "Smallest value, or ``(values, indices)`` along ``dim``.")  # noqa: A001
mm = _method("mm", "Matrix product of two 2-D tensors.")
mul = _method("mul", "x · y, elementwise.")
mv = _method("mv", "Matrix-vector product.")
neg = _method("neg", "-x.")
permute = _method("permute", "Reorder dimensions.")
pow = _method("pow", "x ** exponent.")  # noqa: A001
relu = _method("relu", "max(x, 0), elementwise.")
reshape = _method("reshape", "Same elements, new shape.")
sigmoid = _method("sigmoid", "1 / (1 + e⁻ˣ), elementwise.")
sin = _method("sin", "sin(x), elementwise.")
softmax = _method("softmax", "eˣ / Σ eˣ along ``dim``.")
sqrt = _method("sqrt", "√x, elementwise.")
squeeze = _method("squeeze", "Remove size-1 dimensions.")
sub = _method("sub", "x - y (times ``alpha``).")
sum = _method("sum", "Sum of all elements, or along ``dim``.")  # noqa: A001
t = _method("t", "Transpose of a tensor with at most 2 dimensions.")
tanh = _method("tanh", "tanh(x), elementwise.")
transpose = _method("transpose", "Swap two dimensions.")
unsqueeze = _method("unsqueeze", "Insert a size-1 dimension.")


def maximum(input: Tensor, other: Tensor) -> Tensor:  # noqa: A002
    """Elementwise maximum of two tensors, broadcast, in torch's promoted dtype."""
    return input.maximum(other)


def minimum(input: Tensor, other: Tensor) -> Tensor:  # noqa: A002
    """Elementwise minimum of two tensors, broadcast, in torch's promoted dtype."""
    return input.minimum(other)


def is_tensor(obj: Any) -> builtins.bool:
    return isinstance(obj, Tensor)


def numel(t: Tensor) -> builtins.int:
    return t.numel()


def equal(a: Tensor, b: Tensor) -> builtins.bool:
    """True if both tensors have the same shape and values."""
    return a.equal(b)


def allclose(a: Tensor, b: Tensor, rtol: builtins.float = 1e-05, atol: builtins.float = 1e-08) -> builtins.bool:
    """True if |a - b| <= atol + rtol·|b| everywhere."""
    return a.allclose(b, rtol, atol)


_ = (np, Sequence, _ops)
