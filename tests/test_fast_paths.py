"""The engine's named fast paths against the plain NumPy they stand for, bit for bit (signed
zeros, inf and nan included), on every shape kind: 0-d, broadcasting both ways, non-contiguous."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import gradbook
from gradbook.ops.rules import kept_or_zero

SPECIAL = [0.0, -0.0, np.inf, -np.inf, np.nan, 1.5, -2.0, 1e-40]


@settings(max_examples=300, deadline=None)
@given(
    dtype=st.sampled_from([np.float16, np.float32, np.float64]),
    shapes=hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=3, max_side=4),
    data=st.data(),
)
def test_kept_or_zero_is_where_keep_a_else_plus_zero(dtype, shapes, data):
    keep_shape, a_shape = shapes.input_shapes
    keep = data.draw(hnp.arrays(bool, keep_shape))
    a = data.draw(hnp.arrays(dtype, a_shape, elements=st.sampled_from(SPECIAL).map(dtype)))
    expected = np.where(keep, a, dtype(0))
    got = kept_or_zero(keep, a)
    assert got.dtype == expected.dtype and got.shape == expected.shape
    assert got.tobytes() == expected.tobytes()


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("shape", [(64, 80), (3, 50, 41)])
def test_kept_or_zero_on_arrays_large_enough_for_the_bitwise_path(dtype, shape):
    rng = np.random.default_rng(1)
    a = rng.choice(np.array(SPECIAL, dtype), shape)
    for keep in (rng.random(shape) < 0.5, a > 0, np.ones(shape, bool), np.zeros(shape, bool)):
        assert kept_or_zero(keep, a).tobytes() == np.where(keep, a, dtype(0)).tobytes()
    keep = rng.random(shape[-1:]) < 0.5  # broadcasting: NumPy's where, the same values
    assert kept_or_zero(keep, a).tobytes() == np.where(keep, a, dtype(0)).tobytes()


def test_kept_or_zero_on_a_non_contiguous_array():
    a = np.arange(24000, dtype=np.float32).reshape(40, 600)[:, ::2] - 5000
    keep = a > 0
    assert kept_or_zero(keep, a).tobytes() == np.where(keep, a, np.float32(0)).tobytes()


@pytest.mark.parametrize("value, grad", [(2.0, 1.0), (-1.0, 0.0), (0.0, 0.0), (float("nan"), 1.0)])
def test_relu_gradient_of_a_0d_tensor(value, grad):
    """(hand-derived: 1 where out > 0 or out is nan, as torch's threshold_backward, else +0)"""
    x = gradbook.tensor(value, requires_grad=True)
    x.relu().backward()
    assert x.grad.item() == grad and not np.signbit(x.grad.item())
