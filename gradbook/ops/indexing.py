"""Indexing, filling and sorting: select and slice, gather and scatter, index_put, the in-place
fills, embedding lookup, sort and topk. (CopySlices, a write through a view, is in autograd/inplace.py.)"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..tensor import Tensor
from .op import Op
from .rules import as_array, constant, dtype_of, is_tensor, select, shape_of, zeros_like


class ZeroBackward0(Op):
    """out = self filled with zeros (``zero_``)"""

    forward = staticmethod(lambda a: np.zeros_like(a))
    rules = {"∂out/∂self = 0": lambda n, g: constant(np.zeros_like(as_array(g)), g)}


class FillBackward2(Op):
    """out = self filled with the number ``value`` (``fill_``)"""

    unexposed = ("value",)

    forward = staticmethod(lambda a, value: np.full_like(a, value))
    rules = {"∂out/∂self = 0": lambda n, g: constant(np.zeros_like(as_array(g)), g)}


class CopyBackwards(Op):
    """out = src broadcast into self's shape and dtype (``copy_``)"""

    inputs = ("self", "src")
    forward = staticmethod(lambda a, src: np.broadcast_to(src, a.shape).astype(a.dtype))
    rules = {
        "∂out/∂self = 0": lambda n, g: constant(np.zeros_like(as_array(g)), g),
        "∂out/∂src = 1": lambda n, g: g,
    }

    def name(self) -> str:
        return "torch::autograd::CopyBackwards"  # a hand-written node in torch, named like AccumulateGrad


class SelectBackward0(Op):
    """out = self[index] along ``dim``"""

    view = True

    forward = staticmethod(lambda a, dim, index: a[(slice(None),) * dim + (index, Ellipsis)])  # a view, 0-d too
    rules = {
        "∂/∂self: g at index, zeros elsewhere": (
            lambda n, g: added_at(g, shape_of(n), (slice(None),) * n.dim + (n.index,))
        ),
    }


class SliceBackward0(Op):
    """out = self[start:end:step] along ``dim``"""

    view = True

    forward = staticmethod(lambda a, dim, start, end, step: a[(slice(None),) * dim + (slice(start, end, step),)])
    rules = {
        "∂/∂self: g at start:end:step, zeros elsewhere": (
            lambda n, g: added_at(g, shape_of(n), (slice(None),) * n.dim + (slice(n.start, n.end, n.step),))
        ),
    }


class IndexBackward0(Op):
    """out = self[indices] (integer arrays or a boolean mask)"""

    saves = ("indices",)
    forward = staticmethod(lambda a, indices: a[indices])
    rules = {"∂/∂self: g added back at each index": lambda n, g: added_at(g, shape_of(n), n.indices)}


class UniformBackward0(Op):
    """out = new random values, uniform in [from, to) (``uniform_``): they do not depend on self"""

    forward = staticmethod(lambda a, values: values.astype(a.dtype))
    rules = {"∂out/∂self = 0 (new random values)": lambda n, g: zeros_like(g)}


class NormalBackward0(UniformBackward0):
    """out = new random values, normal with ``mean`` and ``std`` (``normal_``)"""


class NormalBackward1(Op):
    """out = draws with a tensor mean, ``normal(mean, 2.0)``: torch gives the mean a zero gradient"""

    inputs = ("mean",)
    unexposed = ("values",)  # torch keeps the mean's sizes only
    forward = staticmethod(lambda mean, values: values)
    rules = {"∂out/∂mean = 0 (torch's rule for the draws)": lambda n, g: zeros_like(g)}


class NormalBackward2(NormalBackward1):
    """out = draws with a tensor std, ``normal(0.0, std)``: torch gives the std a zero gradient"""

    inputs = ("std",)
    rules = {"∂out/∂std = 0 (torch's rule for the draws)": lambda n, g: zeros_like(g)}


class NormalBackward3(NormalBackward1):
    """out = draws with tensor mean and std, ``normal(mean, std)``: both get a zero gradient"""

    inputs = ("mean", "std")
    forward = staticmethod(lambda mean, std, values: values)
    rules = {
        "∂out/∂mean = 0 (torch's rule for the draws)": lambda n, g: zeros_like(g),
        "∂out/∂std = 0 (torch's rule for the draws)": lambda n, g: zeros_like(g),
    }


