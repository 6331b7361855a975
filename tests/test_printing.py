"""Tests for gradbook._printing: torch-identical tensor repr text.

The module is loaded by file path so these tests do not depend on the rest of
the gradbook package.  The oracle tests compare against a real torch install
and are skipped without it; the literal tests hold text copied from torch
2.x output so CI without torch still checks real reference strings.
"""

import doctest
import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

_PATH = Path(__file__).resolve().parents[1] / "gradbook" / "_printing.py"


def _load_module():
    spec = importlib.util.spec_from_file_location("_gradbook_printing_under_test", _PATH)
    module = importlib.util.module_from_spec(spec)
    # dataclasses looks the module up in sys.modules while the class is created.
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


printing = _load_module()
format_tensor = printing.format_tensor

F32, F64, F16 = np.float32, np.float64, np.float16
NAN, INF = np.nan, np.inf


@pytest.fixture(autouse=True)
def _reset_printoptions():
    """Every test starts and ends with default options, in gradbook and torch."""
    torch = sys.modules.get("torch")
    printing.set_printoptions(profile="default")
    if torch is not None:
        torch.set_printoptions(profile="default")
    yield
    printing.set_printoptions(profile="default")
    if torch is not None:
        torch.set_printoptions(profile="default")


# ---------------------------------------------------------------------------
# Case generation
# ---------------------------------------------------------------------------


def _hand_picked():
    a = np.array
    return {
        # 0-dim
        "scalar": a(4.0, F32),
        "scalar_frac": a(3.14159, F32),
        "scalar_negzero": a(-0.0, F32),
        "scalar_nan": a(NAN, F32),
        "scalar_inf": a(-INF, F32),
        "scalar_tiny": a(1e-5, F32),
        "scalar_huge": a(1e10, F32),
        "scalar_f64": a(2.5, F64),
        "scalar_f16": a(0.1, F16),
        "scalar_int": a(7, np.int64),
        "scalar_uint8": a(255, np.uint8),
        "scalar_bool": a(True),
        # 1-D floats
        "ints_as_floats": a([4, 6, 8], F32),
        "ints_as_floats_padded": a([4, 9, 16], F32),
        "neg_floats": a([-1.5, 2.25, -3.125], F32),
        "zeros": a([0, 0, 0], F32),
        "neg_zero_mix": a([-0.0, 0.0, 1.0], F32),
        "neg_zero_frac": a([-0.0, 0.5], F32),
        "nonfinite_only": a([NAN, INF, -INF], F32),
        "nan_and_int": a([NAN, 1.0, -2.0], F32),
        "inf_and_frac": a([INF, 0.5, -INF], F32),
        "sci_small": a([1e-5, 1.0], F32),
        "sci_big": a([1e8, 1.0], F32),
        "sci_over_1e8": a([1.5e8], F32),
        "ratio_1001": a([1.0, 1001.0], F32),
        "ratio_1000": a([1.0, 1000.0], F32),
        "min_1e-4": a([1e-4, 0.5], F64),
        "below_1e-4": a([0.99e-4, 0.5], F64),
        "mixed_magnitudes": a([1e-5, 3.3, -42.0, 1e8, 7e3], F32),
        "huge_int_floats": a([1e10, -3e12], F64),
        "f64_extremes": a([1e-300, 1e300], F64),
        "f64_precise": a([0.1, 0.2, 0.30000000000000004], F64),
        "f16_max": a([65504, -65504, 1], F16),
        "f16_tiny": a([6e-8, 1.0], F16),
        "f16_frac": a([0.1, 0.25, 3.3], F16),
        "large_non_sci": a([12345.678, 0.5], F32),
        "rounding": a([0.00005, 0.99995, 2.5], F64),
        "arange_30": np.arange(30, dtype=F32),
        "arange_100_frac": np.arange(100, dtype=F32) / 7,
        # 1-D ints and bools
        "int64_mixed": a([1, -20, 300], np.int64),
        "int64_extremes": a([np.iinfo(np.int64).min, np.iinfo(np.int64).max], np.int64),
        "int32": np.arange(-5, 40, dtype=np.int32),
        "int16": a([-32768, 0, 32767], np.int16),
        "int8": a([-128, 5, 127], np.int8),
        "uint8": np.arange(0, 256, 9, dtype=np.uint8),
        "bool": a([True, False, True]),
        "bool_all_true": a([True, True]),
        "bool_long": np.arange(40) % 3 == 0,
        # 2-D and up
        "mat_2x3": a([[0.12345, -1.5, 2.0], [3.25, 10.0, -0.5]], F32),
        "mat_sci": a([[0.12345, -1.5, 2.0], [3.25, 100.0, -0.001]], F32),
        "mat_int": a([[1, -20, 300], [4, 5, 6]], np.int64),
        "mat_bool": a([[True, False], [False, True]]),
        "column": np.arange(5, dtype=F32).reshape(5, 1),
        "wide_row": np.arange(60, dtype=F64).reshape(2, 30) * 1.25,
        "cube": np.arange(24, dtype=F32).reshape(2, 3, 4),
        "hyper": np.arange(36, dtype=np.int32).reshape(3, 2, 3, 2),
        "five_d": np.arange(32, dtype=F32).reshape(2, 2, 2, 2, 2) - 16,
        "singleton_dims": a([[[5.5]]], F32),
        # empty
        "empty_1d": np.zeros(0, F32),
        "empty_2d": np.zeros((0, 3), F32),
        "empty_3d": np.zeros((2, 0, 4), F32),
        "empty_int": np.zeros(0, np.int64),
        "empty_bool": np.zeros((0, 2), bool),
        "empty_f64": np.zeros(0, F64),
        "empty_int8_2d": np.zeros((3, 0), np.int8),
        # summarisation (threshold 1000)
        "exactly_1000": np.arange(1000, dtype=F32),
        "summary_1001": np.arange(1001, dtype=np.int64),
        "summary_2000": np.arange(2000, dtype=F32),
        "summary_40x40_ints": np.arange(1600, dtype=np.int64).reshape(40, 40),
        "summary_3x1000": np.arange(3000, dtype=F32).reshape(3, 1000) / 3,
        "summary_1000x2": np.arange(2000, dtype=F32).reshape(1000, 2),
        "summary_10x10x20": np.arange(2000, dtype=F64).reshape(10, 10, 20) * 0.5,
        "summary_bool": np.arange(1200) % 2 == 0,
        "summary_hidden_nan": np.r_[np.arange(5.0), NAN, np.arange(2000.0)].astype(F32),
    }


