"""Seeded random numbers are torch's: one line per case, torch decides, bit for bit.

Each case runs after ``manual_seed(seed)`` on gradbook and on torch; every tensor it returns must
hold the same bits (same dtype, shape and values). The oracle group is skipped without torch; the
tests after it check hand-computed values from the raw mt19937 words and need only NumPy.
"""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

import gradbook

SEEDS = [0, 1, 42, 2**32 + 5, 2**63 + 12345, -7]
SIZES = [1, 15, 16, 17, 100]
DTYPES = ["float32", "float64"]


def draws(T, seed, program):
    T.manual_seed(seed)
    out = program(T)
    return [np.asarray(v.detach().numpy()) for v in (out if isinstance(out, (list, tuple)) else [out])]


def same_bits(a, b):
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


def _per_dtype():
    cases = {}
    for d in DTYPES:
        for n in SIZES:
            cases[f"rand({n}) {d}"] = lambda T, n=n, d=d: T.rand(n, dtype=getattr(T, d))
            cases[f"randn({n}) {d}"] = lambda T, n=n, d=d: T.randn(n, dtype=getattr(T, d))
            cases[f"uniform_(-1/3, 2.5) on {n} {d}"] = lambda T, n=n, d=d: T.empty(n, dtype=getattr(T, d)).uniform_(
                -1 / 3, 2.5
            )
            cases[f"normal_(0.3, 2.7) on {n} {d}"] = lambda T, n=n, d=d: T.empty(n, dtype=getattr(T, d)).normal_(
                0.3, 2.7
            )
        cases[f"rand_like, randn_like {d}"] = lambda T, d=d: [
            T.rand_like(T.ones(3, 7, dtype=getattr(T, d))),
            T.randn_like(T.ones(3, 7, dtype=getattr(T, d))),
        ]
        cases[f"randn(1000) {d}"] = lambda T, d=d: T.randn(1000, dtype=getattr(T, d))
        cases[f"rand, randn, rand {d}"] = lambda T, d=d: [
            T.rand(5, dtype=getattr(T, d)),
            T.randn(3, dtype=getattr(T, d)),
            T.rand(17, dtype=getattr(T, d)),
        ]
        cases[f"randn(3), randn(20), randn(1) {d}"] = lambda T, d=d: [
            T.randn(3, dtype=getattr(T, d)),
            T.randn(20, dtype=getattr(T, d)),
            T.randn(1, dtype=getattr(T, d)),
        ]
        cases[f"normal(tensor, tensor) {d}"] = lambda T, d=d: T.normal(
            T.arange(20, dtype=getattr(T, d)) / 7, T.arange(20, dtype=getattr(T, d)) / 3 + 0.1
        )
        cases[f"normal(tensor, 2.5) {d}"] = lambda T, d=d: T.normal(T.arange(20, dtype=getattr(T, d)) / 7, 2.5)
        cases[f"normal(tensor of 5, 2.5) {d}"] = lambda T, d=d: T.normal(T.arange(5, dtype=getattr(T, d)) / 7, 2.5)
        cases[f"normal(1.5, tensor) {d}"] = lambda T, d=d: T.normal(1.5, T.arange(20, dtype=getattr(T, d)) / 3 + 0.1)
        cases[f"normal(-0.5, 3.0, size) {d}"] = lambda T, d=d: T.normal(-0.5, 3.0, size=(4, 5), dtype=getattr(T, d))
        cases[f"normal_ on a transposed view {d}"] = lambda T, d=d: T.zeros(20, 30, dtype=getattr(T, d)).t().normal_()
        cases[f"uniform_ on a transposed view {d}"] = lambda T, d=d: T.zeros(20, 30, dtype=getattr(T, d)).t().uniform_()
        cases[f"bernoulli(p) {d}"] = lambda T, d=d: T.bernoulli(T.rand(100, dtype=getattr(T, d)))
    for d in ["int64", "int32", "float32", "float64"]:
        cases[f"randint(0, 10, (50,)) {d}"] = lambda T, d=d: T.randint(0, 10, (50,), dtype=getattr(T, d))
        cases[f"randint(-7, 2**25, (50,)) {d}"] = lambda T, d=d: T.randint(-7, 2**25, (50,), dtype=getattr(T, d))
        cases[f"random_() {d}"] = lambda T, d=d: T.zeros(50, dtype=getattr(T, d)).random_()
        cases[f"random_(9) {d}"] = lambda T, d=d: T.zeros(50, dtype=getattr(T, d)).random_(9)
        cases[f"random_(-3, 9) {d}"] = lambda T, d=d: T.zeros(50, dtype=getattr(T, d)).random_(-3, 9)
    return cases