class MaskedFillBackward0(Op):
    """out = value where mask, else self (``masked_fill`` with a number)"""

    forward = staticmethod(lambda a, mask, value: np.where(mask, np.asarray(value).astype(a.dtype), a))
    rules = {"∂out/∂self = 1 where not mask, else 0": lambda n, g: select(g, ~n.mask)}


class MaskedFillBackward1(Op):
    """out = value where mask, else self (``masked_fill`` with a 0-d tensor)"""

    inputs = ("self", "value")
    forward = staticmethod(lambda a, value, mask: np.where(mask, value.astype(a.dtype), a))
    rules = {
        "∂out/∂self = 1 where not mask, else 0": lambda n, g: select(g, ~n.mask),
        "∂out/∂value = 1 where mask: g summed there": lambda n, g: select(g, n.mask).sum(),
    }


class GatherBackward0(Op):
    """out = self picked along ``dim`` at ``index`` (for dim 0: out[i][j] = self[index[i][j]][j])"""

    forward = staticmethod(lambda a, dim, index: a[_along(index, dim)])
    rules = {"∂/∂self: g added back where it was picked": lambda n, g: added_at(g, shape_of(n), _along(n.index, n.dim))}


class ScatterBackward0(Op):
    """out = self with src written at ``index`` along ``dim`` (dim 0: out[index[i][j]][j] = src[i][j])"""

    inputs = ("self", "src")
    forward = staticmethod(lambda a, src, dim, index: _put_along(a, dim, index, src[_region(index)]))
    rules = {
        "∂out/∂self = 1, 0 where src was written": lambda n, g: g * constant(_unwritten(n), g),
        "∂/∂src: g gathered at index": lambda n, g: _src_grad(n, g),
    }


class ScatterBackward1(Op):
    """out = self with the number ``value`` written at ``index`` along ``dim``"""

    forward = staticmethod(lambda a, dim, index, value: _put_along(a, dim, index, value))
    rules = {"∂out/∂self = 1, 0 where value was written": lambda n, g: g * constant(_unwritten(n), g)}


class ScatterAddBackward0(Op):
    """out = self with src added at ``index`` along ``dim`` (repeated indices add up)"""

    inputs = ("self", "src")
    forward = staticmethod(lambda a, src, dim, index: _add_along(a, dim, index, src[_region(index)]))
    rules = {
        "∂out/∂self = 1": lambda n, g: g,
        "∂/∂src: g gathered at index": lambda n, g: _src_grad(n, g),
    }


class IndexSelectBackward0(Op):
    """out = the slices of self at ``index`` along ``dim``"""

    forward = staticmethod(lambda a, dim, index: np.take(a, index, axis=dim))
    rules = {
        "∂/∂self: g added back at each index": (
            lambda n, g: added_at(g, shape_of(n), (slice(None),) * n.dim + (n.index,))
        ),
    }


class IndexPutBackward0(Op):
    """out = self with values put at ``indices`` (``y[mask] = v``), or added there (``accumulate``:
    zeros with g added at each index is the backward of indexing, as x[[0, 0]] uses x[0] twice)"""

    inputs = ("self", "values")

    @staticmethod
    def forward(base: np.ndarray, values: np.ndarray, indices: Any, accumulate: bool) -> np.ndarray:
        out = base.copy()
        if accumulate:
            np.add.at(out, indices, values)
        else:
            out[indices] = values
        return out

    rules = {
        "∂out/∂self = 1, 0 where values were put": lambda n, g: g if n.accumulate else g * constant(_unput(n), g),
        "∂out/∂values = g[indices]": lambda n, g: g[n.indices],  # indexing means the same on arrays and Tensors
    }


def _unput(n: Op) -> np.ndarray:
    mask = np.ones(shape_of(n), dtype_of(n))
    mask[n.indices] = 0
    return mask


class SortBackward0(Op):
    """values = self sorted along ``dim`` (``indices`` say where each came from)"""

    forward = staticmethod(lambda a, dim, indices: a.copy() if indices is None else np.take_along_axis(a, indices, dim))
    rules = {"∂out/∂self: each gᵢ back to where its value was": lambda n, g: _unsort(g, n)}