def _random_cases():
    """Seeded random arrays over many shapes, dtypes and value distributions."""
    rng = np.random.default_rng(1234)
    shapes = [
        (),
        (1,),
        (7,),
        (25,),
        (3, 4),
        (1, 9),
        (6, 2),
        (2, 3, 4),
        (2, 2, 3, 2),
        (2000,),
        (40, 40),
    ]
    float_values = {
        "normal": lambda s: rng.standard_normal(s),
        "scaled": lambda s: rng.standard_normal(s) * 1e4,
        "magnitudes": lambda s: rng.choice([-1, 1], s) * 10.0 ** rng.uniform(-5, 8, s),
        "intvalued": lambda s: rng.integers(-1000, 1000, s).astype(float),
        "negative": lambda s: -rng.uniform(0, 50, s),
        "specials": lambda s: rng.choice([NAN, INF, -INF, 0.0, -0.0, 1.5, -2.0, 1e-7], s),
    }
    cases = {}
    for shape in shapes:
        tag = "x".join(map(str, shape)) or "0d"
        for kind, make in float_values.items():
            for dtype in ("float32", "float64", "float16"):
                if dtype == "float16" and kind == "magnitudes":
                    continue  # 1e8 overflows half precision; covered by f16_* cases
                cases[f"rand_{kind}_{dtype}_{tag}"] = make(shape).astype(dtype)
        cases[f"rand_int64_{tag}"] = rng.integers(-(10**6), 10**6, shape)
        cases[f"rand_int8_{tag}"] = rng.integers(-128, 128, shape).astype(np.int8)
        cases[f"rand_uint8_{tag}"] = rng.integers(0, 256, shape).astype(np.uint8)
        cases[f"rand_bool_{tag}"] = rng.random(shape) < 0.5
    # 0-dim draws come back as numpy scalars; torch.from_numpy needs arrays.
    return {k: np.asarray(v) for k, v in cases.items()}


