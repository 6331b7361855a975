"""max_pool2d against torch on windows with ties, nans, -inf and padding: the value, the index torch's loop
picks (the first largest, a later nan, the first real place of a window of -inf only) and the gradient,
which goes to that one place. Fuzzed over kernel, stride, padding and dilation."""

import numpy as np
import pytest

import gradbook

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("seed", range(6))
def test_max_pool2d_picks_torchs_place(seed):
    rng = np.random.default_rng(seed)
    compared = 0
    for trial in range(60):
        x = rng.integers(-2, 3, (2, 3, 7, 8)).astype(np.float32)  # small integers: many ties
        if trial % 3 == 0:
            x[rng.random(x.shape) < 0.1] = np.nan
        if trial % 5 == 0:
            x[rng.random(x.shape) < 0.3] = -np.inf
        if trial % 7 == 0:
            x[:] = -np.inf
        k, s, d = int(rng.integers(1, 4)), int(rng.integers(1, 3)), int(rng.integers(1, 3))
        p = int(rng.integers(0, k // 2 + 1))
        outs = []
        for lib in (torch, gradbook):
            t = lib.tensor(x, requires_grad=True)
            try:
                y, idx = lib.nn.functional.max_pool2d(t, k, s, p, d, return_indices=True)
            except RuntimeError as e:
                outs.append(str(e))
                continue
            weights = lib.tensor(np.arange(y.numel(), dtype=np.float32).reshape(y.shape))
            (y * weights).sum().backward()
            outs.append((y.detach().numpy(), idx.numpy(), t.grad.numpy()))
        if isinstance(outs[0], str) or isinstance(outs[1], str):
            assert isinstance(outs[0], str) and isinstance(outs[1], str), outs
            continue
        compared += 1
        for a, b in zip(*outs):
            np.testing.assert_array_equal(a, b, err_msg=f"kernel {k} stride {s} padding {p} dilation {d}")
    assert compared > 30
