"""torch's float sums, in torch's order (ATen's ``cascade_sum``, ``SumKernel.cpp``), so that a float32
loss prints torch's digits.

NumPy adds pairwise; torch adds each row as SIMD lanes (8 floats or 4 doubles in torch 2.13's x86
wheels, measured on an AVX-512 machine too), four vectors at a time, each lane a running sum folded
into the next of four levels every 2^k steps, then the leftover elements and the lanes one by one.
The order is deterministic, so NumPy, given the same order, gives the same bits. Done here for what
losses and ``sum()``/``mean()`` reduce: all elements, or the last dimension, of a C-contiguous
float32/float64 array; anything else is summed by NumPy. The bits are those of torch running on one
thread: a sum of 32768 or more elements into few outputs torch splits over its threads, and its own
digits then depend on how many it has.
"""

from __future__ import annotations

from typing import Any

import numpy as np

VECTOR_BYTES = 32  # torch 2.13's x86 sum kernel adds in 256-bit vectors (8 floats), measured on AVX-512 too


def _ceil_log2(x: int) -> int:
    return 1 if x <= 2 else int(x - 1).bit_length()


def _running(start: np.ndarray, block: np.ndarray) -> np.ndarray:
    """start + block[:, 0] + block[:, 1] + ..., left to right (block: (batch, steps, ...))."""
    if block.shape[1] == 0:
        return start
    return np.add.accumulate(np.concatenate([start[:, None], block], axis=1), axis=1)[:, -1]


def _from_zero(x: np.ndarray, axis: int) -> np.ndarray:
    """0 + x[0] + x[1] + ... along axis, left to right (zeros where the axis is empty)."""
    if x.ndim > axis + 1:  # lanes after the axis: NumPy reduces an outer axis one step after the other
        return np.add.reduce(x, axis=axis)
    if x.shape[axis] == 0:
        return np.zeros(x.shape[:axis] + x.shape[axis + 1 :], x.dtype)
    return np.add.accumulate(x, axis=axis).take(-1, axis=axis)  # the innermost axis: NumPy's reduce pairs


