"""Oracle tests: every op run on gradbook and on PyTorch with the same inputs, compared.

In the style of early tinygrad's ``helper_test_op``: each case is one line, a function of the
library module ``T`` (gradbook or torch) and of input tensors built from the same NumPy values.
``check`` then compares, between the two libraries:

- forward values (float32 tolerances) and dtype names;
- ``type(out.grad_fn).__name__`` and the whole ``next_functions`` structure, recursively;
- ``repr(out)``, with torch's ``torch.`` written ``gradbook.``;
- the gradient of every input after ``backward(seed)``, for a random seed of out's shape, and
  every input's values afterwards (in-place ops change them);
- with ``second=True``, second derivatives: ``autograd.grad(..., create_graph=True)``, then the
  gradient of a random linear functional of that gradient;
- the warnings each library gave (category and text), forward and backward.

``check_error`` compares the exception type and text of a bad call. The nn and optim tests at the
end build the same model in both libraries (gradbook's weights copied from torch's) and compare
the loss graph, the gradients, and the weights after each SGD step. Skipped without torch.

Differences that gradbook keeps on purpose are marked where they are tested: batched matmul's graph
(names=False), and strict xfails whose reason names the file and the change that would fix them.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import gradbook  # noqa: E402

pytestmark = pytest.mark.oracle

RTOL, ATOL = 1e-5, 1e-6  # float32
LIBS = (torch, gradbook)  # torch first: its shapes size the random seeds


# ---------------------------------------------------------------- inputs


class Arg:
    """An input tensor: values made from the test's seeded RNG, the same for both libraries."""

    def __init__(self, make: Callable[[np.random.Generator], np.ndarray], grad: bool | None = None) -> None:
        self.make = make
        self.grad = grad

    def build(self, rng: np.random.Generator) -> tuple[np.ndarray, bool]:
        a = np.asarray(self.make(rng))
        return a, (a.dtype.kind == "f") if self.grad is None else self.grad


def randn(*shape: int, dtype: Any = np.float32, grad: bool | None = None) -> Arg:
    """Standard normal values."""
    return Arg(lambda r: r.standard_normal(shape).astype(dtype), grad)


def pos(*shape: int, dtype: Any = np.float32, grad: bool | None = None) -> Arg:
    """Positive values in [0.5, 2.5): for log, sqrt, fractional powers and denominators."""
    return Arg(lambda r: (0.5 + 2 * r.random(shape)).astype(dtype), grad)


def ints(*shape: int, low: int = -3, high: int = 4) -> Arg:
    """int64 values in [low, high)."""
    return Arg(lambda r: r.integers(low, high, shape).astype(np.int64), False)


def val(values: Any, dtype: Any = np.float32, grad: bool | None = None) -> Arg:
    """Exact values (ties, zeros, boundaries)."""
    return Arg(lambda r: np.array(values, dtype=dtype), grad)


def f64(*shape: int, grad: bool | None = None) -> Arg:
    """float64 standard normal values."""
    return randn(*shape, dtype=np.float64, grad=grad)


def labels(*values: int) -> Arg:
    """Class indices (int64), for the losses."""
    return val(values, np.int64)


def _build(specs: tuple, rng: np.random.Generator) -> list:
    """Tuples are shapes of float32 normal inputs; Args build; anything else is passed as is."""
    out = []
    for s in specs:
        if isinstance(s, tuple):
            s = randn(*s)
        out.append(s.build(rng) if isinstance(s, Arg) else s)
    return out


def _leaves(T: Any, built: list) -> list:
    args = []
    for b in built:
        if isinstance(b, tuple) and len(b) == 2 and isinstance(b[0], np.ndarray):
            t = T.tensor(b[0].copy())
            args.append(t.requires_grad_() if b[1] else t)
        else:
            args.append(b)
    return args


# ---------------------------------------------------------------- comparisons


def signature(fn: Any) -> Any:
    """A grad_fn as (name, children): the whole graph below it, None for constants."""
    if fn is None:
        return None
    return (fn.name(), tuple(signature(f) for f, _ in fn.next_functions))


def _text(s: str) -> str:
    return s.replace("torch.", "gradbook.")


def _dtype(t: Any) -> str:
    return str(t.dtype).split(".")[-1]


def _numpy(t: Any) -> np.ndarray:
    return np.asarray(t.detach().numpy() if hasattr(t, "detach") else t)


def assert_same_tensor(g: Any, t: Any, what: str = "value") -> None:
    """Values and dtype of a gradbook tensor equal those of a torch tensor."""
    if t is None or g is None:
        assert g is None and t is None, f"{what}: gradbook {g!r}, torch {t!r}"
        return
    assert _dtype(g) == _dtype(t), f"{what} dtype: gradbook {g.dtype}, torch {t.dtype}"
    assert tuple(g.shape) == tuple(t.shape), f"{what} shape: gradbook {tuple(g.shape)}, torch {tuple(t.shape)}"
    np.testing.assert_allclose(_numpy(g), _numpy(t), rtol=RTOL, atol=ATOL, err_msg=what)


def assert_same_output(g: Any, t: Any, names: bool = True, text: bool = True) -> None:
    """Two op results agree: values, dtypes, grad_fn graphs, requires_grad and repr text."""
    if text:
        assert repr(g) == _text(repr(t))
    gs, ts = (list(g), list(t)) if isinstance(t, tuple) else ([g], [t])
    assert len(gs) == len(ts)
    for i, (a, b) in enumerate(zip(gs, ts)):
        assert_same_tensor(a, b, f"output {i}")
        assert a.requires_grad == b.requires_grad, f"output {i} requires_grad"
        if names:
            assert type(a.grad_fn).__name__ == type(b.grad_fn).__name__
            assert signature(a.grad_fn) == signature(b.grad_fn)


def _outputs(out: Any) -> list:
    return [o for o in (out if isinstance(out, tuple) else (out,)) if o.requires_grad]


def _seeds(outs: list, rng: np.random.Generator) -> list[np.ndarray]:
    return [rng.standard_normal(tuple(o.shape)).astype(_dtype(o)) for o in outs]


def check(
    fn: Callable[..., Any], *specs: Any, second: bool = False, names: bool = True, text: bool = True, warns: bool = True
) -> None:
    """Run ``fn(T, *inputs)`` on gradbook and torch and compare everything (see module doc).

    ``names=False`` skips the grad_fn graph, ``text=False`` the repr (which names grad_fn), ``warns=False``
    the warnings each library gave.
    """
    rng = np.random.default_rng(0)
    built = _build(specs, rng)
    args, outs, warned = {}, {}, {}
    for T in LIBS:
        args[T] = _leaves(T, built)
        with warnings.catch_warnings(record=True) as warned[T]:
            warnings.simplefilter("always")
            outs[T] = fn(T, *args[T])
    assert_same_output(outs[gradbook], outs[torch], names=names, text=text)

    seeds = _seeds(_outputs(outs[torch]), rng)
    for T in LIBS:
        diff = _outputs(outs[T])
        if diff:
            with warnings.catch_warnings(record=True) as w:
                warnings.simplefilter("always")
                T.autograd.backward(diff, [T.tensor(s) for s in seeds])
            warned[T] += w
    for i, (a, b) in enumerate(zip(args[gradbook], args[torch])):
        if isinstance(b, torch.Tensor):
            assert_same_tensor(a, b, f"input {i} after the call")
            if b.is_leaf:
                assert_same_tensor(a.grad, b.grad, f"grad of input {i}")
    if second:
        _check_second(fn, built, rng)
    if warns:
        assert _warnings(warned[gradbook]) == _warnings(warned[torch])


def _warnings(caught: list) -> list[tuple[str, str]]:
    return [(w.category.__name__, _text(str(w.message))) for w in caught]


