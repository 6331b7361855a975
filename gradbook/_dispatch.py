"""torch's argument rules, off the reading path: what the Tensor methods do before an op runs.

Lifting Python numbers to tensors, dtype promotion, broadcasting errors, which matrix product a
``@`` is, indexing as a chain of views, and in-place updates with their version counters. Each
function ends in ``ops.<Op>.apply``; the op table itself is ``ops.py``.
"""

from __future__ import annotations

import builtins
import functools
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from . import _device, _distributions, _factories, ops
from ._dtypes import (
    DTYPES,
    c_name,
    default_float,
    get_default_dtype,
    promote_types,
    promoted,
    rank,
    restore_numpy,
    scalar_dtype,
    scalar_name,
    silence_numpy,
    to_dtype,
    type_name,
)
from ._dtypes import dtype as dtype_class
from ._messages import (
    GRAD_DTYPE_ERROR,
    INFERENCE_INPLACE_ERROR,
    INFERENCE_REQUIRES_GRAD_ERROR,
    LEAF_INPLACE_ERROR,
    NON_LEAF_REQUIRES_GRAD_ERROR,
    OVERLAP_ERROR,
    VIEW_OF_LEAF_INPLACE_ERROR,
    type_of,
)
from .autograd.grad_mode import InferenceVersion, _State, no_grad
from .autograd.graph import LeafHooks
from .tensor import Tensor


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


# ------------------------------------------------ backward() and grad(): their arguments


def backward_seeds(outputs: list[Tensor], grads: list) -> list[Tensor | None]:
    """Check the seeds and fill in v = 1 for one-element outputs, as torch does (pairing them as
    zip() does, then counting)."""
    result = []
    for i, (out, g) in enumerate(zip(outputs, grads)):
        if g is not None:
            if not isinstance(g, Tensor):
                raise TypeError(f"gradients can be either Tensors or None, but got {type(g).__name__}")
            if g.shape != out.shape:
                raise RuntimeError(
                    f"Mismatch in shape: grad_output[{i}] has a shape of {g.shape} and output[{i}] "
                    f"has a shape of {out.shape}."
                )
            result.append(g if g._array.dtype == out._array.dtype else g.to(out.dtype))
        elif out.requires_grad:
            if out.numel() != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            result.append(Tensor._make(np.ones_like(out._array)))
        else:
            result.append(None)
    if len(result) != len(outputs):
        raise RuntimeError(f"got {len(outputs)} tensors and {len(result)} gradients")
    for i, out in enumerate(outputs):
        if not out.requires_grad:
            raise RuntimeError(f"element {i} of tensors does not require grad and does not have a grad_fn")
    return result


def check_tensors(inputs: list) -> None:
    """torch's error for an input of ``backward`` or ``grad`` that is not a tensor."""
    for t in inputs:
        if not isinstance(t, Tensor):
            raise RuntimeError(f"all inputs have to be Tensors or GradientEdges, but got {type(t).__name__}")


def backward_inputs(only: list) -> list[Tensor]:
    """``backward(inputs=...)``, checked; each non-leaf among them will retain its gradient."""
    if not only:
        raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
    check_tensors(only)
    for t in only:
        if not t.requires_grad:
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
    for t in only:
        if t.grad_fn is not None:
            t.retain_grad()
    return only


# ------------------------------------------------ numbers and tensors as operands


def lift(value: Any, like: Tensor) -> Tensor:
    """A Tensor for ``value``: tensors pass through, numbers take the dtype torch would give (an
    integer that does not fit wraps, as torch's C++ conversion does; beyond 64 bits it refuses)."""
    if isinstance(value, Tensor):
        return value
    if isinstance(value, (builtins.int, np.integer)) and not isinstance(value, (builtins.bool, np.bool_)):
        if not -(2**63) <= value < 2**64:
            raise OverflowError("int too big to convert")
        want = scalar_dtype(value, like._array.dtype)
        t = Tensor._make(np.array(value if value < 2**63 else value - 2**64, dtype=np.int64).astype(want))
    elif isinstance(value, (builtins.float, np.number, np.bool_)):
        t = Tensor._make(np.array(value, dtype=scalar_dtype(value, like._array.dtype)))
    else:
        return _factories.tensor(value)
    t.__class__ = ops.WrappedNumber  # saved, never packed by saved_tensors_hooks
    return t


_OPERANDS = (Tensor, builtins.int, builtins.float, np.number, np.bool_, np.ndarray)


def operand(value: Any) -> bool:
    """Whether an operator takes ``value`` as its other operand (as torch's do): a tensor, a
    number, or a NumPy array on the right (``x * np.ones(3)``). Anything else gets NotImplemented,
    so Python raises its own TypeError (and ``x * [1, 2]`` asks the list, as with torch)."""
    return isinstance(value, _OPERANDS)


def tensor_argument(value: Any, method: str, name: str = "other") -> Tensor:
    """A method's tensor argument, with torch's error for anything else."""
    if not isinstance(value, Tensor):
        raise TypeError(f"{method}(): argument '{name}' (position 1) must be Tensor, not {type(value).__name__}")
    return value


def argument(value: Any, method: str, name: str = "other") -> Any:
    """A method's tensor-or-number argument, with torch's error for anything else."""
    if not isinstance(value, (Tensor, builtins.int, builtins.float, np.number, np.bool_)):
        raise TypeError(f"{method}(): argument '{name}' (position 1) must be Tensor, not {type(value).__name__}")
    return value


def broadcast_check(a: tuple, b: tuple) -> None:
    for i in range(1, min(len(a), len(b)) + 1):
        if a[-i] != b[-i] and a[-i] != 1 and b[-i] != 1:
            raise RuntimeError(
                f"The size of tensor a ({a[-i]}) must match the size of tensor b ({b[-i]}) "
                f"at non-singleton dimension {max(len(a), len(b)) - i}"
            )


def pair(a: Tensor, b: Any) -> tuple[Tensor, Tensor]:
    if not isinstance(b, Tensor):
        b = lift(b, a)
    if a._array.shape != b._array.shape:
        broadcast_check(a._array.shape, b._array.shape)
    return a, b


def binary(cls: type[ops.Op], a: Tensor, b: Any, **params: Any) -> Tensor:
    """``cls.apply(a, b)`` for a broadcasting binary op, with torch's dtype promotion, numbers
    lifted to tensors and torch's broadcasting error. For two tensors of one dtype it is just
    ``cls.apply(a, b)``."""
    if isinstance(b, Tensor) and a._array.dtype is b._array.dtype:
        try:
            return cls.apply(a, b, **params)
        except ValueError:
            broadcast_check(a._array.shape, b._array.shape)  # raises torch's message
            raise
    if type(b) is float and a._array.dtype.kind == "f" and not (a.requires_grad and _State.enabled):
        quiet = silence_numpy()  # the fast path for x * 0.5: NumPy keeps float32 for a Python float
        try:
            return Tensor._make(cls.forward(a._array, b, **params))
        finally:
            restore_numpy(quiet)
    if not isinstance(b, _OPERANDS):
        return NotImplemented  # Python raises its TypeError (or asks b: [1, 2] * x)
    if isinstance(b, np.ndarray):  # a NumPy array counts as a tensor of its own dtype, 0-d or not
        b = _factories.tensor(b)
        return _promoting(cls, a, b, want=promote_types(a._array.dtype, b._array.dtype), **params)
    if not isinstance(b, Tensor):
        b = lift(b, a)
    try:
        return _promoting(cls, a, b, **params)
    except ValueError:
        broadcast_check(a._array.shape, b._array.shape)  # raises torch's message
        raise


