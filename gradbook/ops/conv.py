"""Convolution and pooling, as ``gradbook.nn.functional`` calls them."""

from __future__ import annotations

import functools
import math
from typing import Any

import numpy as np

from .op import Op
from .rules import constant, is_tensor, shape_of, sum_keepdim, zeros_like


def _fields(xp: np.ndarray, kernel: tuple, stride: tuple, dilation: tuple) -> np.ndarray:
    """(N, C, *out, *kernel): each output position's receptive field of the padded input, a view."""
    nd = len(kernel)
    span = tuple(d * (k - 1) + 1 for k, d in zip(kernel, dilation))
    windows = np.lib.stride_tricks.sliding_window_view(xp, span, axis=tuple(range(2, 2 + nd)))
    steps = tuple(slice(None, None, s) for s in stride) + tuple(slice(None, None, d) for d in dilation)
    return windows[(slice(None), slice(None)) + steps]


def _padded(x: np.ndarray, padding: tuple, value: float = 0.0) -> np.ndarray:
    """x with ``padding`` (each dimension's (before, after)) added around its spatial dimensions."""
    if not any(p for pair in padding for p in pair):
        return x
    return np.pad(x, ((0, 0), (0, 0)) + tuple(padding), constant_values=value)


def _unfields(
    fields: np.ndarray, shape: tuple, padding: tuple, kernel: tuple, stride: tuple, dilation: tuple
) -> np.ndarray:
    """The adjoint of _fields and _padded: each field's values added back where they came from."""
    positions = fields.shape[2 : 2 + len(kernel)]
    pieces = (fields[(Ellipsis,) + offset] for offset in np.ndindex(*kernel))
    return _add_back(pieces, shape, positions, padding, kernel, stride, dilation, fields.dtype)


def _add_back(
    pieces: Any,
    shape: tuple,
    positions: tuple,
    padding: tuple,
    kernel: tuple,
    stride: tuple,
    dilation: tuple,
    dtype: Any,
) -> np.ndarray:
    """Σ over the kernel offsets (in np.ndindex order) of each piece (N, C, *positions), added at the input
    places that offset reads, then the padding cropped."""
    out = np.zeros(shape[:2] + tuple(s + a + b for s, (a, b) in zip(shape[2:], padding)), dtype)
    for offset, piece in zip(np.ndindex(*kernel), pieces):
        where = tuple(
            slice(o * d, o * d + s * (p - 1) + 1, s) for o, d, s, p in zip(offset, dilation, stride, positions)
        )
        out[(slice(None), slice(None)) + where] += piece
    return out[(slice(None), slice(None)) + tuple(slice(a, a + s) for s, (a, _) in zip(shape[2:], padding))]


