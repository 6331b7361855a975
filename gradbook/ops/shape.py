"""Shape ops: views (view, squeeze, transpose, permute, expand), copies, joins and splits."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..autograd.grad_mode import _State
from ..autograd.graph import Node, SeveralOutputs, creation_order
from ..tensor import Tensor
from .indexing import added_at
from .op import Op
from .rules import is_tensor, permute, shape_of, sum_keepdim, swapaxes, unary


class ViewBackward0(Op):
    """out = self with a new shape (same elements, same order)"""

    unexposed = ("shape", "dim")  # torch keeps the input's sizes

    view = True

    forward = staticmethod(lambda a, shape, dim=None: a.reshape(shape))  # squeeze keeps its dim too
    rules = {"∂/∂self: g reshaped back": lambda n, g: g.reshape(shape_of(n))}


class UnsafeViewBackward0(ViewBackward0):
    """out = a copy of self in a new shape (``reshape`` where no view can do it: after a clone)"""

    view = False


class SqueezeBackward0(ViewBackward0):
    """out = self without its size-1 dimensions"""


class SqueezeBackward1(ViewBackward0):
    """out = self without size-1 dimension ``dim``"""

    unexposed = ("shape",)


class SqueezeBackward2(ViewBackward0):
    """out = self without size-1 dimensions ``dim`` (a tuple)"""

    unexposed = ("shape",)


class SqueezeBackward4(ViewBackward0):
    """out = self without size-1 dimension ``dim``, in place (``squeeze_``, as matmul of a 1-D
    tensor leaves it)"""

    unexposed = ("shape",)


class UnsqueezeBackward0(Op):
    """out = self with a new size-1 dimension at ``dim``"""

    view = True

    forward = staticmethod(lambda a, dim: np.expand_dims(a, dim))
    rules = {"∂/∂self: g squeezed at dim": lambda n, g: g.squeeze(n.dim)}


class TBackward0(Op):
    """out = selfᵀ (``t()``, up to 2-D)"""

    view = True

    forward = staticmethod(lambda a: a.T)
    rules = {"∂/∂self: gᵀ": lambda n, g: g.T}


class TransposeBackward0(Op):
    """out = self with dimensions ``dim0`` and ``dim1`` swapped"""

    view = True

    forward = staticmethod(lambda a, dim0, dim1: np.swapaxes(a, dim0, dim1))
    rules = {"∂/∂self: g with dim0 and dim1 swapped back": lambda n, g: swapaxes(g, n.dim0, n.dim1)}


class PermuteBackward0(Op):
    """out = self with dimensions reordered by ``dims`` (also ``.T``)"""

    view = True

    forward = staticmethod(lambda a, dims: np.transpose(a, dims))
    rules = {
        "∂/∂self: g in the inverse order": lambda n, g: permute(g, tuple(int(d) for d in np.argsort(n.dims))),
    }


class ExpandBackward0(Op):
    """out = self repeated along size-1 (or new leading) dimensions"""

    unexposed = ("size",)  # torch keeps the input's sizes

    view = True

    forward = staticmethod(lambda a, size: np.broadcast_to(a, size))
    rules = {"∂/∂self: g summed over the expanded dimensions": lambda n, g: g}  # by unbroadcast


class CloneBackward0(Op):
    """out = a copy of self (in self's memory layout, as torch's clone keeps strides)"""

    forward = staticmethod(lambda a: np.copy(a, order="K"))
    rules = {"∂out/∂self = 1": lambda n, g: g}


class ReshapeAliasBackward0(ViewBackward0):
    """out = self with a new shape, a view of a non-contiguous tensor (``reshape`` where a view will do)"""


class AliasBackward0(Op):
    """out = self (a view: ``x[:]``, ``x[...]``)"""

    view = True

    forward = staticmethod(lambda a: a.view())
    rules = {"∂out/∂self = 1": lambda n, g: g}


class Identity(AliasBackward0):
    """out = self without its tangent: the primal ``forward_ad.unpack_dual`` gives (a view)"""

    def name(self) -> str:
        return "torch::autograd::Identity"


class ToCopyBackward0(Op):
    """out = self converted to ``dtype``"""

    unexposed = ("dtype",)

    forward = staticmethod(lambda a, dtype: a.astype(dtype))
    rules = {"∂out/∂self = 1, converted back to self's dtype": lambda n, g: g}  # converted by run_rules

    @classmethod
    def apply(cls, t: Tensor, dtype: np.dtype) -> Tensor:  # type: ignore[override]
        if dtype.kind != "f":  # an integer or bool result is never differentiable (x.long())
            return Tensor._make(t._array.astype(dtype))
        return super().apply(t, dtype=dtype)


class CatBackward0(Op):
    """out = the tensors joined along ``dim``"""

    unexposed = ("sizes",)

    inputs = ("tensors",)  # any number of them; the rule is the same for each
    forward = staticmethod(lambda *arrays, dim, sizes: np.concatenate(arrays, axis=dim))
    rules = {
        "∂/∂tensors[i]: g's slice i along dim": lambda n, g, start, end: g[
            (slice(None),) * n.dim + (slice(start, end),)
        ]
    }

    @property
    def _vjps(self) -> list:  # type: ignore[override]
        rule, ends = self.rules["∂/∂tensors[i]: g's slice i along dim"], np.cumsum(self.sizes)
        return [lambda n, g, s=int(end - size), e=int(end): rule(n, g, s, e) for size, end in zip(self.sizes, ends)]


class StackBackward0(Op):
    """out = the tensors stacked along a new dimension ``dim``"""

    inputs = ("tensors",)  # any number of them; the rule is the same for each
    forward = staticmethod(lambda *arrays, dim: np.stack(arrays, axis=dim))
    rules = {"∂/∂tensors[i]: g selected at i along dim": lambda n, g, i: g[(slice(None),) * n.dim + (i,)]}

    @property
    def _vjps(self) -> list:  # type: ignore[override]
        rule = self.rules["∂/∂tensors[i]: g selected at i along dim"]
        return [lambda n, g, i=i: rule(n, g, i) for i in range(len(self.next_functions))]


class DiagonalBackward0(Op):
    """outᵢ = self[i, i + offset] over dimensions ``dim1`` and ``dim2`` (the diagonal goes last)"""

    view = True  # as in torch: a change through it reaches self
    forward = staticmethod(lambda a, offset, dim1, dim2: _writable(np.diagonal(a, offset, dim1, dim2), a))
    rules = {
        "∂out/∂self: g back on the diagonal, zeros elsewhere": lambda n, g: added_at(
            g, shape_of(n), _diagonal_index(shape_of(n), n.offset, n.dim1, n.dim2)
        )
    }


class TrilBackward0(Op):
    """out = self with the elements above diagonal ``diagonal`` set to 0"""

    forward = staticmethod(lambda a, diagonal: np.tril(a, diagonal))
    rules = {"∂out/∂self = 1 on and below the diagonal, else 0": lambda n, g: unary(g, "tril", np.tril, n.diagonal)}


class TriuBackward0(Op):
    """out = self with the elements below diagonal ``diagonal`` set to 0"""

    forward = staticmethod(lambda a, diagonal: np.triu(a, diagonal))
    rules = {"∂out/∂self = 1 on and above the diagonal, else 0": lambda n, g: unary(g, "triu", np.triu, n.diagonal)}


class FlipBackward0(Op):
    """out = self with the order along ``dims`` reversed"""

    forward = staticmethod(lambda a, dims: np.flip(a, dims).copy())
    rules = {"∂out/∂self: the gradient flipped back": lambda n, g: unary(g, "flip", np.flip, n.dims)}


class RollBackward0(Op):
    """out = self shifted by ``shifts`` along ``dims``, wrapping around (flattened if no dims)"""

    forward = staticmethod(lambda a, shifts, dims: np.roll(a, shifts, dims or None))
    rules = {"∂out/∂self: the gradient rolled back": lambda n, g: _roll(g, tuple(-s for s in n.shifts), n.dims)}


class RepeatBackward0(Op):
    """out = self tiled ``repeats`` times along each dimension"""

    forward = staticmethod(lambda a, repeats: np.tile(a, repeats))
    rules = {"∂out/∂self = the sum of the gradient over the copies": lambda n, g: _untile(g, n)}


class SplitBackward0(SeveralOutputs, Node):
    """outs = self cut along ``dim`` into pieces of ``sizes`` (views of self); one node, whose
    output k is piece k (edges ``(node, k)``)

    Not an ``Op``: an op has one output. Backward gets one gradient per piece (zeros for a piece
    that got none) and puts them back together, ``∂/∂self = cat(g₀, g₁, ...)`` along ``dim``.
    """

    _several_outputs = True
    rules = {"∂out/∂self: the pieces' gradients put back together": None}

    @classmethod
    def apply(cls, t: Tensor, dim: int, sizes: tuple[int, ...]) -> tuple[Tensor, ...]:
        arrays = cls.cut(t._array, dim, sizes)
        node = None
        if _State.enabled and t.requires_grad:
            node = cls.__new__(cls)
            node._seq, node.dim, node.sizes = next(creation_order), dim, sizes
            node.next_functions = ((t.grad_fn or t._grad_accumulator(), t._output_nr or 0),)
            node._input_metadata = [(t._array.shape, t._array.dtype)]
            node._outputs = (
                len(arrays),
                tuple(range(len(arrays))),
                {k: (a.shape, a.dtype) for k, a in enumerate(arrays)},
            )
        if t._version_counter is None:
            t._version_counter = [0]
        pieces = []
        for k, a in enumerate(arrays):  # views sharing t's memory and version counter, as torch's
            piece = Tensor._make(a, node)
            piece._output_nr, piece._base = k or None, t._base if t._base is not None else t
            piece._version_counter = t._version_counter
            pieces.append(piece)
        return tuple(pieces)

    @staticmethod
    def cut(a: np.ndarray, dim: int, sizes: tuple[int, ...]) -> list[np.ndarray]:
        return np.split(a, np.cumsum(sizes)[:-1], axis=dim)

    def join(self, grads: list, on_arrays: bool) -> Any:
        if on_arrays:
            return np.concatenate(grads, axis=self.dim)
        return CatBackward0.apply(*grads, dim=self.dim, sizes=[g.shape[self.dim] for g in grads])

    def run_rules(self, grad: Any, needed: set | None, on_arrays: bool) -> tuple[list, list[bool]]:
        fn = self.next_functions[0][0]
        if needed is not None and fn not in needed:
            return [None], [False]
        metas = self._outputs[2]
        zero = np.zeros if on_arrays else lambda *meta: Tensor._make(np.zeros(*meta))  # a piece that got none
        return [self.join([zero(*metas[k]) if g is None else g for k, g in enumerate(grad)], on_arrays)], [on_arrays]


class SplitWithSizesBackward0(SplitBackward0):
    """outs = self cut along ``dim`` into pieces of the given ``sizes`` (views of self)"""


class UnbindBackward0(SplitBackward0):
    """outs = the slices of self along ``dim``, that dimension removed (views of self)"""

    rules = {"∂out/∂self: the slices' gradients stacked again": None}

    @staticmethod
    def cut(a: np.ndarray, dim: int, sizes: tuple[int, ...]) -> list[np.ndarray]:
        return [a[(slice(None),) * dim + (i,)] for i in range(a.shape[dim])]

    def join(self, grads: list, on_arrays: bool) -> Any:
        return np.stack(grads, axis=self.dim) if on_arrays else StackBackward0.apply(*grads, dim=self.dim)


def _diagonal_index(shape: tuple, offset: int, dim1: int, dim2: int) -> tuple:
    """Where each element of ``np.diagonal(a, offset, dim1, dim2)`` sits in ``a`` (of ``shape``)."""
    others = [d for d in range(len(shape)) if d not in (dim1, dim2)]
    length = max(0, min(shape[dim1] - max(-offset, 0), shape[dim2] - max(offset, 0)))
    grid = np.indices([shape[d] for d in others] + [length])
    index = [None] * len(shape)
    for k, d in enumerate(others):
        index[d] = grid[k]
    index[dim1], index[dim2] = grid[-1] + max(-offset, 0), grid[-1] + max(offset, 0)
    return tuple(index)


def _roll(g: Any, shifts: tuple, dims: tuple) -> Any:
    return g.roll(shifts, dims) if is_tensor(g) else np.roll(g, shifts, dims or None)


def _untile(g: Any, n: Op) -> Any:
    """The sum over the copies np.tile made: g as (copies, size) pairs, summed over the copies."""
    shape = shape_of(n)
    reps = tuple(n.repeats)
    shape = (1,) * (len(reps) - len(shape)) + tuple(shape)
    reps = (1,) * (len(shape) - len(reps)) + reps
    paired = g.reshape(tuple(v for r, s in zip(reps, shape) for v in (r, s)))
    summed = sum_keepdim(paired, tuple(range(0, 2 * len(shape), 2)))
    return summed.reshape(shape_of(n))


class BackwardHookFunctionBackward(Op):
    """out = self: the node a module with a full backward hook puts on its inputs and outputs,
    where the hook reads their gradients"""

    forward = staticmethod(lambda a: a.copy())
    rules = {"∂out/∂self = 1": lambda n, g: g}


def _writable(view: np.ndarray, base: np.ndarray) -> np.ndarray:
    """NumPy's diagonal is a read-only view; torch's is writable, where its base is."""
    if base.flags.writeable:
        view.flags.writeable = True
    return view
