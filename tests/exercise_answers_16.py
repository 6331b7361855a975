"""Answers to lesson 16's checks, right and wrong, for the attack table in test_exercises.py.

x.grad of clamp(x, -2, 1) + 2·relu(x) − |x − 1| at x = (−2, 0, 1, 3), term by term: clamp passes
on its bounds (1, 1, 1, 0), 2·relu only where x > 0 (0, 0, 2, 2), −|x − 1| sends −sign(x − 1)
(1, 1, 0, −1): [2, 2, 3, 1].
"""

import importlib
import importlib.util
from fractions import Fraction

import numpy as np

import gradbook as torch

KINK_RIGHT = [
    [2.0, 2.0, 3.0, 1.0],
    [2, 2, 3, 1],
    (2, 2, 3, 1),
    np.array([2.0, 2.0, 3.0, 1.0]),
    torch.tensor([2.0, 2.0, 3.0, 1.0]),
    [Fraction(2), Fraction(2), Fraction(3), Fraction(1)],
]
if importlib.util.find_spec("torch") is not None:  # a tensor of the real torch, one that requires grad too
    real_torch = importlib.import_module("torch")
    KINK_RIGHT += [
        real_torch.tensor([2.0, 2.0, 3.0, 1.0]),
        real_torch.tensor([2.0, 2.0, 3.0, 1.0], requires_grad=True),
        real_torch.nn.Parameter(real_torch.tensor([2.0, 2.0, 3.0, 1.0])),
    ]
KINK_WRONG = [
    [1.5, 3.0, 2.5, 1.0],  # the average of the two sides at each kink (a central difference)
    [1.0, 2.0, 2.0, 1.0],  # clamp blocks on its bounds, as hardtanh does
    [2.0, 4.0, 3.0, 1.0],  # relu'(0) = 1, as clamp(min=0) has it
    [2.0, 3.0, 3.0, 1.0],  # relu'(0) = 1/2
    [2.0, 2.0, 2.0, 1.0],  # abs'(0) = 1
    [2.0, 2.0, 4.0, 1.0],  # abs'(0) = −1
    [0.0, 0.0, 3.0, 3.0],  # the sign of the abs term
    [0.0, 0.0, 1.0, 1.0],  # the clamp term subtracted
    [2.0, 2.0, 2.0, 0.0],  # forgot the 2 of 2·relu
    [2.0, 2.0, 1.0, -1.0],  # left out 2·relu
    [2.0, 2.0, 3.5, 1.0],  # at x = 1, a slope of neither side
    [2.0, 2.0, 3.0, 2.0],  # clamp passes outside its bounds too
    [1.0, 1.0, 1.0, 0.0],  # clamp's gradient alone
    [2.0, 2.0, 3.0, 5.0],  # off on no kink
    [2.0, 2.0, 3.0],  # three numbers
    [[2.0, 2.0, 3.0, 1.0]],  # a row
    [2.0, float("nan"), 3.0, 1.0],
    "[2, 2, 3, 1]",
    8.0,
]


def xlogx(x):
    safe = torch.where(x > 0, x, 1.0)  # the log never sees x ≤ 0
    return torch.where(x > 0, safe * safe.log(), 0.0)


def xlogx_one_where(x):
    """1 · log 1 = 0: the safe input alone gives the right values and a zero gradient where x ≤ 0."""
    safe = torch.where(x > 0, x, 1.0)
    return safe * safe.log()


def xlogx_masked_fill(x):
    safe = x.masked_fill(x <= 0, 1.0)
    return (safe * safe.log()).masked_fill(x <= 0, 0.0)


class XLogX(torch.autograd.Function):
    """A rule written by hand: the backward masks before it multiplies."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        safe = torch.where(x > 0, x, 1.0)
        return torch.where(x > 0, safe * safe.log(), 0.0)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        safe = torch.where(x > 0, x, 1.0)
        return torch.where(x > 0, grad_output * (safe.log() + 1), 0.0)


def broken(x):
    return torch.where(x > 0, x * x.log(), 0.0)


def clamped_eps(x):
    return torch.where(x > 0, x * x.clamp(min=1e-12).log(), 0.0)


def clamped_both(x):
    c = x.clamp(min=1e-12)
    return torch.where(x > 0, c * c.log(), 0.0)


def no_product_rule(x):
    safe = torch.where(x > 0, x, 1.0)
    return torch.where(x > 0, safe * safe.detach().log(), 0.0)


def at_zero_too(x):
    safe = torch.where(x >= 0, x, 1.0)  # log(0) = −inf is kept at x = 0
    return torch.where(x >= 0, safe * safe.log(), 0.0)


def nan_to_num_after(x):
    return (x * x.log()).nan_to_num()


def detached(x):
    return xlogx(x).detach()


def new_leaf(x):
    return torch.tensor(xlogx(x).detach().numpy(), requires_grad=True)


def as_numpy(x):
    return xlogx(x).detach().numpy()


def summed(x):
    return xlogx(x).sum()


def wrong_where_x_negative(x):
    safe = torch.where(x > 0, x, 1.0)
    return torch.where(x > 0, safe * safe.log(), x)  # x itself, not 0, where x ≤ 0


def gradient_where_negative(x):
    safe = torch.where(x > 0, x, 1.0)
    return torch.where(x > 0, safe * safe.log(), 0.0) + 0.0 * x.clamp(max=0.0) + (x - x.detach()) * (x <= 0)


def plain(x):
    return x * x.log()


def stub(x):
    raise NotImplementedError()


XLOGX_RIGHT = [xlogx, xlogx_one_where, xlogx_masked_fill, XLogX.apply]
XLOGX_WRONG = [
    broken,
    clamped_eps,
    clamped_both,
    no_product_rule,
    at_zero_too,
    nan_to_num_after,
    detached,
    new_leaf,
    as_numpy,
    summed,
    wrong_where_x_negative,
    gradient_where_negative,
    plain,
    stub,
    lambda x: 1 / 0,
    lambda x: None,
    lambda x: "x log x",
    3,
    "xlogx",
]


class NanGradient(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return xlogx(x)

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output * float("nan")  # nan where x > 0 too


def doubled_gradient(x):
    y = xlogx(x)
    return y + (y - y.detach())  # the values, and twice the gradient


def not_from_x(x):
    return xlogx(x.detach()) + torch.zeros(x.shape, dtype=x.dtype, requires_grad=True)


class BackwardRaises(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return xlogx(x)

    @staticmethod
    def backward(ctx, grad_output):
        raise RuntimeError("no backward here")


# the messages the attack table does not reach
EXTRA = [NanGradient.apply, doubled_gradient, not_from_x, BackwardRaises.apply]


def xlogx_fakes(lying):
    """Functions that return what the attack table's lying objects are, instead of a tensor."""
    return [lambda x, value=value: value for value in lying]