CASES = {
    **_per_dtype(),
    "rand(16) float16": lambda T: T.rand(16, dtype=T.float16),
    "randn(40) float16": lambda T: T.randn(40, dtype=T.float16),
    "randint(-7, 2**33)": lambda T: T.randint(-7, 2**33, (50,)),
    "randint(-2**62, 2**62)": lambda T: T.randint(-(2**62), 2**62, (50,)),
    "randint(5, (2, 3)), randint_like": lambda T: [T.randint(5, (2, 3)), T.randint_like(T.ones(4), 3, 9)],
    **{f"randperm({n})": (lambda T, n=n: T.randperm(n)) for n in (0, 1, 2, 5, 17, 100, 1000)},
    "bernoulli(zeros, 0.3)": lambda T: T.bernoulli(T.zeros(100), 0.3),
    "bernoulli_(0.3)": lambda T: T.zeros(100).bernoulli_(0.3),
    "bernoulli_(tensor)": lambda T: T.zeros(100).bernoulli_(T.rand(100)),
    "multinomial(p, 1)": lambda T: T.multinomial(T.tensor([0.1, 0.2, 0.3, 0.4]), 1),
    "multinomial(rows, 3)": lambda T: T.multinomial(T.rand(5, 10), 3),
    "multinomial(rows, 10), every category": lambda T: T.multinomial(T.rand(3, 10), 10),
    "multinomial(rows, 20, replacement=True)": lambda T: T.multinomial(T.rand(3, 10), 20, replacement=True),
    "a Generator of its own": lambda T: [
        T.rand(3, generator=T.Generator().manual_seed(5)),
        T.randn(20, generator=T.Generator().manual_seed(5)),
        T.rand(2),
    ],
    "nn.Linear(3, 2)": lambda T: list(T.nn.Linear(3, 2).parameters()),
    "nn.Linear(784, 128), nn.Linear(128, 10)": lambda T: [
        *T.nn.Linear(784, 128).parameters(),
        *T.nn.Linear(128, 10).parameters(),
    ],
    "nn.Linear(4, 3, bias=False)": lambda T: T.nn.Linear(4, 3, bias=False).weight,
    "nn.Embedding(10, 3)": lambda T: T.nn.Embedding(10, 3).weight,
    "nn.Embedding(10, 3, padding_idx=0)": lambda T: T.nn.Embedding(10, 3, padding_idx=0).weight,
    "nn.init.uniform_, normal_": lambda T: [
        T.nn.init.uniform_(T.empty(3, 5), -2.0, 2.0),
        T.nn.init.normal_(T.empty(4, 5), 1.0, 0.5),
    ],
    "nn.init.kaiming_uniform_, kaiming_normal_": lambda T: [
        T.nn.init.kaiming_uniform_(T.empty(6, 5), nonlinearity="relu"),
        T.nn.init.kaiming_normal_(T.empty(6, 5), mode="fan_out"),
    ],
    "nn.init.xavier_uniform_, xavier_normal_": lambda T: [
        T.nn.init.xavier_uniform_(T.empty(6, 5)),
        T.nn.init.xavier_normal_(T.empty(6, 5), gain=2.0),
    ],
    "dropout(p=0.3) (torch's kernel for AMD CPUs)": lambda T: T.nn.functional.dropout(T.ones(100), 0.3),
    "nn.Dropout(0.5) in training": lambda T: T.nn.Dropout(0.5)(T.ones(4, 5)),
    "random_split": lambda T: [T.tensor(s.indices) for s in T.utils.data.random_split(range(10), [0.3, 0.7])],
    "DataLoader(shuffle=True), two epochs": lambda T: (
        lambda loader: [T.cat([b[0] for b in loader]) for _ in range(2)] + [T.rand(2)]
    )(T.utils.data.DataLoader(T.utils.data.TensorDataset(T.arange(10.0)), batch_size=4, shuffle=True)),
    "DataLoader(shuffle=True, generator=g), two epochs": lambda T: (
        lambda g: (lambda loader: [T.cat([b[0] for b in loader]) for _ in range(2)] + [T.rand(2, generator=g)])(
            T.utils.data.DataLoader(T.utils.data.TensorDataset(T.arange(7.0)), batch_size=3, shuffle=True, generator=g)
        )
    )(T.Generator().manual_seed(5)),
    "a DataLoader without shuffling still draws its base seed": lambda T: (
        [b[0] for b in T.utils.data.DataLoader(T.utils.data.TensorDataset(T.arange(4.0)), batch_size=2)][-1],
        T.rand(3),
    ),
    "get_rng_state() bytes": lambda T: (T.rand(5), T.randn(3), T.tensor(T.get_rng_state().tolist()))[-1],
}


@pytest.mark.oracle
@pytest.mark.filterwarnings("ignore:to - 1 is out of bounds")  # torch's warning for randint(-7, 2**25) in float32
@pytest.mark.parametrize("seed", SEEDS, ids=lambda s: f"seed={s}")
@pytest.mark.parametrize("name", CASES)
def test_the_draws_are_torchs_bit_for_bit(name, seed):
    torch = pytest.importorskip("torch")
    ours, theirs = draws(gradbook, seed, CASES[name]), draws(torch, seed, CASES[name])
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs):
        assert same_bits(a, b), f"{name}: {(a == b).mean():.4f} of the values agree"


