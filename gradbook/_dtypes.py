"""dtypes and sizes, and torch's rules for them: the one dtype table, promotion, names in messages.

Off the reading path: ``tensor.py`` only needs to know that a dtype wraps a NumPy dtype.
"""

from __future__ import annotations

import builtins
import functools
from typing import Any

import numpy as np

from . import _printing

# ---------------------------------------------------------------- NumPy's floating-point warnings

# torch computes inf and nan silently (log 0, 1/0, overflow); NumPy warns. gradbook switches NumPy's
# warnings off around its own computations only, through the context variable that np.errstate
# sets (about 0.1 µs, where entering np.errstate costs 0.9 µs), so a user's NumPy code still warns.
try:
    from numpy._core._ufunc_config import _extobj_contextvar as numpy_errors
    from numpy._core.umath import _make_extobj

    SILENT = _make_extobj(all="ignore")
except ImportError:  # a NumPy without them: np.errstate's own object, entered and left the same way

    class _ErrstateVar:
        def set(self, _: Any) -> Any:
            state = np.errstate(all="ignore")
            state.__enter__()
            return state

        def reset(self, state: Any) -> None:
            state.__exit__(None, None, None)

    numpy_errors, SILENT = _ErrstateVar(), None

silence_numpy = functools.partial(numpy_errors.set, SILENT)  # returns what restore_numpy takes back
restore_numpy = numpy_errors.reset


class dtype:
    """A tensor element type, printed as ``gradbook.float32`` (torch: ``torch.float32``).

    ``scalar_name`` is how torch's messages name it (``Float``), ``c_name`` the C++ type some of
    them print (``float``).
    """

    __module__ = "gradbook"  # prints as <class 'gradbook.dtype'>, as torch's <class 'torch.dtype'>

    def __init__(self, name: str, scalar_name: str, c_name: str) -> None:
        self.name = name
        self.numpy = np.dtype(name)
        self.is_floating_point = self.numpy.kind == "f"
        self.itemsize = self.numpy.itemsize
        self.scalar_name = scalar_name
        self.c_name = c_name

    def __repr__(self) -> str:
        return f"gradbook.{self.name}"

    def __reduce__(self) -> str:
        return self.name


# the one table: every dtype gradbook has, with torch's names for it
float32 = dtype("float32", "Float", "float")
float64 = dtype("float64", "Double", "double")
float16 = dtype("float16", "Half", "c10::Half")
int64 = dtype("int64", "Long", "long int")
int32 = dtype("int32", "Int", "int")
bool = dtype("bool", "Bool", "bool")  # noqa: A001  (torch.bool)
DTYPES = {d.numpy: d for d in (float32, float64, float16, int64, int32, bool)}
_default = [float32]  # set_default_dtype: what Python floats and the float factories make


def get_default_dtype() -> dtype:
    """The dtype of ``tensor(1.5)`` and the float factories: float32 unless set."""
    return _default[0]


def set_default_dtype(d: Any) -> None:
    """Make Python floats and the float factories give ``d`` (float64, float32 or float16)."""
    d = to_dtype(d, "set_default_dtype")
    if d.numpy.kind != "f":
        raise TypeError("only floating-point types are supported as the default type")
    _default[0] = d
    _printing._DEFAULT_FLOAT[0] = d.numpy.name  # its dtype= suffix is left out


def default_float() -> np.dtype:
    return _default[0].numpy


_NAMED = {**DTYPES, np.dtype(np.uint8): dtype("uint8", "Byte", "unsigned char")}  # named in messages only


def to_dtype(d: Any, caller: str = "tensor") -> dtype:
    """A gradbook dtype from a dtype or a Python type (float is float64 and int int64, as in torch).

    ``caller`` names the function in torch's error for anything else (a string, a NumPy dtype).
    """
    if isinstance(d, dtype):
        return d
    if d is builtins.float:
        return float64
    if d is builtins.int:
        return int64
    if d is builtins.bool:
        return bool
    if d is builtins.complex:
        raise TypeError("gradbook has no complex tensors: use real and imaginary parts as two float tensors")
    raise TypeError(f"{caller}(): argument 'dtype' must be gradbook.dtype, not {type(d).__name__}")


def from_numpy_dtype(d: np.dtype) -> dtype:
    """The gradbook dtype of an array's NumPy dtype (other integer widths become int64)."""
    if d in DTYPES:
        return DTYPES[d]
    if d.kind in "iu":
        return int64
    if d.kind == "f":
        return float32
    if d.kind == "c":
        raise TypeError("gradbook has no complex tensors: use real and imaginary parts as two float tensors")
    raise TypeError(
        f"can't convert np.ndarray of type numpy.{d.name}. The only supported types are: float64, "
        "float32, float16, int64, int32, and bool."
    )


def scalar_name(d: np.dtype) -> str:
    """torch's name of a dtype in messages: ``Float``, ``Long``, ``Half``."""
    return _NAMED[d].scalar_name


def type_name(d: np.dtype) -> str:
    """The legacy tensor type torch's messages use: ``gradbook.FloatTensor``."""
    return f"gradbook.{scalar_name(d)}Tensor"


def c_name(d: np.dtype) -> str:
    """The C++ type name some of torch's messages print: ``float``, ``long int``."""
    return _NAMED[d].c_name


class Size(tuple):
    """A tensor's shape, as torch.Size: a tuple that prints as ``gradbook.Size([2, 3])``."""

    __module__ = "gradbook"  # prints as <class 'gradbook.Size'>, as torch's <class 'torch.Size'>

    def __repr__(self) -> str:
        return f"gradbook.Size({list(self)})"

    def numel(self) -> builtins.int:
        return builtins.int(np.prod(self))


# ---------------------------------------------------------------- promotion

_KIND_RANK = {"b": 0, "u": 1, "i": 1, "f": 2}


def rank(d: np.dtype) -> builtins.int:
    """bool < integers < floating point: a result of a higher kind wins."""
    return _KIND_RANK[d.kind]


def promote_types(x: np.dtype, y: np.dtype) -> np.dtype:
    """torch.promote_types: int with float gives that float (NumPy would widen to float64)."""
    kx, ky = _KIND_RANK[x.kind], _KIND_RANK[y.kind]
    if kx != ky:
        return x if kx > ky else y
    return np.promote_types(x, y)


def promoted(a: np.ndarray, b: np.ndarray) -> np.dtype:
    """torch's result dtype: a 0-d tensor only changes the dtype if it is of a higher kind."""
    if (a.ndim == 0) == (b.ndim == 0):
        return promote_types(a.dtype, b.dtype)
    dim, zero = (a, b) if b.ndim == 0 else (b, a)
    if dim.dtype.kind == "f" or (dim.dtype.kind != "b" and zero.dtype.kind != "f"):
        return dim.dtype
    return promote_types(dim.dtype, zero.dtype)


def scalar_dtype(value: Any, like: np.dtype) -> np.dtype:
    """The dtype torch gives ``tensor <op> value`` for a Python number (it never widens floats)."""
    if isinstance(value, (builtins.bool, np.bool_)):
        return like
    if isinstance(value, (builtins.int, np.integer)):
        return like if like.kind != "b" else np.dtype(np.int64)
    return like if like.kind == "f" else _default[0].numpy