def _promoting(cls: type[ops.Op], a: Tensor, b: Tensor, want: np.dtype | None = None, **params: Any) -> Tensor:
    """``cls.apply(a, b)`` with its result in torch's promoted dtype (or ``want``)."""
    x, y = a._array, b._array
    if x.dtype != y.dtype or want is not None:
        want = want if want is not None else promoted(x, y)
    return cls.apply(a, b, out_dtype=want, **params)


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


def div(a: Tensor, b: Any) -> Tensor:
    """a / b (true division: integer tensors give the default float dtype, float32)."""
    if not operand(b):
        return NotImplemented
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


def fill(t: Tensor, value: Any) -> Tensor:
    """t filled with ``value``, in t's dtype: a number (``fill_``) or a tensor broadcast (``copy_``).

    torch records ``fill_`` with a 0-d tensor as ops.FillBackward3; here any tensor is a copy_.
    """
    if not isinstance(value, Tensor):
        return ops.FillBackward2.apply(t, value=value)
    shape, src = t._array.shape, value._array.shape
    if src != shape:
        broadcast_check(shape, src)
        if np.broadcast_shapes(shape, src) != shape:
            full = list(np.broadcast_shapes(shape, src))
            raise RuntimeError(f"output with shape {list(shape)} doesn't match the broadcast shape {full}")
    return ops.CopyBackwards.apply(t, value)


def zero(t: Tensor, _: Any = None) -> Tensor:
    """t filled with zeros (``zero_``)."""
    return ops.ZeroBackward0.apply(t)


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


def clamp(t: Tensor, min: Any = None, max: Any = None) -> Tensor:  # noqa: A002
    """Limit values to [min, max]; the gradient is 1 inside and 0 where clipped."""
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    min, max = (v.item() if isinstance(v, Tensor) else v for v in (min, max))
    if t._array.dtype.kind != "f" and (isinstance(min, float) or isinstance(max, float)):
        t = t.to(get_default_dtype())  # an integer tensor clamped to float bounds gives a float, as in torch
    return ops.ClampBackward1.apply(t, min=min, max=max)


def matmul(a: Tensor, b: Tensor) -> Tensor:
    """Matrix product with torch's dispatch: dot (1-D·1-D), mv (2-D·1-D), mm (2-D·2-D), batched."""
    if not isinstance(b, (Tensor, np.ndarray)):
        return NotImplemented
    b = b if isinstance(b, Tensor) else _factories.tensor(b)
    x, y = a._array, b._array
    if x.ndim == 2 and y.ndim == 2 and x.shape[1] == y.shape[0] and x.dtype == y.dtype:
        return ops.MmBackward0.apply(a, b)  # the common case first: checks below give the errors
    if x.ndim == 0 or y.ndim == 0:
        raise RuntimeError(f"both arguments to matmul need to be at least 1D, but they are {x.ndim}D and {y.ndim}D")
    if x.ndim == 1 and y.ndim == 1:
        return dot(a, b)
    if x.ndim == 2 and y.ndim == 1:
        if x.shape[1] != y.shape[0]:
            raise RuntimeError(
                f"size mismatch, got input ({x.shape[0]}), mat ({x.shape[0]}x{x.shape[1]}), vec ({y.shape[0]})"
            )
        _same_dtype(x, y, "mv")
        return ops.MvBackward0.apply(a, b)
    if x.ndim == 1:
        if y.ndim > 2 and x.dtype != y.dtype:  # torch folds the product into one mv if a requires grad
            _same_dtype(*((y, x, "mv") if a.requires_grad else (x, y, "bmm")))
        out = matmul(a.unsqueeze(0), b)
        return ops.SqueezeBackward4.apply(out, shape=y.shape[:-2] + y.shape[-1:], dim=out.ndim - 2)
    if y.ndim == 1:
        _same_dtype(x, y, "mv")
        out = matmul(a, b.unsqueeze(1))
        return ops.SqueezeBackward4.apply(out, shape=x.shape[:-1], dim=out.ndim - 1)
    if x.shape[-1] != y.shape[-2]:
        if x.ndim == 2 and y.ndim == 2:
            _mm_shapes(x, y)
        raise RuntimeError(
            f"Expected size for first two dimensions of batch2 tensor to be: [{x.shape[0]}, {x.shape[-1]}] "
            f"but got: [{y.shape[0]}, {y.shape[-2]}]."
        )
    if x.ndim == 2 and y.ndim == 2:
        _same_dtype(x, y, "mm")
        return ops.MmBackward0.apply(a, b)
    broadcast_check(x.shape[:-2], y.shape[:-2])
    if x.dtype != y.dtype:  # torch folds the product into one mm for (..., n, k) @ (k, m), and for
        # (n, k) @ (..., k, m) if a requires grad; otherwise it is a bmm
        folded = y.ndim == 2 or (x.ndim == 2 and a.requires_grad)
        _same_dtype(*((x, y, "mm") if y.ndim == 2 else (y, x, "mm") if folded else (x, y, "bmm")))
    return ops.BmmBackward0.apply(a, b)


def dot(a: Tensor, b: Tensor) -> Tensor:
    """Σᵢ aᵢ bᵢ for two 1-D tensors of the same length."""
    if a.ndim != 1 or b.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {a.ndim}D and {b.ndim}D tensors")
    _same_dtype(a._array, b._array, "dot")
    if a._array.shape != b._array.shape:
        n, m = a._array.shape[0], b._array.shape[0]
        raise RuntimeError(
            f"inconsistent tensor size, expected tensor [{n}] and src [{m}] to have the same number "
            f"of elements, but got {n} and {m} elements respectively"
        )
    return ops.DotBackward0.apply(a, b)


def addmm(bias: Tensor, mat1: Tensor, mat2: Tensor) -> Tensor:
    """bias + mat1 @ mat2 as one node (``F.linear``), with torch's checks."""
    b, x, y = bias._array, mat1._array, mat2._array
    d = y.dtype
    if b.dtype != d or x.dtype != d or x.shape[1] != y.shape[0] or (b.shape != y.shape[1:] and b.ndim):
        if b.dtype != d:
            t1, t2 = scalar_name(b.dtype), scalar_name(d)
            raise RuntimeError(f"self and mat2 must have the same dtype, but got {t1} and {t2}")
        _same_dtype(x, y, "addmm")
        _mm_shapes(x, y)
        _expanded_shape(b.shape, (x.shape[0], y.shape[1]))  # raises torch's message if bias does not fit
    return ops.AddmmBackward0.apply(bias, mat1, mat2)