def _check_second(fn: Callable[..., Any], built: list, rng: np.random.Generator) -> None:
    """Differentiate ⟨v, ∂out/∂x · seed⟩ again: second derivatives of both libraries agree."""
    results = {}
    seeds = vs = None
    for T in LIBS:
        args = _leaves(T, built)
        xs = [a for a in args if isinstance(a, T.Tensor) and a.requires_grad]
        outs = _outputs(fn(T, *args))
        if seeds is None:
            seeds = _seeds(outs, rng)
            vs = [rng.standard_normal(tuple(x.shape)).astype(_dtype(x)) for x in xs]
        grads = T.autograd.grad(outs, xs, [T.tensor(s) for s in seeds], create_graph=True, allow_unused=True)
        terms = [(g * T.tensor(v)).sum() for g, v in zip(grads, vs) if g is not None and g.requires_grad]
        assert terms, "nothing to differentiate twice"
        results[T] = (grads, T.autograd.grad(sum(terms), xs, allow_unused=True))
    for name, g, t in zip(("first", "second"), results[gradbook], results[torch]):
        for i, (a, b) in enumerate(zip(g, t)):
            assert_same_tensor(a, b, f"{name} derivative w.r.t. input {i}")


def check_error(fn: Callable[..., Any], *specs: Any) -> None:
    """Both libraries refuse the call with the same exception type and text."""
    built = _build(specs, np.random.default_rng(0))
    errors = []
    for T in LIBS:
        args = _leaves(T, built)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with pytest.raises(Exception) as info:  # noqa: B017 (the type is what we compare)
                fn(T, *args)
        errors.append((type(info.value).__name__, _text(str(info.value))))
    t_err, g_err = errors
    assert g_err == t_err


# ---------------------------------------------------------------- the cases


def case(id: str, fn: Callable[..., Any], *specs: Any, xfail: str | None = None, **opts: Any) -> Any:  # noqa: A002
    marks = [pytest.mark.xfail(strict=True, reason=xfail)] if xfail else []
    return pytest.param(fn, specs, opts, id=id, marks=marks)


F = lambda T: T.nn.functional  # noqa: E731
loss = lambda name, **kw: lambda T, x, t: getattr(F(T), name)(x, t, **kw)  # noqa: E731
linear = lambda T, x, w, b=None: F(T).linear(x, w, b)  # noqa: E731

# Known differences, each a strict xfail whose reason names the file and the change that would fix it.


INT_ATTR = (
    "x.requires_grad = True on an integer tensor: torch raises 'only Tensors of floating point and complex dtype "
    "can require gradients'; gradbook's requires_grad is a plain slot (gradbook/tensor.py), so nothing is checked."
)


ARITHMETIC = [
    # + - * / with broadcasting, scalars and numbers on either side
    case("add", lambda T, x, y: x + y, (2, 3), (2, 3)),
    case("add_bcast_row", lambda T, x, y: x + y, (3,), (2, 3)),
    case("add_bcast_outer", lambda T, x, y: x + y, (2, 1), (1, 3)),
    case("add_0d", lambda T, x, y: x + y, (), (2, 3)),
    case("add_number", lambda T, x: x + 2.5, (2, 3)),
    case("radd_number", lambda T, x: 2 + x, (2, 3)),
    case("add_method_alpha", lambda T, x, y: x.add(y, alpha=2), (2, 3), (3,)),
    case("sub_method_alpha", lambda T, x, y: x.sub(y, alpha=2), (2, 3), (3,)),
    case("sub", lambda T, x, y: x - y, (2, 3), (3,)),
    case("sub_outer", lambda T, x, y: x - y, (2, 1), (1, 3)),
    case("sub_number", lambda T, x: x - 1, (3,)),
    case("rsub_number", lambda T, x: 1 - x, (2, 3)),
    case("rsub_float_number", lambda T, x: 1.5 - x, (3,)),
    case("mul", lambda T, x, y: x * y, (2, 3), (2, 3), second=True),
    case("mul_bcast", lambda T, x, y: x * y, (3,), (2, 3), second=True),
    case("mul_outer", lambda T, x, y: x * y, (2, 1), (1, 3), second=True),
    case("mul_0d", lambda T, x, y: x * y, (2, 3), (), second=True),
    case("mul_self", lambda T, x: x * x, (3,), second=True),
    case("mul_number", lambda T, x: x * 3, (2, 3)),
    case("rmul_number", lambda T, x: 2 * x, (2, 3)),
    case("div", lambda T, x, y: x / y, (2, 3), pos(2, 3), second=True),
    case("div_bcast", lambda T, x, y: x / y, (2, 3), pos(3), second=True),
    case("div_outer", lambda T, x, y: x / y, (2, 1), pos(1, 3), second=True),
    case("div_number", lambda T, x: x / 4, (3,)),
    case("rdiv_number", lambda T, x: 2 / x, pos(2, 3), second=True),
    case("neg", lambda T, x: -x, (2, 3)),
    case("neg_method", lambda T, x: x.neg(), (3,)),
    case("chain", lambda T, x, y: (x * y + x / y - y) * 2, (3,), pos(3), second=True),
    # powers
    case("pow_2", lambda T, x: x**2, (2, 3), second=True),
    case("pow_3_int", lambda T, x: x**3, (3,), second=True),
    case("pow_neg", lambda T, x: x**-1.5, pos(3), second=True),
    case("pow_frac", lambda T, x: x**0.5, pos(2, 3), second=True),
    case("pow_zero", lambda T, x: x**0, (3,)),
    case("pow_one", lambda T, x: x**1, (3,)),
    case("pow_tensor", lambda T, x, y: x**y, pos(2, 3), (2, 3), second=True),
    case("pow_tensor_bcast", lambda T, x, y: x**y, pos(2, 3), (3,), second=True),
    case("pow_tensor_0d", lambda T, x, y: x**y, pos(3), (), second=True),
    case("pow_method", lambda T, x: x.pow(2), (3,), second=True),
    # a float32 base, an int64 exponent: the result and what PowBackward1 saves of it are float32
    case("pow_int_tensor_exponent", lambda T, x, e: x**e, pos(3), ints(3, low=0, high=4)),
    case("where_f32_f64", lambda T, x, y: T.where(x > 0, x, y), (3,), randn(3, dtype=np.float64)),
    case("rpow_number", lambda T, x: 2**x, (2, 3), second=True),
    case("rpow_frac_base", lambda T, x: 0.5**x, (3,), second=True),
    case("pow_at_zero", lambda T, x: x**2, val([0.0, 1.0, -2.0])),
    case("pow_tensor_at_zero", lambda T, x, y: x**y, val([0.0, 0.0, 2.0]), val([2.0, 0.0, 3.0]), warns=False),
    # dtypes: float64, int64, mixed promotions
    case("add_f64", lambda T, x, y: x + y, f64(3), f64(2, 3)),
    case("mul_f32_f64", lambda T, x, y: x * y, (3,), f64(3)),
    case("mul_f32_f64_0d", lambda T, x, y: x * y, (2, 3), f64()),
    case("mul_f64_0d_f32", lambda T, x, y: y * x, (2, 3), f64()),
    case("add_f32_0d_f64_0d", lambda T, x, y: x + y, (), f64()),
    case("add_int_f32", lambda T, x, y: x + y, ints(3), (3,)),
    case("add_int_f32_0d", lambda T, x, y: x + y, ints(2, 3), ()),
    case("mul_int_f64", lambda T, x, y: x * y, ints(2, 3), f64(3)),
    case("add_int_int", lambda T, x, y: x + y, ints(2, 3), ints(3)),
    case("mul_int_number", lambda T, x: x * 2, ints(3)),
    case("mul_int_float_number", lambda T, x: x * 2.5, ints(3)),
    case("add_int_float_number", lambda T, x: x + 0.5, ints(3)),
    case("rsub_int_number", lambda T, x: 1 - x, ints(3)),
    case("rsub_int_float_number", lambda T, x: 1.5 - x, ints(3)),
    case("div_int_int", lambda T, x, y: x / y, ints(3), ints(3, low=1)),
    case("div_int_number", lambda T, x: x / 2, ints(3)),
    case("rdiv_int", lambda T, x: 2 / x, ints(3, low=1)),
    case("pow_int_number", lambda T, x: x**2, ints(3)),
    case("pow_int_float_number", lambda T, x: x**0.5, ints(3, low=0)),
    case("rpow_int", lambda T, x: 2**x, ints(3, low=0)),
    case("rpow_int_float_base", lambda T, x: 2.5**x, ints(3, low=0)),
    case("neg_int", lambda T, x: -x, ints(3)),
    case("mul_f64_number", lambda T, x: 2.5 * x, f64(3)),
    case("div_f64", lambda T, x, y: x / y, f64(3), pos(3, dtype=np.float64), second=True),
    case("pow_f64", lambda T, x: x**1.5, pos(3, dtype=np.float64), second=True),
    case("rpow_f64", lambda T, x: 3**x, f64(3), second=True),
    case("add_const", lambda T, x, y: x + y, (3,), randn(3, grad=False)),
    case("no_grad_inputs", lambda T, x, y: x * y + 1, randn(3, grad=False), randn(3, grad=False)),
]


