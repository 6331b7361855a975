"""torch's float32 softmax, log_softmax and nll_loss digits (ATen's ``SoftMaxKernel.cpp`` and
``LossNLL.cpp``), so that a classifier's loss prints what torch prints.

NumPy's ``exp`` and pairwise sums differ from torch's kernels in the last bit of most elements. torch
computes a softmax with its vectorized ``exp`` (SLEEF's ``expf_u10``, the same fixed polynomial on every
x86 CPU), adds each row as SIMD lanes folded in halves, and multiplies by the reciprocal of the sum;
``log`` of the sums is SLEEF's ``logf_u10``; the columns left over after whole vectors use the C library's
``expf`` (glibc's). Those are plain float32 (and, in glibc, double) operations and fused multiply-adds,
so NumPy, doing the same operations in the same order, gives the same bits: each step below is one
operation of the C code, computed in float64 and rounded to float32 (exact for a product, and a fused
multiply-add rounded twice differs from one rounding only when the float64 result falls exactly on a
float32 midpoint, about once in 2^29). float64 tensors keep NumPy's kernels.

The lanes are those of the vectors torch picks for the CPU: 16 floats where it has AVX-512 (with
AVX512VL/BW/DQ and FMA), else 8. The bits are those of torch on one thread (a softmax over a dimension
other than the last splits its columns over threads).
"""

from __future__ import annotations

import functools
import os

import numpy as np

_F32, _F64 = np.float32, np.float64


@functools.cache
def lanes() -> int:
    """Vectorized<float>::size() in torch's x86 wheels on this CPU."""
    wanted = os.environ.get("ATEN_CPU_CAPABILITY", "").lower()
    if wanted:
        return 16 if wanted == "avx512" else 8
    try:
        with open("/proc/cpuinfo", encoding="ascii", errors="replace") as f:
            flags = next((line.split(":", 1)[1].split() for line in f if line.startswith("flags")), [])
    except OSError:
        return 8
    return 16 if {"avx512vl", "avx512bw", "avx512dq", "fma"} <= set(flags) else 8


def _round(x: np.ndarray) -> np.ndarray:
    """float64 values rounded to float32 and back: one float32 operation's result."""
    return x.astype(_F32).astype(_F64)


_POLY = [  # SLEEF's coefficients, as float32
    _F64(_F32(c))
    for c in (
        0.00139304355252534151077271,
        0.00833336077630519866943359,
        0.0416664853692054748535156,
        0.166666671633720397949219,
        0.5,
    )
]


def expf(d: np.ndarray) -> np.ndarray:
    """SLEEF's ``xexpf`` (``Sleef_expf16_u10``, torch's ``Vectorized<float>::exp()``): e^d = 2^q · e^s with
    q = rint(d / ln 2) and s = d - q·ln 2 (ln 2 in two parts, two fused multiply-adds), e^s = 1 + s + s²·u
    with u a polynomial of degree 5 in s (Horner, one fused multiply-add a step)."""
    d = np.asarray(d, _F32)
    with np.errstate(all="ignore"):  # inf and nan go through as in SLEEF; their lanes are fixed at the end
        q = np.rint(d * _F32(1.442695040888963407359924681001892137426645954152985934135449406931))
        qd = q.astype(_F64)
        out = np.empty(d.shape, _F32)  # each step in float64, then rounded to float32 through ``out``

        def rounded(x: np.ndarray) -> np.ndarray:
            np.copyto(out, x, casting="unsafe")
            np.copyto(x, out)
            return x

        s = qd * -0.693145751953125
        s += d
        s = rounded(s)  # fma(q, -L2U, d)
        t = qd * _F64(_F32(-1.428606765330187045e-06))
        t += s
        s = rounded(t)  # fma(q, -L2L, s)
        u = s * _F64(_F32(0.000198527617612853646278381))
        for c in _POLY:
            u += c
            u = rounded(u)
            if c != 0.5:
                u *= s
        ss = rounded(s * s)
        ss *= u
        ss += s
        np.copyto(out, ss, casting="unsafe")
        out += _F32(1)  # 1 + fma(s·s, u, s)
        q = np.nan_to_num(q, nan=0.0, posinf=0.0, neginf=0.0).astype(np.int32)
        half = q >> 1  # · 2^half · 2^(q - half): no power of two overflows
        out *= ((half + 0x7F) << 23).view(_F32)
        q -= half
        q += 0x7F
        q <<= 23
        out *= q.view(_F32)
        out[d < -104] = 0
        out[d > 100] = np.inf
    return out