def _same_dtype(x: np.ndarray, y: np.ndarray, op: str) -> None:
    """Matrix products do not promote dtypes: torch refuses float32 @ float64, with these messages."""
    if x.dtype == y.dtype:
        return
    t1, t2 = scalar_name(x.dtype), scalar_name(y.dtype)
    if op == "dot":
        raise RuntimeError(f"dot : expected both vectors to have same dtype, but found {t1} and {t2}")
    if op == "mv":  # x is the matrix, y the vector
        raise RuntimeError(f"addmv input tensors must have the same dtype, but got {t2}, {t1}, and {t2}")
    if op == "bmm":
        raise RuntimeError(f"expected scalar type {t1} but found {t2}")
    if op == "addmm":  # x is mat1, y is mat2
        raise RuntimeError(f"mat1 and mat2 must have the same dtype, but got {t1} and {t2}")
    c1, c2 = c_name(x.dtype), c_name(y.dtype)
    raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: {c1} != {c2}")


def _mm_shapes(x: np.ndarray, y: np.ndarray) -> None:
    """torch's check that two matrices can be multiplied."""
    if x.shape[1] != y.shape[0]:
        raise RuntimeError(
            f"mat1 and mat2 shapes cannot be multiplied ({x.shape[0]}x{x.shape[1]} and {y.shape[0]}x{y.shape[1]})"
        )


def check_dim(d: int, ndim: int) -> int:
    """A dimension index in range, counting negative ones from the end, as torch checks it."""
    lo, hi = (-1, 0) if ndim == 0 else (-ndim, ndim - 1)
    if not lo <= d <= hi:
        raise IndexError(f"Dimension out of range (expected to be in range of [{lo}, {hi}], but got {d})")
    return d % max(ndim, 1)


def check_dims(dim: Any, ndim: int) -> tuple[int, ...]:
    if type(dim) is int and 0 <= dim < ndim:
        return (dim,)
    dims = tuple(sorted({check_dim(d, ndim) for d in (dim if isinstance(dim, (tuple, list)) else (dim,))}))
    return dims if ndim else ()  # a 0-d tensor accepts dim 0 or -1, and there is nothing to reduce


def numpy_names(dim: Any, keepdim: Any, names: dict, caller: str) -> tuple[Any, Any]:
    """sum/mean's NumPy spellings, which torch accepts too: ``axis=`` for dim, ``keepdims=``."""
    for name in names:
        if name not in ("axis", "keepdims"):
            raise TypeError(f"{caller}() got an unexpected keyword argument '{name}'")
    return names.get("axis", dim), names.get("keepdims", keepdim)


def var(cls: type[ops.Op], t: Tensor, dim: Any, unbiased: Any, keepdim: bool, correction: Any = None) -> Tensor:
    """var/std, with torch's overloads: ``var(dim, unbiased, keepdim)``, ``var(unbiased)``, ``correction=``."""
    if isinstance(dim, builtins.bool):  # x.var(False): the old spelling of unbiased
        dim, unbiased = None, dim
    if t._array.dtype.kind != "f":
        raise RuntimeError("std and var only support floating point and complex dtypes")
    if correction is None:
        correction = 0 if unbiased is False else 1
    dims = None if dim is None else check_dims(dim, t.ndim)
    count = t._array.size if dims is None else int(np.prod([t._array.shape[d] for d in dims]))
    if count - correction <= 0:
        warnings.warn(
            f"{cls.__name__[:3].lower()}(): degrees of freedom is <= 0. Correction should be strictly less than the "
            "reduction factor (input numel divided by output numel).",
            UserWarning,
            stacklevel=3,
        )
    return cls.apply(t, dim=dims, correction=correction, keepdim=keepdim)


def vector_norm(t: Tensor, ord: Any, dim: Any, keepdim: bool, caller: str = "linalg.vector_norm") -> Tensor:  # noqa: A002
    """The p-norm of all elements, or along ``dim`` (p > 0 or inf)."""
    if t._array.dtype.kind != "f":
        raise RuntimeError(
            "linalg.vector_norm: Expected a floating point or complex tensor as input. Got "
            f"{scalar_name(t._array.dtype)}"
        )
    if isinstance(ord, str) or not float(ord) > 0:
        raise NotImplementedError(
            f"gradbook's {caller} takes p > 0 or inf (got {ord!r}); matrix norms such as 'nuc' are not there: "
            "compute them from the singular values in NumPy"
        )
    dims = None if dim is None else check_dims(dim, t.ndim)
    return ops.LinalgVectorNormBackward0.apply(t, ord=float(ord), dim=dims, keepdim=keepdim)


def fill_random(t: Tensor, op: type[ops.Op], values: np.ndarray) -> Tensor:
    """``x.uniform_()`` and the like: new random values written into x (recorded as ``op``)."""
    return inplace(t, lambda x, _: op.apply(x, values=values), None)


def _draws_for(t: Tensor, kernel: str) -> np.ndarray:
    """``t``'s array, checked to be a float one for a float distribution (torch's error otherwise)."""
    if t._array.dtype.kind != "f":
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{scalar_name(t._array.dtype)}'")
    return t._array


def uniform_(t: Tensor, a: Any, b: Any, generator: Any) -> Tensor:
    if a > b:
        raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found from={a:g} > to={b:g}")
    gen = _factories.generator_of(generator, "uniform_")
    like = _draws_for(t, "check_uniform_bounds")
    values = _distributions.uniform(gen, like.size, like.dtype, a, b)
    return fill_random(t, ops.UniformBackward0, _distributions.in_memory_order(values, like))


def normal_(t: Tensor, mean: Any, std: Any, generator: Any) -> Tensor:
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std:g}")
    gen = _factories.generator_of(generator, "normal_")
    like = _draws_for(t, "normal_kernel_cpu")
    values = _distributions.normal(gen, like.size, like.dtype, mean, std, contiguous=like.flags.c_contiguous)
    return fill_random(t, ops.NormalBackward0, _distributions.in_memory_order(values, like))


def random_(t: Tensor, low: Any, high: Any, generator: Any) -> Tensor:
    """Integers in [low, high); ``random_(to)`` is [0, to); with neither, [0, 2^mantissa] for a float
    dtype (every integer it holds exactly) and [0, max] for an integer one."""
    gen = _factories.generator_of(generator, "random_")
    like = t._array
    if high is None and not low:
        values = _distributions.random_bits(gen, like.size, like.dtype)
    else:
        low, high = (0, low) if high is None else (low, high)
        if low >= high:
            raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}")
        values = _distributions.integers(gen, like.size, like.dtype, low, high)
    return inplace(t, fill, Tensor._make(_distributions.in_memory_order(values, like)))


def bernoulli_(t: Tensor, p: Any, generator: Any) -> Tensor:
    """1 with probability ``p`` (a number, or a tensor of them), else 0, in place."""
    gen = _factories.generator_of(generator, "bernoulli_")
    like = t._array
    prob = np.broadcast_to(p._array, like.shape) if isinstance(p, Tensor) else float(p)
    values = _distributions.bernoulli(gen, prob, like.size).astype(like.dtype)
    return inplace(t, fill, Tensor._make(_distributions.in_memory_order(values, like)))


