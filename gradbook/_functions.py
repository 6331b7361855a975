"""The ``gradbook.<op>(tensor, ...)`` functions: each is the Tensor method of the same name.

To give an op of ``ops.py`` its ``gradbook.<name>`` function, add one line here (after its method
in ``tensor.py``).
"""

from __future__ import annotations

import builtins
import functools
from typing import Any

from . import _factories
from ._arguments import cat as _cat
from ._arguments import dot, einsum, meshgrid, where  # noqa: F401
from ._arguments import stack as _stack
from ._numpy_names import with_numpy_names
from .tensor import Tensor

cat, stack = with_numpy_names(_cat), with_numpy_names(_stack)  # torch.cat(ts, axis=1) too


# torch's argument parser turns a Python number given as ``input`` into a tensor for these only
_NUMBERS_AS_INPUT = {"add", "sub", "mul", "div", "floor_divide", "multiply", "divide", "subtract", "true_divide"}


def _function(method: Any, name: str | None = None) -> Any:
    """``gradbook.<name>(input, ...)``: the Tensor method, with the tensor also accepted as ``input=``."""
    name = name or method.__name__.strip("_")  # __eq__: eq

    @functools.wraps(method)
    def function(*args: Any, **kwargs: Any) -> Any:
        if "input" in kwargs:
            args = (kwargs.pop("input"), *args)
        if args and not isinstance(args[0], Tensor):  # torch.sub(2, x): 2 as a tensor; torch.exp(2): refused
            if name not in _NUMBERS_AS_INPUT or not isinstance(args[0], (builtins.bool, builtins.int, builtins.float)):
                raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not {type(args[0]).__name__}")
            args = (_factories.tensor(args[0]), *args[1:])
        return method(*args, **kwargs)

    return function


abs = _function(Tensor.abs)  # noqa: A001
eq, ne, lt, le, gt, ge = (_function(getattr(Tensor, n)) for n in ("eq", "ne", "lt", "le", "gt", "ge"))
greater, greater_equal, less, less_equal, not_equal = gt, ge, lt, le, ne
add = _function(Tensor.add)
argmax = _function(Tensor.argmax)
argmin = _function(Tensor.argmin)
clamp = _function(Tensor.clamp)
cos = _function(Tensor.cos)
div = _function(Tensor.div)
exp = _function(Tensor.exp)
flatten = _function(Tensor.flatten)
log = _function(Tensor.log)
log_softmax = _function(Tensor.log_softmax)
matmul = _function(Tensor.matmul)
max = _function(Tensor.max)  # noqa: A001
mean = _function(Tensor.mean)
min = _function(Tensor.min)  # noqa: A001
mm = _function(Tensor.mm)
mul = _function(Tensor.mul)
mv = _function(Tensor.mv)
neg = _function(Tensor.neg)
permute = _function(Tensor.permute)


def pow(input: Any, exponent: Any) -> Tensor:  # noqa: A001, A002
    """input ** exponent, elementwise (either may be a number)."""
    return input.pow(exponent) if isinstance(input, Tensor) else exponent.__rpow__(input)


remainder = _function(Tensor.remainder)
acos = _function(Tensor.acos)
addcmul = _function(Tensor.addcmul)
addmm = _function(Tensor.addmm)
amax = _function(Tensor.amax)
amin = _function(Tensor.amin)
arccos = _function(Tensor.arccos)
arcsin = _function(Tensor.arcsin)
arctan = _function(Tensor.arctan)
arctan2 = _function(Tensor.arctan2)
argsort = _function(Tensor.argsort)
asin = _function(Tensor.asin)
atan = _function(Tensor.atan)
atan2 = _function(Tensor.atan2)
chunk = _function(Tensor.chunk)
clamp_max = _function(Tensor.clamp_max)
clamp_min = _function(Tensor.clamp_min)
cosh = _function(Tensor.cosh)
bmm = _function(Tensor.bmm)
cumprod = _function(Tensor.cumprod)
diff = _function(Tensor.diff)
fix = _function(Tensor.fix)
flip = _function(Tensor.flip)
frac = _function(Tensor.frac)
hypot = _function(Tensor.hypot)
isfinite = _function(Tensor.isfinite)
isinf = _function(Tensor.isinf)
isnan = _function(Tensor.isnan)
lerp = _function(Tensor.lerp)
logaddexp = _function(Tensor.logaddexp)
logsumexp = _function(Tensor.logsumexp)
moveaxis = _function(Tensor.moveaxis)
movedim = _function(Tensor.movedim)
nan_to_num = _function(Tensor.nan_to_num)
narrow = _function(Tensor.narrow)
outer = _function(Tensor.outer)
roll = _function(Tensor.roll)
sinh = _function(Tensor.sinh)
sort = _function(Tensor.sort)
split = _function(Tensor.split)
swapaxes = _function(Tensor.swapaxes)
swapdims = _function(Tensor.swapdims)
tile = _function(Tensor.tile)
topk = _function(Tensor.topk)
trace = _function(Tensor.trace)
diagonal = _function(Tensor.diagonal)
tril = _function(Tensor.tril)
triu = _function(Tensor.triu)
unbind = _function(Tensor.unbind)
trunc = _function(Tensor.trunc)
floor_divide = _function(Tensor.floor_divide)
relu = _function(Tensor.relu)
reshape = _function(Tensor.reshape)
sigmoid = _function(Tensor.sigmoid)
sin = _function(Tensor.sin)
softmax = _function(Tensor.softmax)
sqrt = _function(Tensor.sqrt)
rsqrt = _function(Tensor.rsqrt)
squeeze = _function(Tensor.squeeze)
sub = _function(Tensor.sub)
cross = _function(Tensor.cross)
kron = _function(Tensor.kron)
# torch's aliases, each named as torch names it in its errors
multiply, divide, subtract = (
    _function(Tensor.mul, "multiply"),
    _function(Tensor.div, "divide"),
    _function(Tensor.sub, "subtract"),
)
true_divide, negative = _function(Tensor.div, "true_divide"), _function(Tensor.neg, "negative")
absolute = _function(Tensor.abs, "absolute")
concat = concatenate = cat
sum = _function(Tensor.sum)  # noqa: A001
t = _function(Tensor.t)
tanh = _function(Tensor.tanh)
transpose = _function(Tensor.transpose)
unsqueeze = _function(Tensor.unsqueeze)
clip = clamp
maximum = _function(Tensor.maximum)
minimum = _function(Tensor.minimum)
norm = _function(Tensor.norm)
cumsum = _function(Tensor.cumsum)
prod = _function(Tensor.prod)
var = _function(Tensor.var)
std = _function(Tensor.std)
square = _function(Tensor.square)
log1p = _function(Tensor.log1p)
expm1 = _function(Tensor.expm1)
exp2 = _function(Tensor.exp2)
log2 = _function(Tensor.log2)
log10 = _function(Tensor.log10)
sign = _function(Tensor.sign)
erf = _function(Tensor.erf)
floor = _function(Tensor.floor)
ceil = _function(Tensor.ceil)
round = _function(Tensor.round)  # noqa: A001
masked_fill = _function(Tensor.masked_fill)
gather = _function(Tensor.gather)
index_select = _function(Tensor.index_select)
scatter = _function(Tensor.scatter)
scatter_add = _function(Tensor.scatter_add)


