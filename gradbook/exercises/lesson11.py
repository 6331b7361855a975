"""Lesson 11: a derivative is a sensitivity, the chain rule runs on a graph, reverse mode on a tape.

The three checks are three kinds of exercise: *derive* gradients by hand (``check_hand_gradients``),
*build* central finite differences (``check_numerical_grad``), and *debug* a tape's backward pass
that overwrites where it must add (``check_tape_backward``). Each recomputes what it expects: with
gradbook's autograd, or with derivatives written in closed form.

>>> check_hand_gradients(...)  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
gradbook.exercises._checking.NotAttemptedError: not attempted: ...
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

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

# The program whose gradients the learner derives by hand; the lesson shows it word for word.
DERIVE_PROGRAM = """\
u = torch.tensor(3.0, requires_grad=True)
v = torch.tensor(-1.0, requires_grad=True)
w = u * v
g = w * w + u
"""


def _derived(program: str) -> dict[str, float]:
    """dg/du, dg/dv and dg/dw of ``program`` (``DERIVE_PROGRAM``), by gradbook's backward pass."""
    scope = run_program(program)
    scope["w"].retain_grad()
    scope["g"].backward()
    return {name: float(scope[name].grad.item()) for name in ("u", "v", "w")}


_DERIVE_HINTS = {
    "w": "g = w * w + u uses w twice in one product: d(w·w)/dw = w + w.",
    "v": "v reaches g only through w: dg/dv = dg/dw · dw/dv, and dw/dv = u.",
    "u": "u reaches g along two paths, through w and directly through + u: add what each path gives.",
}


@learner_check
def check_hand_gradients(answer: Any) -> None:
    """Derive by hand, node by node, the gradients of g in this program::

        PROGRAM

    Give a dict ``{"u": dg/du, "v": dg/dv, "w": dg/dw}`` of numbers.

    How to call it (with numbers that are not the answer):

    >>> check_hand_gradients({"u": 0.0, "v": 0.0, "w": 0.0})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    gradbook.exercises._checking.CheckFailedError: ...
    """
    guard()
    values = named_answers(
        answer,
        ("u", "v", "w"),
        "your dict of gradients",
        "one entry per variable, keyed by its name.",
        'exactly these three keys, as strings: {"u": ...}.',
    )
    expected = _derived(DERIVE_PROGRAM)
    for name in ("w", "v", "u"):  # in the order the backward pass reaches them
        if is_stub(values[name]):
            raise not_attempted(f"dg/d{name}")
        got = as_numbers(values[name], (), f"dg/d{name}")
        if not np.allclose(got, expected[name], rtol=1e-9, atol=1e-9):  # small whole numbers, worked out exactly
            raise fail(f"dg/d{name}", f"{float(got):.10g}", _DERIVE_HINTS[name])
    passed("Right: local derivative times upstream at each node, and the two paths to u added.")


show_program(check_hand_gradients, DERIVE_PROGRAM)


# Functions of plain floats, written with math (so no autograd can see inside them), and their
# partial derivatives in closed form: (what the message calls it, f, the point, the partials).
_FUNCTIONS: tuple[tuple[str, Callable[..., float], tuple[float, ...], Callable[..., tuple[float, ...]]], ...] = (
    ("exp(3a)", lambda a: math.exp(3 * a), (1.0,), lambda a: (3 * math.exp(3 * a),)),
    (
        "a·sin(b) + a²",
        lambda a, b: a * math.sin(b) + a * a,
        (0.7, -1.3),
        lambda a, b: (math.sin(b) + 2 * a, a * math.cos(b)),
    ),
    (
        "a·b·c + log(c)",
        lambda a, b, c: a * b * c + math.log(c),
        (-0.4, 2.5, 1.6),
        lambda a, b, c: (b * c, a * c, a * b + 1 / c),
    ),
)


