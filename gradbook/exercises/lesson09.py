"""Lesson 09: broadcasting, and why a bias's gradient is a sum.

Broadcasting copies a tensor along the dimensions it lacks (or has as size 1); a copy used in n
places gets n gradients, which add up. So the gradient of a broadcast input is the upstream
gradient summed back to the input's shape: torch's ``grad.sum_to_size(shape)``.

>>> import gradbook as torch
>>> b = torch.zeros(2, requires_grad=True)
>>> (torch.ones(3, 2) + b).sum().backward()   # b is copied to each of 3 rows
>>> b.grad
tensor([3., 3.])
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
    describe,
    fail,
    guard,
    is_stub,
    learner_check,
    not_attempted,
    passed,
    run_program,
)

# The program students read; the check runs this text.
BIAS_PROGRAM = """\
x = torch.ones(5, 3)
W = torch.tensor([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]], requires_grad=True)
b = torch.zeros(2, requires_grad=True)
out = x @ W + b                                   # b is broadcast to shape (5, 2)
loss = (out * torch.tensor([1.0, -2.0])).sum()
loss.backward()
"""


@learner_check
def check_bias_grad(answer: Any) -> None:
    """Predict ``b.grad`` (two numbers) after this program::

        x = torch.ones(5, 3)
        W = torch.tensor([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]], requires_grad=True)
        b = torch.zeros(2, requires_grad=True)
        out = x @ W + b                                   # b is broadcast to shape (5, 2)
        loss = (out * torch.tensor([1.0, -2.0])).sum()
        loss.backward()

    >>> check_bias_grad([0.0, 0.0])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    gradbook.exercises._checking.CheckFailedError: ...
    """

    def _bias_grad() -> np.ndarray:
        return run_program(BIAS_PROGRAM)["b"].grad.numpy().astype(np.float64)

    guard()
    expected = _bias_grad()
    if not is_stub(answer) and _shape_of(answer) == (5, 2):
        raise fail(
            "b.grad with b's shape, (2,)",
            "shape (5, 2), the shape of out",
            "b was copied to all 5 rows; its gradient is the sum of the 5 copies' gradients.",
        )
    value = as_numbers(answer, (2,), "your prediction of b.grad")
    if close(value, expected / 5):
        raise fail("b.grad, summed over every row b was copied to", "the gradient of one row", "count the rows of x.")
    if not close(value, expected):
        raise fail(
            "b.grad after loss.backward()",
            "other values",
            "d(loss)/d(out) is (1, -2) in every row; b receives it once per row.",
        )
    passed("Right: a broadcast bias collects one gradient per row it was copied to.")


def _shape_of(answer: Any) -> tuple[int, ...] | None:
    try:
        return tuple(np.shape(answer.detach().numpy() if isinstance(answer, gradbook.Tensor) else answer))
    except Exception:  # not array-like: as_numbers says what is wrong with it
        return None


# (shape of the upstream gradient, shape it must be summed back to)
_CASES = (
    ((4, 3), (3,)),
    ((4, 3), (1, 3)),
    ((4, 3), (4, 1)),
    ((2, 3, 4), (3, 1)),
    ((2, 1, 4), (1, 4)),
    ((5,), (5,)),
    ((3, 2), ()),
)


@learner_check
def check_unbroadcast(unbroadcast: Any) -> None:
    """Check ``unbroadcast(grad, shape)``: ``grad`` summed back to ``shape``, a shape that
    broadcasts to ``grad.shape``, as the gradient of a tensor of that shape broadcast up to it.
    The check compares your function with what autograd gives for ``x.expand(grad.shape)`` on
    gradients and shapes you do not see (leading dimensions, size-1 dimensions, both, none).

    How to call it (with a function that returns grad unchanged, which is not the answer):

    >>> check_unbroadcast(lambda grad, shape: grad)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    gradbook.exercises._checking.CheckFailedError: ...
    """
    guard()
    if is_stub(unbroadcast):
        raise not_attempted("your unbroadcast")
    if not callable(unbroadcast):
        raise fail(
            "a function unbroadcast(grad, shape)", describe(unbroadcast), "define it with def unbroadcast(grad, shape):"
        )
    rng = np.random.default_rng(9)
    for big, small in _CASES:
        grad = gradbook.tensor(rng.integers(-4, 5, size=big).astype(np.float64))
        x = gradbook.zeros(small, dtype=gradbook.float64, requires_grad=True)
        x.expand(big).backward(grad)  # autograd's answer: the gradient of a broadcast input
        got = call_student(unbroadcast, "your unbroadcast", grad.clone(), small)
        if got is None:
            raise fail("unbroadcast to return the summed gradient", "None", "end the function with return grad.")
        value = as_numbers(got, small, f"unbroadcast(grad of shape {big}, {small})")
        if not close(value, x.grad.numpy()):
            hint = (
                "sum over the dimensions of size 1 too, keeping them (keepdim=True)."
                if 1 in small
                else "sum over the leading dimensions that shape does not have."
            )
            raise fail(f"the sum of grad over the positions each element of shape {small} was copied to",
                       "other values", hint)  # fmt: skip
    passed("Right: your unbroadcast sums exactly where broadcasting copied.")


bias_grad = Exercise(
    "bias_grad",
    9,
    "Predict b.grad after a bias of shape (2,) is broadcast over 5 rows.",
    check_bias_grad,
    ("b.grad has b's shape.", "Each row passes b the same gradient; add the rows up."),
)
unbroadcast = Exercise(
    "unbroadcast",
    9,
    "Write unbroadcast(grad, shape): sum grad back to a shape that broadcasts to it.",
    check_unbroadcast,
    ("First sum over the leading dimensions shape lacks.", "Then sum, with keepdim=True, where shape has a 1."),
)
exercises = (bias_grad, unbroadcast)

__all__ = ["BIAS_PROGRAM", "check_bias_grad", "check_unbroadcast", "exercises"]
