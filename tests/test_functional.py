"""gradbook.autograd.functional: jacobian, hessian, vjp, jvp, vhp, hvp.

First hand-derived values and finite differences, then torch's structure, values and errors
(the oracle section, skipped without torch)."""

import warnings

import numpy as np
import pytest

import gradbook
from gradbook.autograd.functional import hessian, hvp, jacobian, jvp, vhp, vjp


def x64(values, requires_grad=False):
    return gradbook.tensor(values, dtype=gradbook.float64, requires_grad=requires_grad)


X = [0.5, -1.0, 2.0]


# ---------------------------------------------------------------- hand-derived values


def test_jacobian_of_x_squared_is_diag_2x():
    np.testing.assert_allclose(jacobian(lambda x: x**2, x64(X)).numpy(), np.diag(2 * np.array(X)))


def test_hessian_of_sum_of_cubes_is_diag_6x():
    np.testing.assert_allclose(hessian(lambda x: (x**3).sum(), x64(X)).numpy(), np.diag(6 * np.array(X)))


def test_jacobian_of_a_matrix_product_is_the_matrix():
    a = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    np.testing.assert_allclose(jacobian(lambda x: x64(a) @ x, x64(X)).numpy(), a)


def test_two_inputs_give_a_tuple_per_output_and_input():
    # f(x, y) = (x·y, 2x): ∂(x·y)/∂x = y, ∂(x·y)/∂y = x, ∂2x/∂x = 2I, ∂2x/∂y = 0
    x, y = x64(X), x64([3.0, 1.0, -2.0])
    (dx, dy), (ex, ey) = jacobian(lambda x, y: ((x * y).sum(), 2 * x), (x, y))
    assert [t.shape for t in (dx, dy, ex, ey)] == [(3,), (3,), (3, 3), (3, 3)]
    np.testing.assert_allclose(np.stack([dx.numpy(), dy.numpy()]), [y.numpy(), x.numpy()])
    np.testing.assert_allclose(ex.numpy(), 2 * np.eye(3))
    assert not ey.numpy().any()


def test_products_with_v_are_the_jacobian_and_hessian_times_v():
    v = np.array([1.0, -2.0, 0.5])
    x = np.array(X)
    _, r = vjp(lambda x: x**2, x64(X), x64(v))  # vᵀ diag(2x)
    np.testing.assert_allclose(r.numpy(), 2 * x * v)
    _, r = jvp(lambda x: x**2, x64(X), x64(v))  # diag(2x) v
    np.testing.assert_allclose(r.numpy(), 2 * x * v)
    for product in (vhp, hvp):  # diag(6x) v
        _, r = product(lambda x: (x**3).sum(), x64(X), x64(v))
        np.testing.assert_allclose(r.numpy(), 6 * x * v)


def test_jacobian_matches_finite_differences():
    def f(x):
        return (x.sin() * x.sum()).exp()

    x = np.array(X)
    eps = 1e-6
    numeric = np.stack(
        [(f(x64(x + eps * e)).numpy() - f(x64(x - eps * e)).numpy()) / (2 * eps) for e in np.eye(3)], axis=1
    )
    np.testing.assert_allclose(jacobian(f, x64(X)).numpy(), numeric, rtol=1e-6)


def test_create_graph_lets_the_jacobian_be_differentiated():
    x = x64(X, requires_grad=True)
    j = jacobian(lambda x: x**3, x, create_graph=True)  # diag(3x²)
    j.sum().backward()  # d/dx Σ 3x² = 6x
    np.testing.assert_allclose(x.grad.numpy(), 6 * np.array(X))
    assert not jacobian(lambda x: x**3, x).requires_grad


# ---------------------------------------------------------------- the oracle: torch gives the same


def described(value):
    """A result's structure and numbers: nested tuples of (shape, values rounded, requires_grad)."""
    if isinstance(value, tuple):
        return tuple(described(v) for v in value)
    values = np.round(value.detach().numpy().astype(np.float64), 10).tolist()
    return (tuple(value.shape), values, value.requires_grad)


def outcome(fn):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return described(fn())
        except Exception as e:  # noqa: BLE001
            return f"{type(e).__name__}: {str(e).splitlines()[0]}".replace("torch.", "gradbook.")


def t64(L, values):
    return L.tensor(values, dtype=L.float64)


def f_one(x):
    return x**2


def f_two(x, y):
    return (x.sum() * y, x * 2)


def f_scalar(x, y):
    return (x**3).sum() + (y * y).sum() * x.sum()


