"""Making and converting tensors: ``torch.Tensor(data)``, ``.to``, ``.type``, ``new_*``, and the checks
of ``requires_grad`` and ``.grad`` assignments."""

from __future__ import annotations

import builtins
from typing import Any

from .. import _device, _factories, ops
from .._dtypes import (
    DTYPES,
    c_name,
    get_default_dtype,
    scalar_name,
    to_dtype,
    type_name,
)
from .._dtypes import dtype as dtype_class
from .._messages import (
    GRAD_DTYPE_ERROR,
    INFERENCE_REQUIRES_GRAD_ERROR,
    NON_LEAF_REQUIRES_GRAD_ERROR,
    type_of,
)
from ..autograd.grad_mode import _State
from ..autograd.graph import LeafHooks
from ..tensor import Tensor


def new_tensor(*args: Any, dtype: Any = None) -> Tensor:
    """``torch.Tensor(data)`` (and ``FloatTensor(data)``): a copy of ``data`` in ``dtype``, the
    default float dtype unless given; ``torch.Tensor(2, 3)``: a new tensor of that shape."""
    dtype = get_default_dtype() if dtype is None else dtype
    if args and all(isinstance(a, builtins.int) and not isinstance(a, builtins.bool) for a in args):
        return _factories.zeros(*args, dtype=dtype)
    if len(args) > 1:
        raise TypeError(f"new() received an invalid combination of arguments - got {len(args)} arguments")
    return _factories.tensor(args[0] if args else [], dtype=dtype)


def to(
    t: Tensor,
    *args: Any,
    dtype: Any = None,
    device: Any = None,
    non_blocking: builtins.bool = False,
    copy: builtins.bool = False,
    memory_format: Any = None,
) -> Tensor:
    """``t.to(...)`` with torch's overloads: (dtype), (device, dtype), (other tensor), keywords."""
    rest = [a for a in args if a is not None]
    if rest and isinstance(rest[0], Tensor):
        dtype = rest.pop(0).dtype if dtype is None else dtype
    elif rest and isinstance(rest[0], (str, _device.device, builtins.int)) and not isinstance(rest[0], builtins.bool):
        device = rest.pop(0)
    if rest and dtype is None and not isinstance(rest[0], (str, _device.device, Tensor, list, tuple)):
        dtype = rest.pop(0)
    if rest:
        got = ", ".join(type_of(a) if not isinstance(a, dtype_class) else "gradbook.dtype" for a in args)
        raise TypeError(f"to() received an invalid combination of arguments - got ({got}), but expected one of:")
    if device is not None:
        _device.check(device)
    want = t._array.dtype if dtype is None else to_dtype(dtype, "to").numpy
    if want == t._array.dtype and not copy:
        return t
    return ops.ToCopyBackward0.apply(t, dtype=want)


def legacy_type(t: Tensor, dtype: Any) -> Any:
    """``t.type()``: torch's legacy name of its type; ``t.type(d)``: t converted to d."""
    if dtype is None:
        return type_name(t._array.dtype)
    if isinstance(dtype, str):
        named = {type_name(d): d for d in DTYPES}
        if dtype.replace("torch.", "gradbook.", 1) not in named:
            raise ValueError(f"invalid type: '{dtype}'")
        dtype = DTYPES[named[dtype.replace("torch.", "gradbook.", 1)]]
    return to(t, getattr(dtype, "dtype", dtype))


def new_like(t: Tensor, factory: str, *args: Any, dtype: Any = None, **kwargs: Any) -> Tensor:
    """``t.new_ones(...)`` and the other ``new_*``: a new tensor with t's dtype unless told otherwise."""
    return getattr(_factories, factory)(*args, dtype=t.dtype if dtype is None else dtype, **kwargs)


def leaf_hooks(t: Tensor) -> Any:
    """A leaf's hooks, made at the first one (and given to its AccumulateGrad, if one is alive)."""
    if t._hooks is None:
        t._hooks = LeafHooks()
        node = t._accumulator() if t._accumulator is not None else None
        if node is not None:
            node._tensor_pre_hooks, node._hooked = t._hooks, True
    return t._hooks


def check_requires_grad(t: Tensor, requires_grad: bool) -> None:
    """torch's errors for ``t.requires_grad_(requires_grad)``: only a leaf's flag changes, only a
    floating point tensor can require grad, and an inference tensor only inside inference mode."""
    if t.grad_fn is not None and not requires_grad:
        raise RuntimeError(NON_LEAF_REQUIRES_GRAD_ERROR)
    if requires_grad and t._array.dtype.kind != "f":
        raise RuntimeError("only Tensors of floating point dtype can require gradients")
    if requires_grad and t.is_inference() and not _State.inference:
        raise RuntimeError(INFERENCE_REQUIRES_GRAD_ERROR)


def check_grad(t: Tensor, value: Any) -> None:
    """torch's checks on ``t.grad = value``."""
    if not isinstance(value, Tensor):
        raise TypeError(f"assigned grad expected to be a Tensor or None but got grad of type {type(value).__name__}")
    if value._array.shape != t._array.shape:
        raise RuntimeError(
            f"attempting to assign a gradient of size '{list(value.shape)}' to a tensor of size "
            f"'{list(t.shape)}'. Please ensure that the gradient and the tensor are the same size"
        )
    if value._array.dtype != t._array.dtype:
        raise RuntimeError(GRAD_DTYPE_ERROR.format(got=c_name(value._array.dtype), want=scalar_name(t._array.dtype)))


def deepcopy(t: Tensor, memo: dict) -> Tensor:
    """``copy.deepcopy(t)``, as torch: a leaf's values, requires_grad and ``.grad`` copied; a non-leaf refused."""
    if t.grad_fn is not None:
        raise RuntimeError(
            "Only Tensors created explicitly by the user (graph leaves) support the deepcopy protocol at the moment.  "
            "If you were attempting to deepcopy a module, this may be because of a gradbook.nn.utils.weight_norm "
            "usage, see https://github.com/pytorch/pytorch/pull/103001"
        )
    if id(t) in memo:
        return memo[id(t)]
    copy = Tensor._make(t._array.copy())
    copy.requires_grad = t.requires_grad
    memo[id(t)] = copy
    if t._grad is not None:
        copy._grad = deepcopy(t._grad, memo)
    return copy