@pytest.mark.oracle
def test_a_state_from_torch_continues_torchs_stream():
    torch = pytest.importorskip("torch")
    t = torch.Generator().manual_seed(3)
    torch.randn(5, generator=t)  # leaves a cached Box–Muller value in the state
    g = gradbook.Generator().set_state(t.get_state())
    assert g.initial_seed() == 3
    assert np.array_equal(torch.randn(7, generator=t).numpy(), gradbook.randn(7, generator=g).numpy())
    g.manual_seed(9)
    gradbook.rand(700, generator=g)
    t.set_state(torch.tensor(g.get_state().tolist(), dtype=torch.uint8))
    assert np.array_equal(torch.rand(9, generator=t).numpy(), gradbook.rand(9, generator=g).numpy())


# ------------------------------------------------ without torch: the raw mt19937 words, by hand


def words(seed, n):
    """mt19937's first n 32-bit words after init_genrand(seed mod 2³²): NumPy's legacy RandomState."""
    return np.random.RandomState(seed % 2**32).randint(0, 2**32, size=n, dtype=np.uint64)


@pytest.mark.parametrize("seed", SEEDS)
def test_rand_keeps_the_low_24_bits_of_each_word(seed):
    gradbook.manual_seed(seed)
    expected = ((words(seed, 5) & 0xFFFFFF) * 2.0**-24).astype(np.float32)
    assert np.array_equal(gradbook.rand(5).numpy(), expected)


@pytest.mark.parametrize("seed", SEEDS)
def test_a_float64_rand_keeps_53_bits_of_two_words_first_one_high(seed):
    w = words(seed, 6)
    expected = (((w[0::2] << np.uint64(32)) | w[1::2]) & np.uint64(2**53 - 1)) * 2.0**-53
    gradbook.manual_seed(seed)
    assert np.array_equal(gradbook.rand(3, dtype=gradbook.float64).numpy(), expected)


def test_randint_is_each_word_mod_the_range_plus_low():
    gradbook.manual_seed(42)
    assert gradbook.randint(-3, 10, (6,)).tolist() == (words(42, 6) % 13 - 3).tolist()


def test_randperm_swaps_each_position_with_a_later_one():
    w = words(0, 9)
    order = list(range(10))
    for i in range(9):
        j = i + int(w[i] % (10 - i))
        order[i], order[j] = order[j], order[i]
    gradbook.manual_seed(0)
    assert gradbook.randperm(10).tolist() == order


def test_randn_below_16_is_box_muller_in_double_keeping_the_second_value():
    w = words(0, 4)
    u1, u2 = (((w[0::2] << np.uint64(32)) | w[1::2]) & np.uint64(2**53 - 1)) * 2.0**-53
    r, theta = np.sqrt(-2.0 * np.log1p(-u2)), 2.0 * np.pi * u1
    gradbook.manual_seed(0)
    a, b = gradbook.randn(1, dtype=gradbook.float64).item(), gradbook.randn(1, dtype=gradbook.float64).item()
    assert (a, b) == pytest.approx((r * np.cos(theta), r * np.sin(theta)), rel=1e-15)
    gradbook.manual_seed(0)
    assert gradbook.equal(
        gradbook.randn(4), gradbook.cat([(gradbook.manual_seed(0), gradbook.randn(3))[1], gradbook.randn(1)])
    )


def test_the_numbers_every_torch_tutorial_prints():
    gradbook.manual_seed(0)
    assert repr(gradbook.rand(2)) == "tensor([0.4963, 0.7682])"
    gradbook.manual_seed(0)
    assert repr(gradbook.randn(3)) == "tensor([ 1.5410, -0.2934, -2.1788])"
    gradbook.manual_seed(0)
    assert repr(gradbook.nn.Linear(3, 2).weight.data) == (
        "tensor([[-0.0043,  0.3097, -0.4752],\n        [-0.4249, -0.2224,  0.1548]])"
    )


def test_get_state_is_torchs_5056_bytes_and_round_trips():
    g = gradbook.Generator().manual_seed(2**40 + 3)
    gradbook.randn(5, generator=g)
    state = g.get_state()
    assert state.shape == (5056,) and 0 <= state.min().item() and state.max().item() <= 255
    first = gradbook.randn(20, generator=g)
    g.set_state(state)
    assert gradbook.equal(gradbook.randn(20, generator=g), first)
    assert g.initial_seed() == 2**40 + 3


def test_manual_seed_keeps_64_bits_and_the_engine_takes_the_low_32():
    assert gradbook.manual_seed(2**32 + 5).initial_seed() == 2**32 + 5
    a = gradbook.rand(4)
    gradbook.manual_seed(5)
    assert gradbook.equal(a, gradbook.rand(4))
    assert gradbook.manual_seed(-7).initial_seed() == 2**64 - 7


def test_two_fresh_processes_draw_different_numbers():
    program = "import gradbook; print(gradbook.rand(3).tolist(), gradbook.initial_seed())"
    runs = [
        subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, check=True).stdout for _ in "ab"
    ]
    assert runs[0] != runs[1]
