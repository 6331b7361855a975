"""``fma(x, y, z)``: x·y + z rounded once, as the fused multiply-add instruction that torch's CPU
kernels are compiled to (``start + step * i`` in ``linspace`` is one FMA there, so its values differ
from NumPy's two roundings in the last bit). NumPy has no FMA, so this computes it exactly:

- float32: x·y is exact in float64 (24 + 24 bits); the sum with z is split into a float64 and its
  exact error (TwoSum), and a float32 halfway case is settled by the sign of that error;
- float64: x·y is split into a float64 and its exact error (Dekker's TwoProduct), added to z in
  the same way, with the small part rounded to odd (Boldo and Melquiond's emulated FMA). Where x·y
  is so small that its error would itself be rounded (near the subnormals), the element is computed
  exactly in rationals instead.

Finite values only (the factories that call it check their bounds first).
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

_SPLIT = 2.0**27 + 1  # Veltkamp's constant for float64
_TINY = 2.0**-969  # below this a product's low half falls into the subnormals (2^-1022 · 2^53)


def _two_sum(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """s, e with s = fl(a + b) and s + e = a + b exactly."""
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


def _two_prod(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """p, e with p = fl(a · b) and p + e = a · b exactly (no overflow)."""
    p = a * b
    ca, cb = _SPLIT * a, _SPLIT * b
    ah, bh = ca - (ca - a), cb - (cb - b)
    al, bl = a - ah, b - bh
    return p, ((ah * bh - p) + ah * bl + al * bh) + al * bl


def _odd(v: np.ndarray, rest: np.ndarray) -> np.ndarray:
    """v + rest (v the nearest float64 to it) rounded to odd: v, or its neighbour toward rest when
    rest is not 0 and v's last bit is even."""
    even = (v.view(np.int64) & 1) == 0
    return np.where((rest != 0) & even, np.nextafter(v, np.where(rest > 0, np.inf, -np.inf)), v)


def fma(x: np.ndarray, y: np.ndarray, z: np.ndarray, dtype: type) -> np.ndarray:
    """x·y + z in ``dtype`` (np.float32 or np.float64), rounded once."""
    x, y, z = (np.asarray(v, dtype=np.float64) for v in np.broadcast_arrays(x, y, z))
    if dtype == np.float32:
        s, e = _two_sum(x * y, z)  # x·y exact: s + e is the exact result
        r = s.astype(np.float32)
        other = np.nextafter(r, np.where(s > r, np.float32(np.inf), np.float32(-np.inf)))
        halfway = (r.astype(np.float64) + other.astype(np.float64) == 2 * s) & (e != 0)
        toward = np.where(e > 0, np.maximum(r, other), np.minimum(r, other))  # the exact side
        return np.where(halfway, toward, r)
    p, pe = _two_prod(x, y)
    s, t = _two_sum(p, z)
    small, rest = _two_sum(t, pe)
    out = s + _odd(small, rest)
    tiny = (p != 0) & (np.abs(p) < _TINY)  # x·y near or below the subnormals: TwoProduct's error is rounded
    if tiny.any():
        out = np.array(out)  # writable, 0-d included
        for k in np.argwhere(tiny):  # rare: exactly, in rationals (Fraction's float rounds once)
            k = tuple(k)
            out[k] = float(Fraction(float(x[k])) * Fraction(float(y[k])) + Fraction(float(z[k])))
    return out