def logf(d: np.ndarray) -> np.ndarray:
    """SLEEF's ``xlogf_u1`` (``Sleef_logf16_u10``, torch's ``Vectorized<float>::log()``), as built for AVX-512:
    d = 2^e · m with m in [0.75, 1.5), log d = e · ln 2 + 2x + x³·t(x²) with x = (m - 1) / (m + 1), carried
    in pairs of floats (a value and its rounding error) to the last addition."""
    shape, d = np.shape(d), np.asarray(d, _F32).reshape(-1)
    with np.errstate(all="ignore"):
        e = _getexp(d * _F32(1 / 0.75))
        e[e == np.inf] = 128
        m = np.frexp(d)[0] * _F32(2)  # getmant: the significand in [1, 2), then halved if >= 1.5
        m[m >= 1.5] *= _F32(0.5)
        odd = ~(np.isfinite(d) & (d > 0))  # 0, inf, nan, negative: set at the end
        if odd.any():
            e[odd], m[odd] = 0, 1
        hi, lo = _F32(0.69314718246459960938), _F32(-1.904654323148236017e-09)
        sx = hi * e  # s = (ln 2 as a pair) · e
        sy = _fma(lo, e, _fma(hi, e, -sx))
        nx, ny = _two_sum(_F32(-1), m)  # x = (m - 1) / (m + 1), as pairs
        dx, dy = _two_sum(_F32(1), m)
        t = _F32(1) / dx
        xx = nx * t
        u = _fma(t, nx, -xx)
        v = _fma(-dy, t, _fma(-dx, t, _F32(1)))
        xy = _fma(xx, v, _fma(ny, t, u))
        x2 = xx * xx
        t = _fma(_fma(np.full_like(x2, _F32(0.3027294874)), x2, _F32(0.3996108174)), x2, _F32(0.6666694880))
        yx, yy = xx * _F32(2), xy * _F32(2)  # s + 2x, then + x³·t
        s0 = sx + yx
        s1 = (sx - s0) + yx + sy + yy
        w = x2 * xx * t
        r0 = s0 + w
        r = r0 + ((s0 - r0) + w + s1)
    if odd.any():  # SLEEF's fix-up of the special lanes
        r[d == 0] = -np.inf
        r[d == np.inf] = np.inf
        r[d == -np.inf] = np.array(0xFFC00000, np.uint32).view(_F32)
        negative = (d < 0) & np.isfinite(d)
        r[negative] = (d[negative].view(np.uint32) | np.uint32(0x7FC00000)).view(_F32)
        r[np.isnan(d)] = (d[np.isnan(d)].view(np.uint32) | np.uint32(0x00400000)).view(_F32)
    return r.reshape(shape)


def _getexp(x: np.ndarray) -> np.ndarray:
    """_mm512_getexp_ps: floor(log2 |x|) as a float (subnormals included; inf gives inf; 0 and nan are
    the caller's special lanes)."""
    e = (np.frexp(np.abs(x))[1] - 1).astype(_F32)
    e[np.isinf(x)] = np.inf
    return e


