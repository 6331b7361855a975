"""torch's CPU distributions, computed from a Generator's raw words with NumPy, bit for bit.

Each function returns the values in the order torch draws them (a tensor's memory order). The
recipes are ATen's (``DistributionsHelper.h``, ``TransformationHelper.h`` and the CPU kernels in
``native/cpu/DistributionTemplates.h``), as compiled for x86-64 with AVX2 (torch runs that kernel
on AVX-512 machines too). Where torch's compiler fuses a multiply and an add into one rounding
(an FMA), so does the code here (``_fma32``, ``_fma64``):

- uniform: a float32 keeps the low 24 bits of one word, ``x = w·2⁻²⁴``; a float64 the low 53 bits
  of a 64-bit draw (two words, the first one high), ``x = w·2⁻⁵³``; then ``fma(x, to - from, from)``.
- normal, 16 or more contiguous values: all the uniforms first, then Box–Muller on blocks of 16
  (``u`` = elements 0–7, ``v`` = 8–15: ``r = √(-2 log(1 - u))``, ``θ = 2πv``, ``r cos θ`` and
  ``r sin θ``); when the size is not a multiple of 16 the last 16 values are drawn again and
  recomputed. float32 uses the Cephes polynomials of ``avx_mathfun.h`` (``_log_ps``,
  ``_sincos_ps``), float64 the C library's log, cos and sin.
- normal, fewer values (or a non-contiguous tensor): one Box–Muller pair in double per two values,
  ``u₁, u₂`` 53-bit, ``r = √(-2 log1p(-u₂))``, ``θ = 2πu₁``; ``r sin θ`` is kept in the Generator
  for the next value, even across calls.
- integers in [low, high): ``w mod (high - low) + low``, with a 64-bit draw when the range needs it.
- randperm: torch's swap-based shuffle, one word per position.
- bernoulli: ``u < p`` with a 53-bit uniform (a tensor of float32 probabilities: 24-bit).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ._fma import fma as exact_fma
from ._random import MT19937

F32, F64 = np.float32, np.float64
_MASK53 = np.uint64(2**53 - 1)
_BLOCK = 16  # normal_fill's Box–Muller block
_CHUNK = 4096  # blocks per pass of the vector kernel: its temporaries stay in the cache

# ================================================================ exact fused multiply-adds


def _fma32(a: Any, b: Any, c: Any) -> np.ndarray:
    """round₃₂(a·b + c) for float32 a, b, c: the product is exact in float64, so one float64 add
    and the rounding to float32 give the FMA (two roundings disagree only when the float64 sum
    lands exactly halfway between two float32s: about once in 2²⁸ inexact sums)."""
    return (np.multiply(a, b, dtype=F64) + c).astype(F32)


def _fma64(a: Any, b: Any, c: Any) -> np.ndarray:
    """round₆₄(a·b + c) exactly (``gradbook._fma.fma``: Dekker's product, the small part rounded to odd)."""
    return exact_fma(a, b, c, F64)


# ================================================================ uniform


def uniform(gen: MT19937, n: int, dtype: Any, low: float = 0.0, high: float = 1.0) -> np.ndarray:
    """``n`` values uniform in [low, high), as ``uniform_(low, high)`` (a value that rounds up to
    ``high`` becomes ``low``, as torch's)."""
    dtype = np.dtype(dtype)
    if dtype == F64:
        x = (gen.random64(n) & _MASK53).astype(F64) * 2.0**-53
        lo, hi = F64(low), F64(high)
    elif dtype in (F32, np.float16):  # float16: float32 draws and arithmetic, then rounded, as torch's Half
        w = gen.random(n)
        w &= np.uint32(0xFFFFFF)
        x = w.view(F32)  # converted in place: a fresh array of this size costs more than the arithmetic
        np.multiply(w.view(np.int32), F32(2.0**-24), out=x, casting="unsafe")
        lo, hi = F32(low), F32(high)
    else:
        raise NotImplementedError(f"gradbook draws uniform float32, float64 and float16 numbers, not {dtype}")
    if (lo, hi) == (0, 1):
        return x.astype(dtype, copy=False)
    values = (_fma64(x, hi - lo, lo) if dtype == F64 else _fma32(x, hi - lo, lo)).astype(dtype, copy=False)
    return np.where(values == dtype.type(high), dtype.type(low), values)


# ================================================================ normal


def normal(
    gen: MT19937, n: int, dtype: Any, mean: float = 0.0, std: float = 1.0, contiguous: bool = True
) -> np.ndarray:
    """``n`` values from N(mean, std²), as ``normal_(mean, std)`` on a tensor of ``n`` elements."""
    dtype = np.dtype(dtype)
    if n >= _BLOCK and contiguous and dtype != F64:  # float16: float32 arithmetic, then rounded
        return _normal_fill32(gen, n, F32(mean), F32(std), dtype == F32).astype(dtype, copy=False)
    if n >= _BLOCK and contiguous:
        return _normal_fill64(gen, n, mean, std)
    return np.array([_normal_double(gen, mean, std) for _ in range(n)], dtype=F64).astype(dtype)


def _normal_double(gen: MT19937, mean: float, std: float) -> float:
    """One value of ``at::normal_distribution<double>``: Box–Muller, the second value kept."""
    if gen._next_double_normal is not None:
        z, gen._next_double_normal = gen._next_double_normal, None
    else:
        u1, u2 = (gen.random64(2) & _MASK53).astype(F64) * 2.0**-53
        r = math.sqrt(-2.0 * math.log1p(-u2))
        theta = 2.0 * math.pi * u1
        gen._next_double_normal = r * math.sin(theta)
        z = r * math.cos(theta)
    return z if (mean, std) == (0, 1) else float(_fma64(z, std, mean))


def _fill_blocks(uniforms: np.ndarray, n: int, box_muller: Any, tail: Any) -> np.ndarray:
    """normal_fill: Box–Muller on each whole block of 16; the last partial block is recomputed
    from 16 new uniforms (``tail()``) over the last 16 places. ``box_muller(blocks, out)`` writes
    the normal values of ``blocks`` (k × 16 uniforms) into ``out`` (k × 16), which may be ``blocks``."""
    out = uniforms  # in place, as torch: each chunk is read before it is written
    whole = n - n % _BLOCK
    for start in range(0, whole, _CHUNK * _BLOCK):
        stop = min(whole, start + _CHUNK * _BLOCK)
        box_muller(uniforms[start:stop].reshape(-1, _BLOCK), out[start:stop].reshape(-1, _BLOCK))
    if n % _BLOCK:
        box_muller(tail().reshape(1, _BLOCK), out[n - _BLOCK :].reshape(1, _BLOCK))
    return out


def _normal_fill32(gen: MT19937, n: int, mean: np.float32, std: np.float32, every_uniform: bool) -> np.ndarray:
    """float32's normal_fill; ``every_uniform=False`` for float16, whose kernel draws no uniforms for
    the places the recomputed last block covers."""

    def box_muller(blocks: np.ndarray, out: np.ndarray) -> None:
        radius = _log_ps(F32(1) - blocks[:, :8])
        radius *= F32(-2)
        np.sqrt(radius, out=radius)
        sin, cos = _sincos_ps(F32(2 * math.pi) * blocks[:, 8:])
        np.multiply(radius, cos, out=out[:, :8])
        np.multiply(radius, sin, out=out[:, 8:])
        if (mean, std) != (0, 1):
            out[...] = _fma32(out, std, mean)

    if every_uniform:
        uniforms = uniform(gen, n, F32)
    else:
        uniforms = np.empty(n, F32)
        uniforms[: n - n % _BLOCK] = uniform(gen, n - n % _BLOCK, F32)
    return _fill_blocks(uniforms, n, box_muller, lambda: uniform(gen, _BLOCK, F32))


def _normal_fill64(gen: MT19937, n: int, mean: float, std: float) -> np.ndarray:
    def box_muller(blocks: np.ndarray, out: np.ndarray) -> None:
        radius = np.sqrt(-2.0 * _log(1.0 - blocks[:, :8]))
        theta = 2.0 * math.pi * blocks[:, 8:]
        np.multiply(radius, np.cos(theta), out=out[:, :8])
        np.multiply(radius, np.sin(theta), out=out[:, 8:])
        if (mean, std) != (0, 1):
            out[...] = _fma64(out, std, mean)

    return _fill_blocks(uniform(gen, n, F64), n, box_muller, lambda: uniform(gen, _BLOCK, F64))


_EXTENDED = np.finfo(np.longdouble).nmant >= 63  # x87 80-bit long double (Linux, x86-64)


def _log(x: np.ndarray) -> np.ndarray:
    """The C library's log(x), elementwise: NumPy's own float64 log differs from it in the last bit
    for about 1 value in 300. With an 80-bit long double, its log rounded to float64 is the C
    library's except near a halfway point, where the C library computes those few itself."""
    if not _EXTENDED:
        return np.fromiter(map(math.log, x.ravel().tolist()), F64, x.size).reshape(x.shape)
    wide = np.log(x.astype(np.longdouble))
    y = wide.astype(F64)
    ulps = ((wide - y) / np.spacing(np.abs(y)).astype(np.longdouble)).astype(F64)
    near = np.flatnonzero(np.abs(ulps) > 0.47)  # the C library errs by at most 0.52 ulp
    flat = y.reshape(-1)
    flat[near] = [math.log(v) for v in x.reshape(-1)[near].tolist()]
    return y


# ------------------------------------------------ avx_mathfun.h: Cephes log and sincos in float32

_SQRTHF = F32(0.707106781186547524)
_LOG_P = [
    F32(c)
    for c in (
        7.0376836292e-2,
        -1.1514610310e-1,
        1.1676998740e-1,
        -1.2420140846e-1,
        1.4249322787e-1,
        -1.6668057665e-1,
        2.0000714765e-1,
        -2.4999993993e-1,
        3.3333331174e-1,
    )
]
_LOG_Q1, _LOG_Q2 = F32(-2.12194440e-4), F32(0.693359375)
_FOPI = F32(1.27323954473516)  # 4/π
_DP = (F32(-0.78515625), F32(-2.4187564849853515625e-4), F32(-3.77489497744594108e-8))  # -π/4 in three parts
_COS_P = (F32(2.443315711809948e-5), F32(-1.388731625493765e-3), F32(4.166664568298827e-2))
_SIN_P = (F32(-1.9515295891e-4), F32(8.3321608736e-3), F32(-1.6666654611e-1))


def _fma(t: np.ndarray, y: np.ndarray, b: np.ndarray, c: Any) -> np.ndarray:
    """``y = fma(y, b, c)`` in float32 (one rounding, as the vector instruction), in place: ``b`` is
    the float64 copy of a float32 array, ``t`` a float64 scratch array where y·b is exact."""
    np.multiply(y, b, out=t)  # y widened exactly: the product is exact in float64
    t += c
    np.copyto(y, t, casting="unsafe")
    return y


def _fma_const(t: np.ndarray, a: np.float32, b: np.ndarray, c: np.float32) -> np.ndarray:
    """fma(a, b, c) for a float32 constant ``a``, as a new float32 array (``b``: float64)."""
    np.multiply(b, a, out=t)
    t += c
    return t.astype(F32)


def _log_ps(x: np.ndarray) -> np.ndarray:
    """log256_ps for x in (0, 1] (torch's 1 - u: never 0, never subnormal): x = m·2ᵉ with m in
    [√½, √2), log x = e·ln 2 + log m, log m by a degree-9 polynomial in m - 1."""
    bits = x.view(np.int32)
    k = bits >> 23
    bits = bits & 0x007FFFFF
    bits |= 0x3F000000
    m = bits.view(F32)  # x's mantissa in [0.5, 1)
    small = m < _SQRTHF
    k -= 126
    k -= small
    e = k.astype(F32)
    m1 = m - F32(1)
    np.add(m1, m, out=m1, where=small)  # m - 1, or 2m - 1 below √½: both exact
    m = m1
    m64 = m.astype(F64)
    t = np.empty_like(m64)
    y = _fma_const(t, _LOG_P[0], m64, _LOG_P[1])
    for p in _LOG_P[2:]:
        _fma(t, y, m64, p)
    y *= m
    z = m * m
    _fma(t, y, z.astype(F64), e * _LOG_Q1)
    y -= z * F32(0.5)
    y += m
    y += e * _LOG_Q2  # fma(e, q2, m + y): e·q2 is exact in float32 (a small integer times 9 bits)
    return y


def _sincos_ps(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """sincos256_ps for x >= 0 (torch's θ = 2πv): x reduced by a multiple j of π/4 (the
    extended-precision three-part subtraction), then the Cephes sine and cosine polynomials,
    chosen and signed by j."""
    j = (x * _FOPI).astype(np.int32)
    j += 1
    j &= ~1
    y = j.astype(F32)
    use_cos_poly = (j & 2) == 0
    sign_sin = (j & 4) << 29
    j -= 2
    np.invert(j, out=j)
    j &= 4
    j <<= 29  # the cosine's sign
    x = x + y * _DP[0]  # j·DP1 and j·DP2 are exact in float32 (8 and 12 bits): the FMA is one rounding
    x += y * _DP[1]
    t = y.astype(F64)
    t *= _DP[2]
    t += x
    x = t.astype(F32)  # fma(j, DP3, x)
    x64 = x.astype(F64)
    z = x * x
    z64 = z.astype(F64)
    c = _fma_const(t, _COS_P[0], z64, _COS_P[1])
    _fma(t, c, z64, _COS_P[2])
    c *= z
    half = z * F32(0.5)
    half *= F32(-1)
    _fma(t, c, z64, half)
    c += F32(1)
    s = _fma_const(t, _SIN_P[0], z64, _SIN_P[1])
    _fma(t, s, z64, _SIN_P[2])
    s *= z
    _fma(t, s, x64, x64)
    sin, cos = np.where(use_cos_poly, s, c), np.where(use_cos_poly, c, s)
    sin.view(np.int32)[...] ^= sign_sin
    cos.view(np.int32)[...] ^= j
    return sin, cos


# ================================================================ integers


def integers(gen: MT19937, n: int, dtype: Any, low: int, high: int) -> np.ndarray:
    """``n`` integers in [low, high), as ``random_(low, high)``: ``w mod (high - low) + low``, with a
    64-bit draw when the range is 2³² or more (and the dtype can hold it). For a float dtype the
    ends first move inwards to integers it holds exactly, as torch's ``update_from``/``update_to``."""
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        low, high = _float_end(low, dtype, +1), _float_end(high, dtype, -1)
        if low >= high:
            raise RuntimeError(
                "random_ expects 'from' casted to dtype to be less than 'to' casted to dtype, but got "
                f"from={low} >= to={high}"
            )
    elif dtype.kind == "i":
        info = np.iinfo(dtype)
        for name, v in (("from", low), ("to - 1", high - 1)):
            if not info.min <= v <= info.max:
                raise RuntimeError(f"{name} is out of bounds for {'int' if dtype == np.int32 else 'long int'}")
    span = high - low
    wide = span >= 2**32 and dtype in (np.int64, F64, F32)
    w = gen.random64(n) if wide else gen.random(n)
    values = (w % np.uint64(span) + np.uint64(low % 2**64)).view(np.int64)  # wraps as torch's uint64
    return values.astype(dtype)


def _float_end(end: int, dtype: np.dtype, inwards: int) -> int:
    """``from`` (inwards = +1) or ``to`` (-1) of a float ``random_``: when ``end ± 1`` does not survive the
    cast to ``dtype``, the nearest value that does, one float step further in."""
    near = end + inwards
    held = int(dtype.type(near))
    if (held < end) if inwards > 0 else (held >= end):
        digits = np.finfo(dtype).nmant + 1
        return held + inwards * (1 << (abs(near).bit_length() - 1 - digits + 1))
    return end


def random_bits(gen: MT19937, n: int, dtype: Any) -> np.ndarray:
    """``random_()``: integers in [0, 2^mantissa] for a float dtype (every one it holds exactly),
    [0, max] for an integer dtype, 0 or 1 for bool."""
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return (gen.random(n) & np.uint64(1)).astype(dtype)
    if dtype.kind == "f":
        top = 2 ** (np.finfo(dtype).nmant + 1) + 1
        w = gen.random64(n) if dtype == F64 else gen.random(n)
    else:
        top = int(np.iinfo(dtype).max) + 1
        w = gen.random64(n) if dtype == np.int64 else gen.random(n)
    return (w % np.uint64(top)).astype(dtype)


# ================================================================ permutations, Bernoulli, exponential


def permutation(gen: MT19937, n: int) -> np.ndarray:
    """``randperm(n)``: torch's Fisher–Yates shuffle, for i = 0 .. n-2 position i swaps with
    i + (w mod (n - i)), one word w each. The loop, written out, is ``shuffled`` in
    tests/test_random_permutation.py; ``_swaps_applied`` gives its result with whole-array steps."""
    if n >= 2**32 // 20:
        raise NotImplementedError(
            f"gradbook's randperm takes n below {2**32 // 20} (got {n}): torch shuffles larger n otherwise"
        )
    offsets = gen.random(max(n - 1, 0)) % np.arange(n, 1, -1, dtype=np.uint32)
    return _swaps_applied(offsets.astype(np.int64), n)


def _swaps_applied(offsets: np.ndarray, n: int) -> np.ndarray:
    """The order after step i swapped places i and i + offsets[i], for every i in turn (the swaps
    come known in advance, so no loop over them is needed). Position p is final once step p has
    run: it keeps what it held when step p began, its *start*: what the last earlier step aimed at
    p moved there (that step's own start), else p's original value, so starts follow a chain of
    steps back to an untouched place (pointer doubling walks every chain at once). What a step
    finds at its target is what the previous step aimed at the same place moved there, else the
    target's original value. Choices between two arrays are bitwise (``a ^ ((a ^ b) & mask)``):
    ``np.where`` branches on each element and mispredicts on a mask like ``same``."""
    m = offsets.size
    targets = np.arange(m, dtype=np.int64)
    targets += offsets
    still = np.flatnonzero(offsets == 0)  # about ln n steps swap their place with itself:
    targets[still] = n  # they sort after every real target, and are cut off
    order = _stable_order(targets)[: m - still.size]  # the moving steps by target, then by step
    aimed = targets.take(order)
    same = aimed[1:] == aimed[:-1]  # a step with the same target as the next one
    mask = same.astype(np.int64)
    np.negative(mask, out=mask)  # all ones where ``same``
    start = np.arange(n + 1, dtype=np.int64)
    last = aimed[:-1] ^ n
    last &= mask
    last ^= aimed[:-1]  # where the step writes its number: its target if it is the last one aimed there, else n
    start[last] = order[:-1]
    start[aimed[-1:]] = order[-1:]
    start[n] = n  # for now: at each place, the last step aimed there
    deeper = np.empty_like(start)
    while not np.array_equal(np.take(start, start, out=deeper, mode="clip"), start):
        start, deeper = deeper, start
    found = aimed  # reused: what each step of ``order`` finds at its target
    earlier = start.take(order[:-1])  # the previous step's start, where it aimed at the same place
    earlier ^= found[1:]
    earlier &= mask
    found[1:] ^= earlier
    start[order] = found  # a place that no moving step starts from keeps its start
    return start[:n]


def _stable_order(values: np.ndarray) -> np.ndarray:
    """argsort, stable, of non-negative values below 2³²: NumPy's radix sort, 16 bits a pass."""
    order = np.argsort(values.astype(np.uint16), kind="stable")
    if values.size and values.max() >= 2**16:
        order = order[np.argsort((values[order] >> 16).astype(np.uint16), kind="stable")]
    return order


def bernoulli(gen: MT19937, p: Any, n: int) -> np.ndarray:
    """``n`` draws of ``u < p`` (1.0 or 0.0): ``p`` a number or float64 probabilities with a 53-bit u,
    float32 probabilities with a 24-bit u, as torch's default CPU kernel (torch's build for Intel
    CPUs draws ``bernoulli_(p)`` with a number p from MKL instead: see the README)."""
    if isinstance(p, np.ndarray) and p.dtype != F64:
        return (uniform(gen, n, F32) < p.astype(F32).reshape(-1)).astype(F64)
    return (uniform(gen, n, F64) < np.asarray(p, F64).reshape(-1)).astype(F64)


def exponential(gen: MT19937, n: int, lambd: float = 1.0) -> np.ndarray:
    """``n`` values of ``exponential_(lambd)`` in float64: ``-1/lambd · log(1 - u)``, u 53-bit."""
    return (-1.0 / lambd) * _log(1.0 - uniform(gen, n, F64))


def in_memory_order(values: np.ndarray, like: np.ndarray) -> np.ndarray:
    """An array shaped like ``like`` whose elements, walked in ``like``'s memory order (torch's
    TensorIterator order), are ``values``."""
    if like.flags.c_contiguous:
        return values.reshape(like.shape)
    offsets = sum(np.indices(like.shape, sparse=True)[d] * like.strides[d] for d in range(like.ndim))
    order = np.argsort(np.broadcast_to(offsets, like.shape).reshape(-1), kind="stable")
    out = np.empty(like.size, values.dtype)
    out[order] = values
    return out.reshape(like.shape)


def pick_with_replacement(gen: MT19937, weights: np.ndarray, n: int) -> np.ndarray:
    """``multinomial(weights, n, replacement=True)`` for one row: the running sum in the weights'
    dtype, divided by the total, the last set to 1; each draw a 53-bit u and the first category
    whose running sum reaches u."""
    cumulative = np.cumsum(weights)
    cumulative /= cumulative[-1]
    cumulative[-1] = 1
    return np.searchsorted(cumulative.astype(F64), uniform(gen, n, F64), side="left")
