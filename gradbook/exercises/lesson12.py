"""Lesson 12: forward mode and reverse mode, J·v and vᵀJ, and what each costs.

A forward-mode pass pushes one tangent v through the program with the values and gives J·v, a
column of the Jacobian when v is eᵢ; a backward pass pulls one v back and gives vᵀJ, a row. The
checks recompute what they expect with gradbook (``autograd.functional.jvp``, and the sizes of a
function's input and output).

>>> check_jvp_column(...)  # doctest: +ELLIPSIS
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

# The JVP the learner works out by hand; the lesson shows it word for word.
JVP_PROGRAM = """\
def h(x):
    return torch.stack([x[0] * x[2], x[1].sin() + x[0], x[2] ** 2])


x = torch.tensor([2.0, 0.0, -1.0])
v = torch.tensor([0.0, 0.0, 1.0])
"""

# The function whose full Jacobian the learner prices in passes.
PASSES_PROGRAM = """\
W = torch.randn(10, 1000)


def f(x):
    return (W @ x).tanh()  # x has 1000 elements, f(x) has 10
"""


def _products(program: str) -> tuple[np.ndarray, np.ndarray]:
    """J·v and vᵀJ of ``program`` (``JVP_PROGRAM``), by gradbook."""
    scope = run_program(program)
    h, x, v = scope["h"], scope["x"], scope["v"]
    _, jv = gradbook.autograd.functional.jvp(h, x, v)
    _, vj = gradbook.autograd.functional.vjp(h, x, v)
    return jv.numpy().astype(np.float64), vj.numpy().astype(np.float64)


@learner_check
def check_jvp_column(answer: Any) -> None:
    """Work out by hand J·v, the Jacobian of h at x times v, in this program::

        PROGRAM

    Give it as a list of 3 numbers.

    How to call it (with numbers that are not the answer):

    >>> check_jvp_column([0.0, 0.0, 0.0])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    gradbook.exercises._checking.CheckFailedError: ...
    """
    guard()
    got = as_numbers(answer, (3,), "your J·v", "J·v has one number per output of h, as a flat list.")
    jv, vj = _products(JVP_PROGRAM)
    if close(got, jv):
        passed("Right: J·v with v = e₂ is the Jacobian's last column, how every output moves with x[2].")
        return
    hint = (
        "that is vᵀJ, a row (what backward(v) gives); J·v is a column: how each output moves when x moves along v."
        if close(got, vj)
        else "row i of J holds the derivatives of output i; J·v with v = e₂ keeps the derivatives by x[2]."
    )
    raise fail("J·v, one number per output of h", describe(answer), hint)


show_program(check_jvp_column, JVP_PROGRAM)

_TANGENT = "the tangent coming in, a', must scale the tangent going out: the chain rule, run forward."
# (the expression, on a Dual and on a tensor; x; the tangent pushed in; the hint if wrong)
_EXPRESSIONS = (
    ("x.exp()", lambda x: x.exp(), 0.3, 1.0, "expand e^(a + a'ε) = e^a · e^(a'ε) with ε² = 0: what multiplies ε?"),
    ("x.exp()", lambda x: x.exp(), -0.7, 2.0, _TANGENT),
    ("x.exp() * x", lambda x: x.exp() * x, 1.1, 1.0, _TANGENT),
    ("x.sin().exp()", lambda x: x.sin().exp(), 0.9, 1.0, _TANGENT),
    ("(x * x).exp() + x", lambda x: (x * x).exp() + x, -0.4, 0.5, _TANGENT),
)


def _push(dual_class: type, expression: Any, start: float, tangent: float) -> tuple[Any, Any]:
    """The value and the tangent of ``expression`` on the learner's ``Dual(start, tangent)``."""
    out = expression(dual_class(start, tangent))
    return out.value, out.tangent