def masked_fill(t: Tensor, mask: Any, value: Any) -> Tensor:
    """value where mask, else t."""
    m = mask._array if isinstance(mask, Tensor) else np.asarray(mask)
    if m.dtype != np.bool_:
        raise RuntimeError(f"masked_fill_ only supports boolean masks, but got mask with dtype {c_name(m.dtype)}")
    if isinstance(value, Tensor):
        if value.ndim:
            raise RuntimeError(
                "masked_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                f"{value.ndim} dimension(s)."
            )
        if value.requires_grad and _State.enabled:
            raise NotImplementedError("gradbook's masked_fill takes a value that needs no gradient; use gradbook.where")
        value = value.item()
    broadcast_check(m.shape, t._array.shape)
    return ops.MaskedFillBackward0.apply(t, mask=np.broadcast_to(m, t._array.shape), value=value)


def gather(t: Tensor, dim: int, index: Tensor) -> Tensor:
    """t picked along dim at index, with torch's checks."""
    d, idx = _index_along(t, dim, index, "gather")
    for k in range(t.ndim):
        if k != d and idx.shape[k] > t._array.shape[k]:
            raise RuntimeError(
                f"Size does not match at dimension {k} expected index {list(idx.shape)} to be no larger than "
                f"self {list(t._array.shape)} apart from dimension {d}"
            )
    return ops.GatherBackward0.apply(t, dim=d, index=idx)


def _index_along(t: Tensor, dim: int, index: Any, caller: str) -> tuple[int, np.ndarray]:
    """gather/scatter's checks of ``index``: integers, t's rank, in bounds along dim."""
    d, idx = check_dim(dim, t.ndim), tensor_argument(index, caller, "index")._array
    if idx.dtype.kind not in "iu":
        raise RuntimeError(f"{caller}(): Expected dtype int32/int64 for index")
    if idx.ndim != t.ndim:
        which = "input" if caller == "gather" else "self"
        raise RuntimeError(f"Index tensor must have the same number of dimensions as {which} tensor")
    bad = idx[(idx < 0) | (idx >= t._array.shape[d])]
    if bad.size:
        raise RuntimeError(f"index {bad.flat[0]} is out of bounds for dimension {d} with size {t._array.shape[d]}")
    return d, idx


def scatter(t: Tensor, dim: int, index: Any, src: Any, reduce: Any = None, add: bool = False) -> Tensor:
    """src (a tensor, or a number) written (or with ``add``, added) into t at index along dim."""
    if reduce is not None:
        raise NotImplementedError("gradbook's scatter has no reduce=; use scatter_add for 'add'")
    d, idx = _index_along(t, dim, index, "scatter_add" if add else "scatter")
    if not isinstance(src, Tensor):
        if add:
            raise TypeError("scatter_add(): argument 'src' (position 3) must be Tensor, not " + type_of(src))
        return ops.ScatterBackward1.apply(t, dim=d, index=idx, value=src)
    if src.ndim != t.ndim or any(n > m for n, m in zip(idx.shape, src._array.shape)):
        raise RuntimeError(
            f"Expected index {list(idx.shape)} to be no larger than src {list(src._array.shape)} in every dimension"
        )
    return (ops.ScatterAddBackward0 if add else ops.ScatterBackward0).apply(t, src, dim=d, index=idx)


def index_select(t: Tensor, dim: int, index: Tensor) -> Tensor:
    """The slices of t at index along dim."""
    d, idx = check_dim(dim, t.ndim), tensor_argument(index, "index_select", "index")._array
    if idx.ndim > 1:
        raise IndexError("index_select(): Index is supposed to be a vector")
    if idx.dtype.kind not in "iu":
        raise IndexError(f"index_select(): Expected dtype int32 or int64 for index but got: {scalar_name(idx.dtype)}")
    if np.any((idx < 0) | (idx >= max(t._array.shape[d] if t.ndim else 1, 0))):
        raise IndexError("index out of range in self")
    return ops.IndexSelectBackward0.apply(t, dim=d, index=idx.reshape(-1))


def index_put_(t: Tensor, indices: Any, values: Any, accumulate: bool) -> Tensor:
    """``t[indices] = values``, or added there with ``accumulate`` (repeated indices add up)."""
    if not isinstance(indices, (tuple, list)):
        raise TypeError(
            f"index_put_(): argument 'indices' (position 1) must be tuple of Tensors, not {type_of(indices)}"
        )
    if not accumulate:
        setitem(t, tuple(indices), values)
        return t
    where = _numpy_index(tuple(indices))
    return inplace(t, lambda x, v: ops.IndexPutBackward0.apply(x, lift(v, x), indices=where, accumulate=True), values)


def reduce(whole: type[ops.Op], along: type[ops.Op], t: Tensor, dim: Any, keepdim: bool) -> Tensor:
    """sum/mean: over everything (``whole`` op), or along ``dim`` (``along`` op)."""
    if whole is ops.MeanBackward0 and t._array.dtype.kind != "f":
        raise RuntimeError(
            "mean(): could not infer output dtype. Input dtype must be either a floating point or "
            f"complex dtype. Got: {scalar_name(t._array.dtype)}"
        )
    if dim is None:
        return whole.apply(t)
    return along.apply(t, dim=check_dims(dim, t.ndim), keepdim=keepdim)


class _ReturnType(tuple):
    _fields = ("values", "indices")

    @property
    def values(self) -> Tensor:
        return self[0]

    @property
    def indices(self) -> Tensor:
        return self[1]

    def __repr__(self) -> str:
        return f"gradbook.return_types.{self.name}(\nvalues={self[0]!r},\nindices={self[1]!r})"


class _Max(_ReturnType):
    name = "max"


class _Min(_ReturnType):
    name = "min"


def extreme(t: Tensor, dim: Any, keepdim: bool, which: str) -> Any:
    """max/min: of everything, ``(values, indices)`` along ``dim``, or with a tensor in place of
    ``dim``, elementwise (``torch.max(a, b)`` is ``torch.maximum(a, b)``)."""
    if isinstance(dim, Tensor) and keepdim is False:
        return t.maximum(dim) if which == "max" else t.minimum(dim)
    if dim is None:
        if t._array.size == 0:
            raise RuntimeError(
                f"{which}(): Expected reduction dim to be specified for input.numel() == 0. Specify the reduction "
                "dim with the 'dim' argument."
            )
        return (ops.MaxBackward1 if which == "max" else ops.MinBackward1).apply(t)
    d = check_dim(dim, t.ndim)
    indices = (np.argmax if which == "max" else np.argmin)(t._array, axis=d)
    values = (ops.MaxBackward0 if which == "max" else ops.MinBackward0).apply(
        t, dim=d, keepdim=keepdim, indices=indices
    )
    idx = Tensor._make(np.expand_dims(indices, d) if keepdim else indices)
    return (_Max if which == "max" else _Min)((values, idx))


def arg_extreme(fn: Any, t: Tensor, dim: Any, keepdim: bool) -> Tensor:
    if dim is None:
        return Tensor._make(np.asarray(fn(t._array), dtype=np.int64))
    d = check_dim(dim, t.ndim)
    return Tensor._make(fn(t._array, axis=d, keepdims=keepdim))


