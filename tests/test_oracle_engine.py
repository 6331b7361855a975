"""Engine behaviour compared with PyTorch itself (skipped when torch is not installed)."""

import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
from conftest import watch_order

import gradbook

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.oracle


def build(lib, x0):
    """A graph with fan-out, fan-in, a constant and several leaves."""
    x = lib.tensor(x0, requires_grad=True)
    w = lib.tensor([[0.5, -1.0], [2.0, 0.25]], requires_grad=True)
    h = (w @ x).tanh()
    a = h * x + x.exp()
    b = (a * 3).sum() + (h**2).mean() - x.sin().sum()
    return b, (x, w)


def test_execution_order_matches_torch():
    root = build(torch, [0.3, -0.7])[0]
    expected = watch_order(root)
    root.backward()
    mine = build(gradbook, [0.3, -0.7])[0]
    order = watch_order(mine)
    mine.backward()
    assert order == expected


def test_gradients_match_torch():
    b_t, leaves_t = build(torch, [0.3, -0.7])
    b_g, leaves_g = build(gradbook, [0.3, -0.7])
    b_t.backward()
    b_g.backward()
    for lt, lg in zip(leaves_t, leaves_g):
        np.testing.assert_allclose(lg.grad.numpy(), lt.grad.numpy(), rtol=1e-5, atol=1e-6)


def error_text(fn):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            fn()
        except Exception as e:  # noqa: BLE001
            return type(e).__name__, str(e).replace("torch.", "gradbook.")
    return None


SCENARIOS = {
    "implicit non-scalar": lambda L: (L.tensor([1.0, 2.0], requires_grad=True) * 2).backward(),
    "shape mismatch": lambda L: (L.tensor([1.0, 2.0], requires_grad=True) * 2).backward(L.ones(3)),
    "second backward": lambda L: [y.backward() for y in [L.tensor(2.0, requires_grad=True) * L.tensor(3.0)] * 2],
    "no grad_fn": lambda L: L.tensor([1.0]).sum().backward(),
    "broadcast": lambda L: L.ones(2, 4) + L.ones(3),
    "int requires grad": lambda L: L.tensor([1, 2], requires_grad=True),
    "leaf in-place": lambda L: L.tensor([1.0], requires_grad=True).add_(1),
    "numpy": lambda L: L.tensor([1.0], requires_grad=True).numpy(),
    "unused": lambda L: L.autograd.grad(
        (lambda x: (x * 2).sum())(L.tensor([1.0], requires_grad=True)), [L.tensor([1.0], requires_grad=True)]
    ),
    "retain_grad": lambda L: L.ones(2).retain_grad(),
    "hook": lambda L: L.ones(2).register_hook(lambda g: g),
    "empty inputs": lambda L: (L.tensor(1.0, requires_grad=True) * 2).backward(inputs=[]),
    "grad of constant": lambda L: L.autograd.grad((L.tensor(1.0, requires_grad=True) * 2), [L.tensor(1.0)]),
    "assign grad of wrong size": lambda L: setattr(L.tensor([1.0, 2.0], requires_grad=True), "grad", L.ones(3)),
    "item": lambda L: L.ones(3).item(),
    "second backward through exp": lambda L: [y.backward() for y in [L.tensor(2.0, requires_grad=True).exp()] * 2],
}


@pytest.mark.parametrize("name", SCENARIOS)
def test_error_texts_match_torch(name):
    expected = error_text(lambda: SCENARIOS[name](torch))
    assert expected is not None
    assert error_text(lambda: SCENARIOS[name](gradbook)) == expected


def test_version_counter_error_starts_like_torch():
    def scenario(L):
        w = L.tensor([1.0, 2.0], requires_grad=True)
        h = (w * w).sum()
        with L.no_grad():
            w.mul_(2)
        h.backward()

    def non_leaf(L):
        x = L.tensor([1.0, 2.0], requires_grad=True)
        a = x * 1
        b = a * a
        a.mul_(2)
        b.sum().backward()

    for case in (scenario, non_leaf):
        _, t = error_text(lambda case=case: case(torch))
        _, g = error_text(lambda case=case: case(gradbook))
        assert g.split("Hint")[0] == t.split("Hint")[0]


def test_non_leaf_grad_warning_text_matches_torch():
    def message(L):
        x = L.tensor(1.0, requires_grad=True)
        y = x * 2
        with warnings.catch_warnings(record=True) as rec:
            warnings.simplefilter("always")
            _ = y.grad
        return str(rec[0].message).split(" (Triggered internally")[0]

    assert message(gradbook) == message(torch)


