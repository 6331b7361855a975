"""Lesson 06: what is not recorded: ``no_grad()``, ``detach()`` and in-place updates.

Under ``torch.no_grad()`` nothing is recorded; ``t.detach()`` is t's values as a new leaf that
does not require grad. Either way backward sees a constant there (the exercises ask about other
programs):

>>> import gradbook as torch
>>> x = torch.tensor(3.0, requires_grad=True)
>>> y = x * x.detach()                # d/dx sees x · (a constant 3)
>>> y.backward()
>>> x.grad
tensor(3.)
"""

from __future__ import annotations

from typing import Any

import numpy as np

import gradbook

from ._checking import (
    Exercise,
    as_numbers,
    call_student,
    close,
    crashed,
    describe,
    fail,
    guard,
    is_stub,
    learner_check,
    not_attempted,
    passed,
    quiet,
    run_program,
    show_program,
)

# The program of the detach exercise: students read this text, and the check runs this text.
DETACH_PROGRAM = """\
x = torch.tensor(2.0, requires_grad=True)
a = x * x
b = a.detach() * x
with torch.no_grad():
    c = a * 10
d = a + b + c
d.backward()
"""


def _grad_of(program: str) -> float:
    return float(run_program(program)["x"].grad.item())


@learner_check
def check_grad_through_detach(answer: Any) -> None:
    """Predict ``x.grad`` at the end of this program, without running it::

        PROGRAM

    Follow only the paths that were recorded: ``detach()`` and ``no_grad()`` make constants.

    >>> check_grad_through_detach(1.0)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    gradbook.exercises._checking.CheckFailedError: ...
    """
    guard()
    value = as_numbers(answer, (), "your prediction of x.grad")
    # the same program as if detach() or no_grad() did not cut the graph: what each misreading gives
    kept_detach = DETACH_PROGRAM.replace("a.detach()", "a")
    kept_no_grad = DETACH_PROGRAM.replace("with torch.no_grad():", "if True:")
    expected = _grad_of(DETACH_PROGRAM)
    misreadings = [
        (_grad_of(kept_detach.replace("with torch.no_grad():", "if True:")), "as if nothing had been cut"),
        (_grad_of(kept_detach), "as if a.detach() were a"),
        (_grad_of(kept_no_grad), "as if c had been recorded"),
    ]
    for wrong, reading in misreadings:
        if close(value, np.float64(wrong)) and not close(value, np.float64(expected)):
            raise fail(
                "x.grad through the recorded paths only",
                f"{float(value):g}, {reading}",
                "a.detach() is a constant with a's value, and c, computed under no_grad(), is a constant too.",
            )
    if not close(value, np.float64(expected)):
        raise fail(
            "x.grad through the recorded paths only",
            f"{float(value):g}",
            "d = a + b + c: differentiate a = x·x, and b = (a constant) · x, at x = 2; c adds nothing.",
        )
    passed("Right: backward followed only what was recorded; detach() and no_grad() made constants.")


def _hidden_input() -> np.ndarray:
    rng = np.random.default_rng(9)
    values = rng.uniform(-3.0, 3.0, size=6)
    return np.round(values) + np.clip(values - np.round(values), -0.4, 0.4)  # away from the halves


@learner_check
def check_straight_through(round_ste: Any) -> None:
    """Check ``round_ste(x)``: values of ``x.round()``, gradient of the identity.

    The straight-through estimator: the forward pass rounds, and backward acts as if it had not,
    so the gradient that reaches x is the gradient that reached the result, unchanged.
    (``x.round()`` alone has gradient 0 everywhere, which stops any training.) The check calls
    it on a tensor you do not see and backpropagates a seed you do not see either.

    How to call it (with a function that only rounds, which is not the answer):

    >>> check_straight_through(lambda x: x.round())  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    gradbook.exercises._checking.CheckFailedError: ...
    """
    guard()
    if is_stub(round_ste):
        raise not_attempted("your round_ste")
    if not callable(round_ste):
        raise fail("a function round_ste(x)", type(round_ste).__name__, "define it with def round_ste(x):")
    data = _hidden_input()
    x = gradbook.tensor(data, requires_grad=True)
    out = call_student(round_ste, "your round_ste", x)
    if is_stub(out):
        raise not_attempted("the result of your round_ste")
    if not isinstance(out, gradbook.Tensor):
        raise fail("a tensor", describe(out), "return a tensor computed from x.")
    got = as_numbers(out, data.shape, "your round_ste(x)")
    if not close(x.detach().numpy().astype(np.float64), data):
        raise fail(
            "round_ste to leave its input x as it was",
            "a function that changed x in place",
            "compute a new tensor from x (x.round() returns one) instead of rounding x itself.",
        )
    if close(got, data):
        raise fail(
            "the values of x.round()",
            "the values of x itself, not rounded",
            "the forward value must be rounded; only the gradient behaves like the identity.",
        )
    if not close(got, np.round(data)):
        raise fail("the values of x.round()", "other values", "round x in the forward pass.")
    if not out.requires_grad or out.grad_fn is None:
        raise fail(
            "a result that backward can go through, back to x",
            "a result with no graph",
            "detach only the part that should not be differentiated, not the whole result.",
        )
    seed = np.random.default_rng(10).uniform(0.5, 2.0, size=data.shape)
    try:
        with quiet():
            (grad,) = gradbook.autograd.grad(out, x, gradbook.tensor(seed), allow_unused=True)
    except AssertionError:
        raise
    except Exception as err:  # a Function or hook of the learner's may fail in backward: say how
        raise crashed("backward through your result", err) from None
    grad_values = np.zeros_like(data) if grad is None else as_numbers(grad, data.shape, "the gradient that reached x")
    if close(grad_values, np.zeros_like(data)):
        raise fail(
            "the gradient of the identity: the seed, unchanged",
            "a gradient of zero (round() has derivative 0)",
            "write the result as x plus a correction that backward treats as a constant.",
        )
    if not close(grad_values, seed):
        raise fail(
            "the gradient of the identity: the seed, unchanged",
            "a gradient that changes the seed",
            "the part of your result that backward sees must be x itself, with coefficient 1.",
        )
    passed("Right: rounded forward, identity backward; the detached correction is a constant.")


grad_through_detach = Exercise(
    "grad_through_detach",
    6,
    "Predict x.grad after d = a + b + c, where b uses a.detach() and c is computed under no_grad().",
    check_grad_through_detach,
    ("Which of a, b, c reach x through recorded ops?", "b = (a constant) · x: its derivative is that constant."),
)
straight_through = Exercise(
    "straight_through",
    6,
    "Write round_ste(x): the values of x.round(), and the gradient of the identity.",
    check_straight_through,
    (
        "The forward value and the gradient can come from different terms.",
        "A term that backward sees as a constant changes the value and adds nothing to the gradient.",
    ),
)
exercises = (grad_through_detach, straight_through)

__all__ = ["check_grad_through_detach", "check_straight_through", "exercises"]


show_program(check_grad_through_detach, DETACH_PROGRAM)