# torch is silent where NumPy warns; the values and gradients agree (see the cases with warns=False)
SILENT = [
    case("silent_log_zero", lambda T, x: x.log(), val([0.0, 1.0])),
    case("silent_div_zero", lambda T, x, y: x / y, val([1.0, 0.0]), val([0.0, 0.0])),
    case("silent_sqrt_negative", lambda T, x: x.sqrt(), val([-1.0, 4.0])),
    case("silent_exp_overflow", lambda T, x: x.exp(), val([100.0, 1.0])),
    case("silent_pow_zero_base", lambda T, x, y: x**y, val([0.0, 2.0]), val([0.0, 3.0])),
    case("silent_sqrt_grad_at_zero", lambda T, x: x.sqrt(), val([0.0, 4.0])),
    case("log_zero", lambda T, x: x.log(), val([0.0, 1.0]), warns=False),
    case("div_zero", lambda T, x, y: x / y, val([1.0, 0.0, -1.0]), val([0.0, 0.0, 0.0]), warns=False),
    case("sqrt_negative", lambda T, x: x.sqrt(), val([-1.0, 4.0]), warns=False),
    case("exp_overflow", lambda T, x: x.exp(), val([100.0, 1.0]), warns=False),
    case("sqrt_grad_at_zero", lambda T, x: x.sqrt(), val([0.0, 4.0]), warns=False),
    case("pow_frac_at_zero", lambda T, x: x**0.5, val([0.0, 4.0]), warns=False),
]

MATMUL = [
    case("matmul_1d_1d", lambda T, x, y: x @ y, (3,), (3,), second=True),
    case("matmul_2d_1d", lambda T, w, x: w @ x, (2, 3), (3,), second=True),
    case("matmul_1d_2d", lambda T, x, w: x @ w, (3,), (3, 2), second=True),
    case("matmul_2d_2d", lambda T, a, b: a @ b, (2, 3), (3, 4), second=True),
    case("matmul_f64", lambda T, a, b: a @ b, f64(2, 3), f64(3, 2)),
    case("matmul_method", lambda T, a, b: a.matmul(b), (2, 3), (3, 4)),
    case("matmul_fn", lambda T, a, b: T.matmul(a, b), (2, 3), (3,)),
    case("matmul_const", lambda T, a, b: a @ b, (2, 3), randn(3, 4, grad=False)),
    # torch folds batched products into views around bmm/mm (UnsafeViewBackward0, ExpandBackward0,
    # ViewBackward0, ...); gradbook records one BmmBackward0 over the broadcast batch. The values and
    # gradients agree; the node names do not (names=False).
    case("matmul_3d_3d", lambda T, a, b: a @ b, (4, 2, 3), (4, 3, 5), names=False, text=False, second=True),
    case("matmul_3d_2d", lambda T, a, b: a @ b, (4, 2, 3), (3, 5), names=False, text=False),
    case("matmul_2d_3d", lambda T, a, b: a @ b, (2, 3), (4, 3, 5), names=False, text=False),
    case("matmul_bcast_batch", lambda T, a, b: a @ b, (2, 1, 2, 3), (3, 3, 2), names=False, text=False),
    case("matmul_3d_1d", lambda T, a, x: a @ x, (4, 2, 3), (3,), names=False, text=False),
    case("matmul_1d_3d", lambda T, x, b: x @ b, (3,), (4, 3, 5), names=False, text=False),
    case("dot", lambda T, x, y: x.dot(y), (3,), (3,), second=True),
    case("dot_fn", lambda T, x, y: T.dot(x, y), (4,), (4,)),
    case("mm", lambda T, a, b: T.mm(a, b), (2, 3), (3, 4), second=True),
    case("mm_method", lambda T, a, b: a.mm(b), (2, 3), (3, 1)),
    case("mv", lambda T, a, x: T.mv(a, x), (2, 3), (3,), second=True),
    case("mv_method", lambda T, a, x: a.mv(x), (2, 3), (3,)),
]

ELEMENTWISE = [
    case("exp", lambda T, x: x.exp(), (2, 3), second=True),
    case("exp_fn", lambda T, x: T.exp(x), (3,), second=True),
    case("log", lambda T, x: x.log(), pos(2, 3), second=True),
    case("log_fn", lambda T, x: T.log(x), pos(3), second=True),
    case("sqrt", lambda T, x: x.sqrt(), pos(2, 3), second=True),
    case("abs", lambda T, x: x.abs(), val([-1.5, 0.0, 2.0])),
    case("abs_builtin", lambda T, x: abs(x), (2, 3)),
    case("sin", lambda T, x: x.sin(), (2, 3), second=True),
    case("cos", lambda T, x: x.cos(), (2, 3), second=True),
    case("tanh", lambda T, x: x.tanh(), (2, 3), second=True),
    case("sigmoid", lambda T, x: x.sigmoid(), (2, 3), second=True),
    case("sigmoid_fn", lambda T, x: T.sigmoid(x), val([-100.0, 0.0, 100.0])),
    case("relu", lambda T, x: x.relu(), val([-1.0, 0.0, 2.0])),
    case("relu_fn", lambda T, x: F(T).relu(x), (2, 3)),
    case("exp_f64", lambda T, x: x.exp(), f64(3), second=True),
    case("tanh_f64", lambda T, x: T.tanh(x), f64(2, 2), second=True),
    case("log_f64", lambda T, x: x.log(), pos(3, dtype=np.float64), second=True),
    case("abs_int", lambda T, x: x.abs(), ints(4)),
    case("exp_int", lambda T, x: x.exp(), ints(4)),
    case("sqrt_int", lambda T, x: x.sqrt(), ints(4, low=0)),
    case("sigmoid_int", lambda T, x: x.sigmoid(), ints(4)),
    case("tanh_bool", lambda T, x: (x > 0).tanh(), (4,)),
    case("relu_int", lambda T, x: x.relu(), ints(4)),
    case("sigmoid_f64_extreme", lambda T, x: x.sigmoid(), val([-800.0, -700.0, 0.0, 40.0], np.float64)),
    case("clamp", lambda T, x: x.clamp(-0.5, 0.5), val([-1.0, -0.5, 0.0, 0.5, 1.0])),
    case("clamp_min", lambda T, x: x.clamp(min=0.0), val([-1.0, 0.0, 1.0])),
    case("clamp_max", lambda T, x: x.clamp(max=0.0), val([-1.0, 0.0, 1.0])),
    case("clamp_fn", lambda T, x: T.clamp(x, -1, 1), (2, 3)),
    case("clamp_int_bounds", lambda T, x: x.clamp(0, 1), (2, 3)),
    case("maximum", lambda T, x, y: T.maximum(x, y), val([1.0, 2.0, 3.0]), val([1.0, 5.0, 0.0])),
    case("minimum", lambda T, x, y: T.minimum(x, y), val([1.0, 2.0, 3.0]), val([1.0, 5.0, 0.0])),
    case("maximum_int_float", lambda T, x, y: T.maximum(x, y), ints(3), (3,)),
    case("minimum_f32_f64", lambda T, x, y: T.minimum(x, y), (3,), f64(3)),
    case("minimum_f32_f64_0d", lambda T, x, y: T.minimum(x, y), (3,), f64()),
    case("maximum_method_int_float", lambda T, x, y: x.maximum(y), ints(3), (3,)),
    case("minimum_method_f32_f64_0d", lambda T, x, y: x.minimum(y), (3,), f64()),
    case("clamp_int_float_bounds", lambda T, x: x.clamp(0.5, 1.5), ints(4)),
    case("clamp_int_int_bounds", lambda T, x: x.clamp(-1, 1), ints(4)),
    case("clamp_f64", lambda T, x: x.clamp(min=0), f64(4)),
    case("maximum_bcast", lambda T, x, y: x.maximum(y), (2, 3), (3,)),
    case("max_of_two_tensors", lambda T, x, y: T.max(x, y), val([1.0, 3.0, 3.0]), val([2.0, 3.0, 1.0])),
    case("min_of_two_tensors_method", lambda T, x, y: x.min(y), val([1.0, 3.0, 3.0]), val([2.0, 3.0, 1.0])),
    case("minimum_bcast", lambda T, x, y: x.minimum(y), (2, 1), (1, 3)),
    case("where", lambda T, x, y: T.where(x > 0, x, y), (2, 3), (2, 3)),
    case("where_bcast", lambda T, x, y: T.where(x > 0, x, y), (2, 3), (3,)),
    case("where_number", lambda T, x: T.where(x > 0, x, 0.0), (2, 3)),
    case("where_number_first", lambda T, x: T.where(x > 0, 1.0, x), (2, 3)),
    case("where_f64", lambda T, x, y: T.where(y > 0, x, y), (3,), f64(3)),
    case("where_mask", lambda T, x, m: T.where(m, x, -x), (3,), val([True, False, True], dtype=bool)),
]