@learner_check
def check_numerical_grad(numerical_grad: Any) -> None:
    """Check ``numerical_grad(f, inputs, eps=1e-6)``: the partial derivatives of ``f(*inputs)``
    (a function of plain floats returning a float) by central differences,
    (f(…, xᵢ + ε, …) − f(…, xᵢ − ε, …)) / 2ε, one per input, as a list.

    The check calls it on functions written with ``math`` and compares with their derivatives in
    closed form: central differences at ε = 1e-6 agree to about 1e-9; forward differences
    (f(x + ε) − f(x)) / ε are off by about ε·f''/2, a thousand times more. It also passes
    ``eps=1e-2``, where the answer must be the central difference at that ε.

    How to call it (with a function that is not the answer):

    >>> check_numerical_grad(lambda f, inputs, eps=1e-6: [0.0] * len(inputs))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    gradbook.exercises._checking.CheckFailedError: ...
    """
    guard()
    if is_stub(numerical_grad):
        raise not_attempted("your numerical_grad")
    if not callable(numerical_grad):
        raise fail(
            "a function numerical_grad(f, inputs, eps=1e-6)", describe(numerical_grad), "pass the function itself."
        )
    for text, f, point, partials in _FUNCTIONS:
        got = call_student(numerical_grad, "your numerical_grad", f, point)
        values = as_numbers(got, (len(point),), f"numerical_grad of f = {text}")
        truth = np.array(partials(*point))
        if not np.allclose(values, truth, rtol=1e-7, atol=1e-9):
            hint = (
                "divide by 2ε: the two points x + ε and x − ε are 2ε apart."
                if np.allclose(values, 2 * truth, rtol=1e-4)
                else "divide by 2ε, not 4ε."
                if np.allclose(values, truth / 2, rtol=1e-4)
                else "the sign is flipped: f(x + ε) − f(x − ε), in that order."
                if np.allclose(values, -truth, rtol=1e-4)
                else "nudge one input at a time, both ways, and keep the others as they are."
                if not np.allclose(values, truth, rtol=1e-3)
                else "close, but not to 1e-7: a forward difference is off by about ε·f''/2; "
                "use f(x + ε) − f(x − ε) over 2ε."
            )
            where = ", ".join(f"{x:g}" for x in point)
            raise fail(f"the partial derivatives of {text} at ({where}) to within 1e-7", _numbers(values), hint)
    # exp(3a) at a = 0 with eps = 1e-2: the central difference is (e^(3ε) − e^(−3ε)) / 2ε = sinh(3ε)/ε
    eps = 1e-2
    got = call_student(lambda: numerical_grad(lambda a: math.exp(3 * a), (0.0,), eps=eps), "your numerical_grad")
    values = as_numbers(got, (1,), "numerical_grad(f, (0.0,), eps=1e-2) of f = exp(3a)")
    if not np.allclose(values, [math.sinh(3 * eps) / eps], rtol=1e-9, atol=0.0):
        raise fail(
            "the central difference at ε = 1e-2 of exp(3a) at a = 0",
            _numbers(values),
            "at ε = 1e-2 the answer must be (f(x + ε) − f(x − ε)) / 2ε with the ε the caller passes.",
        )
    passed("Right: central differences, with an error that shrinks as ε².")


def _numbers(values: np.ndarray) -> str:
    return "[" + ", ".join(f"{v:.10g}" for v in values) + "]"


class _Var:
    """A number on a tape, built as lesson 11's ``Var`` is: ``value``, and ``inputs`` as pairs
    (input Var, local derivative d self / d input)."""

    def __init__(self, value: float, inputs: tuple = (), tape: list | None = None) -> None:
        self.value, self.inputs = value, inputs
        if tape is not None:
            tape.append(self)


def _tape_programs() -> list[tuple[str, list, _Var, dict[str, _Var], dict[str, float]]]:
    """Programs on a tape (text, tape, output, the named Vars, and each one's gradient, derived by
    hand): one without a fork, then a variable used twice by one node, by two nodes, by three, and a
    tape with a node before the output that it does not use and one made after it."""
    cases = []
    for text, values, body, partials in (
        ("c = a * b; e = c + d", (1.5, -2.0, 4.0), lambda a, b, d, mul, add: add(mul(a, b), d),
         lambda a, b, d: (b, a, 1.0)),
        ("e = a + a", (3.0, 0.0, 0.0), lambda a, b, d, mul, add: add(a, a), lambda a, b, d: (2.0, 0.0, 0.0)),
        ("p = a * b; q = a + b; e = p * q", (2.0, -0.5, 0.0),
         lambda a, b, d, mul, add: mul(mul(a, b), add(a, b)),
         lambda a, b, d: (2 * a * b + b * b, a * a + 2 * a * b, 0.0)),
        ("c = a * a; e = c * a + d * c", (-1.2, 0.0, 0.7),
         lambda a, b, d, mul, add: (lambda c: add(mul(c, a), mul(d, c)))(mul(a, a)),
         lambda a, b, d: (3 * a * a + 2 * d * a, 0.0, a * a)),
        ("u = b * d; e = a * b; w = e * d, out = e", (0.5, 3.0, -2.0),  # nodes on the tape that e does not use
         lambda a, b, d, mul, add: (lambda u, e: (e, mul(e, d))[0])(mul(b, d), mul(a, b)),
         lambda a, b, d: (b, a, 0.0)),
    ):  # fmt: skip
        tape: list = []
        leaves = {name: _Var(v, (), tape) for name, v in zip("abd", values)}

        def mul(x: _Var, y: _Var, tape: list = tape) -> _Var:
            return _Var(x.value * y.value, ((x, y.value), (y, x.value)), tape)

        def add(x: _Var, y: _Var, tape: list = tape) -> _Var:
            return _Var(x.value + y.value, ((x, 1.0), (y, 1.0)), tape)

        out = body(*leaves.values(), mul, add)
        cases.append((text, tape, out, leaves, dict(zip("abd", partials(*values)))))
    return cases


