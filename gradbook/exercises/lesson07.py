"""Lesson 07: a training loop with ``torch.nn`` and ``torch.optim``.

Each step builds a new graph (forward and loss), ``backward()`` adds into every parameter's
``.grad``, ``optimizer.step()`` moves the parameters under ``no_grad``, and
``optimizer.zero_grad()`` empties the gradients so the next step sees only its own (the
exercises ask about other programs):

>>> import gradbook as torch
>>> w = torch.tensor(3.0, requires_grad=True)
>>> optimizer = torch.optim.SGD([w], lr=0.5)
>>> (w * w).backward()                # w.grad = 2w = 6
>>> optimizer.step()                  # w ← w - 0.5 · 6
>>> optimizer.zero_grad()
>>> w, w.grad
(tensor(0., requires_grad=True), None)
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

# The program of the zero_grad exercise: students read this text, and the check runs this text.
NO_ZERO_GRAD_PROGRAM = """\
w = torch.tensor(1.0, requires_grad=True)
optimizer = torch.optim.SGD([w], lr=0.25)
for _ in range(2):
    loss = w * w
    loss.backward()
    optimizer.step()
"""


def _weight_after(program: str) -> float:
    return float(run_program(program)["w"].detach().item())


@learner_check
def check_weight_without_zero_grad(answer: Any) -> None:
    """Predict ``w`` at the end of this program, without running it (there is no ``zero_grad()``)::

        PROGRAM

    Each ``backward()`` adds 2w into ``w.grad``; each ``step()`` does w ← w - lr · w.grad.

    >>> check_weight_without_zero_grad(1.0)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    gradbook.exercises._checking.CheckFailedError: ...
    """
    guard()
    value = as_numbers(answer, (), "your prediction of w")
    expected = _weight_after(NO_ZERO_GRAD_PROGRAM)
    zeroed = _weight_after(
        NO_ZERO_GRAD_PROGRAM.replace("    loss.backward()", "    optimizer.zero_grad()\n    loss.backward()")
    )
    one_step = _weight_after(NO_ZERO_GRAD_PROGRAM.replace("range(2)", "range(1)"))
    if close(value, np.float64(zeroed)) and not close(value, np.float64(expected)):
        raise fail(
            "w after two steps without zero_grad()",
            f"{float(value):g}, which is w if the gradient were zeroed between the steps",
            "nothing empties w.grad here: the second step uses the first gradient plus the second.",
        )
    if close(value, np.float64(one_step)) and not close(value, np.float64(expected)):
        raise fail("w after both steps", f"{float(value):g}, w after the first step", "the loop runs twice.")
    if not close(value, np.float64(expected)):
        raise fail(
            "w after two steps without zero_grad()",
            f"{float(value):g}",
            "step 1: w.grad = 2w, then w moves; step 2: w.grad adds 2w at the new w, and w moves by lr times the sum.",
        )
    passed("Right: without zero_grad() the second step used the sum of both gradients.")


# ---------------------------------------------------------------- the training loop
STEPS, LR = 4, 0.1


def _hidden_problem() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(20270107)
    inputs = rng.normal(size=(12, 3))
    targets = inputs @ np.array([[1.5], [-2.0], [0.5]]) + 0.3 + rng.normal(0.0, 0.1, size=(12, 1))
    return inputs, targets, rng.normal(size=(1, 3)), rng.normal(size=(1,))


def _descent(zero_grad: bool = True) -> tuple[list[float], np.ndarray]:
    """Gradient descent by hand, in NumPy (with or without zero_grad()): the losses and the
    parameters after. For p = x Wᵀ + b and L = mean((p - t)²): ∂L/∂p = 2(p - t)/n,
    ∂L/∂W = (∂L/∂p)ᵀ x, ∂L/∂b = Σ ∂L/∂p; without zero_grad() each step adds to the last."""
    inputs, targets, weight, bias = (np.float32(v).astype(np.float64) for v in _hidden_problem())
    grads = [np.zeros_like(weight), np.zeros_like(bias)]
    losses = []
    for _ in range(STEPS):
        residual = inputs @ weight.T + bias - targets
        losses.append(float(np.mean(residual**2)))
        dp = 2 * residual / residual.size
        if zero_grad:
            grads = [np.zeros_like(weight), np.zeros_like(bias)]
        grads = [grads[0] + dp.T @ inputs, grads[1] + dp.sum(axis=0)]
        weight, bias = weight - LR * grads[0], bias - LR * grads[1]
    return losses, np.concatenate([weight.ravel(), bias.ravel()])


def _losses(answer: Any) -> np.ndarray:
    """The losses the learner's loop returned, as numbers (tensors that keep a graph are named)."""
    if not isinstance(answer, (list, tuple)):
        raise fail(
            f"a list of {STEPS} losses, one per step",
            describe(answer),
            "append loss.item() to a list in every step, and return the list.",
        )
    if len(answer) != STEPS:
        raise fail(
            f"a list of {STEPS} losses, one per step",
            f"a list of {len(answer)}",
            "append one loss per step, steps times.",
        )
    if any(isinstance(item, gradbook.Tensor) and item.requires_grad for item in answer):
        raise fail(
            "the losses as plain numbers",
            "tensors that require grad",
            "store loss.item(): a loss tensor keeps its whole graph alive, step after step.",
        )
    return np.array([as_numbers(item, (), "each loss") for item in answer], dtype=np.float64)