def view(t: Tensor, shape: Sequence[Any], copy_if_needed: bool = False) -> Tensor:
    """Same elements in a new shape (one dimension may be -1). Where the memory layout allows no
    view (after a transpose), ``view`` refuses as torch does and ``reshape`` copies first."""
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = shape[0]
    shape = tuple(int(s) for s in shape)
    size = t._array.size
    known = int(np.prod([s for s in shape if s != -1]))
    if shape.count(-1) > 1:
        raise RuntimeError("only one dimension can be inferred")
    if (-1 in shape and (known == 0 or size % known)) or (-1 not in shape and known != size):
        raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {size}")
    if not t._array.flags.c_contiguous and not _viewable(t._array, shape):
        if not copy_if_needed:
            raise RuntimeError(
                "view size is not compatible with input tensor's size and stride (at least one dimension spans "
                "across two contiguous subspaces). Use .reshape(...) instead."
            )
        return ops.UnsafeViewBackward0.apply(contiguous(t), shape=shape)
    return ops.ViewBackward0.apply(t, shape=shape)


def _viewable(a: np.ndarray, shape: tuple) -> bool:
    """Whether NumPy can give ``a`` this shape without copying (torch's rule for view)."""
    try:
        a.view().shape = shape
    except AttributeError:
        return False
    return True


def contiguous(t: Tensor) -> Tensor:
    """t itself if its elements lie in row-major order, else a row-major copy (CloneBackward0)."""
    if t._array.flags.c_contiguous:
        return t
    out = ops.CloneBackward0.apply(t)
    out._array = np.ascontiguousarray(out._array)  # a new tensor's own copy: only its layout changes
    return out


def flatten(t: Tensor, start_dim: int = 0, end_dim: int = -1) -> Tensor:
    if t.ndim == 0:
        return view(t, (1,))
    s, e = check_dim(start_dim, t.ndim), check_dim(end_dim, t.ndim)
    if s == e:
        return t
    shape = t._array.shape
    return view(t, shape[:s] + (int(np.prod(shape[s : e + 1])),) + shape[e + 1 :], copy_if_needed=True)


def squeeze(t: Tensor, dim: Any = None) -> Tensor:
    shape = t._array.shape
    if dim is None:
        return ops.SqueezeBackward0.apply(t, shape=tuple(s for s in shape if s != 1))
    if isinstance(dim, (tuple, list)):
        dims = check_dims(dim, t.ndim)
        kept = tuple(s for i, s in enumerate(shape) if not (i in dims and s == 1))
        return ops.SqueezeBackward2.apply(t, shape=kept, dim=dims)
    d = check_dim(dim, t.ndim)
    return ops.SqueezeBackward1.apply(t, shape=tuple(s for i, s in enumerate(shape) if not (i == d and s == 1)), dim=d)


def transpose(t: Tensor, dim0: int, dim1: int) -> Tensor:
    return ops.TransposeBackward0.apply(t, dim0=check_dim(dim0, t.ndim), dim1=check_dim(dim1, t.ndim))


def t(x: Tensor) -> Tensor:
    if x.ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {x.ndim}D")
    return ops.TBackward0.apply(x)


def permute(t: Tensor, dims: Sequence[int]) -> Tensor:
    if len(dims) != t.ndim:
        raise RuntimeError(
            "permute(sparse_coo): number of dimensions in the tensor input does not match the length of "
            f"the desired ordering of dimensions i.e. input.dim() = {t.ndim} is not equal to len(dims) = {len(dims)}"
        )
    dims = tuple(check_dim(d, t.ndim) for d in dims)
    if len(set(dims)) != len(dims):
        raise RuntimeError("permute(): duplicate dims are not allowed.")
    return ops.PermuteBackward0.apply(t, dims=dims)


def expand(t: Tensor, sizes: Sequence[int]) -> Tensor:
    shape = t._array.shape
    if len(sizes) < len(shape):
        raise _too_few_sizes(t._array, sizes)
    return ops.ExpandBackward0.apply(t, size=_expanded_shape(shape, sizes))


def sum_to_size(t: Tensor, size: Sequence[int]) -> Tensor:
    """``t`` summed over the leading dimensions ``size`` lacks and where ``size`` has a 1."""
    shape, own = tuple(size), t._array.shape
    lead = len(own) - len(shape)
    if lead < 0 or any(n not in (1, m) for n, m in zip(shape, own[lead:])):
        raise RuntimeError(f"size {{{list(shape)}}} is not expandable to size {{{list(own)}}}.")
    if shape == own:
        return t
    dims = tuple(range(lead)) + tuple(lead + i for i, n in enumerate(shape) if n == 1 and own[lead + i] != 1)
    out = t.sum(dim=dims, keepdim=True) if dims else t
    return out.view(shape) if out._array.shape != shape else out


def diagonal(t: Tensor, offset: int, dim1: int, dim2: int) -> Tensor:
    dim1, dim2 = check_dim(dim1, t.ndim), check_dim(dim2, t.ndim)
    if dim1 == dim2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    return ops.DiagonalBackward0.apply(t, offset=offset, dim1=dim1, dim2=dim2)


def _too_few_sizes(a: np.ndarray, sizes: Sequence[int]) -> RuntimeError:
    return RuntimeError(
        f"expand({type_name(a.dtype)}{{{list(a.shape)}}}, size={list(sizes)}): the number of sizes provided "
        f"({len(sizes)}) must be greater or equal to the number of dimensions in the tensor ({a.ndim})"
    )


def _expanded_shape(shape: tuple, sizes: Sequence[int]) -> tuple[int, ...]:
    """The shape ``expand(*sizes)`` gives a tensor of ``shape`` (-1 keeps a size), or torch's error."""
    lead = len(sizes) - len(shape)
    target = []
    for i, s in enumerate(sizes):
        old = shape[i - lead] if i >= lead else None
        if s == -1 and old is None:
            raise RuntimeError(
                f"The expanded size of the tensor (-1) isn't allowed in a leading, non-existing dimension {i}"
            )
        if s == -1:
            s = old
        elif old is not None and old != 1 and old != s:
            raise RuntimeError(
                f"The expanded size of the tensor ({s}) must match the existing size ({old}) at non-singleton "
                f"dimension {i}.  Target sizes: {list(sizes)}.  Tensor sizes: {list(shape)}"
            )
        target.append(int(s))
    return tuple(target)


def getitem(t: Tensor, index: Any) -> Tensor:
    """Indexing as torch records it: first the basic parts (None, slices, ints) as a chain of
    Unsqueeze/Slice/Select nodes, then integer arrays and boolean masks as one ops.IndexBackward0."""
    out, rest = _split_index(t, index)
    if any(isinstance(p, np.ndarray) for p in rest):
        return ops.IndexBackward0.apply(out, indices=tuple(rest))
    return out if out is not t else ops.AliasBackward0.apply(t)  # x[:, :] and x[...] are views of x