REDUCTIONS = [
    case("sum", lambda T, x: x.sum(), (2, 3)),
    case("sum_dim", lambda T, x: x.sum(0), (2, 3)),
    case("sum_neg_dim", lambda T, x: x.sum(-1), (2, 3)),
    case("sum_dims", lambda T, x: x.sum((0, 2)), (2, 3, 4)),
    case("sum_keepdim", lambda T, x: x.sum(1, keepdim=True), (2, 3)),
    case("sum_dims_keepdim", lambda T, x: x.sum(dim=(0, -1), keepdim=True), (2, 3, 4)),
    case("sum_fn", lambda T, x: T.sum(x, 1), (2, 3)),
    case("sum_0d", lambda T, x: x.sum(), ()),
    case("sum_f64", lambda T, x: x.sum(1), f64(2, 3)),
    case("sum_int", lambda T, x: x.sum(), ints(2, 3)),
    case("sum_int_dim", lambda T, x: x.sum(0), ints(2, 3)),
    case("sum_bool", lambda T, x: (x > 0).sum(), (2, 3)),
    case("mean", lambda T, x: x.mean(), (2, 3)),
    case("mean_dim", lambda T, x: x.mean(0), (2, 3)),
    case("mean_neg_dim", lambda T, x: x.mean(-1), (2, 3)),
    case("mean_dims", lambda T, x: x.mean((0, 2)), (2, 3, 4)),
    case("mean_keepdim", lambda T, x: x.mean(1, keepdim=True), (2, 3)),
    case("mean_f64", lambda T, x: x.mean(), f64(4)),
    case("max", lambda T, x: x.max(), (2, 3)),
    case("max_ties", lambda T, x: x.max(), val([[1.0, 3.0, 3.0], [0.0, 3.0, 2.0]])),
    case("min_ties", lambda T, x: x.min(), val([[1.0, 0.0, 3.0], [0.0, 3.0, 2.0]])),
    case("max_dim", lambda T, x: x.max(1), (2, 3)),
    case("max_dim_keepdim", lambda T, x: x.max(-1, keepdim=True), (2, 3)),
    case("max_dim0", lambda T, x: x.max(0), (2, 3, 4)),
    case("max_dim_values", lambda T, x: x.max(1).values, (2, 3)),
    case("max_dim_indices", lambda T, x: x.max(1)[1], (2, 3)),
    case("max_dim_ties", lambda T, x: x.max(1), val([[1.0, 3.0, 3.0], [2.0, 2.0, 0.0]])),
    case("min_dim", lambda T, x: x.min(0), (2, 3)),
    case("min_dim_keepdim", lambda T, x: x.min(1, keepdim=True), (2, 3)),
    case("max_fn", lambda T, x: T.max(x, 1), (2, 3)),
    case("max_int", lambda T, x: x.max(), ints(2, 3)),
    case("argmax", lambda T, x: x.argmax(1), (2, 3)),
    case("argmax_all", lambda T, x: x.argmax(), (2, 3)),
]

SHAPE = [
    case("reshape", lambda T, x: x.reshape(-1), (2, 3)),
    case("reshape_tuple", lambda T, x: x.reshape((3, 2)), (2, 3)),
    case("view", lambda T, x: x.view(2, -1), (2, 3, 2)),
    case("view_0d", lambda T, x: x.view(1, 1), ()),
    case("view_as", lambda T, x, y: x.view_as(y), (2, 3), (3, 2)),
    case("flatten", lambda T, x: x.flatten(), (2, 3, 4)),
    case("flatten_start", lambda T, x: x.flatten(1), (2, 3, 4)),
    case("flatten_start_end", lambda T, x: x.flatten(0, 1), (2, 3, 4)),
    case("flatten_fn", lambda T, x: T.flatten(x, -2), (2, 3, 4)),
    case("flatten_1d", lambda T, x: x.flatten(), (3,)),
    case("flatten_0d", lambda T, x: x.flatten(), ()),
    case("squeeze", lambda T, x: x.squeeze(), (2, 1, 3, 1)),
    case("squeeze_dim", lambda T, x: x.squeeze(1), (2, 1, 3)),
    case("squeeze_neg_dim", lambda T, x: x.squeeze(-1), (2, 3, 1)),
    case("squeeze_not_one", lambda T, x: x.squeeze(0), (2, 1, 3)),
    case("squeeze_dims", lambda T, x: x.squeeze((1, 3)), (2, 1, 3, 1)),
    case("unsqueeze", lambda T, x: x.unsqueeze(0), (2, 3)),
    case("unsqueeze_neg", lambda T, x: x.unsqueeze(-1), (2, 3)),
    case("unsqueeze_fn", lambda T, x: T.unsqueeze(x, 1), (3,)),
    case("transpose", lambda T, x: x.transpose(0, 1), (2, 3)),
    case("transpose_neg", lambda T, x: x.transpose(-1, -2), (2, 3, 4)),
    case("transpose_fn", lambda T, x: T.transpose(x, 0, 2), (2, 3, 4)),
    case("t", lambda T, x: x.t(), (2, 3)),
    case("t_1d", lambda T, x: x.t(), (3,)),
    case("T", lambda T, x: x.T, (2, 3)),
    case("mT", lambda T, x: x.mT, (2, 3, 4)),
    case("permute", lambda T, x: x.permute(2, 0, 1), (2, 3, 4)),
    case("permute_tuple", lambda T, x: x.permute((1, 0)), (2, 3)),
    case("permute_neg", lambda T, x: x.permute(-1, 0, 1), (2, 3, 4)),
    case("expand", lambda T, x: x.expand(2, 3), (3,)),
    case("expand_minus_one", lambda T, x: x.expand(-1, 4), (3, 1)),
    case("expand_lead", lambda T, x: x.expand(2, 3, 4), (3, 1)),
    case("expand_tuple", lambda T, x: x.expand((2, 2, 3)), (1, 3)),
    case("diagonal", lambda T, x: x.diagonal(), (3, 4)),
    case("diagonal_above", lambda T, x: x.diagonal(1), (3, 4)),
    case("diagonal_below_wide", lambda T, x: T.diagonal(x, offset=-2), (4, 3)),
    case("diagonal_dims", lambda T, x: x.diagonal(0, 2, 0), (3, 2, 4)),
    case("diagonal_past_the_end", lambda T, x: x.diagonal(5) * 2, (3, 4)),
    case("sum_to_size_bias", lambda T, x: x.sum_to_size(3), (4, 3)),
    case("sum_to_size_keep_ones", lambda T, x: x.sum_to_size(1, 3), (4, 3)),
    case("sum_to_size_middle_one", lambda T, x: x.sum_to_size((2, 1, 3)), (4, 2, 5, 3)),
    case("sum_to_size_same", lambda T, x: x.sum_to_size(4, 3) * 2, (4, 3)),
    case("expand_as", lambda T, x, y: x.expand_as(y), (3,), (2, 3)),
    case("expand_then_mul", lambda T, x, y: x.expand(2, 3) * y, (3,), (2, 3), second=True),
]