def _two_sum(a: np.float32, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """SLEEF's dfadd2: s = a + b and its rounding error, in float32."""
    s = a + b
    v = s - a
    return s, (a - (s - v)) + (b - v)


def lane_sum(x: np.ndarray) -> np.ndarray:
    """ATen's ``vec::reduce_all`` with +, over the last axis: a row shorter than a vector added left to
    right; else vectors added lane by lane (the leftover into the first lanes), then the lanes folded."""
    n, width = x.shape[-1], lanes()
    if n < width:
        return np.add.accumulate(x, axis=-1)[..., -1]
    whole = n - n % width
    acc = np.add.accumulate(x[..., :whole].reshape(x.shape[:-1] + (whole // width, width)), axis=-2)[..., -1, :]
    if whole < n:
        acc[..., : n - whole] += x[..., whole:]
    return _fold(acc)


def _fold(acc: np.ndarray) -> np.ndarray:
    """vec_reduce_all's shuffles: the lanes (last axis) folded in halves, lane i + lane i + width/2, to one."""
    width = acc.shape[-1]
    while width > 1:
        width //= 2
        acc = acc[..., :width] + acc[..., width:]
    return acc[..., 0]


def softmax(a: np.ndarray, dim: int) -> np.ndarray:
    """torch's float32 softmax along ``dim`` of a (at least 1-D) array."""
    if dim == a.ndim - 1:  # _vec_softmax_lastdim: e = exp(x - max), e · (1 / Σ e)
        e = expf(a - np.maximum.reduce(a, axis=-1, keepdims=True))
        return e * (_F32(1) / lane_sum(e))[..., None]
    x = _columns(a, dim)  # _vec_softmax: columns as lanes, Σ down each from 0, e / Σ e
    e = _exp_columns(x - np.maximum.reduce(x, axis=-1, keepdims=True))
    return _uncolumns(e / np.add.accumulate(e, axis=-1)[..., -1:], a.shape)


def log_softmax(a: np.ndarray, dim: int) -> np.ndarray:
    """torch's float32 log_softmax along ``dim``: (x - max) - log Σ exp(x - max)."""
    if dim == a.ndim - 1:  # _vec_log_softmax_lastdim
        shifted = a - np.maximum.reduce(a, axis=-1, keepdims=True)
        return shifted - logf(lane_sum(expf(shifted)))[..., None]
    x = _columns(a, dim)  # _vec_logsoftmax: Σ down each column from 0
    shifted = x - np.maximum.reduce(x, axis=-1, keepdims=True)
    total = np.add.accumulate(_exp_columns(shifted), axis=-1)[..., -1:]
    return _uncolumns(shifted - logf(total), a.shape)


def _columns(a: np.ndarray, dim: int) -> np.ndarray:
    """a as (outer, inner, size of dim): ATen's columns (the dimensions after dim, flattened) as rows."""
    outer = int(np.prod(a.shape[:dim], dtype=np.int64))
    return a.reshape(outer, a.shape[dim], -1).transpose(0, 2, 1)


def _uncolumns(x: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    return np.ascontiguousarray(x.transpose(0, 2, 1)).reshape(shape)


def _exp_columns(x: np.ndarray) -> np.ndarray:
    """exp of x (outer, inner, dim): SLEEF's for whole vectors of columns, the C library's for the last
    inner % lanes columns, as ATen's column loops."""
    inner, width = x.shape[-2], lanes()
    whole = inner - inner % width
    out = np.empty(x.shape, _F32)
    out[..., :whole, :] = expf(x[..., :whole, :])
    out[..., whole:, :] = libc_expf(x[..., whole:, :])
    return out


_EXP2_32 = np.exp2(np.arange(32) / 32)  # glibc's table: 2^(i/32) as the nearest doubles
_SHIFT = 1.5 * 2.0**52
_POLY_32 = [float.fromhex(c) / 32**k for c, k in (("0x1.c6af84b912394p-5", 3), ("0x1.ebfce50fac4f3p-3", 2))]


def libc_expf(x: np.ndarray) -> np.ndarray:
    """glibc's ``expf`` (``std::exp`` of a float in ATen's scalar loops; ARM's optimized-routines): in
    double, x · 32/ln 2 = k + r, e^x = 2^(k/32) · p(r), p of degree 3, then rounded to float."""
    xd = np.asarray(x, _F32).astype(_F64)
    with np.errstate(all="ignore"):
        z = xd * (float.fromhex("0x1.71547652b82fep+0") * 32)
        kd = z + _SHIFT  # k in the low bits of kd's significand
        k = np.nan_to_num(kd, nan=0.0, posinf=0.0, neginf=0.0).view(np.uint64)
        r = z - (kd - _SHIFT)
        s = (_EXP2_32.view(np.uint64)[k % 32] + ((k - k % 32) << np.uint64(47))).view(_F64)  # 2^(k/32)
        y = (_POLY_32[0] * r + _POLY_32[1]) * (r * r) + (float.fromhex("0x1.62e42ff0c52d6p-1") / 32 * r + 1)
        out = (y * s).astype(_F32)
    out[xd > float.fromhex("0x1.62e42ep6")] = np.inf
    out[xd < -float.fromhex("0x1.9fe368p6")] = 0
    out[np.isnan(xd)] = np.nan
    return out


def _fma(x: np.ndarray, y: np.ndarray, z: np.ndarray) -> np.ndarray:
    """x·y + z as one fused multiply-add (the compiler contracts these in torch's backward loops)."""
    return (x.astype(_F64) * y + z).astype(_F32)


def softmax_backward(g: np.ndarray, out: np.ndarray, dim: int) -> np.ndarray:
    """torch's float32 gradient of softmax: out · (g - Σ g·out)."""
    if dim == out.ndim - 1:  # _vec_host_softmax_backward_lastdim: the dot product as map2_reduce_all
        return (g - _dot_lanes(g, out)[..., None]) * out
    x, y = _columns(g, dim), _columns(out, dim)  # Σ g·out down each column, fused
    total = np.zeros(x.shape[:-1], _F32)
    for k in range(x.shape[-1]):
        total = _fma(x[..., k], y[..., k], total)
    return _uncolumns(y * (x - total[..., None]), out.shape)


def _dot_lanes(g: np.ndarray, out: np.ndarray) -> np.ndarray:
    """ATen's map2_reduce_all(g·out, +) over the last axis: the products of each vector added lane by
    lane, the leftover ones fused into the first lanes (as the compiler builds it), the lanes folded."""
    n, width = g.shape[-1], lanes()
    p = g * out
    if n < width:
        return np.add.accumulate(p, axis=-1)[..., -1]
    whole = n - n % width
    acc = np.add.accumulate(p[..., :whole].reshape(p.shape[:-1] + (whole // width, width)), axis=-2)[..., -1, :]
    if whole < n:
        acc[..., : n - whole] = _fma(g[..., whole:], out[..., whole:], acc[..., : n - whole])
    return _fold(acc)


def log_softmax_backward(g: np.ndarray, out: np.ndarray, dim: int) -> np.ndarray:
    """torch's float32 gradient of log_softmax: g - exp(out) · Σ g (fused)."""
    if dim == out.ndim - 1:  # _vec_host_softmax_backward_lastdim
        return (g.astype(_F64) - expf(out).astype(_F64) * lane_sum(g)[..., None]).astype(_F32)
    x, y = _columns(g, dim), _columns(out, dim)  # _vec_log_softmax_backward
    total = np.add.accumulate(x, axis=-1)[..., -1:] + _F32(0)  # from a zeroed buffer: -0 sums are +0
    return _uncolumns((x.astype(_F64) - _exp_columns(y).astype(_F64) * total).astype(_F32), out.shape)


def nll_sum(values: np.ndarray, kept: np.ndarray) -> np.ndarray:
    """The sum of the picked losses as ATen's nll_loss adds them: level 0 a running sum, its total passed
    up into level 1 after the elements 0, step, 2·step, ... (step = 2^max(4, ⌈log2 N⌉ / 8)); level k
    passes up after every step^k elements; level 7 keeps all; then 0 + level 0 + ... + level 7. An
    ignored target (``kept`` False) is skipped, passing up included."""
    n = values.shape[0]
    step = 1 << max(4, (1 if n <= 2 else (n - 1).bit_length()) // 8)
    if not kept.all():
        return _nll_loop(values, kept, step)
    total, items = np.zeros((), values.dtype), values
    levels = []
    for _ in range(7):  # levels 0..6: the first item alone, then groups of step; the rest stays
        groups = (items.shape[0] - 1) // step if items.shape[0] else 0
        rest = items[1 + groups * step :]
        levels.append(np.add.accumulate(rest)[-1] if rest.size else values.dtype.type(0))
        passed = np.add.accumulate(items[1 : 1 + groups * step].reshape(groups, step), axis=1)[:, -1]
        items = np.concatenate((items[:1], passed)) if items.shape[0] else items
    levels.append(np.add.accumulate(items)[-1] if items.size else values.dtype.type(0))
    for level in levels:
        total = total + level
    return total


def _nll_loop(values: np.ndarray, kept: np.ndarray, step: int) -> np.ndarray:
    """nll_sum one element at a time, as the C loop (used when some targets are ignored)."""
    zero = values.dtype.type(0)
    levels = [zero] * 8
    for b in np.flatnonzero(kept).tolist():
        levels[0] += values[b]
        for j in range(7):
            if b % step ** (j + 1):
                break
            levels[j + 1], levels[j] = levels[j + 1] + levels[j], zero
    total = zero
    for level in levels:
        total += level
    return total
