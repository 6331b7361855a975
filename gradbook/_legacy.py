"""torch's legacy tensor types: ``FloatTensor([1, 2])``, ``isinstance(x, LongTensor)``."""

from __future__ import annotations

import builtins
from typing import Any

from . import _arguments
from ._dtypes import bool, dtype, float16, float32, float64, int32, int64
from .tensor import Tensor


class _LegacyType(type):
    """A legacy type is its dtype's tensors: ``isinstance(x, FloatTensor)`` is ``x.dtype == float32``."""

    dtype: dtype

    def __instancecheck__(cls, obj: Any) -> builtins.bool:
        return isinstance(obj, Tensor) and obj.dtype is cls.dtype

    def __call__(cls, *args: Any) -> Tensor:
        """``FloatTensor(data)`` copies data; ``FloatTensor(2, 3)`` is a new tensor of that shape."""
        return _arguments.new_tensor(*args, dtype=cls.dtype)

    def __repr__(cls) -> str:
        return f"<class 'gradbook.{cls.__name__}'>"


def _legacy(name: str, d: dtype) -> type:
    return _LegacyType(name, (), {"dtype": d, "__module__": "gradbook"})


FloatTensor = _legacy("FloatTensor", float32)
DoubleTensor = _legacy("DoubleTensor", float64)
HalfTensor = _legacy("HalfTensor", float16)
LongTensor = _legacy("LongTensor", int64)
IntTensor = _legacy("IntTensor", int32)
BoolTensor = _legacy("BoolTensor", bool)