CASES = {
    "jacobian, one in one out": lambda F, L, x, y: F.jacobian(f_one, x),
    "jacobian, a 1-tuple in": lambda F, L, x, y: F.jacobian(f_one, (x,)),
    "jacobian, two in two out": lambda F, L, x, y: F.jacobian(f_two, (x, y)),
    "jacobian, create_graph": lambda F, L, x, y: F.jacobian(f_two, (x, y), create_graph=True),
    "jacobian, vectorize": lambda F, L, x, y: F.jacobian(f_two, (x, y), vectorize=True),
    "jacobian, forward-mode vectorized": lambda F, L, x, y: F.jacobian(
        f_one, x, vectorize=True, strategy="forward-mode"
    ),
    "jacobian, an unused input": lambda F, L, x, y: F.jacobian(lambda x, y: x * 2, (x, y)),
    "jacobian, 0-d": lambda F, L, x, y: F.jacobian(lambda a: a**3, t64(L, 2.0)),
    "jacobian, matrix in": lambda F, L, x, y: F.jacobian(lambda m: m.sum(0), t64(L, [[1.0, 2.0], [3.0, 4.0]])),
    "hessian, one in": lambda F, L, x, y: F.hessian(lambda x: (x**3).sum(), x),
    "hessian, two in": lambda F, L, x, y: F.hessian(f_scalar, (x, y)),
    "hessian, create_graph": lambda F, L, x, y: F.hessian(f_scalar, (x, y), create_graph=True),
    "hessian, 0-d": lambda F, L, x, y: F.hessian(lambda a: a**3, t64(L, 2.0)),
    "vjp": lambda F, L, x, y: F.vjp(f_one, x, t64(L, [1.0, -1.0, 2.0])),
    "vjp, two in two out": lambda F, L, x, y: F.vjp(f_two, (x, y), (t64(L, [1.0, 1.0]), t64(L, [1.0, 2.0, 3.0]))),
    "vjp, v left out for one element": lambda F, L, x, y: F.vjp(lambda a: a**3, t64(L, 2.0)),
    "jvp": lambda F, L, x, y: F.jvp(f_one, x, t64(L, [1.0, -1.0, 2.0])),
    "jvp, two in two out": lambda F, L, x, y: F.jvp(f_two, (x, y), (t64(L, [1.0, 1.0, 1.0]), t64(L, [1.0, 2.0]))),
    "jvp, create_graph": lambda F, L, x, y: F.jvp(f_one, x, t64(L, [1.0, 1.0, 1.0]), create_graph=True),
    "vhp": lambda F, L, x, y: F.vhp(f_scalar, (x, y), (t64(L, [1.0, 1.0, 1.0]), t64(L, [1.0, -1.0]))),
    "hvp": lambda F, L, x, y: F.hvp(f_scalar, (x, y), (t64(L, [1.0, 1.0, 1.0]), t64(L, [1.0, -1.0]))),
    "hvp, create_graph": lambda F, L, x, y: F.hvp(
        lambda x: (x**3).sum(), x, t64(L, [1.0, 2.0, 3.0]), create_graph=True
    ),
    "strict, an unused input": lambda F, L, x, y: F.jacobian(lambda x, y: x * 2, (x, y), strict=True),
    "strict, a constant output": lambda F, L, x, y: F.jacobian(lambda x: L.ones(2, dtype=L.float64), x, strict=True),
    "strict, a linear function's hessian": lambda F, L, x, y: F.hessian(lambda x: (x * 2).sum(), x, strict=True),
    "strict vjp, an unused input": lambda F, L, x, y: F.vjp(lambda x, y: x.sum(), (x, y), strict=True),
    "v left out": lambda F, L, x, y: F.vjp(f_one, x),
    "v of the wrong size": lambda F, L, x, y: F.vjp(f_one, x, L.ones(2)),
    "v of the wrong length": lambda F, L, x, y: F.jvp(f_two, (x, y), (L.ones(3),)),
    "hessian of a vector": lambda F, L, x, y: F.hessian(f_one, x),
    "hessian of a tuple": lambda F, L, x, y: F.hessian(lambda x: (x.sum(), x.sum()), x),
    "hvp of a vector": lambda F, L, x, y: F.hvp(f_one, x, x),
    "inputs as a list": lambda F, L, x, y: F.jacobian(f_one, [x]),
    "a number among the inputs": lambda F, L, x, y: F.jacobian(f_one, (x, 3)),
    "forward-mode without vectorize": lambda F, L, x, y: F.jacobian(f_one, x, strategy="forward-mode"),
    "forward-mode with create_graph": lambda F, L, x, y: F.jacobian(
        f_one, x, create_graph=True, strategy="forward-mode"
    ),
    "vectorize with strict": lambda F, L, x, y: F.jacobian(f_one, x, vectorize=True, strict=True),
    "an unknown strategy": lambda F, L, x, y: F.jacobian(f_one, x, strategy="sideways"),
}


def run_case(L, name):
    x, y = t64(L, [1.0, 2.0, 3.0]), t64(L, [0.5, -1.0])
    return outcome(lambda: CASES[name](L.autograd.functional, L, x, y))


@pytest.mark.oracle
@pytest.mark.parametrize("name", CASES)
def test_functional_matches_torch(name):
    torch = pytest.importorskip("torch")
    assert run_case(gradbook, name) == run_case(torch, name)


@pytest.mark.oracle
def test_create_graph_results_differentiate_as_torchs():
    torch = pytest.importorskip("torch")

    def through(L):
        x = L.tensor([1.0, 2.0], dtype=L.float64, requires_grad=True)
        h = L.autograd.functional.hessian(lambda a: (a**3).sum() * a.sum(), x, create_graph=True)
        (h**2).sum().backward()
        return x.grad.numpy()

    np.testing.assert_allclose(through(gradbook), through(torch), rtol=1e-12)