CASES = {**_hand_picked(), **_random_cases()}
FLOAT_CASES = {k: v for k, v in CASES.items() if v.dtype.kind == "f"}

# Floats whose printed width makes the suffixes land right around column 80.
SUFFIX_WRAP_CASES = {f"arange_{n}_f64": np.arange(n, dtype=F64) * 1.5 for n in range(1, 30)}
SUFFIX_WRAP_CASES.update({f"arange_{n}_f32": np.arange(n, dtype=F32) * 1.5 for n in range(1, 30)})
SUFFIX_WRAP_CASES.update({f"arange_{n}_f16": np.arange(n, dtype=F16) * 1.5 for n in range(1, 30)})


def _torch_repr(tensor) -> str:
    return repr(tensor).replace("dtype=torch.", "dtype=gradbook.")


# ---------------------------------------------------------------------------
# Oracle tests (need torch)
# ---------------------------------------------------------------------------


@pytest.fixture
def torch():
    return pytest.importorskip("torch")


@pytest.mark.parametrize("name", list(CASES))
def test_matches_torch(torch, name):
    a = CASES[name]
    assert format_tensor(a, a.dtype.name) == _torch_repr(torch.from_numpy(a.copy()))


@pytest.mark.parametrize("name", [*FLOAT_CASES, *SUFFIX_WRAP_CASES])
def test_requires_grad_suffix_matches_torch(torch, name):
    a = {**FLOAT_CASES, **SUFFIX_WRAP_CASES}[name]
    t = torch.tensor(a, requires_grad=True)
    assert format_tensor(a, a.dtype.name, ["requires_grad=True"]) == _torch_repr(t)


@pytest.mark.parametrize("name", [*FLOAT_CASES, *SUFFIX_WRAP_CASES])
def test_grad_fn_suffix_matches_torch(torch, name):
    a = {**FLOAT_CASES, **SUFFIX_WRAP_CASES}[name]
    # Multiplying by 1.0 keeps every value (incl. -0., nan, inf) bit-identical.
    t = torch.from_numpy(a.copy()).requires_grad_() * 1.0
    assert format_tensor(a, a.dtype.name, ["grad_fn=<MulBackward0>"]) == _torch_repr(t)


OPTION_SETS = [
    {"precision": 2},
    {"precision": 0},
    {"precision": 8},
    {"threshold": 5},
    {"threshold": 5, "edgeitems": 1},
    {"threshold": 5, "edgeitems": 0},
    {"edgeitems": 0},
    {"linewidth": 40},
    {"linewidth": 120},
    {"linewidth": 10},
    {"sci_mode": True},
    {"sci_mode": False},
    {"profile": "short"},
    {"profile": "full"},
    {"profile": "short", "precision": 6, "sci_mode": True},
    {"profile": "full", "linewidth": 60},
]
OPTION_ARRAYS = [
    "scalar_frac",
    "ints_as_floats_padded",
    "neg_zero_mix",
    "nonfinite_only",
    "mixed_magnitudes",
    "f16_frac",
    "arange_100_frac",
    "int64_mixed",
    "bool_long",
    "mat_2x3",
    "cube",
    "empty_2d",
    "summary_1001",
    "summary_40x40_ints",
    "summary_10x10x20",
    "rand_normal_float64_2x3x4",
]