INDEXING = [
    case("int", lambda T, x: x[1], (3, 4)),
    case("neg_int", lambda T, x: x[-1], (3, 4)),
    case("int_1d", lambda T, x: x[0], (3,)),
    case("slice", lambda T, x: x[1:3], (4, 2)),
    case("slice_step", lambda T, x: x[::2], (5,)),
    case("slice_start_step", lambda T, x: x[1::2, ::3], (5, 7)),
    case("slice_neg", lambda T, x: x[-2:], (4,)),
    case("slice_full", lambda T, x: x[:], (3,)),
    case("none", lambda T, x: x[None], (3,)),
    case("none_middle", lambda T, x: x[:, None], (2, 3)),
    case("ellipsis", lambda T, x: x[..., 1], (2, 3, 4)),
    case("ellipsis_only", lambda T, x: x[...], (2, 3)),
    case("column", lambda T, x: x[:, 1], (2, 3)),
    case("element", lambda T, w: w[0, 1], (2, 3)),
    case("element_neg", lambda T, w: w[-1, -2], (2, 3)),
    case("list", lambda T, x: x[[0, 2]], (3, 2)),
    case("list_repeated", lambda T, x: x[[0, 2, 0, 0]], (3,)),
    case("list_2d", lambda T, x: x[[0, 1, 1], [2, 0, 2]], (2, 3)),
    case("tensor_index", lambda T, x: x[T.tensor([1, 1, 0])], (3, 2)),
    case("tensor_index_0d", lambda T, x: x[T.tensor(1)], (3, 2)),
    case("slice_whole", lambda T, x: x[0:10], (3,)),
    case("slices_whole", lambda T, x: x[:, :], (2, 3)),
    case("slice_empty", lambda T, x: x[2:1], (3,)),
    case("none_list", lambda T, x: x[None, [0, 1]], (3, 2)),
    case("ellipsis_list", lambda T, x: x[..., [0, 2]], (2, 3)),
    case("int_list", lambda T, x: x[1, [0, 2, 2]], (2, 3)),
    case("list_int", lambda T, x: x[[0, 1, 1], 2], (2, 3)),
    case("lists_separated", lambda T, x: x[[0, 1], :, [1, 0]], (2, 3, 2)),
    case("int_slice_list", lambda T, x: x[0, :, [0, 1]], (2, 3, 2)),
    case("mask_2d_rows", lambda T, x: x[:, x[0] > 0], (2, 3)),
    case("mask", lambda T, x: x[x > 0], (2, 3)),
    case("mask_rows", lambda T, x, m: x[m], (3, 2), val([True, False, True], dtype=bool)),
    case("slice_list", lambda T, x: x[1:, [0, 2]], (3, 3)),
    case("list_slice", lambda T, x: x[[2, 0], 1:], (3, 3)),
    case("column_none", lambda T, x: x[:, None, 1], (2, 3)),
    case("int_slice", lambda T, x: x[1, ::2], (3, 5)),
    case("index_chain", lambda T, x: x[1][2] * x[0][0], (3, 4)),
]

JOIN = [
    case("cat0", lambda T, x, y: T.cat([x, y]), (2, 3), (1, 3)),
    case("cat1", lambda T, x, y: T.cat([x, y], 1), (2, 3), (2, 2)),
    case("cat_neg", lambda T, x, y, z: T.cat((x, y, z), dim=-1), (2, 1), (2, 3), (2, 2)),
    case("cat_const", lambda T, x, y: T.cat([x, y], 0), (2,), randn(3, grad=False)),
    case("cat_f64", lambda T, x, y: T.cat([x, y]), f64(2), f64(3)),
    case("cat_f32_f64", lambda T, x, y: T.cat([x, y]), (2,), f64(3)),
    case("cat_int_float", lambda T, x, y: T.cat([x, y]), ints(2), (3,)),
    case("cat_int_int", lambda T, x, y: T.cat([x, y]), ints(2), ints(3)),
    case("stack_f32_f64", lambda T, x, y: T.stack([x, y]), (3,), f64(3)),
    case("stack_int_float", lambda T, x, y: T.stack([x, y], 1), ints(3), (3,)),
    case("stack", lambda T, x, y: T.stack([x, y]), (2, 3), (2, 3)),
    case("stack1", lambda T, x, y: T.stack([x, y], 1), (2, 3), (2, 3)),
    case("stack_neg", lambda T, x, y, z: T.stack((x, y, z), dim=-1), (3,), (3,), (3,)),
    case("stack_scalars", lambda T, x, y: T.stack([x, y]), (), ()),
]

SOFTMAX_AND_LOSSES = [
    case("softmax", lambda T, x: x.softmax(1), (2, 3), second=True),
    case("softmax_dim0", lambda T, x: T.softmax(x, 0), (2, 3), second=True),
    case("softmax_neg", lambda T, x: F(T).softmax(x, dim=-1), (2, 3, 4), second=True),
    case("log_softmax", lambda T, x: x.log_softmax(1), (2, 3), second=True),
    case("log_softmax_dim0", lambda T, x: T.log_softmax(x, 0), (3, 2), second=True),
    case("log_softmax_neg", lambda T, x: F(T).log_softmax(x, dim=-1), (4,), second=True),
    case("softmax_f64", lambda T, x: x.softmax(-1), f64(2, 3), second=True),
    case("mse", lambda T, x, y: F(T).mse_loss(x, y), (2, 3), (2, 3), second=True),
    case("mse_sum", lambda T, x, y: F(T).mse_loss(x, y, reduction="sum"), (4,), (4,), second=True),
    case("mse_none", lambda T, x, y: F(T).mse_loss(x, y, reduction="none"), (2, 3), (2, 3), second=True),
    case("mse_const_target", lambda T, x, y: F(T).mse_loss(x, y), (3,), randn(3, grad=False), second=True),
    case("mse_bcast_warns", lambda T, x, y: F(T).mse_loss(x, y), (3,), (2, 3)),
    case("mse_bcast_both", lambda T, x, y: F(T).mse_loss(x, y, reduction="sum"), (2, 1), (1, 3)),
    case("mse_bcast_const", lambda T, x, y: F(T).mse_loss(x, y), (3,), randn(2, 3, grad=False)),
    case("mse_f32_f64", lambda T, x, y: F(T).mse_loss(x, y), (3,), f64(3)),
    case("mse_f64_0d_target", lambda T, x, y: F(T).mse_loss(x, y), f64(3), ()),
    case("mse_int_target", lambda T, x, y: F(T).mse_loss(x, y), (3,), ints(3)),
    case("mse_f64", lambda T, x, y: F(T).mse_loss(x, y), f64(3), f64(3)),
    case("cross_entropy", loss("cross_entropy"), (4, 5), ints(4, low=0, high=5)),
    case("cross_entropy_sum", loss("cross_entropy", reduction="sum"), (4, 5), ints(4, low=0, high=5)),
    case("cross_entropy_none", loss("cross_entropy", reduction="none"), (3, 4), ints(3, low=0, high=4)),
    case("cross_entropy_ignore", loss("cross_entropy", ignore_index=1), (4, 3), labels(0, 1, 2, 1)),
    case("cross_entropy_f64", loss("cross_entropy"), f64(3, 4), ints(3, low=0, high=4)),
    case("nll_loss", lambda T, x, t: F(T).nll_loss(x.log_softmax(1), t), (4, 5), ints(4, low=0, high=5)),
    case("nll_loss_raw", loss("nll_loss"), (4, 5), ints(4, low=0, high=5)),
    case("nll_loss_sum", loss("nll_loss", reduction="sum"), (3, 2), ints(3, low=0, high=2)),
    case("nll_loss_none", loss("nll_loss", reduction="none"), (3, 2), ints(3, low=0, high=2)),
    case("nll_loss_ignore", loss("nll_loss", ignore_index=0), (4, 3), labels(0, 1, 2, 0)),
    case("nll_loss_ignore_none", loss("nll_loss", reduction="none", ignore_index=2), (3, 3), labels(2, 1, 0)),
    case("cross_entropy_1d", loss("cross_entropy"), (4,), val(2, np.int64)),
    case("cross_entropy_1d_none", loss("cross_entropy", reduction="none"), (4,), val(1, np.int64)),
    case("cross_entropy_1d_ignored", loss("cross_entropy", ignore_index=2), (4,), val(2, np.int64)),
    case("nll_loss_f64_sum", loss("nll_loss", reduction="sum"), f64(3, 4), labels(0, 3, 1)),
    case("nll_loss_all_ignored", loss("nll_loss", ignore_index=1), (2, 3), labels(1, 1)),
    case("linear_2d_bias", linear, (5, 3), (4, 3), (4,)),
    case("linear_2d", linear, (5, 3), (4, 3)),
    case("linear_1d_bias", linear, (3,), (4, 3), (4,)),
    case("linear_1d", linear, (3,), (4, 3)),
    case("linear_3d_bias", linear, (2, 5, 3), (4, 3), (4,)),
    case("linear_3d", linear, (2, 5, 3), (4, 3), names=False, text=False),
    case("linear_0d_bias", linear, (3,), (4, 3), ()),
    case("linear_f64", linear, f64(2, 3), f64(4, 3), f64(4)),
    case("linear_const_input", linear, randn(2, 3, grad=False), (4, 3), (4,)),
]

