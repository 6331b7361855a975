"""Convolutions against torch, fuzzed: conv1d/conv2d and conv_transpose1d/2d over groups, stride, padding,
dilation and output_padding, in float64 (values, and the gradients of input, weight and bias to 1e-10),
so that the matrix-product form of the kernels (im2col) is checked on every layout it reshapes."""

import numpy as np
import pytest

import gradbook

torch = pytest.importorskip("torch")


def _case(rng, nd, transposed):
    groups = int(rng.choice([1, 1, 2, 3]))
    cin, cout = groups * int(rng.integers(1, 3)), groups * int(rng.integers(1, 3))
    kernel = tuple(int(k) for k in rng.integers(1, 4, nd))
    stride = tuple(int(s) for s in rng.integers(1, 3, nd))
    dilation = tuple(int(d) for d in rng.integers(1, 3, nd))
    padding = tuple(int(rng.integers(0, k)) for k in kernel)
    size = tuple(int(s) for s in rng.integers(3, 8, nd))
    x = rng.standard_normal((int(rng.integers(1, 3)), cin) + size)
    if transposed:
        w = rng.standard_normal((cin, cout // groups) + kernel)
        output_padding = tuple(int(rng.integers(0, max(s, d))) for s, d in zip(stride, dilation))
        kwargs = {"stride": stride, "padding": padding, "output_padding": output_padding, "groups": groups,
                  "dilation": dilation}  # fmt: skip
    else:
        w = rng.standard_normal((cout, cin // groups) + kernel)
        kwargs = {"stride": stride, "padding": padding, "dilation": dilation, "groups": groups}
    b = rng.standard_normal(w.shape[1] * groups if transposed else cout)
    return x, w, b, kwargs


@pytest.mark.parametrize("nd", [1, 2])
@pytest.mark.parametrize("transposed", [False, True])
def test_convolutions_match_torch(nd, transposed):
    rng = np.random.default_rng(10 * nd + transposed)
    name = f"conv{'_transpose' if transposed else ''}{nd}d"
    compared = 0
    for _ in range(40):
        x, w, b, kwargs = _case(rng, nd, transposed)
        results = []
        for lib in (torch, gradbook):
            xs, ws, bs = (lib.tensor(a, requires_grad=True) for a in (x, w, b))
            try:
                y = getattr(lib.nn.functional, name)(xs, ws, bs, **kwargs)
            except RuntimeError as e:
                results.append(type(e).__name__)
                continue
            seed = lib.tensor(np.arange(y.numel(), dtype=np.float64).reshape(tuple(y.shape)) % 7 - 3)
            (y * seed).sum().backward()
            results.append([y.detach().numpy(), xs.grad.numpy(), ws.grad.numpy(), bs.grad.numpy()])
        if isinstance(results[0], str) or isinstance(results[1], str):
            assert results[0] == results[1], (kwargs, results)
            continue
        compared += 1
        for a, c in zip(*results):
            np.testing.assert_allclose(c, a, rtol=1e-10, atol=1e-10, err_msg=f"{name} {kwargs}")
    assert compared >= 20