@learner_check
def check_dual_exp(dual_class: Any) -> None:
    """Check the ``exp`` of lesson 12's ``Dual`` class: ``Dual(a, a').exp()`` must be the dual
    number of e^(a + a'ε), worked out with ε² = 0. The check pushes tangents through expressions
    built with your class
    (``Dual(value, tangent)``, ``+``, ``*``, ``.sin()``, ``.exp()``, ``.value``, ``.tangent``)
    and compares each value and tangent with gradbook's ``autograd.functional.jvp``.

    How to call it (with a class that is not a Dual, so not an answer):

    >>> check_dual_exp(complex)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    gradbook.exercises._checking.CheckFailedError: ...
    """
    guard()
    if is_stub(dual_class):
        raise not_attempted("your Dual class")
    if not isinstance(dual_class, type):
        raise fail("the Dual class itself", describe(dual_class), "pass the class: check_dual_exp(Dual).")
    for text, expression, start, tangent, hint in _EXPRESSIONS:
        value, pushed = call_student(_push, "your exp", dual_class, expression, start, tangent)
        x = gradbook.tensor(start, dtype=gradbook.float64)
        want_value, want_tangent = gradbook.autograd.functional.jvp(
            expression, x, gradbook.tensor(tangent, dtype=gradbook.float64)
        )
        got_value = as_numbers(value, (), f"the value of {text}")
        got_tangent = as_numbers(pushed, (), f"the tangent of {text}")
        if not close(got_value, np.float64(want_value.item())):
            raise fail(f"the value of {text} at x = {start:g}", f"{float(got_value):g}", "the value of e^a is e^a.")
        if not close(got_tangent, np.float64(want_tangent.item())):
            raise fail(f"the tangent of {text} at x = {start:g}, tangent {tangent:g}", f"{float(got_tangent):g}", hint)
    passed("Right: your exp pushes the tangent forward, e^a · a', through every expression.")


def _sizes(program: str) -> tuple[int, int]:
    """How many numbers ``program``'s f (``PASSES_PROGRAM``) takes and gives. The program draws W:
    the learner's random stream is put back as it was."""
    state = gradbook.get_rng_state()
    try:
        scope = run_program(program)
    finally:
        gradbook.set_rng_state(state)
    n = scope["W"].shape[1]
    with gradbook.no_grad():
        return n, scope["f"](gradbook.zeros(n)).numel()


@learner_check
def check_passes(answer: Any) -> None:
    """How many passes does the full Jacobian of f take: forward-mode passes (one J·v each), and
    backward passes in reverse mode (one vᵀJ each, after one forward pass)? f is::

        PROGRAM

    Give a dict ``{"forward": ..., "reverse": ...}`` of whole numbers.

    How to call it (with numbers that are not the answer):

    >>> check_passes({"forward": 1, "reverse": 1})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    gradbook.exercises._checking.CheckFailedError: ...
    """
    guard()
    values = named_answers(
        answer,
        ("forward", "reverse"),
        "your numbers of passes",
        "one entry per mode, keyed by its name.",
        'exactly these two keys, as strings: {"forward": ..., "reverse": ...}.',
    )
    n, m = _sizes(PASSES_PROGRAM)
    got = {name: as_numbers(values[name], (), f"the number of {name}-mode passes") for name in values}
    if not all(float(v).is_integer() for v in got.values()):
        raise fail("whole numbers of passes", describe(answer), "a pass is run whole: count them.")
    if close(got["forward"], np.float64(m)) and close(got["reverse"], np.float64(n)):
        hint = (
            "swapped: a forward pass pushes one input direction (a column), a backward pass pulls one output (a row)."
        )
    elif not close(got["forward"], np.float64(n)):
        hint = "forward mode gets one column of J per pass: how many columns has J, one per input?"
    else:
        hint = "reverse mode gets one row of J per backward pass: how many rows has J, one per output?"
    if not (close(got["forward"], np.float64(n)) and close(got["reverse"], np.float64(m))):
        raise fail("the passes for the full Jacobian in each mode", describe(answer), hint)
    passed("Right: one pass per input forward, one per output backward; a loss has one output.")


show_program(check_passes, PASSES_PROGRAM)

jvp_column = Exercise(
    "jvp_column",
    12,
    "Work out J·v by hand for h(x) = (x0·x2, sin(x1) + x0, x2²) at x = (2, 0, -1), v = (0, 0, 1).",
    check_jvp_column,
    ("J·v with v = eⱼ is column j of J.", "Differentiate each output by x[2] only."),
)
dual_exp = Exercise(
    "dual_exp",
    12,
    "Write Dual.exp: the value and the tangent of e^(a + a'ε).",
    check_dual_exp,
    ("e^(a + a'ε) = e^a · e^(a'ε), and e^(a'ε) = 1 + a'ε when ε² = 0.", "The tangent is e^a · a'."),
)
passes = Exercise(
    "passes",
    12,
    "How many forward-mode and reverse-mode passes give the full Jacobian of f: R^1000 -> R^10?",
    check_passes,
    ("A forward-mode pass gives one column, a backward pass one row.", "J has one column per input."),
)
exercises = (jvp_column, dual_exp, passes)

__all__ = ["JVP_PROGRAM", "PASSES_PROGRAM", "check_dual_exp", "check_jvp_column", "check_passes", "exercises"]