class TopkBackward0(Op):
    """values = the k largest (or smallest) along ``dim`` (``indices`` say where)"""

    forward = staticmethod(lambda a, dim, indices: np.take_along_axis(a, indices, dim))
    rules = {"∂out/∂self: each gᵢ back to where its value was, else 0": lambda n, g: _unsort(g, n)}


def _along(index: np.ndarray, dim: int) -> tuple:
    """gather's positions as a NumPy index: ``index`` along dim, each element's own place elsewhere."""
    return tuple(
        index if d == dim else np.arange(n).reshape([-1 if k == d else 1 for k in range(index.ndim)])
        for d, n in enumerate(index.shape)
    )


def _region(index: np.ndarray) -> tuple:
    """The part of src that scatter reads: index's shape, from the start."""
    return tuple(slice(0, n) for n in index.shape)


def _put_along(a: np.ndarray, dim: int, index: np.ndarray, values: Any) -> np.ndarray:
    out = a.copy()
    out[_along(index, dim)] = values
    return out


def _add_along(a: np.ndarray, dim: int, index: np.ndarray, values: Any) -> np.ndarray:
    out = a.copy()
    np.add.at(out, _along(index, dim), values)
    return out


def _src_grad(n: Op, g: Any) -> Any:
    """scatter's ∂/∂src: g gathered at index. It has index's shape, so torch refuses it where src
    is larger than index; gradbook refuses it with torch's message."""
    src_shape = shape_of(n, 1)
    if tuple(n.index.shape) != tuple(src_shape):
        raise RuntimeError(
            f"Function {type(n).__name__} returned an invalid gradient at index 1 - got {list(n.index.shape)} "
            f"but expected shape compatible with {list(src_shape)}"
        )
    return g[_along(n.index, n.dim)]


def _unwritten(n: Op) -> np.ndarray:
    """1 where scatter kept self's value, 0 where it wrote."""
    mask = np.ones(shape_of(n), dtype_of(n))
    mask[_along(n.index, n.dim)] = 0
    return mask


def added_at(g: Any, shape: tuple, index: Any) -> Any:
    """Zeros of ``shape`` with g added at ``index``: the adjoint of indexing."""
    if is_tensor(g):
        zeros = Tensor._make(np.zeros(shape, dtype=g._array.dtype))
        return IndexPutBackward0.apply(zeros, g, indices=index, accumulate=True)
    out = np.zeros(shape, dtype=g.dtype)
    np.add.at(out, index, g)
    return out


def _unsort(g: Any, n: Op) -> Any:
    """Each gradient back to the place ``n.indices`` says its value came from (0 elsewhere)."""
    shape, dtype = shape_of(n), dtype_of(n)
    if n.indices is None:  # a 0-d tensor sorted
        return g
    if is_tensor(g):
        return Tensor._make(np.zeros(shape, dtype)).scatter(n.dim, Tensor._make(n.indices), g)
    out = np.zeros(shape, dtype)
    np.put_along_axis(out, n.indices, g, n.dim)
    return out


class EmbeddingBackward0(Op):
    """out = weight[indices]: one row of weight per index"""

    inputs = ("weight",)
    scale_grad_by_freq = False
    forward = staticmethod(lambda w, indices, padding_idx, scale_grad_by_freq=False: w[indices._array])
    rules = {
        "∂/∂weight: g added into each index's row (not padding_idx's)": lambda n, g: added_at(
            g if n.padding_idx is None and not n.scale_grad_by_freq else g * constant(_row_factor(n), g),
            shape_of(n),
            n.indices._array,
        ),
    }


def _row_factor(n: Op) -> np.ndarray:
    """Each index's factor on its gradient: 0 for padding_idx; with scale_grad_by_freq, 1/(how often the
    index appears in the batch)."""
    idx = n.indices._array
    factor = np.ones(idx.shape, dtype_of(n)) if n.padding_idx is None else (idx != n.padding_idx).astype(dtype_of(n))
    if n.scale_grad_by_freq:
        factor = factor / np.bincount(idx.ravel(), minlength=shape_of(n)[0])[idx]
    return factor[..., None].astype(dtype_of(n))
