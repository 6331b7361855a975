"""Tensor: a NumPy array plus the autograd flags torch users know (requires_grad, grad, grad_fn).

Every differentiable method is a one-line call into the op table, ``gradbook/_ops.py``.
"""

from __future__ import annotations

import builtins
import warnings
import weakref
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np

from ._printing import format_tensor

# ---------------------------------------------------------------- dtypes and sizes


class dtype:
    """A tensor element type, printed as ``gradbook.float32`` (torch: ``torch.float32``)."""

    def __init__(self, name: str, is_floating_point: bool) -> None:
        self.name = name
        self.is_floating_point = is_floating_point
        self.numpy = np.dtype(name)
        self.itemsize = self.numpy.itemsize

    def __repr__(self) -> str:
        return f"gradbook.{self.name}"

    def __reduce__(self) -> str:
        return self.name


float32 = dtype("float32", True)
float64 = dtype("float64", True)
float16 = dtype("float16", True)
int64 = dtype("int64", False)
int32 = dtype("int32", False)
bool = dtype("bool", False)  # noqa: A001  (torch.bool)
float = float32  # noqa: A001  (torch.float)
double = float64
half = float16
long = int64
int = int32  # noqa: A001  (torch.int)
_DTYPES = {d.numpy: d for d in (float32, float64, float16, int64, int32, bool)}


def _to_dtype(d: Any) -> dtype:
    if isinstance(d, dtype):
        return d
    if d is builtins.float:
        return float32
    if d is builtins.int:
        return int64
    if d is builtins.bool:
        return bool
    try:
        return _DTYPES[np.dtype(d)]
    except (TypeError, KeyError):
        raise TypeError(f"gradbook does not support dtype {d!r}; use one of {list(_DTYPES.values())}") from None


class Size(tuple):
    """A tensor's shape, as torch.Size: a tuple that prints as ``gradbook.Size([2, 3])``."""

    def __repr__(self) -> str:
        return f"gradbook.Size({list(self)})"

    def numel(self) -> builtins.int:
        return builtins.int(np.prod(self))


# ---------------------------------------------------------------- the Tensor

_new = object.__new__