def _columns(fields: np.ndarray, groups: int) -> np.ndarray:
    """(N, G, Cg·K, P): each output position's receptive field as one column, per group (im2col: one copy
    of the fields, so that a convolution is one matrix product per example)."""
    nd = (fields.ndim - 2) // 2
    (n, c), positions, kernel = fields.shape[:2], fields.shape[2 : 2 + nd], fields.shape[2 + nd :]
    f = fields.reshape((n, groups, c // groups) + positions + kernel)  # (N, G, Cg, *P, *K), a view
    f = f.transpose((0, 1, 2, *range(3 + nd, 3 + 2 * nd), *range(3, 3 + nd)))  # (N, G, Cg, *K, *P)
    return f.reshape(n, groups, (c // groups) * math.prod(kernel), math.prod(positions))


def _conv(
    x: np.ndarray, w: np.ndarray, b: np.ndarray, stride: tuple, padding: tuple, dilation: tuple, groups: int
) -> np.ndarray:
    nd = w.ndim - 2
    fields = _fields(_padded(x, padding), w.shape[2:], stride, dilation)
    n, o, positions = x.shape[0], w.shape[0], fields.shape[2 : 2 + nd]
    y = w.reshape(groups, o // groups, -1) @ _columns(fields, groups)  # (N, G, Og, P)
    y = y.reshape((n, o) + positions)
    y += b.reshape((1, -1) + (1,) * nd)
    return y.astype(x.dtype, copy=False)


def _input_grad(n: Op, g: Any, input: Any, weight: Any) -> Any:  # noqa: A002
    """∂/∂input of a convolution: g through the weight, added back onto each receptive field."""
    if is_tensor(g):
        return _conv_grads_recorded(n, g, input, weight)[0]
    grad = _onto_fields(g, weight, input.shape, n.padding, n.stride, n.dilation, n.groups)
    return grad.astype(input.dtype, copy=False)


def _onto_fields(
    g: np.ndarray, w: np.ndarray, shape: tuple, padding: tuple, stride: tuple, dilation: tuple, groups: int
) -> np.ndarray:
    """g (N, O, *positions) through w back onto each receptive field of an input of ``shape``: a
    convolution's input gradient, and a transposed convolution's output."""
    nd, o = w.ndim - 2, w.shape[0]
    bn, positions, kernel = g.shape[0], g.shape[2:], w.shape[2:]
    gg = g.reshape(bn, groups, o // groups, math.prod(positions))
    grad_cols = w.reshape(groups, o // groups, -1).transpose(0, 2, 1) @ gg  # (N, G, Cg·K, P)
    grad_fields = grad_cols.reshape((bn, shape[1]) + kernel + positions)  # (N, C, *K, *P), a view
    grad_fields = grad_fields.transpose((0, 1, *range(2 + nd, 2 + 2 * nd), *range(2, 2 + nd)))
    return _unfields(grad_fields, shape, padding, kernel, stride, dilation)


def _weight_grad(g: np.ndarray, x: np.ndarray, w: np.ndarray, n: Op) -> np.ndarray:
    """Σ over the batch and positions of g (N, O, *positions) times x's receptive fields: ∂/∂weight."""
    fields = _fields(_padded(x, n.padding), w.shape[2:], n.stride, n.dilation)
    fields = fields[(slice(None), slice(None)) + tuple(slice(0, p) for p in g.shape[2:])]  # a transposed conv's
    bn, o = g.shape[:2]  # output_padding adds places no field starts at
    gg = g.reshape(bn, n.groups, o // n.groups, -1)
    return np.add.reduce(gg @ _columns(fields, n.groups).transpose(0, 1, 3, 2), axis=0).reshape(w.shape)


def _conv_weight_grad(n: Op, g: Any, input: Any, weight: Any) -> Any:  # noqa: A002
    if is_tensor(g):
        return _conv_grads_recorded(n, g, input, weight)[1]
    return _weight_grad(g, input, weight, n).astype(weight.dtype, copy=False)


def _conv_transposed(
    x: np.ndarray,
    w: np.ndarray,
    b: np.ndarray,
    stride: tuple,
    padding: tuple,
    dilation: tuple,
    groups: int,
    output_padding: tuple,
) -> np.ndarray:
    """A transposed convolution: x (N, C_in, *positions) spread through w (C_in, C_out/groups, *kernel)
    onto the output positions that see it, the input gradient of the convolution with w."""
    nd = w.ndim - 2
    size = tuple(
        (i - 1) * s - p + d * (k - 1) + op + 1 - q
        for i, s, (p, q), d, k, op in zip(x.shape[2:], stride, padding, dilation, w.shape[2:], output_padding)
    )
    y = _onto_fields(x, w, (x.shape[0], w.shape[1] * groups) + size, padding, stride, dilation, groups)
    return (y + b.reshape((1, -1) + (1,) * nd)).astype(x.dtype, copy=False)


def _convolution(
    x: np.ndarray,
    w: np.ndarray,
    b: np.ndarray,
    stride: tuple,
    padding: tuple,
    dilation: tuple,
    groups: int,
    transposed: bool = False,
    output_padding: tuple = (),
) -> np.ndarray:
    if transposed:
        return _conv_transposed(x, w, b, stride, padding, dilation, groups, output_padding)
    return _conv(x, w, b, stride, padding, dilation, groups)


def _transposed_input_grad(n: Op, g: Any, weight: Any) -> Any:
    """A transposed convolution's ∂/∂input: the plain convolution of g with the same weight, at the input's
    positions (with output_padding on a stride-1 dimension it has more)."""
    zero = np.zeros(weight.shape[0], g._array.dtype if is_tensor(g) else g.dtype)
    inside = (slice(None), slice(None)) + tuple(slice(0, p) for p in shape_of(n)[2:])
    if is_tensor(g):
        params = {"stride": n.stride, "padding": n.padding, "dilation": n.dilation, "groups": n.groups}
        out = ConvolutionBackward0.apply(g, weight, constant(zero, g), **params)
        return out if tuple(out.shape[2:]) == tuple(shape_of(n)[2:]) else out[inside]
    return _conv(g, weight, zero, n.stride, n.padding, n.dilation, n.groups)[inside]


def _transposed_weight_grad(n: Op, g: Any, input: Any, weight: Any) -> Any:  # noqa: A002
    """A transposed convolution's ∂/∂weight: the convolution's weight gradient, with input and g swapped."""
    if is_tensor(g):
        return _conv_grads_recorded(n, input, g, weight)[1]
    return _weight_grad(input, g, weight, n).astype(weight.dtype, copy=False)


@functools.lru_cache(maxsize=32)
def _field_matrix(
    size: tuple, kernel: tuple, stride: tuple, padding: tuple, dilation: tuple, keep: tuple | None = None
) -> np.ndarray:
    """The 0/1 matrix A with fields = x @ A: row j is input position j (of ``size``, flattened), column
    p·K + k is kernel offset k of output position p (padding reads nothing), for the first ``keep``
    positions (a transposed convolution's input has fewer than its output's fields). Only for
    create_graph, where the rules must be recorded ops: x @ A and g @ Aᵀ are matmuls, differentiable again."""
    index = np.arange(math.prod(size), dtype=np.float64).reshape((1, 1) + size)
    fields = _fields(_padded(index, padding, -1.0), kernel, stride, dilation)
    if keep is not None:
        fields = fields[(slice(None), slice(None)) + tuple(slice(0, k) for k in keep)]
    flat = fields.reshape(-1)
    matrix = np.zeros((math.prod(size), flat.size))
    inside = flat >= 0
    matrix[flat[inside].astype(np.int64), np.flatnonzero(inside)] = 1.0
    return matrix


def _conv_grads_recorded(n: Op, g: Any, x: Any, w: Any) -> tuple[Any, Any]:
    """The same two gradients as recorded ops (under create_graph), through the field matrix."""
    groups = n.groups
    (bn, c), o, kernel = x.shape[:2], w.shape[0], tuple(w.shape[2:])
    size, positions = tuple(x.shape[2:]), tuple(g.shape[2:])
    a = constant(_field_matrix(size, kernel, n.stride, n.padding, n.dilation, positions).astype(x._array.dtype), g)
    p, k, cg, og = math.prod(positions), math.prod(kernel), c // groups, o // groups
    gp = g.reshape(bn, groups, og, p).permute(0, 1, 3, 2)  # (N, G, P, Og)
    wg = w.reshape(groups, og, cg * k)
    grad_fields = (gp @ wg).reshape(bn, groups, p, cg, k).permute(0, 1, 3, 2, 4).reshape(bn, c, p * k)
    grad_input = (grad_fields @ a.mT).reshape(x.shape)
    fields = (x.reshape(bn, c, math.prod(size)) @ a).reshape(bn, groups, cg, p, k)
    fields = fields.permute(1, 0, 3, 2, 4).reshape(groups, bn * p, cg * k)  # (G, N·P, Cg·K)
    gw = g.reshape(bn, groups, og, p).permute(1, 2, 0, 3).reshape(groups, og, bn * p)
    grad_weight = (gw @ fields).reshape(w.shape)
    return grad_input, grad_weight


class ConvolutionBackward0(Op):
    """out = Σ over each output position's receptive field of input · weight, plus bias
    (conv1d, conv2d: ``stride``, ``padding``, ``dilation``, ``groups``)"""

    inputs = ("input", "weight", "bias")
    saves = ("input", "weight")
    transposed, output_padding = False, None  # conv_transpose: transposed=True (its output_padding)
    forward = staticmethod(_convolution)
    rules = {
        "∂/∂input: g through weight, back onto each receptive field": lambda n, g, input, weight: (
            _transposed_input_grad(n, g, weight) if n.transposed else _input_grad(n, g, input, weight)
        ),
        "∂/∂weight: Σ g · input over the batch and positions": lambda n, g, input, weight: (
            _transposed_weight_grad(n, g, input, weight) if n.transposed else _conv_weight_grad(n, g, input, weight)
        ),
        "∂/∂bias: Σ g over the batch and positions": lambda n, g: sum_keepdim(g, (0, *range(2, g.ndim))).reshape(-1),
    }


def _window_pieces(x: np.ndarray, kernel: tuple, stride: tuple, padding: tuple, dilation: tuple) -> list:
    """Each kernel offset's values over every window (N, C, *positions), views of the -inf-padded input."""
    fields = _fields(_padded(x, padding, -np.inf), kernel, stride, dilation)
    return [fields[(Ellipsis,) + offset] for offset in np.ndindex(*kernel)]


def _largest(pieces: list) -> np.ndarray:
    """Each window's largest value: one elementwise maximum per kernel offset (nan wins, as torch)."""
    out = pieces[0].copy()
    for piece in pieces[1:]:
        np.maximum(out, piece, out=out)
    return out


class MaxPool2DWithIndicesBackward0(Op):
    """out = the largest value of each window; ``result1`` (from ``pool_indices``) says where it is, as an
    index into its channel's H·W values (``window``: kernel, stride, (before, after) padding and dilation
    per dimension; the other params are torch's arguments as given)"""

    saves = ("self", "result1")
    unexposed = ("window",)
    forward = staticmethod(
        lambda a, kernel_size, stride, padding, dilation, ceil_mode, result1, window: _max_values(a, result1, window)
    )
    rules = {"∂/∂self: each g to its window's largest value": lambda n, g, self: _max_pool_grad(n, g, self)}


def _flat(indices: np.ndarray, shape: tuple) -> np.ndarray:
    """Indices into each channel's H·W values (the last two dimensions), as indices into all the values."""
    plane = math.prod(shape[-2:])
    firsts = np.arange(0, math.prod(shape), plane).reshape(*shape[:-2], 1, 1)
    return indices + firsts


def _first_places(size: int, kernel: int, stride: int, before: int, dilation: int, positions: int) -> tuple:
    """Per window along one dimension: its first place inside the input (torch's loop steps its start
    past the padding by the dilation) and whether it has one at all."""
    starts = np.arange(positions) * stride - before
    first = starts + np.maximum(0, -(starts // dilation)) * dilation
    return first, first < np.minimum(starts + (kernel - 1) * dilation + 1, size)


def pool_indices(x: np.ndarray, kernel: tuple, stride: tuple, padding: tuple, dilation: tuple) -> np.ndarray:
    """max_pool2d's indices (N, C, Ho, Wo): where each window's largest value is, as an index into its
    channel's H·W values (torch's ``return_indices``, its node's ``_saved_result1``). As torch's loop: the
    first largest; a nan replaces it, and every later nan too; a window of -inf only (or of padding only)
    keeps its first place inside the input, row·W + column, even one past the input's edge."""
    pieces = _window_pieces(x, kernel, stride, padding, dilation)
    largest = _largest(pieces)
    best = np.full(largest.shape, len(pieces) - 1, np.intp)
    for k in range(len(pieces) - 2, -1, -1):  # the first place holding the largest value
        best -= (pieces[k] == largest) * (best - k)  # (arithmetic: a where on this mask mispredicts)
    if np.isnan(largest).any():  # a window with a nan: its last nan
        for k, piece in enumerate(pieces):
            np.copyto(best, k, where=np.isnan(piece))
    dy, dx = np.divmod(best, kernel[1])
    (h, w), (ho, wo) = x.shape[2:], largest.shape[2:]
    rows = np.arange(ho)[:, None] * stride[0] - padding[0][0] + dy * dilation[0]
    cols = np.arange(wo)[None, :] * stride[1] - padding[1][0] + dx * dilation[1]
    indices = rows * w + cols
    stuck = np.isneginf(largest)
    if stuck.any():
        first_row = _first_places(h, kernel[0], stride[0], padding[0][0], dilation[0], ho)[0]
        first_col = _first_places(w, kernel[1], stride[1], padding[1][0], dilation[1], wo)[0]
        indices = np.where(stuck, first_row[:, None] * w + first_col[None, :], indices)
    return indices.astype(np.int64)


def _empty_windows(shape: tuple, window: tuple, positions: tuple) -> np.ndarray | None:
    """(Ho, Wo): the windows with no place inside the input (padding only, or skipped by the
    dilation), None if there are none."""
    kernel, stride, padding, dilation = window
    has = [
        _first_places(size, k, s, before, d, p)[1]
        for size, k, s, (before, _), d, p in zip(shape[-2:], kernel, stride, padding, dilation, positions)
    ]
    return None if all(h.all() for h in has) else ~(has[0][:, None] & has[1][None, :])


def _max_values(x: np.ndarray, indices: np.ndarray, window: tuple) -> np.ndarray:
    """x's values at ``indices``, shaped as them; -inf for a window with no place inside the input."""
    out = _gathered(x, indices)
    empty = _empty_windows(x.shape, window, indices.shape[-2:])
    return out if empty is None else np.where(empty, x.dtype.type(-np.inf), out)


def _max_pool_grad(n: Op, g: Any, x: Any) -> Any:
    if is_tensor(g):  # (create_graph) a node of its own, differentiable in turn
        return MaxPool2DWithIndicesBackwardBackward0.apply(g, x, indices=n.result1, window=n.window)
    return _scattered(g, x.shape, n.result1, n.window)


def _scattered(g: np.ndarray, shape: tuple, indices: np.ndarray, window: tuple) -> np.ndarray:
    """Each g added at its window's largest value, in torch's order (output by output)."""
    kernel, stride, _, dilation = window
    overlap = any(s < d * (k - 1) + 1 for k, s, d in zip(kernel, stride, dilation))
    if not overlap and _empty_windows(shape, window, g.shape[-2:]) is None:
        return _put_back(g, indices, shape)
    places = _flat(indices, shape).reshape(-1)
    inside = (indices < shape[-2] * shape[-1]).reshape(-1)  # torch writes past the channel: dropped here
    out = np.zeros(math.prod(shape), g.dtype)
    np.add.at(out, places[inside], g.reshape(-1)[inside])  # unbuffered, in order: torch's loop
    return out.reshape(shape)


class MaxPool2DWithIndicesBackwardBackward0(Op):
    """out = each grad_output added at its window's largest value (max_pool2d's gradient, recorded under
    create_graph; ``indices``: where the largest values are)"""

    inputs = ("grad_output", "self")
    saves = ("indices",)
    unexposed = ("window",)
    forward = staticmethod(lambda g, a, indices, window: _scattered(g, a.shape, indices, window))
    rules = {
        "∂/∂grad_output: the incoming gradient at each window's largest value": lambda n, g: _gathered(g, n.indices),
        "∂/∂self: 0 (the largest places do not move)": lambda n, g: zeros_like(g),
    }


def _gathered(g: Any, indices: np.ndarray) -> Any:
    """g's values at ``indices`` (each into its channel's H·W values), shaped as them."""
    if is_tensor(g):
        flat = constant(indices.reshape(*indices.shape[:-2], -1), g)
        return g.flatten(-2).gather(-1, flat).reshape(indices.shape)
    return np.take(g.reshape(-1), _flat(indices, g.shape), mode="clip")


def _put_back(g: np.ndarray, indices: np.ndarray, shape: tuple) -> np.ndarray:
    """_max_pool_grad where no two windows overlap (stride ≥ each window's span) and each has a place
    inside the input: each g put at its window's largest value, no place receiving two (g + 0: torch adds
    each g to a zero, which makes a -0 +0)."""
    out = np.zeros(shape, g.dtype)
    np.put(out, _flat(indices, shape), g + g.dtype.type(0))
    return out


def _pool_grad_recorded(n: Op, g: Any, share: Any, window: tuple) -> Any:
    """A pooling gradient as recorded ops: g·share on each window's K places, put back through the
    field matrix (under create_graph). ``window``: kernel, stride, (before, after) padding, dilation."""
    shape = shape_of(n)
    a = constant(_field_matrix(tuple(shape[-2:]), *window).astype(g._array.dtype), g)
    fields = (g.unsqueeze(-1) * share).reshape(*shape[:-2], -1)  # (N, C, P·K), in the matrix's order
    return (fields @ a.mT).reshape(shape)


class AvgPool2DBackward0(Op):
    """out = each window's sum over its ``divisor`` (the window's size; smaller where it runs past the input)"""

    unexposed = ("divisor",)
    forward = staticmethod(
        lambda a, kernel, stride, padding, divisor: (
            _fields(_padded(a, padding), kernel, stride, (1, 1)).sum(axis=(-2, -1)) / divisor.astype(a.dtype)
        ).astype(a.dtype)
    )
    rules = {"∂/∂self: each g shared evenly over its window": lambda n, g: _avg_pool_grad(n, g)}


def _avg_pool_grad(n: Op, g: Any) -> Any:
    if is_tensor(g):
        even = np.broadcast_to((1 / n.divisor)[..., None], tuple(g.shape) + (math.prod(n.kernel),))
        return _pool_grad_recorded(
            n, g, constant(even.astype(g._array.dtype), g), (n.kernel, n.stride, n.padding, (1, 1))
        )
    share = np.broadcast_to((g / n.divisor.astype(g.dtype))[..., None, None], g.shape + tuple(n.kernel))
    return _unfields(share, shape_of(n), n.padding, n.kernel, n.stride, (1, 1))
