"""Lesson 13: accumulation on purpose, micro-batches that add up to the full batch.

``backward()`` adds into ``.grad``; k backward passes of ``loss / k`` on k equal micro-batches
add up to the gradient of the mean loss on the whole batch. The checks recompute what they expect:
the prediction by running the lesson's program with gradbook, the accumulation step by a
full-batch step worked out in NumPy.

>>> check_grad_without_division(...)  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
gradbook.exercises._checking.NotAttemptedError: not attempted: ...
"""

from __future__ import annotations

from typing import Any

import numpy as np

import gradbook
from gradbook import nn

from ._checking import (
    Exercise,
    as_numbers,
    call_student,
    close,
    describe,
    fail,
    guard,
    is_stub,
    learner_check,
    linear_model,
    linear_parameters,
    not_attempted,
    passed,
    run_program,
    show_program,
)

# The program whose w.grad the learner predicts; the lesson shows it word for word.
NO_DIVISION_PROGRAM = """\
w = torch.tensor(1.0, requires_grad=True)
xs = torch.tensor([1.0, 2.0, 3.0, 4.0])
ys = torch.tensor([2.0, 2.0, 2.0, 2.0])
for xb, yb in zip(xs.split(2), ys.split(2)):
    ((w * xb - yb) ** 2).mean().backward()  # no division by the number of micro-batches
"""


def _grad(program: str) -> float:
    return float(run_program(program)["w"].grad.item())


@learner_check
def check_grad_without_division(answer: Any) -> None:
    """Predict ``w.grad`` at the end of this program, without running it::

        PROGRAM

    >>> check_grad_without_division(0.5)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    gradbook.exercises._checking.CheckFailedError: ...
    """
    guard()
    value = as_numbers(answer, (), "your prediction of w.grad")
    expected = _grad(NO_DIVISION_PROGRAM)
    divided = _grad(NO_DIVISION_PROGRAM.replace(".mean().backward()", ".mean().div(2).backward()"))
    if close(value, np.float64(divided)) and not close(value, np.float64(expected)):
        raise fail(
            "w.grad without the division",
            f"{float(value):g}, the full batch's gradient",
            "each micro-batch's mean counts fully here: nothing divides by the number of micro-batches.",
        )
    if not close(value, np.float64(expected)):
        raise fail(
            "w.grad after the two backward() calls",
            f"{float(value):g}",
            "d/dw mean((w·x − y)²) = mean(2(w·x − y)·x) for each micro-batch; the two calls add up.",
        )
    passed("Right: without / 2 the two micro-batches add up to twice the full batch's gradient.")


show_program(check_grad_without_division, NO_DIVISION_PROGRAM)

MICRO, LR = 4, 0.1  # micro-batches per step, SGD's learning rate


def _hidden_problem() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(20261213)
    inputs = rng.normal(size=(12, 3))
    targets = inputs @ np.array([[0.5], [1.0], [-1.5]]) - 0.2 + rng.normal(0.0, 0.1, size=(12, 1))
    return inputs, targets, rng.normal(size=(1, 3)), rng.normal(size=(1,))


def _full_batch_steps(steps: int) -> np.ndarray:
    """``steps`` SGD steps on the whole batch, by hand in NumPy (float64 from the float32 data):
    for p = x Wᵀ + b and L = mean((p − t)²), ∂L/∂p = 2(p − t)/n."""
    inputs, targets, weight, bias = (np.float32(v).astype(np.float64) for v in _hidden_problem())
    for _ in range(steps):
        dp = 2 * (inputs @ weight.T + bias - targets) / len(inputs)
        weight, bias = weight - LR * dp.T @ inputs, bias - LR * dp.sum(axis=0)
    return np.concatenate([weight.ravel(), bias.ravel()])


def _model() -> tuple[nn.Linear, list[tuple[gradbook.Tensor, gradbook.Tensor]]]:
    inputs, targets, weight, bias = _hidden_problem()
    model = linear_model(weight, bias)
    x, t = gradbook.tensor(inputs, dtype=gradbook.float32), gradbook.tensor(targets, dtype=gradbook.float32)
    return model, list(zip(x.split(len(inputs) // MICRO), t.split(len(inputs) // MICRO)))


@learner_check
def check_accumulation_step(accumulation_step: Any) -> None:
    """Check ``accumulation_step(model, optimizer, loss_fn, batches)``: one optimizer step on the
    gradient of the whole batch, got from ``batches``, a list of k equal (inputs, targets)
    micro-batches, one backward pass each (the check compares the step, not how it was computed).
    It calls it twice on an ``nn.Linear`` with
    ``SGD`` and ``nn.MSELoss()``, on data you do not see, and compares the parameters with two
    full-batch steps of gradient descent worked out by hand.

    How to call it (with a step that does nothing, which is not the answer):

    >>> check_accumulation_step(lambda model, optimizer, loss_fn, batches: None)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    gradbook.exercises._checking.CheckFailedError: ...
    """
    guard()
    if is_stub(accumulation_step):
        raise not_attempted("your accumulation_step")
    if not callable(accumulation_step):
        raise fail(
            "a function accumulation_step(model, optimizer, loss_fn, batches)",
            describe(accumulation_step),
            "define it with def accumulation_step(model, optimizer, loss_fn, batches):",
        )
    model, batches = _model()
    optimizer = gradbook.optim.SGD(model.parameters(), lr=LR)
    start = linear_parameters(model)
    for _ in range(2):
        call_student(accumulation_step, "your accumulation_step", model, optimizer, nn.MSELoss(), list(batches))
    after = as_numbers(linear_parameters(model), start.shape, "the parameters after two steps")
    if close(after, start):
        raise fail(
            "the parameters to move in each step",
            "parameters that never changed",
            "after the micro-batches' backward() calls, call optimizer.step() once.",
        )
    if not close(after, _full_batch_steps(2)):
        raise fail(
            "the parameters after two full-batch steps",
            "different parameters",
            "zero_grad() once before the micro-batches, backward() of loss / k for each of the k, then one "
            "step(): zeroing inside the loop keeps only the last micro-batch, and without / k the step is k "
            "times too long.",
        )
    passed("Right: k backward passes of loss / k, then one step, are one full-batch step.")


grad_without_division = Exercise(
    "grad_without_division",
    13,
    "Predict w.grad after two micro-batches' backward() calls with no division by 2.",
    check_grad_without_division,
    ("Compute each micro-batch's gradient of its mean loss.", "The two backward() calls add."),
)
accumulation_step = Exercise(
    "accumulation_step",
    13,
    "Write one optimizer step that accumulates the gradient over k equal micro-batches.",
    check_accumulation_step,
    ("zero_grad() once, before the first micro-batch.", "Divide each micro-batch's loss by k."),
)
exercises = (grad_without_division, accumulation_step)

__all__ = ["NO_DIVISION_PROGRAM", "check_accumulation_step", "check_grad_without_division", "exercises"]
