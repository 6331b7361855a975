"""gradbook/_softmax.py computes float32 softmax, log_softmax and nll_loss as torch's CPU kernels do.
Checked against literal translations of ATen's loops (vec::reduce_all, nll_loss_out_frame's cascade),
written here one scalar operation at a time; against the accuracy SLEEF documents for its exp (1 ulp);
and, with torch installed, against torch's own bits on one thread through gradbook's public API."""

import math

import numpy as np
import pytest

import gradbook
from gradbook import _softmax

try:
    import torch
except ImportError:
    torch = None

# torch's bits were checked on AVX-512 CPUs (SLEEF's AVX-512 log, 16 lanes); other CPUs run other kernels
ORACLE = pytest.mark.skipif(
    torch is None or torch.backends.cpu.get_cpu_capability() != "AVX512",
    reason="torch oracle on an AVX-512 CPU (where gradbook/_softmax.py's bits were verified)",
)

f32 = np.float32


def reduce_all_sum(row, lanes):
    """ATen's vec::reduce_all(+) over one row, lane by lane (functional_base.h)."""
    n = len(row)
    if n < lanes:
        acc = row[0]
        for i in range(1, n):
            acc = f32(acc + row[i])
        return acc
    acc = [row[k] for k in range(lanes)]
    d = lanes
    while d < n - n % lanes:
        acc = [f32(acc[k] + row[d + k]) for k in range(lanes)]
        d += lanes
    for k in range(n - d):  # Vec::set(acc, acc + tail, n - d): the first n - d lanes only
        acc[k] = f32(acc[k] + row[d + k])
    width = lanes
    while width > 1:  # the shuffles: lane k + lane k + width/2
        width //= 2
        acc = [f32(acc[k] + acc[k + width]) for k in range(width)]
    return acc[0]


@pytest.mark.parametrize("n", [1, 2, 7, 15, 16, 17, 31, 32, 33, 100, 257])
def test_lane_sum_is_reduce_all(n):
    rows = np.random.default_rng(n).standard_normal((5, n)).astype(f32) * f32(1000)
    got = _softmax.lane_sum(rows)
    for row, value in zip(rows, got):
        assert value.view(np.int32) == reduce_all_sum(list(row), _softmax.lanes()).view(np.int32)


def test_expf_is_within_one_ulp_and_keeps_the_edges():
    x = np.concatenate([np.random.default_rng(0).uniform(-103, 88, 200_000), np.linspace(-20, 20, 10_001)]).astype(f32)
    got = _softmax.expf(x).astype(np.float64)
    exact = np.exp(x.astype(np.float64))
    ulp = np.spacing(exact.astype(f32)).astype(np.float64)
    assert np.max(np.abs(got - exact) / ulp) <= 1.0  # SLEEF's bound for expf_u10
    edges = np.array([-np.inf, -200, -104.5, 100.5, np.inf, np.nan, 0], f32)
    with np.errstate(all="raise"):  # and no NumPy warning on the way
        out = _softmax.expf(edges)
    assert out[:4].tolist() == [0, 0, 0, np.inf] and out[4] == np.inf and np.isnan(out[5]) and out[6] == 1


def test_libc_expf_is_the_c_librarys():
    import ctypes.util

    name = ctypes.util.find_library("m")
    if name is None or "libm.so.6" not in name:
        pytest.skip("glibc's libm is the reference")
    libm = ctypes.CDLL(name)
    libm.expf.restype, libm.expf.argtypes = ctypes.c_float, [ctypes.c_float]
    rng = np.random.default_rng(2)
    x = np.concatenate([rng.uniform(-20, 0, 50_000), rng.uniform(-110, 90, 20_000), [np.inf, -np.inf, 0, 88.72283]])
    x = x.astype(f32)
    expected = np.array([libm.expf(float(v)) for v in x], f32)
    assert np.array_equal(_softmax.libc_expf(x).view(np.int32), expected.view(np.int32))
    assert np.isnan(_softmax.libc_expf(np.array([np.nan], f32))).all()


def test_logf_is_within_one_ulp_and_keeps_the_edges():
    x = np.concatenate([np.random.default_rng(3).uniform(1, 1000, 100_000), [1.5, 0.75, 1e-40, 3e38]]).astype(f32)
    got = _softmax.logf(x).astype(np.float64)
    exact = np.log(x.astype(np.float64))
    assert np.max(np.abs(got - exact) / np.spacing(np.abs(exact).astype(f32))) <= 1.0
    edges = _softmax.logf(np.array([0, -0.0, np.inf, -1, np.nan, 1], f32))
    assert edges[:3].tolist() == [-np.inf, -np.inf, np.inf] and np.isnan(edges[3:5]).all() and edges[5] == 0