def _multi_row_sum(x: np.ndarray) -> np.ndarray:
    """ATen's multi_row_sum, x (batch, size, ...) summed over size: running sums of blocks of ``step`` rows;
    each block's sum goes into a level-1 running sum, which passes into level 2 every ``step`` blocks and
    starts again from 0, and so on to level 3; at the end the rows after the last block, then the levels.
    Each level adds ``step`` values left to right from 0: one NumPy accumulate over a reshaped array."""
    batch, size, rest = x.shape[0], x.shape[1], x.shape[2:]
    step = 1 << max(4, _ceil_log2(size) // 4)

    def grouped(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(the sums of the complete groups of ``step``, the running sum of the values after them)."""
        groups = values.shape[1] // step
        tail = _from_zero(values[:, groups * step :], 1)
        if not groups:
            return values[:, :0], tail
        return _from_zero(values[:, : groups * step].reshape((batch, groups, step) + rest), 2), tail

    values, total = grouped(x)  # the blocks' sums; level 0: the rows after the last block
    for _ in range(2):  # levels 1 and 2 pass their complete groups up
        values, level = grouped(values)
        total = total + level
    return total + _from_zero(values, 1)  # level 3 keeps everything that reached it


def _row_sum(x: np.ndarray) -> np.ndarray:
    """ATen's row_sum: x (batch, n, ...) as (n/4, 4) rows of partial sums, then the rest, then the four."""
    n = x.shape[1]
    if n < 64:
        return _short(x)
    size_ilp = n // 4
    parts = _multi_row_sum(x[:, : size_ilp * 4].reshape((x.shape[0], size_ilp, 4) + x.shape[2:]))
    first = _running(parts[:, 0], x[:, size_ilp * 4 :])
    for k in range(1, 4):
        first = first + parts[:, k]
    return first


def rows(a: np.ndarray) -> np.ndarray:
    """The sum of each row of a 2-D C-contiguous float array (batch, n), as torch adds it (possibly -0 where
    torch's is +0: the caller adds 0, as torch adds the sum to a zeroed output)."""
    lanes = VECTOR_BYTES // a.dtype.itemsize
    batch, n = a.shape
    if n < lanes:  # too short for a vector: scalar row_sum
        return _short(a) if n < 64 else _row_sum(a)
    vectors = n // lanes
    v = a[:, : vectors * lanes].reshape(batch, vectors, lanes)
    lane_sums = _short(v) if vectors < 64 else _row_sum(v)  # (batch, lanes)
    # from 0: the leftover elements first, then each lane's sum, one at a time
    last = lane_sums if n == vectors * lanes else np.concatenate((a[:, vectors * lanes :], lane_sums), axis=1)
    return np.add.accumulate(last, axis=1)[:, -1]


_ORDER = [list(range(n)) if n < 4 else [0, *range(4, n), 1, 2, 3] for n in range(8)]


def _short(x: np.ndarray) -> np.ndarray:
    """_row_sum for fewer than 64 steps, when no level of the cascade fills up: the same additions in a
    few NumPy calls (x (batch, n, ...): four running sums of every fourth step, then the rest into the
    first, then the other three)."""
    n = x.shape[1]
    m = n // 4
    if m <= 1:  # the steps in the order they are added: the first, the ones after 4, then 1, 2, 3
        return _from_zero(x[:, _ORDER[n]], 1)
    parts = _from_zero(x[:, : 4 * m].reshape((x.shape[0], m, 4) + x.shape[2:]), 1)
    return _from_zero(np.concatenate((parts[:, :1], x[:, 4 * m :], parts[:, 1:]), axis=1), 1)


def torch_sum(a: np.ndarray, axis: Any = None, keepdims: bool = False) -> Any:
    """np.add.reduce(a, axis, keepdims) with torch's order of additions where ATen's is reproduced here."""
    if isinstance(axis, (tuple, list)):  # every dimension is all of them; one is that one
        dims = sorted({d % a.ndim for d in axis}) if a.ndim else []
        if len(dims) == a.ndim and len(dims) == len(axis):
            axis = None
        elif len(dims) == 1 and len(axis) == 1:
            axis = dims[0]
    if axis is None and not a.flags.c_contiguous and a.dtype.kind == "f":
        memory_order = np.transpose(a, np.argsort([-abs(st) for st in a.strides], kind="stable"))
        if memory_order.flags.c_contiguous:  # a transpose (x.t()): torch adds it in memory order
            total = torch_sum(memory_order)
            return total.reshape((1,) * a.ndim) if keepdims else total
    if axis is None and a.dtype.kind == "f" and a.dtype.itemsize >= 4 and a.size:
        if a.flags.c_contiguous:  # all elements
            total = rows(a.reshape(1, -1))[0] + a.dtype.type(0)  # + 0: torch adds the sum to a zeroed output
            return total.reshape((1,) * a.ndim) if keepdims else total
    elif (
        axis in (a.ndim - 1, -1, (a.ndim - 1,), (-1,))
        and a.ndim
        and a.dtype.kind == "f"
        and a.dtype.itemsize >= 4
        and a.size
        and a.flags.c_contiguous
    ):  # the last dimension: each row one thread's, whatever the number of rows
        out = rows(a.reshape(-1, a.shape[-1])).reshape(a.shape[:-1]) + a.dtype.type(0)
        return out[..., None] if keepdims else out
    elif (
        axis in (0, (0,))
        and a.ndim >= 2
        and a.dtype.kind == "f"
        and a.dtype.itemsize >= 4
        and a.size
        and a.flags.c_contiguous
    ):  # the first dimension (a bias's gradient: g.sum(0)), each column one running sum
        out = columns(a.reshape(a.shape[0], -1)).reshape(a.shape[1:]) + a.dtype.type(0)
        return out[None] if keepdims else out
    return np.add.reduce(a, axis=axis, keepdims=keepdims)


def columns(a: np.ndarray) -> np.ndarray:
    """The sum of each column of a 2-D C-contiguous float array (n, width), as torch adds it (ATen's
    vectorized_outer_sum, or scalar_outer_sum when there are fewer columns than a vector's lanes)."""
    lanes = VECTOR_BYTES // a.dtype.itemsize
    width = a.shape[1]
    x = a[None]  # (1, n, width): the columns are the lanes
    if a.shape[0] == 1:
        return a[0].copy()
    if width == 1:  # one column: it is a contiguous vector (torch drops dimensions of size 1)
        return rows(a.reshape(1, -1))
    group = 4 * lanes if width >= lanes else 4  # columns summed by multi_row_sum, as vectors or as rows of 4
    whole = (width // group) * group
    out = np.empty(width, a.dtype)
    if whole:
        out[:whole] = _multi_row_sum(x[:, :, :whole])[0]
    if whole < width:  # the rest: row_sum (four interleaved running sums down the column)
        out[whole:] = _row_sum(x[:, :, whole:])[0]
    return out
