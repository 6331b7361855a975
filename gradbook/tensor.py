"""Tensor: a NumPy array plus the flags of autograd (``requires_grad``, ``grad``, ``grad_fn``).

Read this file, then ``ops.py``, then ``autograd/engine.py`` to follow ``y = x * x;
y.backward()``. Every differentiable method is one call: to an op of ``ops.py``, or to
``_arguments.py``, which applies torch's argument rules (numbers, dtypes, broadcasting errors)
and then calls the op.
"""

from __future__ import annotations

import builtins
import warnings
import weakref
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np

from . import _device, _missing
from ._dtypes import DTYPES, Size, dtype, float32, float64, int64
from ._messages import NON_LEAF_GRAD_WARNING, SCALAR_WITH_GRAD_WARNING, warn_once
from ._numpy_names import accept_numpy_names
from ._printing import format_tensor

_new = object.__new__


class _InPlace:
    """``x.abs_()``: ``x.abs()`` written into x's memory, as ``inplace.update`` does it."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __get__(self, t: Any, owner: Any = None) -> Any:
        def method(*args: Any, **kwargs: Any) -> Tensor:  # its float tensor argument (the exponent, src,
            # value) is update's ``other``, so that a gradient (or tangent) it carries is recorded
            other = next(
                (a for a in (*args, *kwargs.values()) if isinstance(a, Tensor) and a.is_floating_point()), None
            )
            return inplace.update(t, lambda x, _: getattr(x, self.name)(*args, **kwargs), other)

        return method


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

    __module__ = "gradbook"  # prints as <class 'gradbook.Tensor'>, as torch's <class 'torch.Tensor'>

    __slots__ = (
        "_array",
        "grad_fn",
        "requires_grad",
        "_grad",
        "_accumulator",
        "_hooks",
        "_version_counter",
        "_base",
        "_views",
        "_output_nr",
        "__weakref__",
    )
    __array_ufunc__ = None  # NumPy defers to our reflected operators: np.float32(2) * x is a Tensor
    __hash__ = object.__hash__

    @staticmethod
    def _make(array: Any, grad_fn: Any = None) -> Tensor:
        """Wrap an array (the result of an op, whose ``grad_fn`` it is) in a new Tensor."""
        t = _new(Tensor)
        t._array = array if type(array) is np.ndarray else np.asarray(array)  # NumPy gives scalars for 0-d
        t.grad_fn = grad_fn
        t.requires_grad = grad_fn is not None
        t._grad = t._accumulator = t._hooks = t._base = t._views = t._output_nr = None
        t._version_counter = None  # [version], made at the first in-place change (read as t._version)
        if _State.inference:  # made inside inference_mode: an inference tensor
            t._version_counter = InferenceVersion([0])
        return t

    @property
    def _version(self) -> builtins.int:
        """Bumped by every in-place change of this tensor or of a view of the same memory, so that
        backward can tell that a value it saved has changed. The counter (``_version_counter``, a one-item list
        shared with views) is made at the first change or view: None is version 0."""
        return self._version_counter[0] if self._version_counter is not None else 0

    @_version.setter
    def _version(self, value: builtins.int) -> None:
        if self._version_counter is None:
            self._version_counter = [value]
        else:
            self._version_counter[0] = value

    @property
    def is_leaf(self) -> builtins.bool:
        """True for tensors made by the user, and for results that do not require grad."""
        return self.grad_fn is None

    @property
    def grad(self) -> Tensor | None:
        """The gradient accumulated by backward(): set for leaves, and for retain_grad() tensors."""
        if self.grad_fn is not None and self._hook_place()._retains is None and self._grad is None:
            warnings.warn(NON_LEAF_GRAD_WARNING, UserWarning, stacklevel=2)
        return self._grad

    @grad.setter
    def grad(self, value: Tensor | None) -> None:
        if value is not None:
            arguments.check_grad(self, value)
        self._grad = value

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
        engine.backward(self, gradient, retain_graph, create_graph, inputs=inputs)  # torch.autograd.backward

    def _grad_accumulator(self) -> Any:
        """The leaf's AccumulateGrad node, while a graph holds it (the leaf holds it weakly, as in
        torch, so that leaf and node form no reference cycle)."""
        node = self._accumulator() if self._accumulator is not None else None
        if node is None:
            node = graph.AccumulateGrad(self)
            self._accumulator = weakref.ref(node)
        return node

    # ------------------------------------------------ arithmetic (ops/arithmetic.py), through torch's argument rules

    def __add__(self, other: Any) -> Tensor:
        return arguments.binary(ops.AddBackward0, self, other)

    def __radd__(self, other: Any) -> Tensor:  # a NumPy array on the left refuses, as in torch
        return NotImplemented if isinstance(other, np.ndarray) else arguments.binary(ops.AddBackward0, self, other)

    def __sub__(self, other: Any) -> Tensor:
        return arguments.binary(ops.SubBackward0, self, other)

    def __mul__(self, other: Any) -> Tensor:
        return arguments.binary(ops.MulBackward0, self, other)

    def __rmul__(self, other: Any) -> Tensor:
        return NotImplemented if isinstance(other, np.ndarray) else arguments.binary(ops.MulBackward0, self, other)

    def __rsub__(self, other: Any) -> Tensor:
        return arguments.rsub(self, other)

    def __truediv__(self, other: Any) -> Tensor:
        return arguments.div(self, other)

    def __rtruediv__(self, other: Any) -> Tensor:
        return arguments.rdiv(self, other)

    def __floordiv__(self, other: Any) -> Tensor:
        return arguments.floor_divide(self, other)

    def __rfloordiv__(self, other: Any) -> Tensor:
        return arguments.floor_divide(self, other, reflected=True)

    def __mod__(self, other: Any) -> Tensor:
        return arguments.remainder(self, other)

    def __rmod__(self, other: Any) -> Tensor:
        return arguments.reflected_remainder(self, other)

    def __pow__(self, other: Any) -> Tensor:
        return arguments.pow(self, other)

    def __rpow__(self, other: Any) -> Tensor:
        return arguments.rpow(self, other)

    def __neg__(self) -> Tensor:
        return ops.NegBackward0.apply(self)

    def __abs__(self) -> Tensor:
        return self.abs()

    def add(self, other: Any, alpha: Any = 1) -> Tensor:
        """x + y (times ``alpha``)."""
        return arguments.add(self, arguments.argument(other, "add"), alpha)

    def sub(self, other: Any, alpha: Any = 1) -> Tensor:
        """x - y (times ``alpha``)."""
        return arguments.sub(self, arguments.argument(other, "sub"), alpha)

    def mul(self, other: Any) -> Tensor:
        """x · y, elementwise."""
        return arguments.binary(ops.MulBackward0, self, arguments.argument(other, "mul"))

    def div(self, other: Any, *, rounding_mode: str | None = None) -> Tensor:
        """x / y (rounded with ``rounding_mode="trunc"`` or ``"floor"``)."""
        return arguments.div(self, arguments.argument(other, "div"), rounding_mode)

    def pow(self, exponent: Any) -> Tensor:
        """x ** exponent."""
        return arguments.pow(self, arguments.argument(exponent, "pow", "exponent"))

    def remainder(self, other: Any) -> Tensor:
        """x mod y, with the sign of y (Python's %)."""
        return arguments.remainder(self, arguments.argument(other, "remainder"))

    def floor_divide(self, other: Any) -> Tensor:
        """x // y, rounded down (not differentiable)."""
        return arguments.floor_divide(self, arguments.argument(other, "floor_divide"))

    def neg(self) -> Tensor:
        """-x."""
        return ops.NegBackward0.apply(self)

    def lerp(self, end: Tensor, weight: Any) -> Tensor:
        """self + weight · (end - self)."""
        return arguments.lerp(self, end, weight)

    def addcmul(self, tensor1: Tensor, tensor2: Tensor, *, value: Any = 1) -> Tensor:
        """self + value · tensor1 · tensor2."""
        return arguments.addcmul(self, tensor1, tensor2, value)

    # ------------------------------------------------ matrix products (ops/linalg.py)

    def __matmul__(self, other: Tensor) -> Tensor:
        return arguments.matmul(self, other)

    def __rmatmul__(self, other: Tensor) -> Tensor:
        return NotImplemented  # a Tensor on the left was asked first; a NumPy array refuses, as in torch

    def matmul(self, other: Tensor) -> Tensor:
        """Matrix product (dot, mv, mm or batched)."""
        return arguments.matmul(self, arguments.tensor_argument(other, "matmul"))

    def dot(self, other: Tensor) -> Tensor:
        return arguments.dot(self, arguments.tensor_argument(other, "dot", "tensor"))

    def mm(self, other: Tensor) -> Tensor:
        """Matrix product of two 2-D tensors."""
        return arguments.matmul(self, arguments.tensor_argument(other, "mm", "mat2"))

    def bmm(self, mat2: Tensor) -> Tensor:
        """Matrix products of two batches of matrices, (B, n, k) @ (B, k, m)."""
        return arguments.bmm(self, arguments.tensor_argument(mat2, "bmm", "mat2"))

    def addmm(self, mat1: Tensor, mat2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
        """beta · self + alpha · mat1 @ mat2, one AddmmBackward0 node (as ``nn.Linear`` records it)."""
        return arguments.addmm(self, mat1, mat2, beta, alpha)

    def cross(self, other: Tensor, dim: builtins.int | None = None) -> Tensor:
        """The cross product of the length-3 vectors along ``dim`` (the first of size 3 if not given)."""
        return arguments.cross(self, arguments.tensor_argument(other, "cross", "other"), dim, "cross")

    def kron(self, other: Tensor) -> Tensor:
        """The Kronecker product: each element of self times the whole of other, laid out in blocks."""
        return arguments.kron(self, arguments.tensor_argument(other, "kron", "other"))

    def mv(self, other: Tensor) -> Tensor:
        """Matrix-vector product."""
        return arguments.matmul(self, arguments.tensor_argument(other, "mv", "vec"))

    def outer(self, vec2: Tensor) -> Tensor:
        """The outer product of two vectors: selfᵢ · vec2ⱼ."""
        return self.reshape(-1, 1) * vec2

    def trace(self) -> Tensor:
        """Sum of a matrix's diagonal."""
        return ops.TraceBackward0.apply(self)

    # ------------------------------------------------ elementwise functions (ops/pointwise.py)

    def exp(self) -> Tensor:
        """eˣ, elementwise."""
        return ops.ExpBackward0.apply(self)

    def log(self) -> Tensor:
        """ln(x), elementwise."""
        return ops.LogBackward0.apply(self)

    def sqrt(self) -> Tensor:
        """√x, elementwise."""
        return ops.SqrtBackward0.apply(self)

    def rsqrt(self) -> Tensor:
        """1/√x, elementwise."""
        return ops.RsqrtBackward0.apply(self)

    def abs(self) -> Tensor:
        """|x|, elementwise."""
        return ops.AbsBackward0.apply(self)

    def sin(self) -> Tensor:
        """sin(x), elementwise."""
        return ops.SinBackward0.apply(self)

    def cos(self) -> Tensor:
        """cos(x), elementwise."""
        return ops.CosBackward0.apply(self)

    def tanh(self) -> Tensor:
        """tanh(x), elementwise."""
        return ops.TanhBackward0.apply(self)

    def sigmoid(self) -> Tensor:
        """1 / (1 + e⁻ˣ), elementwise."""
        return ops.SigmoidBackward0.apply(self)

    def clamp(self, min: Any = None, max: Any = None) -> Tensor:  # noqa: A002
        """Limit values to [min, max]."""
        return arguments.clamp(self, min, max)

    def atan(self) -> Tensor:
        return ops.AtanBackward0.apply(self)

    def asin(self) -> Tensor:
        return ops.AsinBackward0.apply(self)

    def acos(self) -> Tensor:
        return ops.AcosBackward0.apply(self)

    def sinh(self) -> Tensor:
        return ops.SinhBackward0.apply(self)

    def cosh(self) -> Tensor:
        return ops.CoshBackward0.apply(self)

    def atan2(self, other: Tensor) -> Tensor:
        """The angle of the point (other, self), in (-π, π]."""
        return arguments.binary(ops.Atan2Backward0, self, arguments.tensor_argument(other, "atan2"))

    def hypot(self, other: Tensor) -> Tensor:
        """√(self² + other²), elementwise."""
        return arguments.binary(ops.HypotBackward0, self, arguments.tensor_argument(other, "hypot"))

    def logaddexp(self, other: Tensor) -> Tensor:
        """log(eˢᵉˡᶠ + eᵒᵗʰᵉʳ), without overflow."""
        return arguments.binary(ops.LogaddexpBackward0, self, arguments.tensor_argument(other, "logaddexp"))

    def trunc(self) -> Tensor:
        return ops.TruncBackward0.apply(self)

    def frac(self) -> Tensor:
        return ops.FracBackward0.apply(self)

    def clamp_min(self, min: Any) -> Tensor:  # noqa: A002
        return ops.ClampMinBackward0.apply(self, min=arguments.number_bound(min, "clamp_min"))

    def clamp_max(self, max: Any) -> Tensor:  # noqa: A002
        return ops.ClampMaxBackward0.apply(self, max=arguments.number_bound(max, "clamp_max"))

    def nan_to_num(self, nan: Any = 0.0, posinf: Any = None, neginf: Any = None) -> Tensor:
        """nan → ``nan``, ±inf → ``posinf``/``neginf`` (the dtype's largest and smallest by default)."""
        return ops.NanToNumBackward0.apply(self, nan=nan, posinf=posinf, neginf=neginf)

    def where(self, condition: Tensor, y: Any) -> Tensor:
        """condition ? self : y (``torch.where(condition, self, y)``)."""
        return arguments.where(condition, self, y)

    def maximum(self, other: Tensor) -> Tensor:
        return arguments.binary(ops.MaximumBackward0, self, arguments.tensor_argument(other, "maximum"))

    def minimum(self, other: Tensor) -> Tensor:
        return arguments.binary(ops.MinimumBackward0, self, arguments.tensor_argument(other, "minimum"))

    def square(self) -> Tensor:
        return ops.PowBackward0.apply(self, exponent=2)

    def log1p(self) -> Tensor:
        return ops.Log1PBackward0.apply(self)

    def expm1(self) -> Tensor:
        return ops.Expm1Backward0.apply(self)

    def exp2(self) -> Tensor:
        return ops.Exp2Backward0.apply(self)

    def log2(self) -> Tensor:
        return ops.Log2Backward0.apply(self)

    def log10(self) -> Tensor:
        return ops.Log10Backward0.apply(self)

    def erf(self) -> Tensor:
        return ops.ErfBackward0.apply(self)

    def sign(self) -> Tensor:
        return ops.SignBackward0.apply(self)

    def floor(self) -> Tensor:
        return ops.FloorBackward0.apply(self)

    def ceil(self) -> Tensor:
        return ops.CeilBackward0.apply(self)

    def round(self, decimals: builtins.int = 0) -> Tensor:
        return ops.RoundBackward0.apply(self) if not decimals else ops.RoundBackward1.apply(self, decimals=decimals)

    def isnan(self) -> Tensor:
        return Tensor._make(np.isnan(self._array))

    def isinf(self) -> Tensor:
        return Tensor._make(np.isinf(self._array))

    def isfinite(self) -> Tensor:
        return Tensor._make(np.isfinite(self._array))

    # ------------------------------------------------ activations (ops/activation.py)

    def relu(self) -> Tensor:
        """max(x, 0), elementwise."""
        return ops.ReluBackward0.apply(self)

    def softmax(self, dim: builtins.int, dtype: Any = None) -> Tensor:
        """eˣ / Σ eˣ along ``dim`` (in ``dtype`` if one is given)."""
        return ops.SoftmaxBackward0.apply(self.to(dtype or self.dtype), dim=arguments.check_dim(dim, self.ndim))

    def log_softmax(self, dim: builtins.int, dtype: Any = None) -> Tensor:
        """log(softmax(x)) along ``dim``, computed stably (in ``dtype`` if one is given)."""
        return ops.LogSoftmaxBackward0.apply(self.to(dtype or self.dtype), dim=arguments.check_dim(dim, self.ndim))

    # ------------------------------------------------ reductions (ops/reduce.py)

    def sum(self, dim: Any = None, keepdim: builtins.bool = False) -> Tensor:
        """Sum of all elements, or along ``dim`` (NumPy's ``axis=``, ``keepdims=`` too, as torch)."""
        return arguments.reduce(ops.SumBackward0, ops.SumBackward1, self, dim, keepdim)

    def mean(self, dim: Any = None, keepdim: builtins.bool = False) -> Tensor:
        """Mean of all elements, or along ``dim`` (NumPy's ``axis=``, ``keepdims=`` too)."""
        return arguments.reduce(ops.MeanBackward0, ops.MeanBackward1, self, dim, keepdim)

    def prod(self, dim: Any = None, keepdim: builtins.bool = False) -> Tensor:
        """Product of all elements, or along ``dim``."""
        return arguments.reduce(ops.ProdBackward0, ops.ProdBackward1, self, dim, keepdim)

    def cumsum(self, dim: builtins.int) -> Tensor:
        """Running sums along ``dim``."""
        return ops.CumsumBackward0.apply(self, dim=arguments.check_dim(dim, self.ndim))

    def var(self, dim: Any = None, unbiased: Any = None, keepdim: Any = False, *, correction: Any = None) -> Tensor:
        """Variance (divided by N - correction; correction=1 unless told otherwise)."""
        return arguments.var(ops.VarBackward0, self, dim, unbiased, keepdim, correction)

    def std(self, dim: Any = None, unbiased: Any = None, keepdim: Any = False, *, correction: Any = None) -> Tensor:
        """Standard deviation: √var."""
        return arguments.var(ops.StdBackward0, self, dim, unbiased, keepdim, correction)

    def norm(self, p: Any = "fro", dim: Any = None, keepdim: builtins.bool = False, dtype: Any = None) -> Tensor:
        """The p-norm (2 by default: √Σx²) of all elements, or along ``dim`` (of self cast to ``dtype``)."""
        return arguments.vector_norm(self, 2 if p == "fro" else p, dim, keepdim, "norm", dtype)

    def max(self, dim: Any = None, keepdim: builtins.bool = False) -> Any:
        """Largest value, or ``(values, indices)`` along ``dim``."""
        return arguments.extreme(self, dim, keepdim, "max")

    def min(self, dim: Any = None, keepdim: builtins.bool = False) -> Any:
        """Smallest value, or ``(values, indices)`` along ``dim``."""
        return arguments.extreme(self, dim, keepdim, "min")

    def argmax(self, dim: Any = None, keepdim: builtins.bool = False) -> Tensor:
        """Index of the largest value (along ``dim``)."""
        return arguments.arg_extreme(np.argmax, self, dim, keepdim)

    def argmin(self, dim: Any = None, keepdim: builtins.bool = False) -> Tensor:
        """Index of the smallest value (along ``dim``)."""
        return arguments.arg_extreme(np.argmin, self, dim, keepdim)

    def all(self) -> Tensor:
        return Tensor._make(np.all(self._array))

    def any(self) -> Tensor:
        return Tensor._make(np.any(self._array))

    def amax(self, dim: Any = (), keepdim: builtins.bool = False) -> Tensor:
        """Largest value along ``dim`` (all dimensions by default); ties share the gradient."""
        return arguments.amax(self, dim, keepdim, ops.AmaxBackward0)

    def amin(self, dim: Any = (), keepdim: builtins.bool = False) -> Tensor:
        """Smallest value along ``dim`` (all dimensions by default); ties share the gradient."""
        return arguments.amax(self, dim, keepdim, ops.AminBackward0)

    def logsumexp(self, dim: Any, keepdim: builtins.bool = False) -> Tensor:
        """log Σ eˣ along ``dim``, computed without overflow."""
        return arguments.logsumexp(self, dim, keepdim)

    def cumprod(self, dim: builtins.int) -> Tensor:
        """Running products along ``dim``."""
        return ops.CumprodBackward0.apply(self, dim=arguments.check_dim(dim, self.ndim))

    def diff(self, n: builtins.int = 1, dim: builtins.int = -1) -> Tensor:
        """Differences of neighbours along ``dim`` (``n`` times)."""
        return arguments.diff(self, n, dim)

    # ------------------------------------------------ shape (ops/shape.py)

    def diagonal(self, offset: builtins.int = 0, dim1: builtins.int = 0, dim2: builtins.int = 1) -> Tensor:
        """Diagonal ``offset`` (> 0: above the main one) of the matrices in ``dim1``, ``dim2``, as the
        last dimension (a copy, where torch gives a view)."""
        return arguments.diagonal(self, offset, dim1, dim2)

    def reshape(self, *shape: Any) -> Tensor:
        """Same elements, new shape (a view if the memory layout allows one, else a copy)."""
        return arguments.view(self, shape, copy_if_needed=True)

    def view(self, *shape: Any) -> Tensor:
        return arguments.view(self, shape)

    def view_as(self, other: Tensor) -> Tensor:
        return arguments.view(self, other.shape)

    def reshape_as(self, other: Tensor) -> Tensor:
        return arguments.view(self, other.shape, copy_if_needed=True)

    def contiguous(self) -> Tensor:
        return arguments.contiguous(self)

    def is_contiguous(self) -> builtins.bool:
        return builtins.bool(self._array.flags.c_contiguous)

    def flatten(self, start_dim: builtins.int = 0, end_dim: builtins.int = -1) -> Tensor:
        """Flatten dimensions ``start_dim`` .. ``end_dim`` into one."""
        return arguments.flatten(self, start_dim, end_dim)

    def squeeze(self, dim: Any = None) -> Tensor:
        """Remove size-1 dimensions."""
        return arguments.squeeze(self, dim)

    def unsqueeze(self, dim: builtins.int) -> Tensor:
        """Insert a size-1 dimension."""
        return ops.UnsqueezeBackward0.apply(self, dim=arguments.check_dim(dim, self.ndim + 1))

    def transpose(self, dim0: builtins.int, dim1: builtins.int) -> Tensor:
        """Swap two dimensions."""
        return arguments.transpose(self, dim0, dim1)

    def t(self) -> Tensor:
        """Transpose of a tensor with at most 2 dimensions."""
        return arguments.t(self)

    @property
    def T(self) -> Tensor:  # noqa: N802
        return arguments.permute(self, tuple(range(self.ndim))[::-1])

    @property
    def mT(self) -> Tensor:  # noqa: N802
        return arguments.transpose(self, -2, -1)

    def split(self, split_size_or_sections: Any, dim: builtins.int = 0) -> tuple[Tensor, ...]:
        """Pieces along ``dim``: of ``split_size`` each (the last smaller), or of the listed sizes."""
        return arguments.split(self, split_size_or_sections, dim)

    def chunk(self, chunks: builtins.int, dim: builtins.int = 0) -> tuple[Tensor, ...]:
        """``chunks`` pieces (or fewer) of equal size along ``dim``, the last one smaller."""
        return arguments.chunk(self, chunks, dim)

    def unbind(self, dim: builtins.int = 0) -> tuple[Tensor, ...]:
        """The slices along ``dim``, that dimension removed."""
        return arguments.unbind(self, dim)

    def tril(self, diagonal: builtins.int = 0) -> Tensor:
        """Zeros above diagonal ``diagonal`` (0: the main one)."""
        return ops.TrilBackward0.apply(self, diagonal=diagonal)

    def triu(self, diagonal: builtins.int = 0) -> Tensor:
        """Zeros below diagonal ``diagonal`` (0: the main one)."""
        return ops.TriuBackward0.apply(self, diagonal=diagonal)

    def flip(self, *dims: Any) -> Tensor:
        """The order along ``dims`` reversed."""
        return arguments.flip(self, dims)

    def roll(self, shifts: Any, dims: Any = None) -> Tensor:
        """Shifted along ``dims``, wrapping around (flattened first if no dims)."""
        return arguments.roll(self, shifts, dims)

    def repeat(self, *sizes: Any) -> Tensor:
        """Tiled ``sizes`` times along each dimension."""
        return arguments.repeat(self, sizes)

    def tile(self, *dims: Any) -> Tensor:
        return arguments.tile(self, dims)

    def narrow(self, dim: builtins.int, start: builtins.int, length: builtins.int) -> Tensor:
        return arguments.narrow(self, dim, start, length)

    def movedim(self, source: Any, destination: Any) -> Tensor:
        return arguments.movedim(self, source, destination)

    def swapaxes(self, axis0: builtins.int, axis1: builtins.int) -> Tensor:
        return arguments.transpose(self, axis0, axis1)

    def permute(self, *dims: Any) -> Tensor:
        """Reorder dimensions."""
        return arguments.permute(self, dims[0] if len(dims) == 1 and isinstance(dims[0], (tuple, list)) else dims)

    def expand(self, *sizes: Any) -> Tensor:
        return arguments.expand(self, sizes[0] if len(sizes) == 1 and isinstance(sizes[0], (tuple, list)) else sizes)

    def expand_as(self, other: Tensor) -> Tensor:
        return arguments.expand(self, other.shape)

    def sum_to_size(self, *size: Any) -> Tensor:
        """Sum down to ``size``, a shape that broadcasts to this one: a broadcast input's gradient.

        >>> import gradbook as torch
        >>> torch.ones(4, 3).sum_to_size(3)
        tensor([4., 4., 4.])
        """
        return arguments.sum_to_size(self, size[0] if len(size) == 1 and isinstance(size[0], (tuple, list)) else size)

    # ------------------------------------------------ indexing, sorting, random fills (ops/indexing.py)

    def sort(self, dim: builtins.int = -1, descending: builtins.bool = False, stable: builtins.bool = False) -> Any:
        """``(values, indices)``: sorted along ``dim``; equal values keep their order."""
        return arguments.sort(self, dim, descending)

    def argsort(
        self, dim: builtins.int = -1, descending: builtins.bool = False, stable: builtins.bool = False
    ) -> Tensor:
        """The indices that sort along ``dim``."""
        return arguments.sort(self, dim, descending)[1]

    def topk(
        self, k: builtins.int, dim: builtins.int = -1, largest: builtins.bool = True, sorted: builtins.bool = True
    ) -> Any:  # noqa: A002
        """``(values, indices)`` of the k largest (``largest=False``: smallest) along ``dim``."""
        return arguments.topk(self, k, dim, largest)

    def uniform_(self, a: Any = 0.0, b: Any = 1.0, *, generator: Any = None) -> Tensor:
        return arguments.uniform_(self, a, b, generator)

    def normal_(self, mean: Any = 0.0, std: Any = 1.0, *, generator: Any = None) -> Tensor:
        return arguments.normal_(self, mean, std, generator)

    def random_(self, from_: Any = 0, to: Any = None, *, generator: Any = None) -> Tensor:
        """Fill with random integers in [from, to) (``random_(to)``: [0, to))."""
        return arguments.random_(self, from_, to, generator)

    def bernoulli_(self, p: Any = 0.5, *, generator: Any = None) -> Tensor:
        return arguments.bernoulli_(self, p, generator)

    def masked_fill(self, mask: Tensor, value: Any) -> Tensor:
        """value where mask is True, else self (the gradient flows where mask is False)."""
        return arguments.masked_fill(self, mask, value)

    def gather(self, dim: builtins.int, index: Tensor) -> Tensor:
        """out[i][j] = self[index[i][j]][j] (for dim 0): picks along ``dim``."""
        return arguments.gather(self, dim, index)

    def scatter(
        self, dim: builtins.int, index: Tensor, src: Any = None, reduce: Any = None, *, value: Any = None
    ) -> Tensor:
        """self with src (or ``value=``) written at index along dim: the inverse of gather."""
        return arguments.scatter(self, dim, index, src if value is None else value, reduce)

    def scatter_add(self, dim: builtins.int, index: Tensor, src: Tensor) -> Tensor:
        return arguments.scatter(self, dim, index, src, add=True)

    def index_select(self, dim: builtins.int, index: Tensor) -> Tensor:
        """The slices at ``index`` along ``dim``."""
        return arguments.index_select(self, dim, index)

    def index_put_(self, indices: Any, values: Any, accumulate: builtins.bool = False) -> Tensor:
        """``self[indices] = values`` (or ``+=`` with ``accumulate``), for a tuple of index tensors."""
        return arguments.index_put_(self, indices, values, accumulate)

    def __getitem__(self, index: Any) -> Tensor:
        return arguments.getitem(self, index)

    def __setitem__(self, index: Any, value: Any) -> None:
        arguments.setitem(self, index, value)

    # ------------------------------------------------ comparisons: bool tensors, never recorded

    def __eq__(self, other: Any) -> Tensor:  # type: ignore[override]
        return arguments.compare(np.equal, self, other)

    def __ne__(self, other: Any) -> Tensor:  # type: ignore[override]
        return arguments.compare(np.not_equal, self, other)

    def __lt__(self, other: Any) -> Tensor:
        return arguments.compare(np.less, self, other)

    def __le__(self, other: Any) -> Tensor:
        return arguments.compare(np.less_equal, self, other)

    def __gt__(self, other: Any) -> Tensor:
        return arguments.compare(np.greater, self, other)

    def __ge__(self, other: Any) -> Tensor:
        return arguments.compare(np.greater_equal, self, other)

    def __invert__(self) -> Tensor:
        return Tensor._make(~self._array)

    def __and__(self, other: Any) -> Tensor:
        return arguments.compare(np.logical_and, self, other)

    def __or__(self, other: Any) -> Tensor:
        return arguments.compare(np.logical_or, self, other)

    eq, ne, lt, le, gt, ge = __eq__, __ne__, __lt__, __le__, __gt__, __ge__  # x.gt(0) is x > 0
    greater, greater_equal, less, less_equal, not_equal = gt, ge, lt, le, ne

    def equal(self, other: Tensor) -> builtins.bool:
        return self.shape == other.shape and builtins.bool(np.array_equal(self._array, other._array))

    def allclose(
        self,
        other: Tensor,
        rtol: builtins.float = 1e-05,
        atol: builtins.float = 1e-08,
        equal_nan: builtins.bool = False,
    ) -> builtins.bool:
        return builtins.bool(np.allclose(self._array, arguments.lift(other, self)._array, rtol, atol, equal_nan))

    def isclose(
        self, other: Any, rtol: builtins.float = 1e-05, atol: builtins.float = 1e-08, equal_nan: builtins.bool = False
    ) -> Tensor:
        return Tensor._make(np.isclose(self._array, arguments.lift(other, self)._array, rtol, atol, equal_nan))

    # ------------------------------------------------ in place (autograd/inplace.py)

    abs_, neg_, exp_, log_, sqrt_, sin_, cos_ = (
        _InPlace(n) for n in ("abs", "neg", "exp", "log", "sqrt", "sin", "cos")
    )
    tanh_, sigmoid_, relu_, square_, sign_ = (_InPlace(n) for n in ("tanh", "sigmoid", "relu", "square", "sign"))
    floor_, ceil_, round_, pow_, masked_fill_ = (_InPlace(n) for n in ("floor", "ceil", "round", "pow", "masked_fill"))
    remainder_, floor_divide_ = _InPlace("remainder"), _InPlace("floor_divide")
    __ipow__, __imod__, __ifloordiv__ = pow_, remainder_, floor_divide_  # x **= 2 is x.pow_(2)
    __iand__, __ior__ = _InPlace("__and__"), _InPlace("__or__")
    scatter_, scatter_add_ = _InPlace("scatter"), _InPlace("scatter_add")

    def add_(self, other: Any, alpha: Any = 1) -> Tensor:
        if alpha != 1:
            return inplace.update(self, lambda t, o: arguments.add(t, o, alpha), other)
        return inplace.update(self, arguments.add, other, np.add)

    def sub_(self, other: Any, alpha: Any = 1) -> Tensor:
        if alpha != 1:
            return inplace.update(self, lambda t, o: arguments.sub(t, o, alpha), other)
        return inplace.update(self, arguments.sub, other, np.subtract)

    def mul_(self, other: Any) -> Tensor:
        return inplace.update(self, arguments.mul, other, np.multiply)

    def div_(self, other: Any) -> Tensor:
        return inplace.update(self, arguments.div, other, np.true_divide)

    def zero_(self) -> Tensor:
        return inplace.update(self, arguments.zero, None)

    def fill_(self, value: Any) -> Tensor:
        return inplace.update(self, arguments.fill, value)

    def copy_(self, src: Tensor) -> Tensor:
        return inplace.update(self, arguments.fill, src)

    def clamp_(self, min: Any = None, max: Any = None) -> Tensor:  # noqa: A002
        return inplace.update(self, lambda t, _: arguments.clamp(t, min, max), None)

    __iadd__, __isub__, __imul__, __itruediv__ = add_, sub_, mul_, div_  # x += y is x.add_(y)

    # ------------------------------------------------ autograd

    @property
    def retains_grad(self) -> builtins.bool:
        return self.grad_fn is not None and self._hook_place()._retains is not None

    def requires_grad_(self, requires_grad: builtins.bool = True) -> Tensor:
        """Start (or stop) recording operations on this leaf."""
        arguments.check_requires_grad(self, requires_grad)
        if self.grad_fn is None:
            self.requires_grad = requires_grad
        return self

    def retain_grad(self) -> None:
        """Keep .grad on this non-leaf tensor too (leaves always keep it)."""
        if not self.requires_grad:
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        place = self._hook_place() if self.grad_fn is not None else None
        if place is not None and place._retains is None:
            place._retains, place._hooked = weakref.ref(self), True

    def register_hook(self, hook: Callable[[Tensor], Tensor | None]) -> Any:
        """Call ``hook(grad)`` when this tensor's gradient is computed; a returned tensor replaces it.

        Returns a handle whose ``remove()`` unregisters the hook.
        """
        if not self.requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if self.grad_fn is None:  # a leaf keeps its own hooks; its AccumulateGrad runs them
            return graph.RemovableHandle(arguments.leaf_hooks(self), hook)
        place = self._hook_place()
        place._tensor_pre_hooks, place._hooked = place._tensor_pre_hooks or {}, True
        return graph.RemovableHandle(place._tensor_pre_hooks, hook)

    def is_inference(self) -> builtins.bool:
        """Whether this tensor was made inside ``inference_mode`` (or is a view of one that was)."""
        return type(self._version_counter) is InferenceVersion

    def _hook_place(self) -> Any:
        """Where this non-leaf tensor's hooks and retain_grad live: its grad_fn, or for output k of a
        node with several outputs (a custom Function's), that output's place in the node."""
        return self.grad_fn.output(self._output_nr or 0) if self.grad_fn._several_outputs else self.grad_fn

    @property
    def output_nr(self) -> builtins.int:
        """Which output of its grad_fn this tensor is (0 but for a custom Function's other outputs)."""
        return self._output_nr or 0

    def register_post_accumulate_grad_hook(self, hook: Callable[[Tensor], None]) -> Any:
        """Call ``hook(self)`` each time backward has added into this leaf's ``.grad``."""
        if not self.requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if self.grad_fn is not None:
            raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf tensors")
        return graph.RemovableHandle(arguments.leaf_hooks(self).post, hook)

    def detach(self) -> Tensor:
        """A tensor with the same values (shared memory and version counter) that is not part of
        any graph: ``x.detach().mul_(2)`` changes x, and backward sees it."""
        t = Tensor._make(self._array)
        if self._version_counter is None:
            self._version_counter = [0]
        t._version_counter = self._version_counter
        return t

    def detach_(self) -> Tensor:
        self.grad_fn = self._output_nr = None
        self.requires_grad = False
        return self

    @property
    def data(self) -> Tensor:
        """The same values, detached from the graph (shares memory)."""
        return Tensor._make(self._array)

    @data.setter
    def data(self, value: Tensor) -> None:
        if not isinstance(value, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(value).__name__}")
        self._array = value._array

    # ------------------------------------------------ attributes and conversion

    def __getattr__(self, name: str) -> Any:  # reached only for names a Tensor does not have
        if name in _missing.TENSOR:
            raise _missing.missing("Tensor.", name)
        raise AttributeError(f"'Tensor' object has no attribute '{name}'")

    def __new__(cls, *args: Any) -> Tensor:  # torch.Tensor([1, 2]) is float32; Tensor(2, 3) a new 2×3
        return arguments.new_tensor(*args)

    @property
    def shape(self) -> Size:
        return Size(self._array.shape)

    def size(self, dim: builtins.int | None = None) -> Any:
        """The shape, or its length along ``dim``."""
        return self.shape if dim is None else self._array.shape[arguments.check_dim(dim, self.ndim)]

    @property
    def dtype(self) -> dtype:
        return DTYPES[self._array.dtype]

    @property
    def ndim(self) -> builtins.int:
        return self._array.ndim

    def dim(self) -> builtins.int:
        return self._array.ndim

    def numel(self) -> builtins.int:
        return self._array.size

    nelement = numel  # torch's older name

    def data_ptr(self) -> builtins.int:  # the first element's address: w.t() shares w's
        return self._array.__array_interface__["data"][0]

    def element_size(self) -> builtins.int:
        return self._array.itemsize

    @property
    def nbytes(self) -> builtins.int:
        return self._array.nbytes

    def is_floating_point(self) -> builtins.bool:
        return self._array.dtype.kind == "f"

    @property
    def device(self) -> _device.device:
        """Where the tensor lives: always ``device(type='cpu')`` (gradbook has the CPU only)."""
        return _device.CPU

    is_cuda, is_cpu = False, True

    def get_device(self) -> builtins.int:
        return -1  # torch's answer for a CPU tensor

    def cpu(self) -> Tensor:
        return self

    def cuda(self, device: Any = None, non_blocking: builtins.bool = False, memory_format: Any = None) -> Tensor:
        raise AssertionError(_device.CUDA_ERROR)

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

    def to(self, *args: Any, **kwargs: Any) -> Tensor:
        """``to(dtype)``, ``to(device)``, ``to(device, dtype)`` or ``to(other)``: another dtype is a
        copy recorded as ToCopyBackward0; the device can only be the CPU; unchanged returns self."""
        return arguments.to(self, *args, **kwargs)

    def type(self, dtype: Any = None, non_blocking: builtins.bool = False) -> Any:
        """Without an argument, torch's legacy type name (``'gradbook.FloatTensor'``); with one, ``to`` it."""
        return arguments.legacy_type(self, dtype)

    def new_tensor(
        self, data: Any, dtype: Any = None, device: Any = None, requires_grad: builtins.bool = False
    ) -> Tensor:
        return arguments.new_like(self, "tensor", data, dtype=dtype, device=device, requires_grad=requires_grad)

    def new_ones(
        self, *size: Any, dtype: Any = None, device: Any = None, requires_grad: builtins.bool = False
    ) -> Tensor:
        return arguments.new_like(self, "ones", *size, dtype=dtype, device=device, requires_grad=requires_grad)

    def new_zeros(
        self, *size: Any, dtype: Any = None, device: Any = None, requires_grad: builtins.bool = False
    ) -> Tensor:
        return arguments.new_like(self, "zeros", *size, dtype=dtype, device=device, requires_grad=requires_grad)

    new_empty = new_zeros

    def new_full(
        self, size: Any, fill_value: Any, dtype: Any = None, device: Any = None, requires_grad: builtins.bool = False
    ) -> Tensor:
        return arguments.new_like(
            self, "full", size, fill_value, dtype=dtype, device=device, requires_grad=requires_grad
        )

    def float(self) -> Tensor:
        return self.to(float32)

    def double(self) -> Tensor:
        return self.to(float64)

    def long(self) -> Tensor:
        return self.to(int64)

    def bool(self) -> Tensor:
        return self.to(builtins.bool)

    def clone(self) -> Tensor:
        return ops.CloneBackward0.apply(self)

    def __bool__(self) -> builtins.bool:
        if self._array.size != 1:
            many = "no values" if self._array.size == 0 else "more than one value"
            raise RuntimeError(f"Boolean value of Tensor with {many} is ambiguous")
        return builtins.bool(self._array)

    def __float__(self) -> builtins.float:
        if self.requires_grad:  # torch 2.13 warns, once per process (float() only; item() does not)
            warn_once(SCALAR_WITH_GRAD_WARNING)
        return builtins.float(self._scalar())

    def __int__(self) -> builtins.int:
        return builtins.int(self._scalar())

    def _scalar(self) -> Any:
        if self._array.size != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        return self.item()

    def __index__(self) -> builtins.int:
        if self._array.dtype.kind not in "iub" or self._array.size != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return builtins.int(self.item())

    def __len__(self) -> builtins.int:
        if self.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._array.shape[0]

    # torch's other names for methods above
    multiply, divide, true_divide, subtract, negative, absolute = mul, div, div, sub, neg, abs
    multiply_, divide_, true_divide_, subtract_, negative_, absolute_ = mul_, div_, div_, sub_, neg_, abs_
    clip, fix, arctan, arcsin, arccos, arctan2 = clamp, trunc, atan, asin, acos, atan2
    moveaxis, swapdims = movedim, swapaxes

    def __iter__(self) -> Iterator[Tensor]:
        if self.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return (self[i] for i in range(self._array.shape[0]))

    def __deepcopy__(self, memo: dict) -> Tensor:  # values, requires_grad and .grad; a non-leaf refuses
        return arguments.deepcopy(self, memo)

    def __repr__(self) -> str:
        extra = []
        if self.grad_fn is not None:
            extra.append(f"grad_fn=<{type(self.grad_fn).__name__}>")
        elif self.requires_grad:
            extra.append("requires_grad=True")
        return format_tensor(self._array, self._array.dtype, extra)

    def __str__(self) -> str:
        return repr(self)  # so that subclasses' repr (Parameter) prints too

    def __format__(self, spec: str) -> str:
        return format(self.item(), spec) if self.ndim == 0 else repr(self)


accept_numpy_names(Tensor)  # x.cumsum(axis=0): torch's argument parser takes NumPy's names

# The op table, torch's argument rules and the engine build on Tensor, and its methods call them:
# the one import cycle, closed here.
from .autograd.grad_mode import InferenceVersion, _State  # noqa: E402, I001
from . import _arguments as arguments, ops  # noqa: E402
from .autograd import engine, graph, inplace  # noqa: E402
