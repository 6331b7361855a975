"""gradbook/_cascade.py adds float sums in torch's order. Checked two ways: against a literal, loop by
loop translation of ATen's cascade_sum (SumKernel.cpp: multi_row_sum, row_sum, vectorized_inner_sum,
vectorized_outer_sum), written here with one scalar addition at a time and no NumPy reductions; and,
with torch installed, against torch's own bits on one thread."""

import numpy as np
import pytest

from gradbook._cascade import VECTOR_BYTES, torch_sum

try:
    import torch
except ImportError:
    torch = None


def _ceil_log2(x):
    return 1 if x <= 2 else int(x - 1).bit_length()


def multi_row_sum(load, size, nrows, zero):
    """ATen's multi_row_sum: load(i, k) is row i, column k (a scalar or a list of lanes)."""
    power = max(4, _ceil_log2(size) // 4)
    step, mask = 1 << power, (1 << power) - 1
    acc = [[zero() for _ in range(nrows)] for _ in range(4)]
    i = 0
    while i + step <= size:
        for _ in range(step):
            for k in range(nrows):
                acc[0][k] = add(acc[0][k], load(i, k))
            i += 1
        for j in range(1, 4):
            for k in range(nrows):
                acc[j][k] = add(acc[j][k], acc[j - 1][k])
                acc[j - 1][k] = zero()
            if i & (mask << (j * power)):
                break
    while i < size:
        for k in range(nrows):
            acc[0][k] = add(acc[0][k], load(i, k))
        i += 1
    for j in range(1, 4):
        for k in range(nrows):
            acc[0][k] = add(acc[0][k], acc[j][k])
    return acc[0]


def row_sum(load, size, zero):
    """ATen's row_sum: load(i) is element i (a scalar or a list of lanes)."""
    size_ilp = size // 4
    parts = multi_row_sum(lambda i, k: load(i * 4 + k), size_ilp, 4, zero)
    for i in range(size_ilp * 4, size):
        parts[0] = add(parts[0], load(i))
    for k in range(1, 4):
        parts[0] = add(parts[0], parts[k])
    return parts[0]


def add(a, b):
    """One float addition, lane by lane for vectors (lists)."""
    if isinstance(a, list):
        return [x + y for x, y in zip(a, b)]
    return a + b


def inner_sum(values, dtype):
    """vectorized_inner_sum (or the scalar row_sum for fewer elements than a vector's lanes) of one row."""
    lanes = VECTOR_BYTES // np.dtype(dtype).itemsize
    x = [dtype(v) for v in values]
    zero = dtype(0)
    if len(x) < lanes:
        return zero + row_sum(lambda i: x[i], len(x), lambda: zero)
    vectors = len(x) // lanes
    acc = row_sum(lambda i: x[i * lanes : (i + 1) * lanes], vectors, lambda: [zero] * lanes)
    final = zero
    for v in x[vectors * lanes :]:
        final = final + v
    for v in acc:
        final = final + v
    return zero + final


def outer_sum(matrix, dtype):
    """vectorized_outer_sum (or scalar_outer_sum for fewer columns than a vector's lanes) of each column."""
    lanes = VECTOR_BYTES // np.dtype(dtype).itemsize
    rows_, width = matrix.shape
    x = [[dtype(v) for v in row] for row in matrix]
    zero = dtype(0)
    out = []
    group = 4 * lanes if width >= lanes else 4
    j = 0
    while j + group <= width:
        sums = multi_row_sum(lambda i, k, j=j: x[i][j + k], rows_, group, lambda: zero)
        out += sums
        j += group
    while j < width:
        out.append(row_sum(lambda i, j=j: x[i][j], rows_, lambda: zero))
        j += 1
    return [zero + v for v in out]


SIZES = [1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100, 255, 256, 257, 511, 512, 513, 1000, 2049]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_a_sum_is_atens_loops_addition_by_addition(dtype):
    rng = np.random.default_rng(0)
    for n in SIZES + list(rng.integers(2, 6000, 8)):
        a = rng.standard_normal(int(n)).astype(dtype)
        assert torch_sum(a) == inner_sum(a, dtype), n
        assert np.array_equal(torch_sum(a.reshape(1, -1), -1), [inner_sum(a, dtype)])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_row_and_column_sums_are_atens_loops(dtype):
    rng = np.random.default_rng(1)
    for shape in [(3, 5), (4, 40), (2, 300), (70, 3), (33, 8), (300, 37), (17, 70), (1, 9), (9, 1)]:
        a = rng.standard_normal(shape).astype(dtype)
        assert np.array_equal(torch_sum(a, 1), [inner_sum(row, dtype) for row in a]), shape
        if shape[1] == 1:  # one column is a contiguous vector: torch drops the dimension of size 1
            expected = [inner_sum(a[:, 0], dtype)]
        else:
            expected = outer_sum(a, dtype) if shape[0] > 1 else a[0]
        assert np.array_equal(torch_sum(a, 0), expected), shape


def test_other_reductions_are_numpys_and_keepdims_holds():
    a = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    assert np.array_equal(torch_sum(a, 1), a.sum(1))  # a middle dimension: NumPy's
    assert torch_sum(a, keepdims=True).shape == (1, 1, 1)
    assert torch_sum(a, -1, keepdims=True).shape == (2, 3, 1)
    assert torch_sum(np.arange(5), None) == 10  # integers: NumPy's, exact
    assert np.array_equal(torch_sum(a[:, ::2], -1), a[:, ::2].sum(-1))  # not contiguous: NumPy's


@pytest.mark.oracle
@pytest.mark.skipif(torch is None, reason="torch is not installed")
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_sums_and_means_give_torchs_bits(dtype):
    import gradbook

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        rng = np.random.default_rng(2)
        for n in SIZES + [32767, 40000, 100000] + list(rng.integers(2, 30000, 20)):
            a = rng.standard_normal(int(n)).astype(dtype)
            assert torch_sum(a) == torch.from_numpy(a).sum().numpy(), n
            assert gradbook.tensor(a).mean().item() == torch.from_numpy(a).mean().item(), n
        for shape in [(64, 1000), (3, 70001), (300, 37), (37, 5, 9), (600, 1)]:
            a = rng.standard_normal(shape).astype(dtype)
            t = torch.from_numpy(a)
            assert np.array_equal(torch_sum(a, -1), t.sum(-1).numpy()), shape
            assert np.array_equal(torch_sum(a, 0), t.sum(0).numpy()), shape
        for shape in [(7, 9), (40, 33), (1, 50)]:  # every dimension named, and a transpose (memory order)
            a = rng.standard_normal(shape).astype(dtype)
            t = torch.from_numpy(a)
            assert torch_sum(a, (0, 1)) == t.sum((0, 1)).numpy(), shape
            assert torch_sum(a.T) == t.t().sum().numpy(), shape
        x, y = rng.standard_normal((128, 10)).astype(dtype), rng.standard_normal((128, 10)).astype(dtype)
        ours = gradbook.nn.functional.mse_loss(gradbook.tensor(x), gradbook.tensor(y)).item()
        assert ours == torch.nn.functional.mse_loss(torch.from_numpy(x), torch.from_numpy(y)).item()
    finally:
        torch.set_num_threads(threads)
