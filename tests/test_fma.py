"""``_fma.fma`` (x·y + z rounded once, as torch's compiled kernels compute ``start + step * i``)
against exact rational arithmetic, and ``linspace`` bit for bit against torch."""

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gradbook
from gradbook._fma import fma


def exactly_rounded(x, y, z, dtype):
    """x·y + z computed in rationals, then rounded to nearest (ties to even) in ``dtype``."""
    exact = Fraction(float(x)) * Fraction(float(y)) + Fraction(float(z))
    if dtype == np.float64:
        return float(exact)  # Fraction's float() rounds correctly
    near = np.float32(float(exact))
    candidates = [np.nextafter(near, np.float32(-np.inf)), near, np.nextafter(near, np.float32(np.inf))]
    best = min(abs(Fraction(float(c)) - exact) for c in candidates)
    closest = [c for c in candidates if abs(Fraction(float(c)) - exact) == best]
    return next(c for c in closest if len(closest) == 1 or int(c.view(np.uint32)) % 2 == 0)


finite32 = st.floats(-1e6, 1e6, width=32, allow_subnormal=False)
finite64 = st.floats(-1e12, 1e12, allow_subnormal=False)


@settings(max_examples=400, deadline=None)
@given(finite32, st.integers(0, 100_000), finite32)
def test_float32_fma_rounds_once(step, i, start):
    step, start = np.float32(step), np.float32(start)
    assert fma(step, i, start, np.float32)[()] == exactly_rounded(step, i, start, np.float32)


@settings(max_examples=400, deadline=None)
@given(finite64, finite64, finite64)
def test_float64_fma_rounds_once(x, y, z):
    assert fma(x, y, z, np.float64)[()] == exactly_rounded(x, y, z, np.float64)


def test_fma_settles_float32_halfway_cases_by_the_error():
    # 2^-24 · (2^24 + 1) = 1 + 2^-24: halfway between the float32 neighbours 1 and 1 + 2^-23
    step, i = np.float32(2.0**-24), 2**24 + 1
    assert fma(step, i, np.float32(2.0**-40), np.float32) == np.float32(1.0 + 2.0**-23)  # just above: up
    assert fma(step, i, np.float32(-(2.0**-40)), np.float32) == np.float32(1.0)  # just below: down
    assert fma(step, i, np.float32(0.0), np.float32) == np.float32(1.0)  # the tie itself: to even


def test_linspace_ends_exactly_and_hits_the_points_that_are_representable():
    x = gradbook.linspace(-1.0, 1.0, 11, dtype=gradbook.float64).tolist()
    assert x[0] == -1.0 and x[-1] == 1.0
    assert gradbook.linspace(0, 1, 5).tolist() == [0.0, 0.25, 0.5, 0.75, 1.0]
    assert gradbook.linspace(0, 10, 4, dtype=gradbook.int64).tolist() == [0, 3, 6, 10]  # 3.3 and 6.7 truncated


@pytest.mark.oracle
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
@pytest.mark.parametrize(
    "start, end, steps",
    [(-math.pi, math.pi, 2000), (0, 1, 11), (-3, 3, 100), (0.1, 7.3, 257), (3, -2, 17), (-10, 10, 5001), (2, 2, 3)],
)
def test_linspace_is_torchs_bit_for_bit(start, end, steps, dtype):
    T = pytest.importorskip("torch")
    want = T.linspace(start, end, steps, dtype=getattr(T, dtype)).numpy()
    got = gradbook.linspace(start, end, steps, dtype=getattr(gradbook, dtype)).numpy()
    assert got.dtype == want.dtype and np.array_equal(got, want)


def test_arange_steps_from_its_start_and_stops_before_the_end():
    assert gradbook.arange(0, 1, 0.25).tolist() == [0.0, 0.25, 0.5, 0.75]  # representable: exact
    assert gradbook.arange(3.0).tolist() == [0.0, 1.0, 2.0] and gradbook.arange(5).dtype == gradbook.int64
    assert gradbook.arange(10, -5, -4.5, dtype=gradbook.float64).tolist() == [10.0, 5.5, 1.0, -3.5]


@pytest.mark.oracle
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize(
    "start, end, step",
    [(0, 1, 0.1), (-1, 1, 0.05), (0, 2 * math.pi, 0.1), (0, 10, 0.01), (10, -5, -0.3), (0.5, 100.5, 0.7)]
    + [(0.5, 0.5 + 0.013 * n, 0.013) for n in (15, 16, 17, 32769, 70001)],  # vector blocks, the rest, threads
)
def test_arange_is_torchs_bit_for_bit(start, end, step, dtype):
    T = pytest.importorskip("torch")
    if n_threads() != T.get_num_threads():
        pytest.skip("torch runs with another thread count than its default here")
    want = T.arange(start, end, step, dtype=getattr(T, dtype)).numpy()
    got = gradbook.arange(start, end, step, dtype=getattr(gradbook, dtype)).numpy()
    assert got.dtype == want.dtype and np.array_equal(got, want)


def n_threads():
    import os

    return int(os.environ.get("OMP_NUM_THREADS") or os.cpu_count() or 1)


def test_float64_fma_rounds_once_where_the_product_is_subnormal():
    """Found by hypothesis in CI: 0.044715 · 3.7e-308 is subnormal, where TwoProduct's error term is
    itself rounded; those elements are computed exactly."""
    x, y, z = 0.044715, 3.7098630750395663e-308, 0.0
    assert fma(x, y, z, np.float64)[()] == exactly_rounded(x, y, z, np.float64)
    xs, ys, zs = np.array([x, 1.0, 1e-160]), np.array([y, 2.0, -3e-150]), np.array([z, 3.0, 1e-310])
    assert fma(xs, ys, zs, np.float64).tolist() == [exactly_rounded(*v, np.float64) for v in zip(xs, ys, zs)]
