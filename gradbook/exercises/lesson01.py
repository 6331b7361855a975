"""Lesson 01: gradients accumulate in ``.grad`` until you zero them.

Worked example: each ``backward()`` *adds* dy/dx into ``x.grad`` (the exercises ask about other
programs, so this gives none of their answers away).

>>> import gradbook as torch
>>> x = torch.tensor(1.5, requires_grad=True)
>>> for _ in range(2):
...     (x * x).backward()        # adds d(x²)/dx = 2x = 3 each time
>>> x.grad
tensor(6.)
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
    fail,
    guard,
    is_stub,
    learner_check,
    not_attempted,
    passed,
    run_program,
)

# The program of the zeroing exercise: students read this text, and the check runs this text.
ZEROING_PROGRAM = """\
x = torch.tensor(3.0, requires_grad=True)
for _ in range(3):
    (x * x).backward()
x.grad.zero_()
(x ** 3).backward()
(5 * x).backward()
"""


@learner_check
def check_grad_after_zeroing(answer: Any) -> None:
    """Predict ``x.grad`` at the end of this program, without running it::

        x = torch.tensor(3.0, requires_grad=True)
        for _ in range(3):
            (x * x).backward()
        x.grad.zero_()
        (x ** 3).backward()
        (5 * x).backward()

    d(x²)/dx = 2x, d(x³)/dx = 3x², d(5x)/dx = 5; ``zero_()`` empties the sum so far.

    >>> check_grad_after_zeroing(1.0)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    gradbook.exercises._checking.CheckFailedError: ...
    """

    guard()
    value = as_numbers(answer, (), "your prediction of x.grad")
    # the answer is computed here by running ZEROING_PROGRAM, never stored nor importable
    if not close(value, np.float64(run_program(ZEROING_PROGRAM)["x"].grad.item())):
        raise fail(
            "x.grad after the last line: what was left after zero_(), plus what each later backward() added",
            f"{float(value):g}",
            "zero_() sets x.grad to 0 but keeps accumulating afterwards; add up 3x² and 5 at x = 3.",
        )
    passed("Right: zero_() cleared the first three calls, then the next two accumulated again.")


@learner_check
def check_grad_after_three_calls(answer: Any) -> None:
    """Predict ``x.grad`` after three backward calls on a fresh graph each time, the seed program
    at x = 3 (the lesson runs it at x = 2)::

        x = torch.tensor(3.0, requires_grad=True)
        for _ in range(3):
            y = x * x
            y.backward()

    Each call adds dy/dx = 2x into ``x.grad``.

    >>> check_grad_after_three_calls(4.0)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    gradbook.exercises._checking.CheckFailedError: ...
    """

    def _three_calls() -> float:
        x = gradbook.tensor(3.0, requires_grad=True)
        for _ in range(3):
            y = x * x
            y.backward()
        return float(x.grad.item())

    guard()
    value = as_numbers(answer, (), "your prediction of x.grad")
    single, seed = 2 * 3.0, 3 * (2 * 2.0)  # one call at x = 3; the seed's three calls at x = 2
    if close(value, np.float64(seed)):
        raise fail(
            "x.grad after all three calls at x = 3",
            f"{float(value):g}, what the seed program printed at x = 2",
            "here x = 3: work out dy/dx = 2x at x = 3 for one call first.",
        )
    if close(value, np.float64(single)):
        raise fail(
            "x.grad after all three calls",
            f"{float(value):g}, the gradient of one call",
            "backward() does not overwrite x.grad: each call adds its gradient to what is already there.",
        )
    if not close(value, np.float64(_three_calls())):
        raise fail(
            "x.grad after all three calls",
            f"{float(value):g}",
            "work out dy/dx = 2x at x = 3 for one call, then think about what three calls leave behind.",
        )
    passed("Right: three backward() calls added their gradients together.")


def _descend(w: np.ndarray, x: np.ndarray, y: np.ndarray, lr: float) -> np.ndarray:
    """One step by hand, in NumPy: ∂/∂w mean((x @ w - y)²) = (2/n) xᵀ(x @ w - y)."""
    return w - lr * (2.0 / len(y)) * x.T @ (x @ w - y)


def _hidden_problem() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(20261130)
    return rng.normal(size=3), rng.normal(size=(8, 3)), rng.normal(size=8)


@learner_check
def check_training_step(step: Any) -> None:
    """Check a training step ``step(w, x, y, lr)`` that updates ``w`` in place.

    One step of gradient descent on the mean squared error L(w) = mean((x @ w - y)²):
    compute the loss, ``backward()``, then under ``no_grad()`` do w ← w - lr · ∂L/∂w, and leave
    ``w.grad`` empty (``None`` or zeros) for the next step. The check runs your step several
    times on its own copies of data you do not see and compares ``w`` with gradient descent done
    right on other copies, so a step that changes ``x`` or ``y`` only changes its own result.

    How to call it (with a step that does nothing, which is not the answer):

    >>> check_training_step(lambda w, x, y, lr: None)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    gradbook.exercises._checking.CheckFailedError: ...
    """
    guard()
    if is_stub(step):
        raise not_attempted("your training step")
    if not callable(step):
        raise fail("a function step(w, x, y, lr)", f"{type(step).__name__}", "define it with def step(w, x, y, lr):")
    w0, x_np, y_np = _hidden_problem()
    lr = 0.1
    theirs = gradbook.tensor(w0, requires_grad=True)
    ours = w0.copy()
    for k in range(3):
        # fresh copies each step: the learner's x and y are never the ones the reference reads
        call_student(step, "your training step", theirs, gradbook.tensor(x_np.copy()), gradbook.tensor(y_np.copy()), lr)
        ours = _descend(ours, x_np, y_np, lr)
        if not isinstance(theirs, gradbook.Tensor) or not theirs.is_leaf or not theirs.requires_grad:
            raise fail(
                "w to stay a leaf tensor that requires grad",
                "w lost requires_grad or became the result of an operation",
                "update w in place (w -= ...) inside `with torch.no_grad():`.",
            )
        got = as_numbers(theirs, (3,), f"w after step {k + 1}")
        if not close(got, ours):
            if k == 0:
                raise fail(
                    "w to move by -lr times the gradient of the loss after one step",
                    "a different w after the first step",
                    "call loss.backward() before the update, and subtract lr * w.grad (note the minus sign).",
                )
            raise fail(
                f"step {k + 1} to use only the gradient of its own loss",
                "the first step is right, but a later one is not",
                "gradients accumulate: set w.grad = None (or w.grad.zero_()) after each update.",
            )
    passed("Right: your step follows the gradient and starts each step from a zero gradient.")


grad_after_three_calls = Exercise(
    "grad_after_three_calls",
    1,
    "Predict x.grad after y = x * x; y.backward() runs three times, with x = 3.",
    check_grad_after_three_calls,
    ("What does one backward() put into x.grad? dy/dx of x·x is 2x.", "backward() adds to x.grad."),
)
grad_after_zeroing = Exercise(
    "grad_after_zeroing",
    1,
    "Predict x.grad after three backward() calls, x.grad.zero_(), and two more calls.",
    check_grad_after_zeroing,
    ("Only what happens after zero_() is left.", "Add d(x³)/dx and d(5x)/dx, both at x = 3."),
)
training_step = Exercise(
    "training_step",
    1,
    "Write step(w, x, y, lr): one step of gradient descent on the mean squared error.",
    check_training_step,
    ("Update w under torch.no_grad(), in place.", "Zero the gradient after the update, or the next step adds to it."),
)
exercises = (grad_after_three_calls, grad_after_zeroing, training_step)

__all__ = [
    "check_grad_after_three_calls",
    "check_grad_after_zeroing",
    "check_training_step",
    "exercises",
]