def _split_index(t: Tensor, index: Any) -> tuple[Tensor, list]:
    """``t[index]`` in torch's two steps: the view the basic parts select (t itself if there are
    none), and what the integer arrays and masks then pick from it (``rest``: one part per
    dimension of that view, ``slice(None)`` where there is no array), checked."""
    whole = isinstance(index, slice)  # x[a:b] on its own is recorded even when it takes everything
    parts = tuple(_index_part(p) for p in (index if isinstance(index, tuple) else (index,)))
    if sum(p is Ellipsis for p in parts) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    used = sum(_index_dims(p) for p in parts if p is not None and p is not Ellipsis)
    if t.ndim == 0 and used:
        if any(isinstance(p, slice) for p in parts):
            raise IndexError("slice() cannot be applied to a 0-dim tensor.")
        raise IndexError(
            "invalid index of a 0-dim tensor. Use `tensor.item()` in Python or `tensor.item<T>()` in C++ "
            "to convert a 0-dim tensor to a number"
        )
    if used > t.ndim:
        raise IndexError(f"too many indices for tensor of dimension {t.ndim}")
    out, dim, pos, rest = t, 0, 0, []  # pos: torch's position for messages; rest: for ops.IndexBackward0
    for p in parts:
        if p is Ellipsis:
            skip = t.ndim - used
            rest += [slice(None)] * skip
            dim, pos = dim + skip, pos + skip
            continue
        if p is None:
            out = ops.UnsqueezeBackward0.apply(out, dim=dim)
            rest.append(slice(None))
            dim += 1
        elif isinstance(p, slice):
            size = out._array.shape[dim]
            start, end, step = p.indices(size)
            if step <= 0:
                raise ValueError("step must be greater than zero")
            if whole or (start, end, step) != (0, size, 1):
                out = ops.SliceBackward0.apply(out, dim=dim, start=start, end=max(end, start), step=step)
            rest.append(slice(None))
            dim += 1
        elif isinstance(p, np.ndarray):
            rest.append(p)
            dim, pos = dim + _index_dims(p), pos + _index_dims(p) - 1
        else:
            i, size = int(p), out._array.shape[dim]
            if not -size <= i < size:
                raise IndexError(f"index {i} is out of bounds for dimension {pos} with size {size}")
            out = ops.SelectBackward0.apply(out, dim=dim, index=i % size)
        pos += 1
    if any(isinstance(p, np.ndarray) for p in rest):
        _check_index_arrays(out._array.shape, rest)
    return out, rest


def _index_part(p: Any) -> Any:
    """An index part as getitem reads it: tensors and lists become arrays, a 0-d integer tensor an
    int, True a new dimension; torch's error for anything else."""
    if isinstance(p, Tensor):
        return int(p._array) if p._array.ndim == 0 and p._array.dtype.kind in "iu" else p._array
    if isinstance(p, list):
        a = np.asarray(p)
        return a.astype(np.int64) if a.size == 0 or a.dtype.kind == "f" else a  # x[[1.5]] is x[[1]]
    if p is True:
        return None
    if p is None or p is Ellipsis or isinstance(p, (slice, builtins.int, np.integer, np.ndarray)):
        return p
    raise IndexError(
        "only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are valid indices "
        f"(got {type(p).__name__})"
    )


def _index_dims(p: Any) -> int:
    """How many dimensions of the tensor an index part uses up (a k-d boolean mask: k)."""
    return p.ndim if isinstance(p, np.ndarray) and p.dtype == bool else 1


def _check_index_arrays(shape: tuple, rest: list) -> None:
    """torch's errors for masks and integer arrays that do not fit the tensor they index."""
    d, ints = 0, []
    for p in rest:
        if isinstance(p, np.ndarray) and p.dtype == bool:
            for j, n in enumerate(p.shape):
                if n != shape[d + j]:
                    raise IndexError(
                        f"The shape of the mask {list(p.shape)} at index {j} does not match the shape of the "
                        f"indexed tensor {list(shape)} at index {d + j}"
                    )
        elif isinstance(p, np.ndarray):
            if p.dtype.kind not in "iu":
                raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
            ints.append((p, shape[d]))
        d += _index_dims(p)
    try:
        arrays = np.broadcast_arrays(*[p for p, _ in ints])
    except ValueError:
        shapes = ", ".join(str(list(p.shape)) for p, _ in ints)
        raise IndexError(
            f"shape mismatch: indexing tensors could not be broadcast together with shapes {shapes}"
        ) from None
    if arrays:
        bad = np.stack([((a < -n) | (a >= n)).ravel() for a, (_, n) in zip(arrays, ints)])
        if bad.any():  # the first bad element, then the first array in which it is bad
            e = int(np.argmax(bad.any(axis=0)))
            k = int(np.argmax(bad[:, e]))
            raise IndexError(f"index {arrays[k].flat[e]} is out of bounds for dimension {k} with size {ints[k][1]}")


def setitem(t: Tensor, index: Any, value: Any) -> None:
    """``t[index] = value``, as torch does it: ints and slices select a view that value is copied
    into (recorded as CopySlices on the base); integer arrays and masks then put value at their
    positions of that view (recorded as IndexPutBackward0, through CopySlices if it is a view)."""
    value = lift(value, t)
    _check_inplace(t, value.requires_grad)
    view, rest = _split_index(t, index)
    arrays = any(isinstance(p, np.ndarray) for p in rest)
    if not arrays:  # ints and slices: torch copies value in, expanding it
        shape = value._array.shape
        while len(shape) > view.ndim and shape[0] == 1:  # leading 1s go, as torch's copy_ lets them
            shape = shape[1:]
        if len(shape) > view.ndim:
            raise _too_few_sizes(value._array, view._array.shape)
        _expanded_shape(shape, view._array.shape)
    else:
        spot = np.broadcast_to(np.empty((), dtype=np.bool_), view._array.shape)[tuple(rest)]  # no memory
        if value._array.shape != spot.shape:
            try:
                fits = np.broadcast_shapes(value._array.shape, spot.shape) == spot.shape
            except ValueError:
                fits = False
            if not fits:
                raise RuntimeError(
                    f"shape mismatch: value tensor of shape {list(value._array.shape)} cannot be broadcast to "
                    f"indexing result of shape {list(spot.shape)}"
                )
    if not (_State.enabled and (t.requires_grad or value.requires_grad)):
        view._array[tuple(rest) if arrays else ...] = value._array  # view shares t's memory
        t._version += 1
        return
    if t.grad_fn is None and t.requires_grad:
        raise RuntimeError(LEAF_INPLACE_ERROR)
    if not arrays:  # a view, written through (CopySlices)
        _write_through(view if view is not t else ops.AliasBackward0.apply(t), value)
    else:  # integer arrays or a mask: index_put (IndexPutBackward0) on the view they index
        before = old_value(view)
        out = ops.IndexPutBackward0.apply(before, value, indices=tuple(rest), accumulate=False)
        if view is t and t._base is None:
            t._array[...] = out._array
            t.grad_fn, t.requires_grad, t._output_nr = out.grad_fn, True, None
            _refresh_views(t)
        else:  # through a view: its base's grad_fn becomes CopySlices
            _write_through(view, out)
    t._version += 1


