"""The ``gradbook.<op>(tensor, ...)`` functions: each is the Tensor method of the same name.

To give an op of ``ops.py`` its ``gradbook.<name>`` function, add one line here (after its method
in ``tensor.py``).
"""

from __future__ import annotations

import builtins
from typing import Any

from ._dispatch import cat, dot, stack, where  # noqa: F401
from .tensor import Tensor

abs = Tensor.abs  # noqa: A001
add = Tensor.add
argmax = Tensor.argmax
argmin = Tensor.argmin
clamp = Tensor.clamp
cos = Tensor.cos
div = Tensor.div
exp = Tensor.exp
flatten = Tensor.flatten
log = Tensor.log
log_softmax = Tensor.log_softmax
matmul = Tensor.matmul
max = Tensor.max  # noqa: A001
mean = Tensor.mean
min = Tensor.min  # noqa: A001
mm = Tensor.mm
mul = Tensor.mul
mv = Tensor.mv
neg = Tensor.neg
permute = Tensor.permute
pow = Tensor.pow  # noqa: A001
remainder = Tensor.remainder
floor_divide = Tensor.floor_divide
relu = Tensor.relu
reshape = Tensor.reshape
sigmoid = Tensor.sigmoid
sin = Tensor.sin
softmax = Tensor.softmax
sqrt = Tensor.sqrt
squeeze = Tensor.squeeze
sub = Tensor.sub
sum = Tensor.sum  # noqa: A001
t = Tensor.t
tanh = Tensor.tanh
transpose = Tensor.transpose
unsqueeze = Tensor.unsqueeze
clip = clamp
maximum = Tensor.maximum
minimum = Tensor.minimum


def is_tensor(obj: Any) -> builtins.bool:
    """True for a gradbook Tensor (or Parameter)."""
    return isinstance(obj, Tensor)


def numel(t: Tensor) -> builtins.int:
    """The number of elements."""
    return t.numel()


def equal(a: Tensor, b: Tensor) -> builtins.bool:
    """True if both tensors have the same shape and values."""
    return a.equal(b)


def allclose(a: Tensor, b: Tensor, rtol: builtins.float = 1e-05, atol: builtins.float = 1e-08) -> builtins.bool:
    """True if |a - b| <= atol + rtol·|b| everywhere."""
    return a.allclose(b, rtol, atol)


__all__ = [
    "abs",
    "add",
    "allclose",
    "argmax",
    "argmin",
    "cat",
    "clamp",
    "clip",
    "cos",
    "div",
    "dot",
    "equal",
    "exp",
    "flatten",
    "is_tensor",
    "log",
    "log_softmax",
    "matmul",
    "max",
    "maximum",
    "mean",
    "min",
    "minimum",
    "mm",
    "mul",
    "mv",
    "neg",
    "numel",
    "permute",
    "pow",
    "remainder",
    "floor_divide",
    "relu",
    "reshape",
    "sigmoid",
    "sin",
    "softmax",
    "sqrt",
    "squeeze",
    "stack",
    "sub",
    "sum",
    "t",
    "tanh",
    "transpose",
    "unsqueeze",
    "where",
]