class Tensor:
    """An n-dimensional array that can record the operations applied to it.

    >>> import gradbook as torch
    >>> x = torch.tensor(2.0, requires_grad=True)
    >>> y = x * x
    >>> y
    tensor(4., grad_fn=<MulBackward0>)
    >>> y.backward()
    >>> x.grad
    tensor(4.)
    """

    __slots__ = ("_array", "grad_fn", "requires_grad", "_grad", "_accumulator", "_version", "__weakref__")
    __array_ufunc__ = None  # numpy defers to our reflected operators: np.float32(2) * x is a Tensor
    __hash__ = object.__hash__

    def __new__(cls, data: Any = (), *args: Any) -> Tensor:  # torch.Tensor([1, 2]) is float32
        return cls._make(tensor(data, dtype=float32)._array)

    @classmethod
    def _make(cls, array: Any, grad_fn: Any = None) -> Tensor:
        """Wrap a NumPy result (0-d results come back from NumPy as scalars)."""
        t = _new(cls)
        t._array = array if type(array) is np.ndarray else np.asarray(array)
        t.grad_fn = grad_fn
        t.requires_grad = grad_fn is not None
        t._grad = t._accumulator = None
        t._version = 0
        return t

    # ------------------------------------------------ attributes

    @property
    def shape(self) -> Size:
        return Size(self._array.shape)

    def size(self, dim: builtins.int | None = None) -> Any:
        """The shape, or its length along ``dim``."""
        return self.shape if dim is None else self._array.shape[_ops._dim(dim, self.ndim)]

    @property
    def dtype(self) -> dtype:
        return _DTYPES[self._array.dtype]

    @property
    def ndim(self) -> builtins.int:
        return self._array.ndim

    def dim(self) -> builtins.int:
        return self._array.ndim

    def numel(self) -> builtins.int:
        return self._array.size

    def is_floating_point(self) -> builtins.bool:
        return self._array.dtype.kind == "f"

    @property
    def is_leaf(self) -> builtins.bool:
        """True for tensors made by the user, and for results that do not require grad."""
        return self.grad_fn is None

    @property
    def device(self) -> str:
        return "cpu"

    @property
    def data(self) -> Tensor:
        """The same values, detached from the graph (shares memory)."""
        return Tensor._make(self._array)

    @data.setter
    def data(self, value: Tensor) -> None:
        self._array = value._array

    @property
    def grad(self) -> Tensor | None:
        """The gradient accumulated by backward(): set for leaves, and for retain_grad() tensors."""
        if self.grad_fn is not None and self.grad_fn._retains is None and self._grad is None:
            warnings.warn(NON_LEAF_GRAD_WARNING, UserWarning, stacklevel=2)
        return self._grad

    @grad.setter
    def grad(self, value: Tensor | None) -> None:
        if value is not None and value.shape != self.shape:
            raise RuntimeError(
                f"attempting to assign a gradient of size '{list(value.shape)}' to a tensor of size "
                f"'{list(self.shape)}'. Please ensure that the gradient and the tensor are the same size"
            )
        self._grad = value

    @property
    def retains_grad(self) -> builtins.bool:
        return self.grad_fn is not None and self.grad_fn._retains is not None

    def requires_grad_(self, requires_grad: builtins.bool = True) -> Tensor:
        """Start (or stop) recording operations on this leaf."""
        if self.grad_fn is not None and not requires_grad:
            raise RuntimeError(
                "you can only change requires_grad flags of leaf variables. If you want to use a "
                "computed variable in a subgraph that doesn't require differentiation use "
                "var_no_grad = var.detach()."
            )
        if requires_grad and self._array.dtype.kind != "f":
            raise RuntimeError("only Tensors of floating point dtype can require gradients")
        if self.grad_fn is None:
            self.requires_grad = requires_grad
        return self

    def _grad_accumulator(self) -> Any:
        # one AccumulateGrad per leaf for its lifetime (torch rebuilds it once no graph holds it)
        if self._accumulator is None:
            self._accumulator = AccumulateGrad(self)
        return self._accumulator

    # ------------------------------------------------ autograd

    def backward(
        self,
        gradient: Tensor | None = None,
        retain_graph: builtins.bool | None = None,
        create_graph: builtins.bool = False,
        inputs: Tensor | Sequence[Tensor] | None = None,
    ) -> None:
        """Compute the gradient of this tensor w.r.t. the graph leaves and add it into their .grad.

        ``gradient`` is the vector v of the vector-Jacobian product vᵀ·J; it may be omitted only
        for a one-element tensor (v = 1). Without ``retain_graph=True`` the saved tensors of the
        graph are freed, and a second backward through a node that saved tensors fails.
        """
        autograd.backward(self, gradient, retain_graph, create_graph, inputs=inputs)

    def retain_grad(self) -> None:
        """Keep .grad on this non-leaf tensor too (leaves always keep it)."""
        if not self.requires_grad:
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        if self.grad_fn is not None and self.grad_fn._retains is None:
            self.grad_fn._retains = weakref.ref(self)

    def register_hook(self, hook: Callable[[Tensor], Tensor | None]) -> Any:
        """Call ``hook(grad)`` when this tensor's gradient is computed; a returned tensor replaces it.

        Returns a handle whose ``remove()`` unregisters the hook.
        """
        if not self.requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        node = self.grad_fn if self.grad_fn is not None else self._grad_accumulator()
        return _add_hook(node._tensor_pre_hooks(), hook)  # a leaf's hooks live on its AccumulateGrad

    def detach(self) -> Tensor:
        """A tensor with the same values (shared memory) that is not part of any graph."""
        return Tensor._make(self._array)

    def detach_(self) -> Tensor:
        self.grad_fn = None
        self.requires_grad = False
        return self

    # ------------------------------------------------ conversion

    def item(self) -> Any:
        """The value of a one-element tensor as a Python number."""
        if self._array.size != 1:
            raise RuntimeError(f"a Tensor with {self._array.size} elements cannot be converted to Scalar")
        return self._array.reshape(()).item()

    def tolist(self) -> Any:
        return self._array.tolist()

    def numpy(self) -> np.ndarray:
        """The values as a NumPy array sharing memory (not for tensors that require grad)."""
        if self.requires_grad:
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.")
        return self._array

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        a = self.numpy()
        return a if dtype is None else a.astype(dtype)

    def to(self, dtype: Any) -> Tensor:
        """Convert to another dtype (recorded as ToCopyBackward0); same dtype returns self."""
        d = _to_dtype(dtype)
        return self if d.numpy == self._array.dtype else _ops.ToCopyBackward0.apply(self, dtype=d.numpy)

    def float(self) -> Tensor:
        return self.to(float32)

    def double(self) -> Tensor:
        return self.to(float64)

    def long(self) -> Tensor:
        return self.to(int64)

    def bool(self) -> Tensor:
        return self.to(bool)

    def clone(self) -> Tensor:
        return _ops.CloneBackward0.apply(self)

    def __bool__(self) -> builtins.bool:
        if self._array.size != 1:
            raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
        return builtins.bool(self._array)

    def __float__(self) -> builtins.float:
        return builtins.float(self.item())

    def __int__(self) -> builtins.int:
        return builtins.int(self.item())

    def __index__(self) -> builtins.int:
        if self._array.dtype.kind not in "iub" or self._array.size != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return builtins.int(self.item())

    def __len__(self) -> builtins.int:
        if self.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._array.shape[0]

    def __iter__(self) -> Iterator[Tensor]:
        if self.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return (self[i] for i in range(self._array.shape[0]))

    def __repr__(self) -> str:
        extra = []
        if self.grad_fn is not None:
            extra.append(f"grad_fn=<{type(self.grad_fn).__name__}>")
        elif self.requires_grad:
            extra.append("requires_grad=True")
        return format_tensor(self._array, self._array.dtype.name, extra)

    def __str__(self) -> str:
        return repr(self)  # so that subclasses' repr (Parameter) prints too

    def __format__(self, spec: str) -> str:
        return format(self.item(), spec) if self.ndim == 0 else repr(self)

    # ------------------------------------------------ arithmetic (gradbook/_ops.py)

    # __add__, __radd__, __sub__, __mul__, __rmul__ are _ops.add, _ops.sub, _ops.mul themselves
    # (bound at the end of this module): the hottest calls skip one Python frame.

    def __rsub__(self, other: Any) -> Tensor:
        return _ops.rsub(self, other)

    def __truediv__(self, other: Any) -> Tensor:
        return _ops.div(self, other)

    def __rtruediv__(self, other: Any) -> Tensor:
        return _ops.rdiv(self, other)

    def __pow__(self, other: Any) -> Tensor:
        return _ops.pow(self, other)

    def __rpow__(self, other: Any) -> Tensor:
        return _ops.rpow(self, other)

    def __neg__(self) -> Tensor:
        return _ops.NegBackward0.apply(self)

    def __matmul__(self, other: Tensor) -> Tensor:
        return _ops.matmul(self, other)

    def __rmatmul__(self, other: Tensor) -> Tensor:
        return _ops.matmul(_ops._lift(other, self), self)

    def __abs__(self) -> Tensor:
        return self.abs()

    def add(self, other: Any, alpha: Any = 1) -> Tensor:
        """x + y (times ``alpha``)."""
        return _ops.add(self, other, alpha)

    def sub(self, other: Any, alpha: Any = 1) -> Tensor:
        """x - y (times ``alpha``)."""
        return _ops.sub(self, other, alpha)

    def mul(self, other: Any) -> Tensor:
        """x · y, elementwise."""
        return _ops.mul(self, other)

    def div(self, other: Any) -> Tensor:
        """x / y."""
        return _ops.div(self, other)

    def pow(self, exponent: Any) -> Tensor:
        """x ** exponent."""
        return _ops.pow(self, exponent)

    def neg(self) -> Tensor:
        """-x."""
        return _ops.NegBackward0.apply(self)

    def matmul(self, other: Tensor) -> Tensor:
        """Matrix product (dot, mv, mm or batched)."""
        return _ops.matmul(self, other)

    def dot(self, other: Tensor) -> Tensor:
        return _ops.dot(self, other)

    def mm(self, other: Tensor) -> Tensor:
        """Matrix product of two 2-D tensors."""
        return _ops.matmul(self, other)

    def mv(self, other: Tensor) -> Tensor:
        """Matrix-vector product."""
        return _ops.matmul(self, other)

    # comparisons give bool tensors and are not differentiable
    def __eq__(self, other: Any) -> Tensor:  # type: ignore[override]
        return _ops.compare(np.equal, self, other)

    def __ne__(self, other: Any) -> Tensor:  # type: ignore[override]
        return _ops.compare(np.not_equal, self, other)

    def __lt__(self, other: Any) -> Tensor:
        return _ops.compare(np.less, self, other)

    def __le__(self, other: Any) -> Tensor:
        return _ops.compare(np.less_equal, self, other)

    def __gt__(self, other: Any) -> Tensor:
        return _ops.compare(np.greater, self, other)

    def __ge__(self, other: Any) -> Tensor:
        return _ops.compare(np.greater_equal, self, other)

    def __invert__(self) -> Tensor:
        return Tensor._make(~self._array)

    def __and__(self, other: Any) -> Tensor:
        return _ops.compare(np.logical_and, self, other)

    def __or__(self, other: Any) -> Tensor:
        return _ops.compare(np.logical_or, self, other)

    def eq(self, other: Any) -> Tensor:
        return self == other

    def equal(self, other: Tensor) -> builtins.bool:
        return self.shape == other.shape and builtins.bool(np.array_equal(self._array, other._array))

    def allclose(self, other: Tensor, rtol: builtins.float = 1e-05, atol: builtins.float = 1e-08) -> builtins.bool:
        return builtins.bool(np.allclose(self._array, _ops._lift(other, self)._array, rtol, atol))

    # ------------------------------------------------ elementwise

    def exp(self) -> Tensor:
        """eˣ, elementwise."""
        return _ops.ExpBackward0.apply(self)

    def log(self) -> Tensor:
        """ln(x), elementwise."""
        return _ops.LogBackward0.apply(self)

    def sqrt(self) -> Tensor:
        """√x, elementwise."""
        return _ops.SqrtBackward0.apply(self)

    def abs(self) -> Tensor:
        """|x|, elementwise."""
        return _ops.AbsBackward0.apply(self)

    def sin(self) -> Tensor:
        """sin(x), elementwise."""
        return _ops.SinBackward0.apply(self)

    def cos(self) -> Tensor:
        """cos(x), elementwise."""
        return _ops.CosBackward0.apply(self)

    def tanh(self) -> Tensor:
        """tanh(x), elementwise."""
        return _ops.TanhBackward0.apply(self)

    def sigmoid(self) -> Tensor:
        """1 / (1 + e⁻ˣ), elementwise."""
        return _ops.SigmoidBackward0.apply(self)

    def relu(self) -> Tensor:
        """max(x, 0), elementwise."""
        return _ops.ReluBackward0.apply(self)

    def clamp(self, min: Any = None, max: Any = None) -> Tensor:  # noqa: A002
        """Limit values to [min, max]."""
        return _ops.clamp(self, min, max)

    clip = clamp

    def maximum(self, other: Tensor) -> Tensor:
        return _ops._binary(_ops.MaximumBackward0, self, other)

    def minimum(self, other: Tensor) -> Tensor:
        return _ops._binary(_ops.MinimumBackward0, self, other)

    def softmax(self, dim: builtins.int) -> Tensor:
        """eˣ / Σ eˣ along ``dim``."""
        return _ops.SoftmaxBackward0.apply(self, dim=_ops._dim(dim, self.ndim))

    def log_softmax(self, dim: builtins.int) -> Tensor:
        """log(softmax(x)) along ``dim``, computed stably."""
        return _ops.LogSoftmaxBackward0.apply(self, dim=_ops._dim(dim, self.ndim))

    # ------------------------------------------------ reductions

    def sum(self, dim: Any = None, keepdim: builtins.bool = False) -> Tensor:
        """Sum of all elements, or along ``dim``."""
        return _ops.reduce(_ops.SumBackward0, _ops.SumBackward1, self, dim, keepdim)

    def mean(self, dim: Any = None, keepdim: builtins.bool = False) -> Tensor:
        """Mean of all elements, or along ``dim``."""
        return _ops.reduce(_ops.MeanBackward0, _ops.MeanBackward1, self, dim, keepdim)

    def max(self, dim: Any = None, keepdim: builtins.bool = False) -> Any:
        """Largest value, or ``(values, indices)`` along ``dim``."""
        return _ops.extreme(self, dim, keepdim, "max")

    def min(self, dim: Any = None, keepdim: builtins.bool = False) -> Any:
        """Smallest value, or ``(values, indices)`` along ``dim``."""
        return _ops.extreme(self, dim, keepdim, "min")

    def all(self) -> Tensor:
        return Tensor._make(np.all(self._array))

    def any(self) -> Tensor:
        return Tensor._make(np.any(self._array))

    def argmax(self, dim: Any = None, keepdim: builtins.bool = False) -> Tensor:
        """Index of the largest value (along ``dim``)."""
        return _ops.arg_extreme(np.argmax, self, dim, keepdim)

    def argmin(self, dim: Any = None, keepdim: builtins.bool = False) -> Tensor:
        """Index of the smallest value (along ``dim``)."""
        return _ops.arg_extreme(np.argmin, self, dim, keepdim)

    # ------------------------------------------------ shape

    def reshape(self, *shape: Any) -> Tensor:
        """Same elements, new shape."""
        return _ops.view(self, shape)

    def view(self, *shape: Any) -> Tensor:
        return _ops.view(self, shape)

    def view_as(self, other: Tensor) -> Tensor:
        return _ops.view(self, other.shape)

    def reshape_as(self, other: Tensor) -> Tensor:
        return _ops.view(self, other.shape)

    def flatten(self, start_dim: builtins.int = 0, end_dim: builtins.int = -1) -> Tensor:
        """Flatten dimensions ``start_dim`` .. ``end_dim`` into one."""
        return _ops.flatten(self, start_dim, end_dim)

    def squeeze(self, dim: Any = None) -> Tensor:
        """Remove size-1 dimensions."""
        return _ops.squeeze(self, dim)

    def unsqueeze(self, dim: builtins.int) -> Tensor:
        """Insert a size-1 dimension."""
        return _ops.UnsqueezeBackward0.apply(self, dim=_ops._dim(dim, self.ndim + 1))

    def transpose(self, dim0: builtins.int, dim1: builtins.int) -> Tensor:
        """Swap two dimensions."""
        return _ops.transpose(self, dim0, dim1)

    def t(self) -> Tensor:
        """Transpose of a tensor with at most 2 dimensions."""
        return _ops.t(self)

    @property
    def T(self) -> Tensor:  # noqa: N802
        return _ops.permute(self, tuple(range(self.ndim))[::-1])

    @property
    def mT(self) -> Tensor:  # noqa: N802
        return _ops.transpose(self, -2, -1)

    def permute(self, *dims: Any) -> Tensor:
        """Reorder dimensions."""
        return _ops.permute(self, dims[0] if len(dims) == 1 and isinstance(dims[0], (tuple, list)) else dims)

    def expand(self, *sizes: Any) -> Tensor:
        return _ops.expand(self, sizes[0] if len(sizes) == 1 and isinstance(sizes[0], (tuple, list)) else sizes)

    def expand_as(self, other: Tensor) -> Tensor:
        return _ops.expand(self, other.shape)

    def __getitem__(self, index: Any) -> Tensor:
        return _ops.getitem(self, index)

    def __setitem__(self, index: Any, value: Any) -> None:
        _ops.setitem(self, index, value)

    # ------------------------------------------------ in place (see _ops.inplace)

    def add_(self, other: Any, alpha: Any = 1) -> Tensor:
        if alpha != 1:
            return _ops.inplace(self, lambda t, o: _ops.add(t, o, alpha), other)
        return _ops.inplace(self, _ops.add, other, np.add)

    def sub_(self, other: Any, alpha: Any = 1) -> Tensor:
        if alpha != 1:
            return _ops.inplace(self, lambda t, o: _ops.sub(t, o, alpha), other)
        return _ops.inplace(self, _ops.sub, other, np.subtract)

    def mul_(self, other: Any) -> Tensor:
        return _ops.inplace(self, _ops.mul, other, np.multiply)

    def div_(self, other: Any) -> Tensor:
        return _ops.inplace(self, _ops.div, other, np.true_divide)

    def zero_(self) -> Tensor:
        return _ops.inplace(self, _ops.zero, None)

    def fill_(self, value: Any) -> Tensor:
        return _ops.inplace(self, _ops.fill, value)

    def copy_(self, src: Tensor) -> Tensor:
        return _ops.inplace(self, _ops.fill, src)

    def clamp_(self, min: Any = None, max: Any = None) -> Tensor:  # noqa: A002
        return _ops.inplace(self, lambda t, _: _ops.clamp(t, min, max), None)

    def __iadd__(self, other: Any) -> Tensor:
        return _ops.inplace(self, _ops.add, other, np.add)

    def __isub__(self, other: Any) -> Tensor:
        return _ops.inplace(self, _ops.sub, other, np.subtract)

    def __imul__(self, other: Any) -> Tensor:
        return _ops.inplace(self, _ops.mul, other, np.multiply)

    def __itruediv__(self, other: Any) -> Tensor:
        return _ops.inplace(self, _ops.div, other, np.true_divide)


