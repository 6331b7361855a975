"""Lesson 02: non-scalar outputs and vector-Jacobian products.

For a vector output y = f(x), ``y.backward(v)`` puts vᵀJ into ``x.grad``, where J = ∂y/∂x is the
Jacobian: row i holds the gradient of yᵢ. ``y.sum().backward()`` is the case v = (1, ..., 1).

>>> import gradbook as torch
>>> x = torch.tensor([1.0, 2.0], requires_grad=True)
>>> y = x * x                         # J = diag(2x)
>>> y.backward(torch.tensor([1.0, 10.0]))
>>> x.grad                            # vᵀJ = (1·2, 10·4)
tensor([ 2., 40.])
"""

from __future__ import annotations

from typing import Any

import numpy as np

import gradbook

from ._checking import (
    Exercise,
    as_numbers,
    close,
    fail,
    guard,
    learner_check,
    passed,
)
from ._functions import Rule, check_function_rule

_X = (1.0, 2.0, 3.0)
_V = (1.0, 0.5, -2.0)


@learner_check
def check_vjp(answer: Any) -> None:
    """Predict ``x.grad`` after a backward with a vector seed v::

        x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = x ** 2 + 3 * x
        y.backward(torch.tensor([1.0, 0.5, -2.0]))

    yᵢ depends only on xᵢ, so J is diagonal with Jᵢᵢ = 2xᵢ + 3, and x.grad = vᵀJ.

    >>> check_vjp([1.0, 2.0, 3.0])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    gradbook.exercises._checking.CheckFailedError: ...
    """

    def _vjp_problem() -> np.ndarray:
        x = gradbook.tensor(_X, requires_grad=True)
        y = x**2 + 3 * x
        y.backward(gradbook.tensor(_V))
        return x.grad.numpy().astype(np.float64)

    guard()
    value = as_numbers(answer, (3,), "your prediction of x.grad")
    expected = _vjp_problem()
    if close(value, expected / np.asarray(_V)):
        raise fail(
            "x.grad weighted by the seed v",
            "the diagonal of J, without v",
            "backward(v) multiplies each row of J by the matching entry of v.",
        )
    if not close(value, expected):
        raise fail(
            "vᵀJ for this v",
            f"{[round(float(v), 4) for v in value]}",
            "compute 2xᵢ + 3 for each i, then multiply by vᵢ.",
        )
    passed("Right: backward(v) gave the vector-Jacobian product vᵀJ.")


def _jacobian_problem(x: gradbook.Tensor) -> gradbook.Tensor:
    x0, x1 = x[0], x[1]
    return gradbook.stack([x0 * x1, x0 + x1, x1 * x1])


@learner_check
def check_jacobian(answer: Any) -> None:
    """Give the Jacobian J = ∂y/∂x of y = (x₀·x₁, x₀ + x₁, x₁²) at x = (2, 3), as a 3 × 2 array.

    Row i is the gradient of yᵢ, which is what ``y.backward(eᵢ)`` puts into ``x.grad``.

    >>> check_jacobian([[0.0, 0.0]] * 3)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    gradbook.exercises._checking.CheckFailedError: ...
    """
    guard()
    value = as_numbers(answer, (3, 2), "your Jacobian")
    x = gradbook.tensor([2.0, 3.0], requires_grad=True)
    y = _jacobian_problem(x)
    rows = [gradbook.autograd.grad(y, x, gradbook.eye(3)[i], retain_graph=True)[0].numpy() for i in range(3)]
    expected = np.stack(rows).astype(np.float64)
    if close(value, expected.T.reshape(3, 2)) and not close(value, expected):
        raise fail("row i to be the gradient of yᵢ", "a transposed layout", "J[i, j] = ∂yᵢ/∂xⱼ.")
    if not close(value, expected):
        wrong = [i for i in range(3) if not close(value[i], expected[i])]
        raise fail(
            "J[i, j] = ∂yᵢ/∂xⱼ at x = (2, 3)",
            f"a Jacobian whose row(s) {wrong} are off",
            "differentiate each yᵢ with respect to x₀ and to x₁; you can check a row with y.backward(eᵢ).",
        )
    passed("Right: that is the Jacobian, one row per output.")


def _hidden_inputs() -> list[np.ndarray]:
    rng = np.random.default_rng(6)
    return [rng.uniform(-2.0, 2.0, size=(4,)), rng.uniform(-2.0, 2.0, size=(2, 3))]


XSINX = Rule(
    "XSinX",
    lambda x: x * np.sin(x),
    "x · sin(x)",
    "x * x.sin()",
    "sin(x) + x·cos(x)",
    "apply the product rule, and multiply by grad_output: it is the v of vᵀJ.",
    _hidden_inputs,
)


@learner_check
def check_backward_rule(function: Any) -> None:
    """Check a custom ``autograd.Function`` computing f(x) = x · sin(x), elementwise.

    Its ``backward(ctx, grad_output)`` must return grad_output · f'(x), with
    f'(x) = sin(x) + x · cos(x), using x saved by ``ctx.save_for_backward(x)`` in ``forward``.
    It is checked with ``gradcheck`` on tensors you do not see, and the gradients must come from
    *your* ``backward``: the check counts the engine's calls to it (a Function whose ``apply``
    or ``forward`` lets built-in ops do the differentiation is not an answer).

    How to call it, here with a Function for a different f (x², which is not the answer):

    >>> import gradbook as torch
    >>> class Square(torch.autograd.Function):
    ...     @staticmethod
    ...     def forward(ctx, x):
    ...         ctx.save_for_backward(x)
    ...         return x * x
    ...     @staticmethod
    ...     def backward(ctx, grad_output):
    ...         (x,) = ctx.saved_tensors
    ...         return grad_output * 2 * x
    >>> check_backward_rule(Square)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    gradbook.exercises._checking.CheckFailedError: ...forward to compute x · sin(x)...
    """
    check_function_rule(function, XSINX)


vjp = Exercise(
    "vjp",
    2,
    "Predict x.grad after y = x**2 + 3*x; y.backward(v) with x = (1, 2, 3), v = (1, 0.5, -2).",
    check_vjp,
    ("J is diagonal here.", "x.grad[i] = v[i] · (2x[i] + 3)."),
)
jacobian = Exercise(
    "jacobian",
    2,
    "Give the 3 × 2 Jacobian of y = (x0*x1, x0 + x1, x1**2) at x = (2, 3).",
    check_jacobian,
    ("Row i is the gradient of y[i].", "∂(x0·x1)/∂x0 = x1."),
)
backward_rule = Exercise(
    "backward_rule",
    2,
    "Write an autograd.Function for x * sin(x) with its own backward rule.",
    check_backward_rule,
    ("Save x in forward with ctx.save_for_backward(x).", "Product rule: (x sin x)' = sin x + x cos x."),
)
exercises = (vjp, jacobian, backward_rule)

__all__ = ["check_backward_rule", "check_jacobian", "check_vjp", "exercises"]