@pytest.mark.parametrize(
    "make",
    [
        lambda L: L.tensor(2.0, requires_grad=True) * L.tensor(2.0),
        lambda L: L.tensor([2.0, 3.0, 4.0], requires_grad=True) ** 2,
        lambda L: L.tensor([[1.0, 2.5], [-3.0, 4.0]], dtype=L.float64, requires_grad=True).exp(),
        lambda L: L.tensor(2.0, requires_grad=True),
        lambda L: L.tensor([1.0, 2.0], requires_grad=True).sum(),
        lambda L: L.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True).max(1),
        lambda L: L.tensor([1.0, 2.0]).max(0, keepdim=True),
    ],
)
def test_reprs_match_torch(make):
    assert repr(make(gradbook)) == repr(make(torch)).replace("torch.", "gradbook.")


def test_create_graph_gradients_match_torch():
    def second(L):
        x = L.tensor([0.5, 1.5], dtype=L.float64, requires_grad=True)
        y = (x.sin() * x**3).sum()
        (g,) = L.autograd.grad(y, x, create_graph=True)
        (h,) = L.autograd.grad(g.sum(), x)
        return g.detach().numpy(), h.numpy()

    for ours, theirs in zip(second(gradbook), second(torch)):
        np.testing.assert_allclose(ours, theirs, rtol=1e-12)


def test_retain_graph_semantics_match_torch_per_node():
    ops = {
        "add": lambda x: x + 3,
        "mul": lambda x: x * x,
        "scalar mul": lambda x: 2 * x,
        "sum": lambda x: x.sum(),
        "view": lambda x: x.view(-1).sum(),
        "neg": lambda x: -x,
        "exp": lambda x: x.exp(),
        "relu": lambda x: x.relu(),
        "select": lambda x: x[0],
        "mean": lambda x: x.mean(),
        "cat": lambda x: gradbook.cat([x, x]).sum() if isinstance(x, gradbook.Tensor) else torch.cat([x, x]).sum(),
    }
    for name, op in ops.items():
        outcome = []
        for L in (gradbook, torch):
            x = L.tensor([2.0], requires_grad=True)
            y = op(x)
            y = y if y.ndim == 0 else y.sum()
            y.backward()
            outcome.append(error_text(y.backward))
        assert outcome[0] == outcome[1], name


@pytest.mark.parametrize("name", sorted(p.name for p in (Path(__file__).parent / "scripts").glob("*.py")))
def test_lesson_scripts_print_what_torch_prints(name):
    """Whole lesson-like scripts (a custom Function with its errors; a training loop with
    nn.Module, cross_entropy, SGD with momentum, detach and no_grad; saved inputs and outputs
    changed in place) print torch's text."""
    import subprocess
    import sys

    script = Path(__file__).parent / "scripts" / name
    outs = [
        subprocess.run([sys.executable, str(script), lib], capture_output=True, text=True, check=True).stdout
        for lib in ("torch", "gradbook")
    ]
    assert outs[1] == outs[0].replace("torch.", "gradbook.")


def test_refused_second_backward_names_the_node_where_torch_fails():
    def build_twice(L):
        a = L.tensor([0.5, 1.5], requires_grad=True)
        b = L.tensor([2.0, -1.0], requires_grad=True)
        y = (a + 3).sum() + (a * b).tanh().sum() + (b + 1).exp().sum() + 0
        y.backward()
        return y

    y_t = build_twice(torch)
    ran = watch_order(y_t)
    with pytest.raises(RuntimeError):
        y_t.backward()
    y_g = build_twice(gradbook)
    with pytest.raises(RuntimeError) as e:
        y_g.backward()
    assert e.value.node.name() == ran[-1]