CONVERSIONS = [
    case("float_of_f64", lambda T, x: x.float(), f64(3)),
    case("double_of_f32", lambda T, x: x.double() * 2, (3,)),
    case("float_of_f32", lambda T, x: x.float(), (3,)),
    case("float_of_int", lambda T, x: x.float(), ints(3)),
    case("double_of_int", lambda T, x: x.double(), ints(3)),
    case("long_of_float", lambda T, x: x.long(), val([1.5, -1.5, 2.0])),
    case("clone", lambda T, x: x.clone(), (2, 3)),
    case("clone_mul", lambda T, x: x.clone() * x, (3,)),
    case("detach", lambda T, x: x.detach(), (2, 3)),
    case("detach_mul", lambda T, x: x.detach() * x, (3,)),
    case("gt", lambda T, x, y: x > y, (2, 3), (2, 3)),
    case("lt_bcast", lambda T, x, y: x < y, (2, 3), (3,)),
    case("ge_number", lambda T, x: x >= 0, (2, 3)),
    case("le_number", lambda T, x: x <= 0.5, (3,)),
    case("eq", lambda T, x: x == x, (3,)),
    case("eq_number", lambda T, x: x == 1.0, val([1.0, 2.0, 1.0])),
    case("ne", lambda T, x, y: x != y, val([1.0, 2.0]), val([1.0, 3.0])),
    case("cmp_int", lambda T, x, y: x > y, ints(4), ints(4)),
    case("and_or", lambda T, x: ((x > 0) & (x < 1)) | (x < -1), (5,)),
    case("invert", lambda T, x: ~(x > 0), (4,)),
]


def _inplace_no_grad(op: str) -> Callable[..., Any]:
    """``with no_grad(): x.<op>(...)`` on a leaf that requires grad, then a recorded use of x."""

    def fn(T: Any, x: Any, y: Any) -> Any:
        with T.no_grad():
            r = {
                "add_": lambda: x.add_(y),
                "add_alpha": lambda: x.add_(y, alpha=0.5),
                "sub_": lambda: x.sub_(y),
                "mul_": lambda: x.mul_(y),
                "div_": lambda: x.div_(2.0),
                "zero_": lambda: x.zero_(),
                "fill_": lambda: x.fill_(1.5),
                "copy_": lambda: x.copy_(y),
            }[op]()
            assert r is x
        return x * y

    return fn


def _augmented(op: str, grad: bool) -> Callable[..., Any]:
    """``x += y`` (and -=, *=, /=) under no_grad on a leaf, or with grad on a non-leaf."""

    def fn(T: Any, x: Any, y: Any) -> Any:
        with T.set_grad_enabled(grad):
            z = x if not grad else x * 1
            if op == "+=":
                z += y
            elif op == "-=":
                z -= y
            elif op == "*=":
                z *= y
            else:
                z /= y
        return z if grad else z * y

    return fn


def _inplace_non_leaf(op: str) -> Callable[..., Any]:
    """An in-place method on a non-leaf with grad enabled: it takes the op's grad_fn."""

    def fn(T: Any, x: Any, y: Any) -> Any:
        z = x * 2
        r = getattr(z, op)(y) if op not in ("zero_", "fill_") else getattr(z, op)(*(() if op == "zero_" else (2.0,)))
        assert r is z
        return z

    return fn


INPLACE = [
    *[case(f"no_grad_{op}", _inplace_no_grad(op), (2, 3), (2, 3)) for op in ("add_", "add_alpha", "sub_", "mul_")],
    *[case(f"no_grad_{op}", _inplace_no_grad(op), (2, 3), (2, 3)) for op in ("div_", "zero_", "fill_", "copy_")],
    case("no_grad_add_bcast", _inplace_no_grad("add_"), (2, 3), (3,)),
    *[case(f"no_grad_{op}", _augmented(op, False), (2, 3), pos(2, 3)) for op in ("+=", "-=", "*=", "/=")],
    *[case(f"non_leaf_{op}", _augmented(op, True), (2, 3), pos(2, 3)) for op in ("+=", "-=", "*=", "/=")],
    case("non_leaf_number", _augmented("*=", True), (2, 3), 3.0),
    *[case(f"non_leaf_{op}", _inplace_non_leaf(op), (2, 3), pos(3)) for op in ("add_", "sub_", "mul_", "div_")],
    case("non_leaf_zero_", _inplace_non_leaf("zero_"), (2, 3), (3,)),
    case("non_leaf_fill_", _inplace_non_leaf("fill_"), (2, 3), (3,)),
    case("non_leaf_copy_", _inplace_non_leaf("copy_"), (2, 3), (3,)),
    case("non_leaf_copy_const", _inplace_non_leaf("copy_"), (2, 3), randn(2, 3, grad=False)),
    case("non_leaf_copy_graph", _inplace_non_leaf("copy_"), (2, 3), (3,), text=False),
    case("leaf_copy_from_grad", lambda T, x, y: x.copy_(y) * 2, randn(2, 3, grad=False), (3,)),
    case("int_fill_float", lambda T, x: x.fill_(1.7), ints(3)),
    case("int_copy_float", lambda T, x, y: x.copy_(y), ints(3), randn(3, grad=False)),
    case("int_add_", lambda T, x, y: x.add_(y), ints(3), ints(3)),
    case("int_mul_number", lambda T, x: x.mul_(2), ints(3)),
]

ALL_CASES = ARITHMETIC + SILENT + MATMUL + ELEMENTWISE + REDUCTIONS + SHAPE + INDEXING + JOIN + SOFTMAX_AND_LOSSES
ALL_CASES += CONVERSIONS + INPLACE


@pytest.mark.parametrize("fn, specs, opts", ALL_CASES)
def test_op(fn: Callable[..., Any], specs: tuple, opts: dict) -> None:
    check(fn, *specs, **opts)


# ---------------------------------------------------------------- errors


