"""randperm's shuffle without its loop: ``_swaps_applied`` against the loop written out, on every
kind of swap sequence (no-op swaps, many swaps aimed at one place, long chains, n up to past 2¹⁶
where the radix sort takes a second pass), and randperm itself against the loop on torch's words."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gradbook
from gradbook._distributions import _stable_order, _swaps_applied


def shuffled(offsets, n):
    """torch's Fisher–Yates: step i swaps places i and i + offsets[i]."""
    order = list(range(n))
    for i, k in enumerate(offsets):
        j = i + k
        order[i], order[j] = order[j], order[i]
    return order


@st.composite
def swap_sequences(draw, max_n=40):
    n = draw(st.integers(0, max_n))
    offsets = [draw(st.integers(0, n - 1 - i)) for i in range(n - 1)]
    return offsets, n


@settings(max_examples=400, deadline=None)
@given(swap_sequences())
def test_the_swaps_applied_at_once_equal_the_loop(case):
    offsets, n = case
    assert _swaps_applied(np.array(offsets, dtype=np.int64), n).tolist() == shuffled(offsets, n)


@pytest.mark.parametrize(
    "name, offsets",
    [
        ("every step a no-op", lambda n: [0] * (n - 1)),
        ("every step aimed at the last place", lambda n: [n - 1 - i for i in range(n - 1)]),
        ("one long chain: each step aimed at the next place", lambda n: [1] * (n - 1)),
        ("reversal", lambda n: [max(n - 1 - 2 * i, 0) for i in range(n - 1)]),
    ],
)
@pytest.mark.parametrize("n", [1, 2, 3, 1000])
def test_hand_made_swap_sequences(name, offsets, n):
    off = offsets(n)
    assert _swaps_applied(np.array(off, dtype=np.int64), n).tolist() == shuffled(off, n)


@pytest.mark.parametrize("n", [65535, 65536, 65537, 200_003])
def test_randperm_equals_the_loop_on_torchs_words_past_one_radix_pass(n):
    gradbook.manual_seed(n)
    w = np.random.RandomState(n).randint(0, 2**32, size=n - 1, dtype=np.uint64)
    offsets = (w % np.arange(n, 1, -1, dtype=np.uint64)).tolist()
    got = gradbook.randperm(n).tolist()
    assert got == shuffled(offsets, n)
    assert sorted(got) == list(range(n))


def test_the_radix_order_is_a_stable_argsort():
    values = np.random.default_rng(5).integers(0, 2**32, 5000, dtype=np.int64) // 7919 * 7919
    assert np.array_equal(_stable_order(values), np.argsort(values, kind="stable"))