@learner_check
def check_tape_backward(backward: Any) -> None:
    """Check ``backward(tape, out)`` for lesson 11's tape: ``tape`` lists every ``Var`` in the
    order it was made, each with ``.value`` and ``.inputs`` (pairs of an input Var and the local
    derivative d node / d input); it returns a dict ``{Var: d out / d Var}``.

    The check builds its own tapes, with a variable used twice by one node, by two and by three,
    and with nodes on the tape that ``out`` does not use, and compares the dict's gradients of the
    leaves with their derivatives worked out by hand.

    How to call it (with a backward that is not the answer):

    >>> check_tape_backward(lambda tape, out: {out: 1.0})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    gradbook.exercises._checking.CheckFailedError: ...
    """
    guard()
    if is_stub(backward):
        raise not_attempted("your backward pass")
    if not callable(backward):
        raise fail("a function backward(tape, out)", describe(backward), "pass the function itself.")
    for text, tape, out, leaves, truth in _tape_programs():
        grads = call_student(backward, "your backward pass", list(tape), out)
        if not isinstance(grads, Mapping):
            raise fail("a dict {Var: gradient}", describe(grads), "return grads, the dict filled by the loop.")
        for name, leaf in leaves.items():
            try:
                value = grads.get(leaf, 0.0)
            except Exception as err:  # a Mapping whose lookup raises is not an answer
                raise fail(
                    "a dict {Var: gradient}", describe(grads), f"looking a Var up raised {type(err).__name__}."
                ) from None
            got = as_numbers(value, (), f"d e / d {name} in {text}")
            if not close(got, np.float64(truth[name])):
                one_path = text == "e = a + a"
                hint = (
                    "a is used twice: each use sends a gradient, and both must be added (+=), not the last one kept."
                    if one_path
                    else "a tape's backward is right when it walks the tape from its end (a node has all its gradient "
                    "before it passes it on) and adds into grads[inp] (+=), never overwriting it."
                )
                raise fail(f"d e / d {name} in {text}", f"{float(got):g}", hint)
    passed("Right: a node used twice adds what each use sends it, and the tape is walked from its end.")


hand_gradients = Exercise(
    "hand_gradients",
    11,
    "Derive dg/du, dg/dv and dg/dw by hand for w = u * v, g = w * w + u at u = 3, v = -1.",
    check_hand_gradients,
    (
        "Start at g with dg/dg = 1 and walk back: each node sends upstream × its local derivative.",
        "u is used twice: add what its two paths give.",
    ),
)
numerical_grad = Exercise(
    "numerical_grad",
    11,
    "Write numerical_grad(f, inputs, eps=1e-6): every partial derivative of f by central differences.",
    check_numerical_grad,
    ("Nudge one input at a time: up by ε and down by ε.", "Divide the difference by 2ε."),
)
tape_backward = Exercise(
    "tape_backward",
    11,
    "Fix the tape's backward pass, which overwrites a node's gradient where a node is used twice.",
    check_tape_backward,
    ("Which line runs twice for x in f = (x * y + z) * x?", "grads.get(inp, 0.0) gives what arrived so far."),
)
exercises = (hand_gradients, numerical_grad, tape_backward)

__all__ = ["DERIVE_PROGRAM", "check_hand_gradients", "check_numerical_grad", "check_tape_backward", "exercises"]
