"""Lesson 15: memory. What autograd saves for backward, and checkpointing, which saves less and
computes twice.

The checks count what is saved with ``autograd.graph.saved_tensors_hooks``, as the lesson does;
one of them asks for a Function that saves less than torch's own rule.

>>> check_saved_count(...)  # doctest: +ELLIPSIS
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
    named_answers,
    not_attempted,
    passed,
    run_program,
    show_program,
)

# The program whose saved tensors the learner counts; the lesson shows it word for word.
SAVED_PROGRAM = """\
x = torch.randn(100, requires_grad=True)
v = torch.randn(100)
y = ((x * v).sin() + x.exp()).sum()
"""


def _saved(program: str) -> tuple[int, int]:
    """How many tensors autograd saves while ``program`` runs, and their bytes."""
    seen: list[int] = []

    def pack(t: gradbook.Tensor) -> gradbook.Tensor:
        seen.append(t.numel() * t.element_size())
        return t

    with gradbook.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        run_program(program)
    return len(seen), sum(seen)


@learner_check
def check_saved_count(answer: Any) -> None:
    """Count the tensors autograd saves for backward in this program, and their bytes, as a dict
    ``{"tensors": ..., "bytes": ...}``::

        PROGRAM

    >>> check_saved_count({"tensors": 0, "bytes": 0})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    gradbook.exercises._checking.CheckFailedError: ...
    """
    guard()
    values = named_answers(
        answer,
        ("tensors", "bytes"),
        "your count",
        "one entry for the number of saved tensors, one for their bytes.",
        'exactly these two keys, as strings: {"tensors": ..., "bytes": ...}.',
    )
    what = {"tensors": "the number of saved tensors", "bytes": "the number of bytes"}
    got = {name: as_numbers(values[name], (), what[name], "a count is a single number.") for name in values}
    if not all(float(v).is_integer() for v in got.values()):
        raise fail(
            "whole numbers of tensors and bytes", describe(answer), "count whole tensors, and 4 bytes per number."
        )
    tensors, size = _saved(SAVED_PROGRAM)
    n, b = float(got["tensors"]), float(got["bytes"])
    if n == tensors and b == size:
        passed("Right: each node keeps only what the rules of the needed gradients read.")
        return
    if n == tensors:
        hint = "the tensors are right; each is 100 float32 numbers of 4 bytes."
    elif n == tensors + 1:
        hint = "x * v: only x needs a gradient, and x's rule reads v alone."
    elif n < tensors:
        hint = "sin reads its input, exp its output (eˣ is its own derivative): each keeps one tensor."
    else:
        hint = "+ and sum read nothing to pass their gradient on; count only what a needed gradient reads."
    raise fail("the saved tensors and their bytes", describe(answer), hint)


show_program(check_saved_count, SAVED_PROGRAM)


def _hidden_input() -> tuple[np.ndarray, np.ndarray]:
    """An input with exact zeros (where relu's convention shows) and an upstream gradient."""
    rng = np.random.default_rng(20261215)
    x = rng.normal(size=(4, 5)).astype(np.float32)
    x[0, :2] = 0.0
    x[1, :3] = 1e-6, 1e-3, -1e-6  # a mask of x > 0.01 is wrong here
    return x, rng.normal(size=(4, 5)).astype(np.float32)


@learner_check
def check_mask_relu(function: Any) -> None:
    """Check a ReLU ``autograd.Function`` that saves a boolean mask (1 byte a number) instead of a
    float32 tensor (4 bytes a number): ``apply(x)`` is ``x.relu()``, and its backward passes the
    gradient where x was positive. The check runs it on a float32 input you do not see (with
    zeros in it), counts the bytes saved with ``saved_tensors_hooks``, and compares the gradient
    with ``relu``'s.

    How to call it (with a class that is not a Function, so not an answer):

    >>> check_mask_relu(object)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    gradbook.exercises._checking.CheckFailedError: ...
    """
    guard()
    if is_stub(function):
        raise not_attempted("your MaskReLU")
    if not (isinstance(function, type) and issubclass(function, gradbook.autograd.Function)):
        raise fail(
            "a subclass of torch.autograd.Function",
            describe(function),
            "define class MaskReLU(torch.autograd.Function) with forward and backward.",
        )
    x0, g0 = _hidden_input()
    x = gradbook.tensor(x0, requires_grad=True)
    saved: list[int] = []

    def pack(t: gradbook.Tensor) -> gradbook.Tensor:
        saved.append(t.numel() * t.element_size())
        return t

    with gradbook.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        out = call_student(function.apply, "your MaskReLU", x)
    want = np.maximum(x0, 0)
    values = as_numbers(out, want.shape, "the output of apply(x)", "relu(x) has x's shape.")
    if not close(values, want):
        raise fail("the output relu(x)", "different values", "forward returns x where it is positive, 0 elsewhere.")
    node = getattr(out, "grad_fn", None)
    if not isinstance(out, gradbook.Tensor) or node is None or _name(node) != f"{function.__name__}Backward":
        raise fail(
            f"the output's node to be {function.__name__}Backward",
            "another node" if node is not None else "no node",
            "return a tensor, the result of forward; apply puts your Function's node on it.",
        )
    kept = [name for name, value in vars(node).items() if isinstance(value, gradbook.Tensor)]
    if kept:
        raise fail(
            "the mask saved with ctx.save_for_backward, and no other tensor",
            "a tensor kept as an attribute of ctx",
            "a tensor kept as an attribute of ctx is memory too, unseen by the hooks and not freed by backward.",
        )
    if not saved:
        raise fail(
            "the mask saved with ctx.save_for_backward",
            "nothing saved",
            "a tensor kept as an attribute of ctx is memory too, unseen by the hooks and not freed by backward.",
        )
    if sum(saved) != x0.size:
        raise fail(
            f"{x0.size} bytes saved: one per number",
            f"{sum(saved)} bytes saved",
            "save only the mask x > 0, a bool tensor: 1 byte a number.",
        )
    call_student(out.backward, "your backward", gradbook.tensor(g0))
    if x.grad is None:
        raise fail("a gradient for x", "None", "backward returns one gradient: grad_output where x > 0.")
    got = as_numbers(x.grad, x0.shape, "the gradient of x")
    reference = np.where(x0 > 0, g0, 0)  # relu's gradient, torch's convention at 0
    if close(got, g0 * (x0 >= 0)):
        raise fail("the gradient of x", "different values at x = 0", "torch's relu passes no gradient at x = 0.")
    if not np.array_equal(got, reference):  # a mask picks, exactly
        raise fail("the gradient of x", "different values", "multiply grad_output by the saved mask.")
    passed("Right: the same gradient as relu's, from 1 byte a number saved instead of 4.")


def _name(node: Any) -> Any:
    try:
        return node.name()
    except Exception:  # a node that is not autograd's: not the Function's
        return None


saved_count = Exercise(
    "saved_count",
    15,
    "Count the tensors autograd saves for ((x * v).sin() + x.exp()).sum() with v needing no gradient.",
    check_saved_count,
    ("A node saves what the rules of the needed gradients read.", "float32 is 4 bytes a number."),
)
mask_relu = Exercise(
    "mask_relu",
    15,
    "Write a ReLU Function that saves a boolean mask instead of a float32 tensor.",
    check_mask_relu,
    (
        "The backward rule only needs to know where x > 0.",
        "A bool tensor is 1 byte a number; grad_output passes where it is True.",
    ),
)
exercises = (saved_count, mask_relu)

__all__ = ["SAVED_PROGRAM", "check_mask_relu", "check_saved_count", "exercises"]