def _check_inplace(t: Tensor, other_requires: bool) -> None:
    """torch's refusals of an in-place change, before anything changes."""
    base = t._base
    if type(t._vc) is InferenceVersion and not _State.inference:
        raise RuntimeError(INFERENCE_INPLACE_ERROR)
    if t.grad_fn is not None and t.grad_fn._several and base is not None and _State.enabled:  # split's pieces
        raise RuntimeError(
            f"Output {t.output_nr} of {t.grad_fn.name().removesuffix('Backward0')} is a view and is being modified "
            "inplace. This view is the output of a function that returns multiple views. Such functions do not "
            "allow the output views to be modified inplace. You should replace the inplace operation by an "
            "out-of-place one."
        )
    if base is not None and _State.enabled and base.grad_fn is None and base.requires_grad:
        raise RuntimeError(VIEW_OF_LEAF_INPLACE_ERROR)
    if not t._array.flags.writeable:  # an expanded tensor: several elements share one place
        raise RuntimeError(OVERLAP_ERROR)


def _numpy_index(index: Any) -> Any:
    if isinstance(index, tuple):
        return tuple(p._array if isinstance(p, Tensor) else p for p in index)
    return index._array if isinstance(index, Tensor) else index


def inplace(t: Tensor, op: Any, other: Any, ufunc: Any = None) -> Tensor:
    """Run ``op(t, other)`` and write the result into t's memory (``add_``, ``-=``, ``zero_`` ...).

    Under ``no_grad`` this is a plain update, the way an optimizer changes weights. Otherwise a
    leaf that requires grad refuses, as in torch; any other tensor takes the op's grad_fn.
    """
    other_requires = isinstance(other, Tensor) and other.requires_grad
    if t._base is not None or type(t._vc) is InferenceVersion:  # a view (an expanded tensor is one too)
        _check_inplace(t, other_requires)
    if ufunc is not None and not (_State.enabled and (t.requires_grad or other_requires)):
        try:  # the optimizer's path: one NumPy call writing into t's memory
            quiet = silence_numpy()
            try:
                ufunc(t._array, other._array if isinstance(other, Tensor) else other, out=t._array, casting="same_kind")
            finally:
                restore_numpy(quiet)
            if t._vc is None:  # t._version += 1, without the property: the optimizer's path
                t._vc = [1]
            else:
                t._vc[0] += 1
            return t
        except (ValueError, TypeError):
            pass  # the general path below gives torch's message
    if _State.enabled and (t.requires_grad or other_requires):
        if t.grad_fn is None and t.requires_grad:
            raise RuntimeError(LEAF_INPLACE_ERROR)
        before = old_value(t)
        out = op(before, other)
        if t._base is not None:  # a view: the change is recorded on its base
            _check_write(t, out)
            _write_through(t, out)
        else:
            _write(t, out)
            t.grad_fn, t.requires_grad, t._output_nr = out.grad_fn, True, None
            _refresh_views(t)
    else:
        with no_grad():
            _write(t, op(t, other))
    t._version += 1
    return t


def old_value(t: Tensor) -> Tensor:
    """A copy of t's value before an in-place change, in t's place in the graph (what the op reads)."""
    before = Tensor._make(t._array.copy(), t.grad_fn)
    before.requires_grad, before._output_nr = t.requires_grad, t._output_nr
    return before


def _write_through(region: Tensor, src: Tensor) -> None:
    """Write ``src`` into the part of a base tensor that the view ``region`` sees, recorded as torch
    does: the base's grad_fn becomes CopySlices (its old value, with src in that part), and its
    views are views of the new base again."""
    base = region._base
    before = old_value(base)
    out = ops.CopySlices.apply(before, src, views=region._views)
    base._array[...] = out._array
    base.grad_fn, base.requires_grad, base._output_nr = out.grad_fn, True, None
    _refresh_views(base)


def _refresh_views(t: Tensor) -> None:
    """After a recorded in-place change of t's memory, every live view of it gets its grad_fn made
    again from its base's new one, as torch does for a view whose version moved on (the changed
    view, its siblings, views of the base)."""
    for ref in t._vc[1] if t._vc is not None and len(t._vc) > 1 else ():
        view = ref()
        if view is not None and view._views:
            again = ops.view_region(view._base, view._views)
            view.grad_fn, view.requires_grad = again.grad_fn, again.requires_grad


def _check_write(t: Tensor, out: Tensor) -> None:
    if out._array.shape != t._array.shape:
        raise RuntimeError(
            f"output with shape {list(t._array.shape)} doesn't match the broadcast shape {list(out._array.shape)}"
        )
    if rank(out._array.dtype) > rank(t._array.dtype):
        raise RuntimeError(
            f"result type {scalar_name(out._array.dtype)} can't be cast to the desired output type "
            f"{scalar_name(t._array.dtype)}"
        )


def _write(t: Tensor, out: Tensor) -> None:
    _check_write(t, out)
    t._array[...] = out._array


def cat(tensors: Sequence[Tensor], dim: int = 0) -> Tensor:
    """Join tensors along an existing dimension."""
    tensors = _tensor_list(tensors, "cat")
    if not tensors:
        raise ValueError("torch.cat(): expected a non-empty list of Tensors")
    first = tensors[0]
    d = check_dim(dim, first.ndim)
    for i, x in enumerate(tensors[1:], 1):
        if x.ndim != first.ndim:
            raise RuntimeError(f"Tensors must have same number of dimensions: got {first.ndim} and {x.ndim}")
        for k in range(first.ndim):
            if k != d and x._array.shape[k] != first._array.shape[k]:
                raise RuntimeError(
                    f"Sizes of tensors must match except in dimension {d}. Expected size "
                    f"{first._array.shape[k]} but got size {x._array.shape[k]} for tensor number {i} in the list."
                )
    sizes = [x._array.shape[d] for x in tensors]
    return ops.CatBackward0.apply(*tensors, dim=d, sizes=sizes, out_dtype=_joined(tensors))


def _joined(tensors: list[Tensor]) -> Any:
    """cat/stack's result dtype, torch's promotion (NumPy makes int64 with float32 float64)."""
    dtypes = {x._array.dtype for x in tensors}
    return functools.reduce(promote_types, dtypes) if len(dtypes) > 1 else None


def stack(tensors: Sequence[Tensor], dim: int = 0) -> Tensor:
    """Join tensors of the same shape along a new dimension."""
    tensors = _tensor_list(tensors, "stack")
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    for i, x in enumerate(tensors[1:], 1):
        if x._array.shape != tensors[0]._array.shape:
            raise RuntimeError(
                f"stack expects each tensor to be equal size, but got {list(tensors[0]._array.shape)} "
                f"at entry 0 and {list(x._array.shape)} at entry {i}"
            )
    return ops.StackBackward0.apply(*tensors, dim=check_dim(dim, tensors[0].ndim + 1), out_dtype=_joined(tensors))


def _tensor_list(tensors: Sequence[Any], caller: str) -> list[Tensor]:
    """cat's and stack's tensors, with torch's errors for anything else."""
    if isinstance(tensors, Tensor):
        raise TypeError(f"{caller}(): argument 'tensors' (position 1) must be tuple of Tensors, not Tensor")
    tensors = list(tensors)
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got {type(t).__name__}")
    return tensors


# ------------------------------------------------ sorting, more reductions and shapes


class _Sort(_ReturnType):
    name = "sort"


class _Topk(_ReturnType):
    name = "topk"


