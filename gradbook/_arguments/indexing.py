"""Indexing as torch does it: ``t[index]`` as a chain of views and index ops, ``t[index] = value``,
gather and scatter, masked_fill, sort and topk."""

from __future__ import annotations

import builtins
from typing import Any

import numpy as np

from .. import ops
from .._dtypes import (
    c_name,
    scalar_name,
)
from .._messages import (
    LEAF_INPLACE_ERROR,
    VIEW_OF_LEAF_INPLACE_ERROR,
    type_of,
)
from ..autograd import inplace
from ..autograd.grad_mode import _State
from ..autograd.inplace import check_inplace, old_value, refresh_views, take_node, watch, write_through
from ..tensor import Tensor
from .operands import ReturnType, broadcast_check, check_dim, lift, tensor_argument
from .shape import expanded_shape, too_few_sizes


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
        broadcast_check(m.shape, t._array.shape)
        if t._array.dtype.kind == "f":  # a float value tensor is an input of the node (torch's masked_fill.Tensor)
            return watch(ops.MaskedFillBackward1.apply(t, value, mask=np.broadcast_to(m, t._array.shape)), mask)
        value = value.item()
    broadcast_check(m.shape, t._array.shape)
    return watch(ops.MaskedFillBackward0.apply(t, mask=np.broadcast_to(m, t._array.shape), value=value), mask)


def gather(t: Tensor, dim: int, index: Tensor) -> Tensor:
    """t picked along dim at index, with torch's checks."""
    d, idx = _index_along(t, dim, index, "gather")
    for k in range(t.ndim):
        if k != d and idx.shape[k] > t._array.shape[k]:
            raise RuntimeError(
                f"Size does not match at dimension {k} expected index {list(idx.shape)} to be no larger than "
                f"self {list(t._array.shape)} apart from dimension {d}"
            )
    return watch(ops.GatherBackward0.apply(t, dim=d, index=idx), index)


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
        return watch(ops.ScatterBackward1.apply(t, dim=d, index=idx, value=src), index)
    if src.ndim != t.ndim or any(n > m for n, m in zip(idx.shape, src._array.shape)):
        raise RuntimeError(
            f"Expected index {list(idx.shape)} to be no larger than src {list(src._array.shape)} in every dimension"
        )
    return watch((ops.ScatterAddBackward0 if add else ops.ScatterBackward0).apply(t, src, dim=d, index=idx), index)


def index_select(t: Tensor, dim: int, index: Tensor) -> Tensor:
    """The slices of t at index along dim."""
    d, idx = check_dim(dim, t.ndim), tensor_argument(index, "index_select", "index")._array
    if idx.ndim > 1:
        raise IndexError("index_select(): Index is supposed to be a vector")
    if idx.dtype.kind not in "iu":
        raise IndexError(f"index_select(): Expected dtype int32 or int64 for index but got: {scalar_name(idx.dtype)}")
    if np.any((idx < 0) | (idx >= max(t._array.shape[d] if t.ndim else 1, 0))):
        raise IndexError("index out of range in self")
    return watch(ops.IndexSelectBackward0.apply(t, dim=d, index=idx.reshape(-1)), index)


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
    return inplace.update(
        t, lambda x, v: ops.IndexPutBackward0.apply(x, lift(v, x), indices=where, accumulate=True), values
    )


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
    check_inplace(t, value.requires_grad)
    view, rest = _split_index(t, index)
    arrays = any(isinstance(p, np.ndarray) for p in rest)
    if not arrays:  # ints and slices: torch copies value in, expanding it
        shape = value._array.shape
        while len(shape) > view.ndim and shape[0] == 1:  # leading 1s go, as torch's copy_ lets them
            shape = shape[1:]
        if len(shape) > view.ndim:
            raise too_few_sizes(value._array, view._array.shape)
        expanded_shape(shape, view._array.shape)
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
    if not (_State.enabled and (t.requires_grad or (value.requires_grad and t._array.dtype.kind == "f"))):
        view._array[tuple(rest) if arrays else ...] = value._array  # view shares t's memory
        t._version += 1
        return
    if t.grad_fn is None and t.requires_grad:  # x[0] = v writes into a view of the leaf, x[mask] = v into it
        raise RuntimeError(LEAF_INPLACE_ERROR if view is t else VIEW_OF_LEAF_INPLACE_ERROR)
    if not arrays:  # a view, written through (CopySlices)
        write_through(view if view is not t else ops.AliasBackward0.apply(t), value)
    else:  # integer arrays or a mask: index_put (IndexPutBackward0) on the view they index
        before = old_value(view)
        out = ops.IndexPutBackward0.apply(before, value, indices=tuple(rest), accumulate=False)
        if view is t and t._base is None:
            t._array[...] = out._array
            take_node(t, out.grad_fn)
            refresh_views(t)
        else:  # through a view: its base's grad_fn becomes CopySlices
            write_through(view, out)
    t._version += 1


def _numpy_index(index: Any) -> Any:
    if isinstance(index, tuple):
        return tuple(p._array if isinstance(p, Tensor) else p for p in index)
    return index._array if isinstance(index, Tensor) else index


class _Sort(ReturnType):
    name = "sort"


class _Topk(ReturnType):
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
    values, idx = ops.SortBackward0.apply(t, dim=d, indices=indices), Tensor._make(indices)
    return _Sort((watch(values, idx), idx))  # torch saves the indices it returns


def topk(t: Tensor, k: int, dim: int, largest: bool) -> Any:
    """``(values, indices)`` of the k largest (or smallest) along dim, largest first."""
    if t._array.dtype.kind == "b":
        raise RuntimeError("topk does not support bool dtypes on CPU")
    d = check_dim(dim, t.ndim)
    size = t._array.shape[d] if t.ndim else 1
    if not 0 <= k <= size:
        raise RuntimeError("selected index k out of range")
    indices = np.take(_order(t._array, d, largest), range(k), axis=d) if t.ndim else np.zeros(k, np.int64)
    values, idx = ops.TopkBackward0.apply(t, dim=d, indices=indices), Tensor._make(indices)
    return _Topk((watch(values, idx), idx))  # torch saves the indices it returns