ERRORS = [
    case("broadcast", lambda T, x, y: x + y, (2, 3), (4,)),
    case("broadcast_mul", lambda T, x, y: x * y, (2, 3), (3, 2)),
    case("broadcast_maximum", lambda T, x, y: T.maximum(x, y), (2, 3), (2,)),
    case("broadcast_where", lambda T, x, y: T.where(x > 0, x, y), (2, 3), (2, 2)),
    case("broadcast_mse", lambda T, x, y: F(T).mse_loss(x, y), (2, 3), (2, 2)),
    case("mm", lambda T, a, b: a.mm(b), (2, 3), (4, 5)),
    case("matmul_2d", lambda T, a, b: a @ b, (2, 3), (2, 3)),
    case("mv", lambda T, a, x: a.mv(x), (2, 3), (4,)),
    case("matmul_2d_1d", lambda T, a, x: a @ x, (2, 3), (2,)),
    case("matmul_1d_2d", lambda T, x, a: x @ a, (2,), (3, 2)),
    case("dot", lambda T, x, y: x.dot(y), (3,), (4,)),
    case("dot_2d", lambda T, x, y: T.dot(x, y), (2, 3), (3,)),
    case("dot_dtype", lambda T, x, y: x @ y, (3,), f64(4)),
    case("dot_int_float", lambda T, x, y: x.dot(y), ints(2), (2,)),
    case("mm_dtype", lambda T, a, b: a @ b, (2, 3), f64(3, 2)),
    case("mm_dtype_f64_first", lambda T, a, b: a.mm(b), f64(2, 3), (3, 2)),
    case("mm_dtype_int", lambda T, a, b: a @ b, ints(2, 3), (3, 2)),
    case("mv_dtype", lambda T, a, x: a @ x, f64(2, 3), (3,)),
    case("vm_dtype", lambda T, x, a: x @ a, (3,), f64(3, 2)),
    case("bmm_dtype", lambda T, a, b: a @ b, f64(4, 2, 3), (4, 3, 2)),
    case("bmm_mm_dtype", lambda T, a, b: a @ b, (4, 2, 3), f64(3, 2)),
    case("bmm_mv_dtype", lambda T, a, x: a @ x, (4, 2, 3), f64(3)),
    case("vbmm_dtype", lambda T, x, b: x @ b, f64(3), (4, 3, 5)),
    case("vbmm_dtype_const", lambda T, x, b: x @ b, f64(3, grad=False), (4, 3, 5)),
    case("mmb_dtype", lambda T, a, b: a @ b, (2, 3), f64(4, 3, 5)),
    case("mmb_dtype_const", lambda T, a, b: a @ b, randn(2, 3, grad=False), f64(4, 3, 5)),
    case("linear_shape", linear, (5, 3), (4, 2), (4,)),
    case("linear_1d_shape", linear, (3,), (4, 2), (4,)),
    case("linear_3d_shape", linear, (2, 5, 3), (4, 2), (4,)),
    case("linear_no_bias_shape", linear, (5, 3), (4, 2)),
    case("linear_bias_shape", linear, (5, 3), (4, 3), (3,)),
    case("linear_input_dtype", linear, f64(5, 3), (4, 3), (4,)),
    case("linear_bias_dtype", linear, (5, 3), (4, 3), f64(4)),
    case("linear_weight_dtype", linear, (5, 3), f64(4, 3), f64(4)),
    case("linear_module_shape", lambda T, x: T.nn.Linear(3, 4)(x), (5, 2)),
    case("matmul_batched", lambda T, a, b: a @ b, (4, 2, 3), (4, 2, 3)),
    case("matmul_batched_batch", lambda T, a, b: a @ b, (4, 2, 3), (3, 3, 2)),
    case("matmul_0d", lambda T, a, b: a @ b, (), (3,)),
    case("view", lambda T, x: x.view(4, 2), (2, 3)),
    case("view_minus_one", lambda T, x: x.view(-1, 4), (2, 3)),
    case("view_two_minus_one", lambda T, x: x.view(-1, -1), (2, 3)),
    case("reshape", lambda T, x: x.reshape(5), (2, 3)),
    case("sum_dim", lambda T, x: x.sum(2), (2, 3)),
    case("sum_neg_dim", lambda T, x: x.sum(-3), (2, 3)),
    case("mean_dim", lambda T, x: x.mean(5), (3,)),
    case("max_dim", lambda T, x: x.max(2), (2, 3)),
    case("softmax_dim", lambda T, x: x.softmax(2), (2, 3)),
    case("squeeze_dim", lambda T, x: x.squeeze(3), (2, 3)),
    case("unsqueeze_dim", lambda T, x: x.unsqueeze(3), (2, 3)),
    case("transpose_dim", lambda T, x: x.transpose(0, 2), (2, 3)),
    case("flatten_dim", lambda T, x: x.flatten(3), (2, 3)),
    case("cat_dim", lambda T, x, y: T.cat([x, y], 2), (2, 3), (2, 3)),
    case("index", lambda T, x: x[3], (3,)),
    case("index_neg", lambda T, x: x[-4], (3,)),
    case("index_dim1", lambda T, x: x[0, 5], (2, 3)),
    case("index_too_many", lambda T, x: x[0, 0, 0], (2, 3)),
    case("index_list", lambda T, x: x[[0, 5]], (3,)),
    case("index_list_dim1", lambda T, x: x[:, [7]], (3, 4)),
    case("index_list_after_slice", lambda T, x: x[1:, [0, 5]], (3, 4)),
    case("index_lists_order", lambda T, x: x[[1, 5], [7, 0]], (3, 4)),
    case("index_none_int", lambda T, x: x[None, 5], (3, 4)),
    case("index_ellipsis_int", lambda T, x: x[..., 0, 5], (2, 3, 4)),
    case("index_lists_bcast", lambda T, x: x[[0, 1], [0, 1, 2]], (3, 4)),
    case("index_mask_shape", lambda T, x: x[T.tensor([True, False])], (3, 4)),
    case("index_mask_shape_dim1", lambda T, x: x[:, T.tensor([True, False])], (3, 4)),
    case("index_float_tensor", lambda T, x: x[T.tensor([0.0, 1.0])], (3, 4)),
    case("index_step", lambda T, x: x[::-1], (3,)),
    case("expand", lambda T, x: x.expand(2, 4), (3,)),
    case("expand_minus_one_lead", lambda T, x: x.expand(-1, 3), (3,)),
    case("expand_fewer", lambda T, x: x.expand(3), (2, 3)),
    case("cat_size", lambda T, x, y: T.cat([x, y]), (2, 3), (2, 2)),
    case("cat_ndim", lambda T, x, y: T.cat([x, y]), (2, 3), (3,)),
    case("cat_empty", lambda T: T.cat([])),
    case("stack_size", lambda T, x, y: T.stack([x, y]), (2, 3), (3, 2)),
    case("permute_length", lambda T, x: x.permute(1, 0, 2), (2, 3)),
    case("permute_repeated", lambda T, x: x.permute(0, 0), (2, 3)),
    case("t_3d", lambda T, x: x.t(), (2, 3, 4)),
    case("item", lambda T, x: x.item(), (3,)),
    case("mean_int", lambda T, x: x.mean(), ints(3)),
    case("mean_int_dim", lambda T, x: x.mean(0), ints(2, 3)),
    case("bool_ambiguous", lambda T, x: bool(x), (3,)),
    case("clamp_none", lambda T, x: x.clamp(), (3,)),
    case("leaf_inplace", lambda T, x: x.add_(1), (3,)),
    case("leaf_fill", lambda T, x: x.fill_(1), (3,)),
    case("backward_non_scalar", lambda T, x: (x * 2).backward(), (3,)),
    case("backward_no_grad", lambda T, x: (x * 2).sum().backward(), randn(3, grad=False)),
    case("requires_grad_int", lambda T, x: x.requires_grad_(), ints(3)),
    case("requires_grad_int_tensor", lambda T: T.tensor([1, 2], requires_grad=True)),
    case("requires_grad_int_factory", lambda T: T.ones(2, dtype=T.long, requires_grad=True)),
    case("requires_grad_int_attribute", lambda T, x: setattr(x, "requires_grad", True), ints(3), xfail=INT_ATTR),
    case("nll_target_range", loss("nll_loss"), (2, 3), labels(0, 3)),
    case("nll_target_negative", loss("nll_loss"), (2, 3), labels(0, -1)),
    case("nll_target_range_1d", loss("nll_loss"), (3,), val(5, np.int64)),
    case("nll_target_batch", loss("nll_loss"), (3, 4), labels(2, 1)),
    case("nll_target_2d", loss("nll_loss"), (3, 4), val([[2], [1], [0]], np.int64)),
    case("nll_target_float", loss("nll_loss"), (3, 4), val([2.0, 1.0, 0.0], grad=False)),
    case("nll_reduction", loss("nll_loss", reduction="avg"), (3, 4), labels(2, 1, 0)),
    case("mse_reduction", lambda T, x, y: F(T).mse_loss(x, y, reduction="avg"), (3,), (3,)),
    case("inplace_bcast", lambda T, x, y: x.add_(y), randn(3, grad=False), randn(2, 3, grad=False)),
    case("inplace_int_float", lambda T, x, y: x.add_(y), ints(3), randn(3, grad=False)),
    case("copy_bigger", lambda T, x, y: x.copy_(y), randn(3, grad=False), randn(2, 3, grad=False)),
    case("copy_mismatch", lambda T, x, y: x.copy_(y), randn(2, 3, grad=False), randn(2, grad=False)),
    case("where_cond_shape", lambda T, c, x, y: T.where(c > 0, x, y), (2, 2), (2, 3), (2, 3)),
    case("where_progressive", lambda T, c, x, y: T.where(c > 0, x, y), (3,), (2, 1), (4, 1)),
]