def isclose(
    input: Tensor,
    other: Any,
    rtol: builtins.float = 1e-05,
    atol: builtins.float = 1e-08,
    equal_nan: builtins.bool = False,  # noqa: A002
) -> Tensor:
    """|input - other| <= atol + rtol·|other|, elementwise (a bool tensor)."""
    return input.isclose(other, rtol, atol, equal_nan)


is_floating_point = _function(Tensor.is_floating_point)
is_inference = _function(Tensor.is_inference)


def is_tensor(obj: Any) -> builtins.bool:
    """True for a gradbook Tensor (or Parameter)."""
    return isinstance(obj, Tensor)


def numel(t: Tensor) -> builtins.int:
    """The number of elements."""
    return t.numel()


def equal(a: Tensor, b: Tensor) -> builtins.bool:
    """True if both tensors have the same shape and values."""
    return a.equal(b)


def allclose(
    input: Tensor,
    other: Tensor,
    rtol: builtins.float = 1e-05,
    atol: builtins.float = 1e-08,
    equal_nan: builtins.bool = False,  # noqa: A002
) -> builtins.bool:
    """True if |input - other| <= atol + rtol·|other| everywhere."""
    return input.allclose(other, rtol, atol, equal_nan)


__all__ = [
    "kron",
    "cross",
    "meshgrid",
    "multiply",
    "divide",
    "true_divide",
    "subtract",
    "negative",
    "absolute",
    "concat",
    "concatenate",
    "abs",
    "eq",
    "ge",
    "greater",
    "greater_equal",
    "gt",
    "le",
    "less",
    "less_equal",
    "lt",
    "ne",
    "not_equal",
    "acos",
    "add",
    "addmm",
    "addcmul",
    "allclose",
    "amax",
    "amin",
    "arccos",
    "arcsin",
    "arctan",
    "arctan2",
    "argmax",
    "argmin",
    "argsort",
    "asin",
    "atan",
    "atan2",
    "bmm",
    "cat",
    "ceil",
    "chunk",
    "clamp",
    "clamp_max",
    "clamp_min",
    "clip",
    "cos",
    "cosh",
    "cumprod",
    "cumsum",
    "diff",
    "div",
    "dot",
    "einsum",
    "equal",
    "erf",
    "exp",
    "exp2",
    "expm1",
    "fix",
    "flatten",
    "flip",
    "floor",
    "floor_divide",
    "frac",
    "gather",
    "hypot",
    "index_select",
    "is_floating_point",
    "is_inference",
    "is_tensor",
    "isclose",
    "isfinite",
    "isinf",
    "isnan",
    "lerp",
    "log",
    "log10",
    "log1p",
    "log2",
    "log_softmax",
    "logaddexp",
    "logsumexp",
    "masked_fill",
    "matmul",
    "max",
    "maximum",
    "mean",
    "min",
    "minimum",
    "mm",
    "moveaxis",
    "movedim",
    "mul",
    "mv",
    "nan_to_num",
    "narrow",
    "neg",
    "norm",
    "numel",
    "outer",
    "permute",
    "pow",
    "prod",
    "relu",
    "remainder",
    "reshape",
    "roll",
    "round",
    "scatter",
    "scatter_add",
    "sigmoid",
    "sign",
    "sin",
    "sinh",
    "softmax",
    "sort",
    "split",
    "rsqrt",
    "sqrt",
    "square",
    "squeeze",
    "stack",
    "std",
    "sub",
    "sum",
    "swapaxes",
    "swapdims",
    "t",
    "tanh",
    "tile",
    "topk",
    "trace",
    "diagonal",
    "transpose",
    "tril",
    "triu",
    "trunc",
    "unbind",
    "unsqueeze",
    "var",
    "where",
]