def _order(a: np.ndarray, dim: int, descending: bool) -> np.ndarray:
    """Indices that sort ``a`` along ``dim`` (equal values keep their order)."""
    key = a.astype(np.int8) if a.dtype.kind == "b" else a  # a bool array has no negative
    return np.argsort(-key if descending else key, axis=dim, kind="stable")


def sort(t: Tensor, dim: int, descending: bool) -> Any:
    """``(values, indices)``: t sorted along dim (SortBackward0), and where each value was."""
    d = check_dim(dim, t.ndim)
    if t.ndim == 0:
        return _Sort((ops.SortBackward0.apply(t, dim=None, indices=None), Tensor._make(np.zeros((), np.int64))))
    indices = _order(t._array, d, descending)
    return _Sort((ops.SortBackward0.apply(t, dim=d, indices=indices), Tensor._make(indices)))


def topk(t: Tensor, k: int, dim: int, largest: bool) -> Any:
    """``(values, indices)`` of the k largest (or smallest) along dim, largest first."""
    if t._array.dtype.kind == "b":
        raise RuntimeError("topk does not support bool dtypes on CPU")
    d = check_dim(dim, t.ndim)
    size = t._array.shape[d] if t.ndim else 1
    if not 0 <= k <= size:
        raise RuntimeError("selected index k out of range")
    indices = np.take(_order(t._array, d, largest), range(k), axis=d) if t.ndim else np.zeros(k, np.int64)
    return _Topk((ops.TopkBackward0.apply(t, dim=d, indices=indices), Tensor._make(indices)))


def amax(t: Tensor, dim: Any, keepdim: bool, cls: type[ops.Op]) -> Tensor:
    dims = check_dims(dim, t.ndim) if dim != () else tuple(range(t.ndim))
    return cls.apply(t, dim=dims, keepdim=keepdim)


def logsumexp(t: Tensor, dim: Any, keepdim: bool) -> Tensor:
    t = t if t.is_floating_point() else t.to(DTYPES[default_float()])  # an integer tensor: its float logsumexp
    return ops.LogsumexpBackward0.apply(t, dim=check_dims(dim, t.ndim), keepdim=keepdim)


def flip(t: Tensor, dims: Any) -> Tensor:
    dims = dims[0] if len(dims) == 1 and isinstance(dims[0], (tuple, list)) else dims
    return ops.FlipBackward0.apply(t, dims=tuple(check_dim(d, t.ndim) for d in dims))


def roll(t: Tensor, shifts: Any, dims: Any) -> Tensor:
    shifts = tuple(shifts) if isinstance(shifts, (tuple, list)) else (shifts,)
    dims = () if dims is None else tuple(dims) if isinstance(dims, (tuple, list)) else (dims,)
    if dims and len(shifts) != len(dims):
        raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:{len(dims)}")
    return ops.RollBackward0.apply(t, shifts=shifts, dims=tuple(check_dim(d, t.ndim) for d in dims))


def repeat(t: Tensor, sizes: Any) -> Tensor:
    sizes = tuple(sizes[0]) if len(sizes) == 1 and isinstance(sizes[0], (tuple, list)) else tuple(sizes)
    if len(sizes) < t.ndim:
        raise RuntimeError("Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor")
    return ops.RepeatBackward0.apply(t, repeats=sizes)


def tile(t: Tensor, dims: Any) -> Tensor:
    dims = tuple(dims[0]) if len(dims) == 1 and isinstance(dims[0], (tuple, list)) else tuple(dims)
    return repeat(t, (1,) * (t.ndim - len(dims)) + dims)


def narrow(t: Tensor, dim: int, start: int, length: int) -> Tensor:
    """The part of t from ``start`` (counted from the end if negative), ``length`` long, along dim."""
    d = check_dim(dim, t.ndim)
    size = t._array.shape[d]
    start = start + size if start < 0 else start
    if not 0 <= start <= size or length < 0 or start + length > size:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({size}).")
    return t[(slice(None),) * d + (slice(start, start + length),)]


def diff(t: Tensor, n: int, dim: int) -> Tensor:
    """Differences of neighbours along dim, n times (each a SubBackward0 of two slices, as torch)."""
    d = check_dim(dim, t.ndim)
    for _ in range(n):
        size = t._array.shape[d]
        t = narrow(t, d, 1, size - 1) - narrow(t, d, 0, size - 1)
    return t


def movedim(t: Tensor, source: Any, destination: Any) -> Tensor:
    src = [check_dim(d, t.ndim) for d in (source if isinstance(source, (tuple, list)) else [source])]
    dst = [check_dim(d, t.ndim) for d in (destination if isinstance(destination, (tuple, list)) else [destination])]
    if len(src) != len(dst):
        raise RuntimeError(
            f"movedim: Invalid source or destination dims: source ({src} dims) should contain the same number of "
            f"dims as destination ({dst} dims)"
        )
    order = [d for d in range(t.ndim) if d not in src]
    for s, dd in sorted(zip(dst, src)):
        order.insert(s, dd)
    return t.permute(*order)


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


def split(t: Tensor, split_size_or_sections: Any, dim: int) -> tuple[Tensor, ...]:
    """Pieces of ``split_size_or_sections`` along dim (the last one smaller), or of the listed sizes."""
    d = check_dim(dim, t.ndim)
    size = t._array.shape[d]
    if isinstance(split_size_or_sections, (tuple, list)):
        sizes = tuple(int(s) for s in split_size_or_sections)
        if sum(sizes) != size or any(s < 0 for s in sizes):
            raise RuntimeError(
                f"split_with_sizes expects split_sizes to sum exactly to {size} (input tensor's size at dimension "
                f"{d}), but got split_sizes={list(sizes)}"
            )
        return ops.SplitWithSizesBackward0.apply(t, dim=d, sizes=sizes)
    step = int(split_size_or_sections)
    if step < 0 or (step == 0 and size):
        raise RuntimeError(f"split expects split_size be non-negative, but got split_size={step}")
    sizes = tuple(min(step, size - start) for start in range(0, size, step)) if step else (0,)
    return ops.SplitBackward0.apply(t, dim=d, sizes=sizes)


def chunk(t: Tensor, chunks: int, dim: int) -> tuple[Tensor, ...]:
    if chunks <= 0:
        raise RuntimeError("chunk expects `chunks` to be greater than 0, got: " + str(chunks))
    size = t._array.shape[check_dim(dim, t.ndim)]
    return split(t, -(-size // chunks) if size else 1, dim)


def unbind(t: Tensor, dim: int) -> tuple[Tensor, ...]:
    if t.ndim == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    return ops.UnbindBackward0.apply(t, dim=check_dim(dim, t.ndim), sizes=())


def bmm(a: Tensor, b: Tensor) -> Tensor:
    """torch.bmm's checks, then the batched product (BmmBackward0, as torch records it)."""
    for name, t in (("batch1", a), ("batch2", b)):
        if t.ndim != 3:
            raise RuntimeError(f"{name} must be a 3D tensor")
    if b.shape[:2] != (a.shape[0], a.shape[2]):
        raise RuntimeError(
            f"Expected size for first two dimensions of batch2 tensor to be: [{a.shape[0]}, {a.shape[2]}] but got: "
            f"[{b.shape[0]}, {b.shape[1]}]."
        )
    return matmul(a, b)