NON_LEAF_GRAD_WARNING = (
    "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad attribute "
    "won't be populated during autograd.backward(). If you indeed want the .grad field to be populated "
    "for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. If you access the non-leaf Tensor "
    "by mistake, make sure you access the leaf Tensor instead. See github.com/pytorch/pytorch/pull/30531 "
    "for more information."
)


# ---------------------------------------------------------------- making tensors


def tensor(data: Any, dtype: Any = None, requires_grad: builtins.bool = False) -> Tensor:
    """Make a leaf tensor from a number, a (nested) list, a NumPy array or a tensor (copied).

    Python floats become float32 (torch's default), ints int64, bools bool; a NumPy array keeps
    its dtype.

    >>> import gradbook as torch
    >>> torch.tensor([2, 3, 4], dtype=torch.float, requires_grad=True)
    tensor([2., 3., 4.], requires_grad=True)
    """
    if isinstance(data, Tensor):
        array = data._array.copy()
    else:
        array = np.array(data)
        if not isinstance(data, np.ndarray) and array.dtype.kind == "f":
            array = array.astype(np.float32)
    if dtype is not None:
        array = array.astype(_to_dtype(dtype).numpy)
    elif array.dtype not in _DTYPES:
        kind = array.dtype.kind
        if kind in "iu":
            array = array.astype(np.int64)
        elif kind == "f":
            array = array.astype(np.float32)
        else:
            raise TypeError(f"can't convert {type(data).__name__} of dtype {array.dtype} to a tensor")
    return _new_leaf(array, requires_grad)


def _new_leaf(array: np.ndarray, requires_grad: builtins.bool) -> Tensor:
    """A leaf made by a factory: torch words the integer error differently than requires_grad_()."""
    t = Tensor._make(array)
    if requires_grad:
        if array.dtype.kind != "f":
            raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
        t.requires_grad = True
    return t


def as_tensor(data: Any, dtype: Any = None) -> Tensor:
    """Like ``tensor``, but returns a tensor unchanged (or converted) instead of copying it."""
    if isinstance(data, Tensor):
        return data if dtype is None else data.to(dtype)
    return tensor(data, dtype)


def from_numpy(array: np.ndarray) -> Tensor:
    """A tensor sharing memory with a NumPy array."""
    return Tensor._make(array)


from . import _ops, autograd  # noqa: E402  (the op table needs Tensor defined first)

Tensor.__add__ = Tensor.__radd__ = _ops.add  # type: ignore[method-assign]
Tensor.__sub__ = _ops.sub  # type: ignore[method-assign]
Tensor.__mul__ = Tensor.__rmul__ = _ops.mul  # type: ignore[method-assign]
from .autograd.graph import AccumulateGrad, _add_hook  # noqa: E402