@learner_check
def check_training_loop(training_loop: Any) -> None:
    """Check ``training_loop(model, optimizer, loss_fn, inputs, targets, steps)``.

    In each of the ``steps`` steps it must zero the gradients, compute
    ``loss = loss_fn(model(inputs), targets)``, call ``loss.backward()`` and
    ``optimizer.step()``, and note ``loss.item()``; it returns the list of those losses. The check
    trains an ``nn.Linear`` on data you do not see, with ``SGD`` and ``nn.MSELoss()``, and
    compares the parameters and the losses with a loop done right on its own copy.

    How to call it (with a loop that never steps, which is not the answer):

    >>> check_training_loop(lambda model, optimizer, loss_fn, inputs, targets, steps: [])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    gradbook.exercises._checking.CheckFailedError: ...
    """
    guard()
    if is_stub(training_loop):
        raise not_attempted("your training_loop")
    if not callable(training_loop):
        raise fail(
            "a function training_loop(model, optimizer, loss_fn, inputs, targets, steps)",
            type(training_loop).__name__,
            "define it with def training_loop(model, optimizer, loss_fn, inputs, targets, steps):",
        )
    inputs, targets, weight, bias = _hidden_problem()
    model = linear_model(weight, bias)
    start = linear_parameters(model)
    optimizer = gradbook.optim.SGD(model.parameters(), lr=LR)
    # private copies: a loop that changes its data changes only its own result
    args = (gradbook.tensor(inputs, dtype=gradbook.float32), gradbook.tensor(targets, dtype=gradbook.float32))
    losses = call_student(training_loop, "your training_loop", model, optimizer, nn.MSELoss(), *args, STEPS)
    expected_losses, expected = _descent()
    if not all(isinstance(p, gradbook.Tensor) and p.is_leaf and p.requires_grad for p in (model.weight, model.bias)):
        raise fail(
            "the parameters to stay leaf tensors that require grad",
            "a parameter that lost requires_grad or became the result of an operation",
            "let optimizer.step() update the parameters (it works under no_grad).",
        )
    after = as_numbers(linear_parameters(model), expected.shape, "the parameters after training")
    if close(after, start):
        if is_stub(losses):
            raise not_attempted("your training_loop")
        raise fail(
            "the parameters to move in every step",
            "parameters that never changed",
            "call optimizer.step() after loss.backward(); zero_grad() between them erases the gradient it needs.",
        )
    if close(after, _descent(zero_grad=False)[1]):
        raise fail(
            "each step to use only the gradient of its own loss",
            "steps that used the sum of all the gradients so far",
            "backward() adds into .grad: call optimizer.zero_grad() in every step, before backward().",
        )
    if not close(after, expected):
        raise fail(
            f"the parameters after {STEPS} steps of gradient descent",
            "different parameters",
            "in each step: zero_grad(), forward, loss, backward(), step(), in this order, steps times.",
        )
    got = _losses(losses)
    if not close(got, np.asarray(expected_losses)):
        raise fail(
            "the loss of each step, computed before its update",
            "other losses",
            "append loss.item() for the loss you called backward() on, in the same step.",
        )
    passed("Right: every step zeroed, computed a new graph, went backward and stepped.")


weight_without_zero_grad = Exercise(
    "weight_without_zero_grad",
    7,
    "Predict w after two SGD steps on loss = w * w (w = 1, lr = 0.25) without optimizer.zero_grad().",
    check_weight_without_zero_grad,
    ("Write down w.grad and w after each step.", "The second backward() adds to the gradient of the first."),
)
training_loop = Exercise(
    "training_loop",
    7,
    "Write training_loop(model, optimizer, loss_fn, inputs, targets, steps), returning the losses.",
    check_training_loop,
    (
        "One step: zero the gradients, forward, loss, backward, step.",
        "Return a list of numbers: loss.item(), not the loss tensor.",
    ),
)
exercises = (weight_without_zero_grad, training_loop)

__all__ = ["check_training_loop", "check_weight_without_zero_grad", "exercises"]


show_program(check_weight_without_zero_grad, NO_ZERO_GRAD_PROGRAM)
