"""Shape arguments: view and reshape, squeeze, transpose, permute, expand, cat and stack, split."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

import numpy as np

from .. import ops
from .._dtypes import (
    promote_types,
    type_name,
)
from .._messages import warn_once
from ..tensor import Tensor
from .operands import check_dim, check_dims, tensor_list


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
        return unsafe_view(contiguous(t), shape)
    if copy_if_needed and not t._array.flags.c_contiguous:  # reshape of a strided tensor, as a view
        return ops.ReshapeAliasBackward0.apply(t, shape=shape)
    return ops.ViewBackward0.apply(t, shape=shape)


def unsafe_view(t: Tensor, shape: tuple) -> Tensor:
    """torch's ``_unsafe_view``: a reshape recorded as UnsafeViewBackward0 (after a copy, in kron)."""
    return ops.UnsafeViewBackward0.apply(t, shape=shape)


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
        raise too_few_sizes(t._array, sizes)
    return ops.ExpandBackward0.apply(t, size=expanded_shape(shape, sizes))


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


def too_few_sizes(a: np.ndarray, sizes: Sequence[int]) -> RuntimeError:
    return RuntimeError(
        f"expand({type_name(a.dtype)}{{{list(a.shape)}}}, size={list(sizes)}): the number of sizes provided "
        f"({len(sizes)}) must be greater or equal to the number of dimensions in the tensor ({a.ndim})"
    )


def expanded_shape(shape: tuple, sizes: Sequence[int]) -> tuple[int, ...]:
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


def cat(tensors: Sequence[Tensor], dim: int = 0) -> Tensor:
    """Join tensors along an existing dimension."""
    tensors = tensor_list(tensors, "cat")
    if not tensors:
        raise ValueError("torch.cat(): expected a non-empty list of Tensors")
    for i, x in enumerate(tensors):
        if x.ndim == 0:
            raise RuntimeError(f"zero-dimensional tensor (at position {i}) cannot be concatenated")
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
    tensors = tensor_list(tensors, "stack")
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    for i, x in enumerate(tensors[1:], 1):
        if x._array.shape != tensors[0]._array.shape:
            raise RuntimeError(
                f"stack expects each tensor to be equal size, but got {list(tensors[0]._array.shape)} "
                f"at entry 0 and {list(x._array.shape)} at entry {i}"
            )
    return ops.StackBackward0.apply(*tensors, dim=check_dim(dim, tensors[0].ndim + 1), out_dtype=_joined(tensors))


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


def meshgrid(*tensors: Any, indexing: str | None = None) -> tuple[Tensor, ...]:
    """Coordinate grids: output i holds tensor i's values along its own dim (``indexing="ij"``; ``"xy"``
    swaps the first two dims, as NumPy's meshgrid), each a view then an expand of its input, as torch."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    if indexing is None:
        warn_once("gradbook.meshgrid: in an upcoming release, it will be required to pass the indexing argument.")
        indexing = "ij"
    elif indexing not in ("xy", "ij"):
        raise RuntimeError(f'gradbook.meshgrid: indexing must be one of "xy" or "ij", but received: {indexing}')
    tensors = tuple(tensor_list(tensors, "meshgrid"))
    if not tensors:
        raise RuntimeError("meshgrid expects a non-empty TensorList")
    for t in tensors:
        if t.ndim > 1:
            raise RuntimeError(f"gradbook.meshgrid: Expected 0D or 1D tensor in the tensor list but got: {t}")
        if t.dtype != tensors[0].dtype:
            raise RuntimeError("meshgrid expects all tensors to have the same dtype")
    dims = list(range(len(tensors)))
    if indexing == "xy" and len(tensors) > 1:
        dims[0], dims[1] = 1, 0
    shape = [0] * len(tensors)
    for t, d in zip(tensors, dims):
        shape[d] = t.numel()
    grids = []
    for t, d in zip(tensors, dims):
        alone = [1] * len(tensors)
        alone[d] = shape[d]
        grids.append(t.view(alone).expand(shape))
    return tuple(grids)