def nll_loop(values, kept):
    """ATen's nll_loss_out_frame: the cascade of partial sums, one element at a time."""
    n = len(values)
    power = max(4, (1 if n <= 2 else (n - 1).bit_length()) // 8)
    mask = (1 << power) - 1
    levels = [f32(0)] * 8
    for b in range(n):
        if not kept[b]:
            continue
        levels[0] = f32(levels[0] + values[b])
        for j in range(7):
            if b & (mask << (j * power)):
                break
            levels[j + 1] = f32(levels[j + 1] + levels[j])
            levels[j] = f32(0)
    total = f32(0)
    for level in levels:
        total = f32(total + level)
    return total


@pytest.mark.parametrize("n", [1, 2, 15, 16, 17, 33, 256, 257, 1000, 4097, 70_000])
def test_nll_sum_is_the_cascade(n):
    rng = np.random.default_rng(n)
    values = rng.standard_normal(n).astype(f32) * f32(3)
    everything = np.ones(n, bool)
    assert _softmax.nll_sum(values, everything).view(np.int32) == nll_loop(values, everything).view(np.int32)
    kept = rng.random(n) > 0.1
    assert _softmax.nll_sum(values, kept).view(np.int32) == nll_loop(values, kept).view(np.int32)


def test_softmax_is_close_to_float64_and_float64_tensors_keep_numpy():
    x = np.random.default_rng(1).standard_normal((50, 13)).astype(f32) * f32(4)
    exact = np.exp(x - x.max(1, keepdims=True).astype(np.float64))
    exact /= exact.sum(1, keepdims=True)
    got = gradbook.tensor(x).softmax(1).numpy()  # x - max is rounded to float32 first: ~|x - max| ulp
    assert got.dtype == np.float32 and np.max(np.abs(got - exact) / exact) < 1e-5
    np.testing.assert_allclose(gradbook.tensor(x.astype(np.float64)).softmax(1).numpy(), exact, rtol=1e-13)
    lsm = gradbook.tensor(x).log_softmax(0).numpy()
    ref0 = x - np.log(np.exp(x.astype(np.float64)).sum(0, keepdims=True))
    assert np.max(np.abs(lsm - ref0)) < 1e-5


CASES = [
    ((300, 10), 1),
    ((300, 2), 1),
    ((40, 37), 1),
    ((7,), 0),
    ((10, 3), 0),
    ((4, 20, 5), 1),
    ((3, 6, 5, 7), 1),
    ((2, 17, 40), 1),
    ((64, 10), 0),
    ((5, 4, 3), 0),
    ((6, 40), 0),
    ((2, 3, 20), -1),
]


@ORACLE
@pytest.mark.parametrize("shape,dim", CASES)
@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
def test_softmax_values_and_gradients_are_torchs_bits(shape, dim, name):
    torch.set_num_threads(1)
    rng = np.random.default_rng(math.prod(shape) + dim)
    x = rng.standard_normal(shape).astype(f32) * f32(3)
    seed = rng.standard_normal(shape).astype(f32)
    outs = []
    for lib in (gradbook, torch):
        t = lib.tensor(x, requires_grad=True)
        y = getattr(t, name)(dim)
        y.backward(lib.tensor(seed))
        outs.append((y.detach().numpy(), t.grad.numpy()))
    (y_g, grad_g), (y_t, grad_t) = outs
    assert np.array_equal(y_g.view(np.int32), y_t.view(np.int32))
    assert np.array_equal(grad_g.view(np.int32), grad_t.view(np.int32))


@ORACLE
@pytest.mark.parametrize("n", [1, 3, 32, 64, 200])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_cross_entropy_and_nll_loss_are_torchs_bits(n, reduction):
    torch.set_num_threads(1)
    rng = np.random.default_rng(n)
    for trial in range(12):
        x = rng.standard_normal((n, 10)).astype(f32) * f32(2)
        target = rng.integers(0, 10, n)
        weight = rng.uniform(0.1, 2, 10).astype(f32) if trial % 2 else None
        kwargs = {"reduction": reduction, "ignore_index": 2 if trial % 3 == 0 else -100}
        scale = (1.0, 0.7, 3.0)[trial % 3]
        outs = []
        for lib in (gradbook, torch):
            logits = lib.tensor(x, requires_grad=True)
            w = None if weight is None else lib.tensor(weight)
            loss = lib.nn.functional.cross_entropy(logits, lib.tensor(target), weight=w, **kwargs)
            (loss * scale).sum().backward()
            nll = lib.nn.functional.nll_loss(lib.tensor(x), lib.tensor(target), weight=w, **kwargs)
            outs.append([loss.detach().numpy(), logits.grad.numpy(), nll.numpy()])
        for a, b in zip(*outs):
            assert np.array_equal(a.view(np.int32), b.view(np.int32)), (trial, a, b)


@ORACLE
@pytest.mark.parametrize("shape", [(2, 3, 4, 5), (1, 1, 6, 6), (2, 4, 37), (3, 5), (5,)])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_losses_per_pixel_and_their_zeros_are_torchs_bits(shape, reduction):
    """Bits include the sign of zero: a weight of 0, an ignored target, one class (the review's cases)."""
    torch.set_num_threads(1)
    rng = np.random.default_rng(len(shape) * 7 + shape[-1])
    classes = shape[1] if len(shape) > 1 else shape[0]
    target_shape = shape[:1] + shape[2:] if len(shape) > 1 else ()
    for trial in range(6):
        x = rng.standard_normal(shape).astype(f32) * f32(3)
        target = rng.integers(0, classes, target_shape)
        weight = np.where(np.arange(classes) % 2, rng.uniform(0.1, 3, classes), 0).astype(f32) if trial % 2 else None
        kwargs = {"reduction": reduction, "ignore_index": 1 if trial % 3 == 1 else -100}
        seed = rng.standard_normal(target_shape if reduction == "none" else ()).astype(f32)
        outs = []
        for lib in (gradbook, torch):
            for fn in (lib.nn.functional.cross_entropy, lib.nn.functional.nll_loss):
                logits = lib.tensor(x, requires_grad=True)
                w = None if weight is None else lib.tensor(weight)
                loss = fn(logits, lib.tensor(target), weight=w, **kwargs)
                loss.backward(lib.tensor(seed))
                outs.append([loss.detach().numpy(), logits.grad.numpy()])
        for a, b in zip(sum(outs[:2], []), sum(outs[2:], [])):
            assert np.array_equal(np.asarray(a).view(np.int32), np.asarray(b).view(np.int32)), (trial, a, b)
