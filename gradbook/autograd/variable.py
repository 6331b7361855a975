"""``gradbook.autograd.Variable``, as ``torch.autograd.Variable``: the wrapper every tensor needed before
torch 0.4, kept so that older programs run. ``Variable(t, requires_grad=True)`` is a new leaf that shares
``t``'s data, as ``t.detach().requires_grad_()``; every tensor is a Variable (``isinstance`` says so)."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from .._dtypes import get_default_dtype
from .._messages import type_of
from ..tensor import Tensor

__all__ = ["Variable"]


class _VariableMeta(type):
    def __instancecheck__(cls, other: Any) -> bool:
        return isinstance(other, Tensor)


class Variable(metaclass=_VariableMeta):
    """``Variable(data, requires_grad=False, volatile=False)``: a tensor, a new leaf sharing ``data``'s memory.

    >>> import gradbook as torch
    >>> from gradbook.autograd import Variable
    >>> x = Variable(torch.ones(2), requires_grad=True)
    >>> (x * 3).sum().backward()
    >>> x.grad
    tensor([3., 3.])
    """

    def __new__(cls, *args: Any, **kwargs: Any) -> Tensor:  # type: ignore[misc]
        for name in kwargs:
            if name not in ("data", "requires_grad", "volatile"):
                raise TypeError(f"'{name}' is an invalid keyword argument for this function")
        names = ("data", "requires_grad", "volatile")
        if len(args) > len(names):
            raise TypeError(f"function takes at most 3 arguments ({len(args)} given)")
        given = dict(zip(names, args)) | kwargs
        if "requires_grad" in given and not isinstance(given["requires_grad"], int):  # as torch: ints pass
            raise TypeError(f"'{type_of(given['requires_grad'])}' object cannot be interpreted as an integer")
        if given.get("volatile"):
            warnings.warn(
                "volatile was removed and now has no effect. Use `with gradbook.no_grad():` instead.",
                UserWarning,
                stacklevel=2,
            )
        if given.get("volatile") and given.get("requires_grad"):
            raise ValueError("Variable can't be volatile and require_grad at the same time!")
        data = given.get("data")
        if data is None:
            data = Tensor._make(np.zeros(0, dtype=get_default_dtype().numpy))
        if not isinstance(data, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type_of(data)}")
        t = data.detach()
        if given.get("requires_grad"):
            if t.dtype.is_floating_point is False:
                raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
            t.requires_grad = True
        return t