@pytest.mark.parametrize("fn, specs, opts", ERRORS)
def test_error(fn: Callable[..., Any], specs: tuple, opts: dict) -> None:
    check_error(fn, *specs, **opts)


# ---------------------------------------------------------------- nn and optim


def _models(build: Callable[[Any], Any]) -> tuple[Any, Any]:
    """The same architecture in both libraries, gradbook's weights copied from torch's."""
    torch.manual_seed(0)
    tm, gm = build(torch), build(gradbook)
    tparams, gparams = dict(tm.named_parameters()), dict(gm.named_parameters())
    assert list(gparams) == list(tparams)
    for name, p in gparams.items():
        p.data = gradbook.tensor(tparams[name].detach().numpy().copy())
    return tm, gm


MLP = lambda T: T.nn.Sequential(T.nn.Linear(3, 4), T.nn.ReLU(), T.nn.Linear(4, 2), T.nn.Tanh())  # noqa: E731


CLASSIFIER = lambda T: T.nn.Sequential(T.nn.Linear(3, 5), T.nn.Sigmoid(), T.nn.Linear(5, 4))  # noqa: E731


@pytest.mark.parametrize(
    "build, loss, target",
    [
        (MLP, lambda T: T.nn.MSELoss(), lambda r, n: r.standard_normal((n, 2)).astype(np.float32)),
        (MLP, lambda T: T.nn.MSELoss(reduction="sum"), lambda r, n: r.standard_normal((n, 2)).astype(np.float32)),
        (CLASSIFIER, lambda T: T.nn.CrossEntropyLoss(), lambda r, n: r.integers(0, 4, n)),
    ],
    ids=["mlp_mse", "mlp_mse_sum", "classifier_cross_entropy"],
)
@pytest.mark.parametrize("batch", [5, None], ids=["batch", "single"])
def test_nn_model(build: Callable, loss: Callable, target: Callable, batch: int | None) -> None:
    """A model and a loss module: the graph of the loss, its value, every parameter's gradient."""
    tm, gm = _models(build)
    assert repr(gm) == repr(tm)
    assert repr(loss(gradbook)) == repr(loss(torch))
    rng = np.random.default_rng(0)
    x = rng.standard_normal((batch or 1, 3)).astype(np.float32)
    y = target(rng, batch or 1)
    if batch is None:
        x, y = x[0], y[0]
    results = {}
    for T, m in ((torch, tm), (gradbook, gm)):
        out = m(T.tensor(x))
        value = loss(T)(out, T.tensor(y))
        results[T] = (out, value)
        value.backward()
    for g, t in zip(results[gradbook], results[torch]):
        assert_same_output(g, t)
    for (name, g), (_, t) in zip(gm.named_parameters(), tm.named_parameters()):
        assert repr(g) == _text(repr(t))
        assert_same_tensor(g.grad, t.grad, f"grad of {name}")


def test_nn_linear_no_bias() -> None:
    tm, gm = _models(lambda T: T.nn.Linear(3, 2, bias=False))
    assert repr(gm) == repr(tm)
    x = np.random.default_rng(1).standard_normal((4, 3)).astype(np.float32)
    check(lambda T, x: (tm if T is torch else gm)(x), val(x))


def test_sgd_repr_defaults() -> None:
    tm, gm = _models(MLP)
    assert repr(gradbook.optim.SGD(gm.parameters(), lr=0.5)) == repr(torch.optim.SGD(tm.parameters(), lr=0.5))
    kw = {"lr": 0.01, "momentum": 0.9, "weight_decay": 1e-4}
    assert repr(gradbook.optim.SGD(gm.parameters(), **kw)) == repr(torch.optim.SGD(tm.parameters(), **kw))


@pytest.mark.parametrize("momentum", [0.0, 0.9])
def test_sgd(momentum: float) -> None:
    tm, gm = _models(MLP)
    rng = np.random.default_rng(2)
    x, y = rng.standard_normal((6, 3)).astype(np.float32), rng.standard_normal((6, 2)).astype(np.float32)
    topt = torch.optim.SGD(tm.parameters(), lr=0.1, momentum=momentum)
    gopt = gradbook.optim.SGD(gm.parameters(), lr=0.1, momentum=momentum)
    assert repr(gopt) == repr(topt)
    for step in range(4):
        for T, m, opt in ((torch, tm, topt), (gradbook, gm, gopt)):
            opt.zero_grad()
            T.nn.MSELoss()(m(T.tensor(x)), T.tensor(y)).backward()
            opt.step()
        for (name, g), (_, t) in zip(gm.named_parameters(), tm.named_parameters()):
            assert_same_tensor(g, t, f"{name} after step {step}")
            assert g.is_leaf and g.requires_grad and g.grad_fn is None


# ---------------------------------------------------------------- what each node saves


def _node_pairs(a: Any, b: Any, seen: set) -> Any:
    """The nodes of two graphs of the same structure, pairwise (gradbook's, torch's)."""
    if a is None or b is None or id(a) in seen:
        return
    seen.add(id(a))
    yield a, b
    for (x, _), (y, _) in zip(a.next_functions, b.next_functions):
        yield from _node_pairs(x, y, seen)


def _saved_names(node: Any) -> set[str]:
    return {n for n in dir(node) if n.startswith("_saved_")}


# What gradbook's nodes show under a _saved_ name that torch's do not: the op's parameters, which
# torch keeps under other names (a shape as _saved_self_sym_sizes) or not at all. This list may
# only shrink (torch's names are the goal).
NOT_TORCHS_NAMES: dict[str, set[str]] = {}  # none left: an op's params torch keeps no _saved_ of are unexposed
FOUND: dict[str, set[str]] = {}


@pytest.mark.parametrize("fn, specs, opts", [c for c in ALL_CASES if c.values[2].get("names", True)])
def test_each_node_saves_under_torchs_names_in_torchs_dtypes(fn: Callable[..., Any], specs: tuple, opts: dict) -> None:
    """Every ``_saved_*`` a gradbook node has, torch's node has too (but ``NOT_TORCHS_NAMES``), and a
    saved tensor has torch's dtype and shape (a saved result: the result's). torch may save more
    (``_saved_self_sym_sizes``: a shape gradbook reads from its own records). A Python number an op
    saved is a 0-d tensor in both: torch keeps it as an int64 or float64 "wrapped number", gradbook
    in the op's dtype (not compared)."""
    built = _build(specs, np.random.default_rng(0))
    outs = {}
    for T in LIBS:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            outs[T] = _outputs(fn(T, *_leaves(T, built)))
    for g_out, t_out in zip(outs[gradbook], outs[torch]):
        for g_node, t_node in _node_pairs(g_out.grad_fn, t_out.grad_fn, set()):
            kind = type(g_node).__name__
            extra = _saved_names(g_node) - _saved_names(t_node)
            assert extra <= NOT_TORCHS_NAMES.get(kind, set()), (kind, extra)
            FOUND.setdefault(kind, set()).update(extra)
            for name in sorted(_saved_names(g_node) - extra):
                g_value, t_value = getattr(g_node, name), getattr(t_node, name)
                if isinstance(g_value, gradbook.ops.WrappedNumber) or not isinstance(t_value, torch.Tensor):
                    continue
                assert isinstance(g_value, gradbook.Tensor), (kind, name, g_value)
                assert _dtype_name(g_value) == _dtype_name(t_value), (kind, name, g_value.dtype, t_value.dtype)
                assert tuple(g_value.shape) == tuple(t_value.shape), (kind, name)


def test_the_list_of_names_torch_lacks_names_only_what_gradbook_still_shows():
    """Run after the cases above: every entry of NOT_TORCHS_NAMES was seen (an entry fixed in gradbook
    must leave the list)."""
    if not FOUND:
        pytest.skip("runs after test_each_node_saves_under_torchs_names_in_torchs_dtypes")
    assert {k: v for k, v in FOUND.items() if v} == NOT_TORCHS_NAMES
    # (with it empty, this still fails if a node shows a name torch lacks: the case above fails first)


def _dtype_name(t: Any) -> str:
    return str(t.dtype).split(".")[-1]
