"""Lesson 10: your own backward rule, ``torch.autograd.Function``, checked with ``gradcheck``.

A Function's ``forward(ctx, ...)`` computes without recording a graph and saves what the rule
needs with ``ctx.save_for_backward``; ``backward(ctx, grad_output)`` returns one gradient per
input: grad_output times the local derivative (the v of vᵀJ times J).

>>> check_logcosh_rule(...)  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
gradbook.exercises._checking.NotAttemptedError: not attempted: ...
"""

from __future__ import annotations

from typing import Any

import numpy as np

import gradbook

from ._checking import (
    Exercise,
    describe,
    fail,
    guard,
    is_stub,
    learner_check,
    not_attempted,
    passed,
    quiet,
)
from ._functions import Rule, check_function_rule


def _hidden_inputs() -> list[np.ndarray]:
    rng = np.random.default_rng(10)
    return [rng.uniform(-3.0, 3.0, size=(5,)), rng.uniform(-3.0, 3.0, size=(2, 2))]


LOGCOSH = Rule(
    "LogCosh",
    lambda x: np.log(np.cosh(x)),
    "log(cosh(x))",
    "x.abs() + (-2 * x.abs()).exp().log1p() - math.log(2)",
    "tanh(x)",
    "d log(u)/du = 1/u and d cosh(x)/dx = sinh(x); multiply by grad_output.",
    _hidden_inputs,
    (
        np.array([-1000.0, 1000.0]),
        np.array([1000.0 - np.log(2.0), 1000.0 - np.log(2.0)]),
        np.array([-1.0, 1.0]),
        "cosh(1000) overflows to inf, as exp(1000) did in softplus: write log(cosh(x)) in a form that "
        "never makes a huge number, |x| + log(1 + e^(-2|x|)) - log(2), and use tanh(x) in backward.",
    ),
)


@learner_check
def check_logcosh_rule(function: Any) -> None:
    """Check a custom ``autograd.Function`` computing f(x) = log(cosh(x)), elementwise, whose
    ``backward(ctx, grad_output)`` returns grad_output · f'(x), using what ``forward`` saved with
    ``ctx.save_for_backward``. It is run through ``gradcheck`` on tensors you do not see, and the
    gradients must come from *your* ``backward`` (the check counts the engine's calls to it).

    How to call it, here with a Function for a different f (x³, which is not the answer):

    >>> import gradbook as torch
    >>> class Cube(torch.autograd.Function):
    ...     @staticmethod
    ...     def forward(ctx, x):
    ...         ctx.save_for_backward(x)
    ...         return x**3
    ...     @staticmethod
    ...     def backward(ctx, grad_output):
    ...         (x,) = ctx.saved_tensors
    ...         return grad_output * 3 * x**2
    >>> check_logcosh_rule(Cube)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    gradbook.exercises._checking.CheckFailedError: ...forward to compute log(cosh(x))...
    """
    check_function_rule(function, LOGCOSH)


@learner_check
def check_gradcheck_verdict(answer: Any) -> None:
    """Predict what ``gradcheck(..., raise_exception=False)`` returns for a Function whose backward
    forgot to multiply by ``grad_output`` (it returns f'(x) alone), on a vector input of 3
    elements: ``True`` or ``False``.

    >>> check_gradcheck_verdict("maybe")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    gradbook.exercises._checking.CheckFailedError: ...
    """

    def _forgetful_verdict() -> bool:
        """gradcheck's verdict on a Function for x² whose backward returns 2x, not grad_output · 2x."""

        class Forgetful(gradbook.autograd.Function):
            @staticmethod
            def forward(ctx: Any, x: gradbook.Tensor) -> gradbook.Tensor:
                ctx.save_for_backward(x)
                return x * x

            @staticmethod
            def backward(ctx: Any, grad_output: gradbook.Tensor) -> gradbook.Tensor:
                (x,) = ctx.saved_tensors
                return 2 * x

        x = gradbook.tensor([0.5, -1.0, 2.0], dtype=gradbook.float64, requires_grad=True)
        with quiet():
            return bool(gradbook.autograd.gradcheck(Forgetful.apply, (x,), raise_exception=False))

    guard()
    if is_stub(answer):
        raise not_attempted("your prediction")
    if not isinstance(answer, (bool, np.bool_)):
        raise fail("True or False", describe(answer), "gradcheck returns a bool when raise_exception=False.")
    if bool(answer) != _forgetful_verdict():
        raise fail(
            "gradcheck's verdict on a backward that ignores grad_output",
            "True",
            "gradcheck seeds one output element at a time (grad_output is 1 there and 0 elsewhere): "
            "what does a rule that ignores grad_output put in the other rows of the Jacobian?",
        )
    passed("Right: ignoring grad_output fills the Jacobian's off-diagonal, and gradcheck sees it.")


logcosh_rule = Exercise(
    "logcosh_rule",
    10,
    "Write an autograd.Function for log(cosh(x)) with its own backward rule, and check it with gradcheck.",
    check_logcosh_rule,
    ("Save x in forward with ctx.save_for_backward(x).", "(log cosh x)' = sinh x / cosh x."),
)
gradcheck_verdict = Exercise(
    "gradcheck_verdict",
    10,
    "Does gradcheck pass a backward that returns f'(x) without multiplying by grad_output?",
    check_gradcheck_verdict,
    ("gradcheck builds the Jacobian one row at a time.", "A row seeded with e_i must have zeros off position i."),
)
exercises = (logcosh_rule, gradcheck_verdict)

__all__ = ["check_gradcheck_verdict", "check_logcosh_rule", "exercises"]