@pytest.mark.parametrize("options", OPTION_SETS, ids=lambda o: "-".join(f"{k}={v}" for k, v in o.items()))
def test_printoptions_match_torch(torch, options):
    printing.set_printoptions(**options)
    torch.set_printoptions(**options)
    assert printing.get_printoptions() == torch._tensor_str.get_printoptions()
    for name in OPTION_ARRAYS:
        a = CASES[name]
        assert format_tensor(a, a.dtype.name) == _torch_repr(torch.from_numpy(a.copy())), name
        if a.dtype.kind == "f":
            t = torch.from_numpy(a.copy()).requires_grad_() * 1.0
            got = format_tensor(a, a.dtype.name, ["grad_fn=<MulBackward0>"])
            assert got == _torch_repr(t), name


# ---------------------------------------------------------------------------
# Literal reference text (copied from torch 2.x output; no torch needed)
# ---------------------------------------------------------------------------

LITERALS = [
    # The seed lesson's examples (ex1.py, ex2_fix.py).
    (np.array(4.0, F32), "float32", (), "tensor(4.)"),
    (np.array(14.0, F32), "float32", (), "tensor(14.)"),
    (
        np.array(4.0, F32),
        "float32",
        ["grad_fn=<MulBackward0>"],
        "tensor(4., grad_fn=<MulBackward0>)",
    ),
    (
        np.array([4, 9, 16], F32),
        "float32",
        ["grad_fn=<MulBackward0>"],
        "tensor([ 4.,  9., 16.], grad_fn=<MulBackward0>)",
    ),
    (np.array([4, 6, 8], F32), "float32", (), "tensor([4., 6., 8.])"),
    (np.array([4, 9, 16], F32), "float32", (), "tensor([ 4.,  9., 16.])"),
    (
        np.array([[0.12345, -1.5, 2.0], [3.25, 10.0, -0.5]], F32),
        "float32",
        (),
        "tensor([[ 0.1235, -1.5000,  2.0000],\n        [ 3.2500, 10.0000, -0.5000]])",
    ),
    (
        np.array([[0.12345, -1.5, 2.0], [3.25, 100.0, -0.001]], F32),
        "float32",
        (),
        ("tensor([[ 1.2345e-01, -1.5000e+00,  2.0000e+00],\n        [ 3.2500e+00,  1.0000e+02, -1.0000e-03]])"),
    ),
    (
        np.array([1e-5, 1.0, 1e8], F32),
        "float32",
        (),
        "tensor([1.0000e-05, 1.0000e+00, 1.0000e+08])",
    ),
    (
        np.array([[1, -20, 300], [4, 5, 6]], np.int64),
        "int64",
        (),
        "tensor([[  1, -20, 300],\n        [  4,   5,   6]])",
    ),
    (np.array([True, False, True]), "bool", (), "tensor([ True, False,  True])"),
    (
        np.array([1.5, 2.0], F64),
        "float64",
        ["requires_grad=True"],
        "tensor([1.5000, 2.0000], dtype=gradbook.float64, requires_grad=True)",
    ),
    (
        np.array([3.0, 4.0], F64),
        "float64",
        ["grad_fn=<MulBackward0>"],
        "tensor([3., 4.], dtype=gradbook.float64, grad_fn=<MulBackward0>)",
    ),
    (
        np.array([NAN, INF, -0.0, 1.0], F32),
        "float32",
        (),
        "tensor([nan, inf, -0., 1.])",
    ),
    (np.zeros((0, 3), F32), "float32", (), "tensor([], size=(0, 3))"),
    (np.zeros(0, np.int64), "int64", (), "tensor([], dtype=gradbook.int64)"),
    (
        np.arange(2000, dtype=F32),
        "float32",
        (),
        ("tensor([0.0000e+00, 1.0000e+00, 2.0000e+00,  ..., 1.9970e+03, 1.9980e+03,\n        1.9990e+03])"),
    ),
    (
        np.arange(30, dtype=np.int32),
        "int32",
        (),
        (
            "tensor([ 0,  1,  2,  3,  4,  5,  6,  7,  8,  9, 10, 11, 12, 13, 14, 15, 16, 17,\n"
            "        18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29], dtype=gradbook.int32)"
        ),
    ),
    (
        np.arange(24, dtype=F32).reshape(2, 3, 4),
        "float32",
        (),
        (
            "tensor([[[ 0.,  1.,  2.,  3.],\n"
            "         [ 4.,  5.,  6.,  7.],\n"
            "         [ 8.,  9., 10., 11.]],\n"
            "\n"
            "        [[12., 13., 14., 15.],\n"
            "         [16., 17., 18., 19.],\n"
            "         [20., 21., 22., 23.]]])"
        ),
    ),
    (
        np.array([0.1, 0.25], F16),
        "float16",
        (),
        "tensor([0.1000, 0.2500], dtype=gradbook.float16)",
    ),
    (np.array(7, np.uint8), "uint8", (), "tensor(7, dtype=gradbook.uint8)"),
    # Suffix wrapping: torch measures "dtype=torch.float64", so the layout is
    # torch's even though "gradbook." makes the first line 81 characters long.
    (
        np.arange(6, dtype=F64) * 1.5,
        "float64",
        ["grad_fn=<MulBackward0>"],
        (
            "tensor([0.0000, 1.5000, 3.0000, 4.5000, 6.0000, 7.5000], dtype=gradbook.float64,\n"
            "       grad_fn=<MulBackward0>)"
        ),
    ),
    (
        np.arange(7, dtype=F64) * 1.5,
        "float64",
        ["grad_fn=<MulBackward0>"],
        (
            "tensor([0.0000, 1.5000, 3.0000, 4.5000, 6.0000, 7.5000, 9.0000],\n"
            "       dtype=gradbook.float64, grad_fn=<MulBackward0>)"
        ),
    ),
]


