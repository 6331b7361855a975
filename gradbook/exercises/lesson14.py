"""Lesson 14: vectorized backward rules, derived from the shapes (matmul, softmax cross-entropy).

A gradient has the shape of what it is the gradient of, and the only products of the upstream
gradient and the saved tensors with that shape are the rule. The checks recompute what they
expect with gradbook's autograd on the same ops.

>>> check_softmax_ce_grad(...)  # doctest: +ELLIPSIS
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
    show_program,
)

# The cross-entropy gradient the learner works out; the lesson shows it word for word.
SOFTMAX_CE_PROGRAM = """\
z = torch.tensor([[math.log(2), 0.0, 0.0], [0.0, 0.0, 0.0]], requires_grad=True)
y = torch.tensor([0, 2])
loss = torch.nn.functional.cross_entropy(z, y)
loss.backward()
"""


def _ce(program: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """z.grad of ``program`` (``SOFTMAX_CE_PROGRAM``), and softmax(z) and the labels' one-hot."""
    import math

    scope = run_program(program, math=math)
    z = scope["z"]
    onehot = np.eye(z.shape[1])[scope["y"].numpy()]
    return z.grad.numpy().astype(np.float64), z.detach().softmax(dim=1).numpy().astype(np.float64), onehot


@learner_check
def check_softmax_ce_grad(answer: Any) -> None:
    """Work out ``z.grad`` by hand (a 2 × 3 nested list) for this program::

        PROGRAM

    >>> check_softmax_ce_grad([[0.0] * 3] * 2)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    gradbook.exercises._checking.CheckFailedError: ...
    """
    guard()
    got = as_numbers(answer, (2, 3), "your z.grad", "z.grad has z's shape: 2 rows of 3.")
    grad, softmax, onehot = _ce(SOFTMAX_CE_PROGRAM)
    if np.allclose(got, grad, rtol=1e-3, atol=1e-4):  # 1/6 written as 0.1667 is right
        passed("Right: (softmax(z) − one-hot(y)) / N, a row per example.")
        return
    if close(got, softmax - onehot):
        hint = "cross_entropy averages over the N = 2 rows: divide by N."
    elif close(got, onehot - softmax) or close(got, (onehot - softmax) / 2):
        hint = "the sign: softmax(z) minus the one-hot of the label, not the other way round."
    elif close(got, softmax) or close(got, softmax / 2):
        hint = "subtract the one-hot of each row's label from the softmax."
    else:
        hint = "for each row, softmax(z) − one-hot(y): softmax of (log 2, 0, 0) is (1/2, 1/4, 1/4); then divide by N."
    raise fail("z.grad after loss.backward()", describe(answer), hint)


show_program(check_softmax_ce_grad, SOFTMAX_CE_PROGRAM)


def _hidden_linear() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(20261214)
    return rng.normal(size=(4, 3)), rng.normal(size=(2, 3)), rng.normal(size=(2,)), rng.normal(size=(4, 2))


@learner_check
def check_linear_function(function: Any) -> None:
    """Check an ``autograd.Function`` for ``nn.Linear``'s op, ``apply(x, weight, bias)`` =
    x @ weightᵀ + bias for x of shape (N, in), weight (out, in) and bias (out,), whose
    ``backward(ctx, grad_output)`` returns the three gradients. The check runs it on float64
    tensors you do not see, compares the output and every gradient with gradbook's autograd on the
    same ops, and requires that the output's node is your Function's.

    How to call it (with a class that is not a Function, so not an answer):

    >>> check_linear_function(object)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    gradbook.exercises._checking.CheckFailedError: ...
    """
    guard()
    if is_stub(function):
        raise not_attempted("your LinearFunction")
    if not (isinstance(function, type) and issubclass(function, gradbook.autograd.Function)):
        raise fail(
            "a subclass of torch.autograd.Function",
            describe(function),
            "define class LinearFunction(torch.autograd.Function) with forward and backward.",
        )
    x0, w0, b0, g0 = _hidden_linear()
    x, w, b = (gradbook.tensor(v, dtype=gradbook.float64, requires_grad=True) for v in (x0, w0, b0))
    out = call_student(function.apply, "your LinearFunction", x, w, b)
    want = x0 @ w0.T + b0
    values = as_numbers(out, want.shape, "the output of apply(x, weight, bias)", "x @ weightᵀ + bias is (N, out).")
    if not close(values, want):
        raise fail("the output x @ weightᵀ + bias", "different values", "weight is (out, in): use x @ weight.T.")
    node = getattr(out, "grad_fn", None)
    if node is None or node.name() != f"{function.__name__}Backward":
        raise fail(
            f"the output's node to be {function.__name__}Backward",
            "another node" if node is not None else "no node",
            "return the result of forward; apply puts your Function's node on it.",
        )
    call_student(out.backward, "your backward", gradbook.tensor(g0, dtype=gradbook.float64))
    got = [t.grad for t in (x, w, b)]
    reference = [gradbook.tensor(v, dtype=gradbook.float64, requires_grad=True) for v in (x0, w0, b0)]
    (reference[0] @ reference[1].T + reference[2]).backward(gradbook.tensor(g0, dtype=gradbook.float64))
    for name, grad, ref, hint in zip(
        ("x", "weight", "bias"),
        got,
        reference,
        (
            "grad_x has x's shape (N, in): grad_output (N, out) times weight (out, in).",
            "grad_weight has weight's shape (out, in): grad_outputᵀ (out, N) times x (N, in).",
            "grad_bias has bias's shape (out,): sum grad_output over the N rows.",
        ),
    ):
        if grad is None:
            raise fail(f"a gradient for {name}", "None", hint)
        values = as_numbers(grad, tuple(ref.shape), f"the gradient of {name}", hint)
        if not close(values, ref.grad.numpy()):
            raise fail(f"the gradient of {name}", "different values", hint)
    passed("Right: the three gradients have their tensors' shapes, and the shapes told you the products.")


linear_function = Exercise(
    "linear_function",
    14,
    "Write nn.Linear's op as an autograd.Function, with its backward rules derived from the shapes.",
    check_linear_function,
    ("Each gradient has the shape of its tensor.", "grad_weight = grad_outputᵀ @ x; grad_bias sums over rows."),
)
softmax_ce_grad = Exercise(
    "softmax_ce_grad",
    14,
    "Work out z.grad of cross_entropy for two rows of three logits, by hand.",
    check_softmax_ce_grad,
    ("dL/dz = (softmax(z) − one-hot(y)) / N.", "softmax of (log 2, 0, 0) is (1/2, 1/4, 1/4)."),
)
exercises = (softmax_ce_grad, linear_function)

__all__ = ["SOFTMAX_CE_PROGRAM", "check_linear_function", "check_softmax_ce_grad", "exercises"]
