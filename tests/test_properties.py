"""Property tests: random compositions of ops, with broadcasting, agree with finite differences."""

import numpy as np
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import gradbook as torch
from gradbook.autograd import gradcheck

# unary ops with the input domain where they are smooth
UNARY = {
    "exp": (lambda t: (t * 0.5).exp(), None),
    "log": (lambda t: (t * t + 1).log(), None),
    "sqrt": (lambda t: (t * t + 0.5).sqrt(), None),
    "sin": (lambda t: t.sin(), None),
    "cos": (lambda t: t.cos(), None),
    "tanh": (lambda t: t.tanh(), None),
    "sigmoid": (lambda t: t.sigmoid(), None),
    "neg": (lambda t: -t, None),
    "square": (lambda t: t**2, None),
    "cube root-ish": (lambda t: (t * t + 1) ** 0.3, None),
    "softmax": (lambda t: t.softmax(-1), None),
    "log_softmax": (lambda t: t.log_softmax(-1), None),
    "relu": (lambda t: t.relu(), "kink"),
    "abs": (lambda t: t.abs(), "kink"),
    "clamp": (lambda t: t.clamp(-0.5, 0.5), "kink"),
}
BINARY = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "div": lambda a, b: a / (b * b + 1),
    "pow": lambda a, b: (a * a + 1) ** (b * 0.5),
    "maximum": lambda a, b: torch.maximum(a, b),
    "where": lambda a, b: torch.where(a > b, a * 2, b),
}
REDUCE = {
    "sum": lambda t: t.sum(),
    "mean0": lambda t: t.mean(0) if t.ndim else t,
    "sum-1 keepdim": lambda t: t.sum(-1, keepdim=True) if t.ndim else t,
    "max": lambda t: t.max(),
    "none": lambda t: t,
}

shapes = st.sampled_from(
    [
        ((), ()),
        ((3,), ()),
        ((3,), (3,)),
        ((2, 3), (3,)),
        ((2, 1), (1, 3)),
        ((2, 3), (2, 1)),
        ((1, 3), (2, 3)),
        ((2, 2, 3), (2, 3)),
    ]
)


def away_from_kinks(a: np.ndarray) -> np.ndarray:
    # finite differences are meaningless within eps of a kink (0, ±0.5) or a tie
    a = np.where(np.abs(a) < 0.05, 0.3, a)
    return np.where(np.abs(np.abs(a) - 0.5) < 0.05, 0.7, a)


@settings(max_examples=150, deadline=None)
@given(
    shapes,
    st.sampled_from(sorted(UNARY)),
    st.sampled_from(sorted(BINARY)),
    st.sampled_from(sorted(REDUCE)),
    st.integers(0, 2**32 - 1),
)
def test_random_compositions_pass_gradcheck(shape_pair, unary, binary, reduce, seed):
    rng = np.random.default_rng(seed)
    a0 = away_from_kinks(rng.uniform(-2, 2, shape_pair[0]))
    b0 = away_from_kinks(rng.uniform(-2, 2, shape_pair[1]))
    if binary in ("maximum", "where"):
        b0 = a0.max() + 1 + b0 if rng.random() < 0.5 else b0
        diff = np.abs(np.broadcast_to(a0, np.broadcast_shapes(a0.shape, b0.shape)) - b0)
        if diff.min() < 0.05:
            b0 = b0 + 0.2
    a = torch.tensor(a0, dtype=torch.float64, requires_grad=True)
    b = torch.tensor(b0, dtype=torch.float64, requires_grad=True)
    f, kind = UNARY[unary]
    with torch.no_grad():  # finite differences only hold away from kinks and ties
        inner = BINARY[binary](a, b).numpy()
        if kind == "kink":
            assume(np.all(np.abs(inner) > 0.05) and np.all(np.abs(np.abs(inner) - 0.5) > 0.05))
        if reduce == "max":
            top = np.sort((f(BINARY[binary](a, b)) * a).numpy().ravel())
            assume(top.size < 2 or top[-1] - top[-2] > 1e-3)

    def fn(a, b):
        return REDUCE[reduce](f(BINARY[binary](a, b)) * a)

    assert gradcheck(fn, (a, b), eps=1e-6, atol=1e-5, rtol=1e-4)