@pytest.mark.parametrize(("array", "dtype", "extra", "expected"), LITERALS)
def test_literal_torch_output(array, dtype, extra, expected):
    assert format_tensor(array, dtype, extra) == expected


def test_literal_printoptions():
    printing.set_printoptions(precision=2)
    assert format_tensor(np.array([1.12345], F32), "float32") == "tensor([1.12])"
    printing.set_printoptions(threshold=5)
    assert format_tensor(np.arange(10), "int64") == "tensor([0, 1, 2,  ..., 7, 8, 9])"
    printing.set_printoptions(profile="default")
    assert format_tensor(np.array([1.12345], F32), "float32") == "tensor([1.1235])"
    assert format_tensor(np.arange(10), "int64") == "tensor([0, 1, 2, 3, 4, 5, 6, 7, 8, 9])"


def test_get_printoptions_defaults_and_profiles():
    defaults = {
        "precision": 4,
        "threshold": 1000,
        "edgeitems": 3,
        "linewidth": 80,
        "sci_mode": None,
    }
    assert printing.get_printoptions() == defaults
    printing.set_printoptions(profile="full", sci_mode=True)
    assert printing.get_printoptions() == {
        **defaults,
        "threshold": float("inf"),
        "sci_mode": True,
    }
    # As in torch, sci_mode is reset whenever it is not passed.
    printing.set_printoptions(profile="short")
    assert printing.get_printoptions() == {**defaults, "precision": 2, "edgeitems": 2}


def test_rejects_unknown_dtype_and_names_the_accepted_ones():
    with pytest.raises(ValueError, match="dtype_name='complex64'.*float32"):
        format_tensor(np.zeros(2), "complex64")


def test_docstring_examples():
    # The module is loaded by path, so its doctests are run explicitly here.
    failures, attempted = doctest.testmod(printing)
    assert attempted > 0 and failures == 0


@pytest.mark.parametrize("order", [">", "<", "="])
def test_an_array_of_either_byte_order_prints_its_values(order):
    """(review 2026-12-07: looking dtype names up by NumPy dtype missed big-endian ones.) A tensor
    prints with its array's dtype (``Tensor.__repr__`` passes ``array.dtype``); torch refuses such
    an array in from_numpy, gradbook takes it, and prints what torch prints for the same values."""
    floats, ints = np.array([1.5, 2.0], dtype=f"{order}f4"), np.array([3, 4], dtype=f"{order}i8")
    assert format_tensor(floats, floats.dtype) == "tensor([1.5000, 2.0000])"
    assert format_tensor(ints, ints.dtype) == "tensor([3, 4])"