@pytest.mark.parametrize("shape", [(2,), (2, 2), ()])
def test_gradcheck_failure_text_matches_torch(shape):
    """A Function whose backward has the wrong sign: torch's GradcheckError text, both Jacobians."""

    def texts(lib):
        class WrongSign(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x.exp()

            @staticmethod
            def backward(ctx, grad_output):
                (x,) = ctx.saved_tensors
                return -grad_output * x.exp()

        values = np.linspace(0.5, 1.0, int(np.prod(shape))).reshape(shape)
        x = lib.tensor(values, dtype=lib.float64, requires_grad=True)
        error = sys.modules[lib.__name__ + ".autograd.gradcheck"].GradcheckError  # torch's home for it
        with pytest.raises(error) as caught:
            lib.autograd.gradcheck(WrongSign.apply, (x,))
        assert lib.autograd.gradcheck(WrongSign.apply, (x,), raise_exception=False) is False
        return str(caught.value).replace("torch.", "gradbook.")

    assert texts(gradbook) == texts(torch)


def _frozen_and_mixed(lib):
    """Programs where gradcheck meets outputs that do not require grad, as torch 2.13 treats them."""

    class Frozen(lib.autograd.Function):  # its backward runs under no_grad: nothing to differentiate
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, grad_output):
            (x,) = ctx.saved_tensors
            with lib.no_grad():
                return grad_output * 2 * x

    class Detached(Frozen):  # differentiable in grad_output only
        @staticmethod
        def backward(ctx, grad_output):
            (x,) = ctx.saved_tensors
            return grad_output * 2 * x.detach()

    class Bad(lib.autograd.Function):  # the second input alone requires grad; its rule has the wrong sign
        @staticmethod
        def forward(ctx, a, b):
            return a * b, (b * b).detach()

        @staticmethod
        def backward(ctx, g, g2):
            return None, -g

    a = lib.tensor([1.0, 2.0], dtype=lib.float64)
    b = lib.tensor([0.5, -1.0], dtype=lib.float64, requires_grad=True)
    v = lib.tensor([0.25, -2.0], dtype=lib.float64, requires_grad=True)
    check, twice = lib.autograd.gradcheck, lib.autograd.gradgradcheck
    cases = {
        "gradgradcheck, backward under no_grad": lambda: twice(Frozen.apply, (b,)),
        "gradgradcheck, backward detaches x": lambda: twice(Detached.apply, (b,), (v,)),  # torch's own v is random
        "numbered among differentiable inputs": lambda: check(Bad.apply, (a, b)),
        "an output without grad is skipped": lambda: check(lambda a, b: (b.detach() * 2, b * 3), (a, b)),
        "no output requires grad, numerical not 0": lambda: check(lambda a, b: b.detach() * 2, (a, b)),
        "no output requires grad, numerical 0": lambda: check(lambda a, b: (b * 0).detach(), (a, b)),
        "gradgradcheck False without raising": lambda: twice(Frozen.apply, (b,), raise_exception=False),
    }
    seen = {}
    for name, case in cases.items():
        try:
            seen[name] = repr(case())
        except Exception as err:
            seen[name] = f"{type(err).__name__}: {err}".replace("torch.", "gradbook.")
    return seen


def test_gradcheck_on_outputs_without_grad_ends_as_in_torch():
    assert _frozen_and_mixed(gradbook) == _frozen_and_mixed(torch)


def test_gradcheck_in_float32_warns_and_fails_as_in_torch():
    """torch computes gradcheck in the inputs' own dtype: ε = 1e-6 is below float32's resolution, so
    even x · 2 fails, after a warning naming the input (lesson 10 says to pass float64)."""
    import warnings

    def seen(lib):
        x = lib.tensor([-2.0, -0.3, 0.5, 4.0], requires_grad=True)
        a = lib.tensor([1.0, 2.0, 3.0, 4.0], dtype=lib.float64, requires_grad=True)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            verdicts = [
                lib.autograd.gradcheck(lambda t: t * 2, (x,), raise_exception=False),
                lib.autograd.gradcheck(lambda u, t: u * t.sigmoid(), (a, x), raise_exception=False),
                lib.autograd.gradcheck(lambda u: u.sigmoid(), (a,)),
            ]
        return verdicts, [str(w.message) for w in caught if issubclass(w.category, UserWarning)]

    assert seen(gradbook) == seen(torch)
    assert seen(gradbook)[0] == [False, False, True]


def test_gradcheck_prints_its_jacobians_in_the_inputs_dtype_as_torch():
    """A float32 input's Jacobians print without a dtype, a float64 input's with one (found by
    lesson 11's read: gradbook printed dtype=float64 for both)."""
    import warnings

    def text(lib, dtype):
        x = lib.tensor([1.0], dtype=dtype, requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                lib.autograd.gradcheck(lambda t: t.sin() * (2 if dtype == lib.float32 else t.detach()), (x,))
            except RuntimeError as err:
                return str(err).replace("torch.", "gradbook.")

    for name in ("float32", "float64"):
        assert text(gradbook, getattr(gradbook, name)) == text(torch, getattr(torch, name)), name