@settings(max_examples=60, deadline=None)
@given(
    st.sampled_from([(3,), (2, 3), (2, 3, 4)]),
    st.sampled_from(
        [
            "reshape",
            "transpose",
            "permute",
            "T",
            "unsqueeze",
            "squeeze",
            "expand",
            "flatten",
            "index",
            "slice",
            "mask",
            "cat",
            "stack",
        ]
    ),
    st.integers(0, 2**32 - 1),
)
def test_shape_ops_pass_gradcheck(shape, op, seed):
    rng = np.random.default_rng(seed)
    x = torch.tensor(rng.normal(size=shape), dtype=torch.float64, requires_grad=True)
    w = torch.tensor(rng.normal(size=shape), dtype=torch.float64)
    nd = len(shape)
    ops = {
        "reshape": lambda t: t.reshape(-1),
        "transpose": lambda t: t.transpose(0, -1),
        "permute": lambda t: t.permute(*reversed(range(nd))),
        "T": lambda t: t.T,
        "unsqueeze": lambda t: t.unsqueeze(1),
        "squeeze": lambda t: t.unsqueeze(0).squeeze(),
        "expand": lambda t: t.unsqueeze(0).expand(3, *shape),
        "flatten": lambda t: t.flatten(),
        "index": lambda t: t[[0, 0, -1]],
        "slice": lambda t: t[1::2],
        "mask": lambda t: t[t.detach() > 0],
        "cat": lambda t: torch.cat([t, t * 2], dim=-1),
        "stack": lambda t: torch.stack([t, t * w], dim=nd),
    }
    assert gradcheck(lambda t: (ops[op](t) ** 2).sum() if ops[op](t).numel() else t.sum() * 0, (x,))


@settings(max_examples=40, deadline=None)
@given(
    st.sampled_from(
        [((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 2)), ((2, 3), (3, 4)), ((2, 2, 3), (2, 3, 4)), ((2, 2, 3), (3, 4))]
    ),
    st.integers(0, 2**32 - 1),
)
def test_matmul_passes_gradcheck(shapes_, seed):
    rng = np.random.default_rng(seed)
    a = torch.tensor(rng.normal(size=shapes_[0]), dtype=torch.float64, requires_grad=True)
    b = torch.tensor(rng.normal(size=shapes_[1]), dtype=torch.float64, requires_grad=True)
    assert gradcheck(lambda a, b: (a @ b).tanh(), (a, b))


def test_losses_pass_gradcheck():
    rng = np.random.default_rng(1)
    logits = torch.tensor(rng.normal(size=(4, 3)), dtype=torch.float64, requires_grad=True)
    target = torch.tensor([0, 2, 1, 2])
    assert gradcheck(lambda z: torch.nn.functional.cross_entropy(z, target), (logits,))
    y = torch.tensor(rng.normal(size=(4, 3)), dtype=torch.float64)
    assert gradcheck(lambda z: torch.nn.functional.mse_loss(z.tanh(), y), (logits,))


def test_second_derivatives_pass_gradcheck():
    rng = np.random.default_rng(2)
    x = torch.tensor(rng.normal(size=(3,)), dtype=torch.float64, requires_grad=True)

    def first_derivative(x):
        (g,) = torch.autograd.grad((x.sin() * x.exp() + x**3).sum(), x, create_graph=True)
        return g

    assert gradcheck(first_derivative, (x,))


class WrongSquare(torch.ops.Op):
    """x² with a deliberately wrong rule (x instead of 2x): gradcheck must notice."""

    forward = staticmethod(lambda a: a * a)
    saves = ("self",)
    rules = {"∂out/∂self = self (wrong: it is 2·self)": lambda n, g, self: g * self}


def test_gradcheck_catches_a_wrong_rule_with_torchs_message_and_both_jacobians():
    x = torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True)
    import pytest

    with pytest.raises(torch.autograd.GradcheckError) as e:
        gradcheck(lambda t: WrongSquare.apply(t), (x,))
    # d(x²)/dx = 2x is diag(2, 4); the wrong rule gives diag(1, 2): rows are inputs, columns outputs
    assert str(e.value) == (
        "Jacobian mismatch for output 0 with respect to input 0,\n"
        "numerical:tensor([[2.0000, 0.0000],\n        [0.0000, 4.0000]], dtype=gradbook.float64)\n"
        "analytical:tensor([[1., 0.],\n        [0., 2.]], dtype=gradbook.float64)\n"
    )
    assert gradcheck(lambda t: WrongSquare.apply(t), (x,), raise_exception=False) is False
