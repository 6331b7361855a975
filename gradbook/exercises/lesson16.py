"""Lesson 16: numerical stability, torch's conventions at kinks, and a ``where`` whose gradient is nan.

Where a function has a kink, autograd's derivative is a convention each op picks: often the slope
of one side (relu'(0) = 0 is the left one; clamp, which passes the gradient on its bounds, takes
the inside one), sometimes neither (abs sends sign(0) = 0); a finite difference across the kink
does not decide it. And a ``where`` that hides a nan or an inf in its forward still sends a 0
through that branch's backward, which makes it nan (0/0, 0 · inf, 0 · nan). The checks
recompute what they expect: the prediction by running the lesson's program with gradbook, the
fixed function by its closed form in NumPy.

>>> check_kink_grad(...)  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
gradbook.exercises._checking.NotAttemptedError: not attempted: ...
"""

from __future__ import annotations

import ast
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
    quiet,
    run_program,
    show_program,
)

# The program whose x.grad the learner predicts; the lesson shows it word for word.
KINK_PROGRAM = """\
x = torch.tensor([-2.0, 0.0, 1.0, 3.0], requires_grad=True)
y = x.clamp(-2.0, 1.0) + 2 * x.relu() - (x - 1).abs()
y.sum().backward()
"""


def _kink_grad(program: str) -> tuple[np.ndarray, np.ndarray]:
    """x and x.grad of ``program`` (``KINK_PROGRAM``), by gradbook's backward pass."""
    x = run_program(program)["x"]
    return x.detach().numpy().astype(np.float64), x.grad.numpy().astype(np.float64)


def _central_difference(program: str, points: np.ndarray, eps: float = 1e-6) -> np.ndarray:
    """The central difference of the program's y at each x, in float64: the average of the two
    one-sided slopes at a kink, which is what someone who takes the limit would answer."""
    text = program.split("\n")[1].split("=", 1)[1]  # the right-hand side of y = ...
    values = []
    for i in range(len(points)):
        shifted = []
        for sign in (1.0, -1.0):
            moved = points.copy()
            moved[i] += sign * eps
            y = run_program(f"y = {text}", x=gradbook.tensor(moved, dtype=gradbook.float64))["y"]
            shifted.append(float(y.sum().item()))
        values.append((shifted[0] - shifted[1]) / (2 * eps))
    return np.array(values)


def _terms(program: str) -> list[tuple[str, float]]:
    """The terms the program's ``y = ...`` adds up, as written, with the sign each is added with."""
    expression = ast.parse(program.split("\n")[1].split("=", 1)[1].strip(), mode="eval").body
    found: list[tuple[str, float]] = []
    sign = 1.0
    while isinstance(expression, ast.BinOp) and isinstance(expression.op, (ast.Add, ast.Sub)):
        found.append((ast.unparse(expression.right), sign if isinstance(expression.op, ast.Add) else -sign))
        expression = expression.left
    found.append((ast.unparse(expression), sign))
    return found[::-1]


def _term_grad(program: str, term: str, sign: float, points: np.ndarray) -> np.ndarray:
    """The gradient the term ``sign · term`` sends to x at ``points``, by gradbook's backward pass."""
    x = gradbook.tensor(points, dtype=gradbook.float64, requires_grad=True)
    (sign * run_program(f"y = {term}", x=x)["y"]).sum().backward()
    return x.grad.numpy().astype(np.float64)


def _one_sided(term: str, sign: float, x0: float, eps: float = 1e-6) -> tuple[float, float]:
    """The left and right difference quotients of ``sign · term`` at x0, in float64."""

    def at(v: float) -> float:
        return sign * float(run_program(f"y = {term}", x=gradbook.tensor(v, dtype=gradbook.float64))["y"].item())

    return (at(x0) - at(x0 - eps)) / eps, (at(x0 + eps) - at(x0)) / eps


# what to look at when one term's gradient explains a wrong answer: where that term has a kink
# (its convention), or the term as a whole (its sign or factor); by the term as the program writes it
_AT_KINK = {
    "x.clamp(-2.0, 1.0)": "look at x = {x}, on a bound of clamp(-2.0, 1.0): torch's clamp passes the gradient where "
    "min ≤ x ≤ max, bounds included.",
    "2 * x.relu()": "look at x = {x}, relu's kink: torch's relu passes the gradient only where x > 0.",
    "(x - 1).abs()": "look at x = {x}, the kink of |x − 1|: (x - 1).abs() sends sign(x − 1), with sign(0) = 0.",
}
_AS_A_WHOLE = {
    "x.clamp(-2.0, 1.0)": "look at the term x.clamp(-2.0, 1.0) as a whole: it passes the gradient 1 between its "
    "bounds and 0 outside them, and the program adds it.",
    "2 * x.relu()": "look at the term 2 * x.relu() as a whole: relu passes the gradient where x > 0, and the 2 "
    "doubles what it passes.",
    "(x - 1).abs()": "look at the term −(x - 1).abs() as a whole: (x - 1).abs() sends sign(x − 1), and the minus "
    "in front of it flips that.",
}
_AT_BOTH = (
    "look at x = {x}, on a bound of clamp(-2.0, 1.0) and on the kink of |x − 1|: torch's clamp passes the gradient "
    "where min ≤ x ≤ max, bounds included, and (x - 1).abs() sends sign(x − 1), with sign(0) = 0."
)
_ON_NO_KINK = (
    "look at x = {x}, on no kink: there each term has its ordinary slope (clamp 1 inside its bounds and 0 "
    "outside, 2·relu 2 or 0, −|x − 1| sends −sign(x − 1))."
)
_SEVERAL = (
    "x.grad is off at x = {x}, and no single term explains it: work out each term's gradient there on its own, "
    "by torch's convention at its kinks, then add them with the signs of the program."
)
if {term for term, _ in _terms(KINK_PROGRAM)} != set(_AT_KINK) or set(_AT_KINK) != set(_AS_A_WHOLE):
    raise RuntimeError("lesson 16: the hints of check_kink_grad do not name KINK_PROGRAM's terms")


def _numbers_at(points: np.ndarray) -> str:
    return ", ".join(f"{p:g}" for p in points)


def _kink_hint(program: str, points: np.ndarray, expected: np.ndarray, got: np.ndarray) -> str:
    """The hint for a wrong x.grad: the one term whose mistake explains the whole answer, if one
    does (a convention at its kinks, or its sign or factor), else where the answer is off."""
    terms = _terms(program)
    explained: dict[str, str] = {}  # term: its hint
    kinks_of: dict[str, np.ndarray] = {}
    for term, sign in terms:
        own = _term_grad(program, term, sign, points)
        theirs = got - (expected - own)  # what the answer says this term sends, if the rest is right
        sides = [_one_sided(term, sign, float(p)) for p in points]
        kinks = np.array([abs(left - right) > 1e-3 for left, right in sides])
        kinks_of[term] = kinks
        differs = ~np.isclose(theirs, own, rtol=1e-4, atol=1e-6)
        if differs.any() and np.all(kinks[differs]):  # only at its kinks, to a slope of a side or their average
            if all(
                any(np.isclose(theirs[i], s, rtol=1e-4, atol=1e-6) for s in (left, right, (left + right) / 2))
                for i, (left, right) in enumerate(sides)
                if differs[i]
            ):
                explained[term] = _AT_KINK[term].format(x=_numbers_at(points[differs]))
                continue
        if differs.any() and np.any(own != 0):  # the term off by a factor or a sign, or left out
            k = float(theirs @ own / (own @ own))
            if np.allclose(theirs, k * own, rtol=1e-4, atol=1e-6):
                explained[term] = _AS_A_WHOLE[term]
    if len(explained) == 1:
        return next(iter(explained.values()))
    wrong = ~np.isclose(got, expected, rtol=1e-4, atol=1e-6)
    if wrong.sum() > 1:
        return _SEVERAL.format(x=_numbers_at(points[wrong]))
    at = int(np.flatnonzero(wrong)[0])
    on = [term for term, _ in terms if kinks_of[term][at]]
    if not on:
        return _ON_NO_KINK.format(x=f"{points[at]:g}")
    if len(on) == 1:
        return _AT_KINK[on[0]].format(x=f"{points[at]:g}")
    return _AT_BOTH.format(x=f"{points[at]:g}")


def _plain_answer(answer: Any) -> Any:
    """A tensor of the real torch as its values (NumPy cannot read one that requires grad)."""
    kind = type(answer)
    if kind.__module__.partition(".")[0] == "torch" and kind.__name__ in ("Tensor", "Parameter"):
        try:
            with quiet():
                return answer.detach().cpu().numpy()
        except Exception:  # not what it looked like: as_numbers names it
            return answer
    return answer


@learner_check
def check_kink_grad(answer: Any) -> None:
    """Predict ``x.grad`` (a list of four numbers) at the end of this program, as torch defines
    the gradient at each kink::

        PROGRAM

    >>> check_kink_grad([0.0, 0.0, 0.0, 0.0])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    gradbook.exercises._checking.CheckFailedError: ...
    """
    guard()
    got = as_numbers(
        _plain_answer(answer), (4,), "your x.grad", "x.grad has x's shape: four numbers, one per element of x."
    )
    points, expected = _kink_grad(KINK_PROGRAM)
    if close(got, expected):
        passed("Right: torch's conventions at the kinks: clamp passes on its bounds, relu'(0) = 0, sign(0) = 0.")
        return
    if close(got, _central_difference(KINK_PROGRAM, points)):
        raise fail(
            "x.grad as autograd computes it",
            "the average of the two one-sided slopes at the kinks",
            "that is what a central difference gives; at a kink autograd uses a convention instead: "
            "relu passes the gradient only where x > 0, clamp where min ≤ x ≤ max, and |u| sends sign(u).",
        )
    raise fail("x.grad after y.sum().backward()", describe(answer), _kink_hint(KINK_PROGRAM, points, expected, got))


show_program(check_kink_grad, KINK_PROGRAM)


def _hidden_inputs() -> list[tuple[Any, np.ndarray, np.ndarray]]:
    """(dtype, x, upstream gradient): x ≤ 0, 0 itself, tiny x > 0, large x. No subnormal x: there
    x · (1/x) loses digits in any library, and the right answer would depend on the rounding."""
    rng = np.random.default_rng(20261216)
    wide = np.array([-1e30, -2.0, -1e-30, 0.0, 1e-300, 1e-20, 0.5, 1.0, 3.0, 1e30])
    narrow = np.array([-3.0, -0.0, 0.0, 1e-30, 1e-20, 0.25, 2.0, 1e30], dtype=np.float32)
    return [
        (gradbook.float64, wide, rng.uniform(0.5, 2.0, size=wide.shape)),
        (gradbook.float32, narrow, rng.uniform(0.5, 2.0, size=narrow.shape).astype(np.float32)),
    ]


def _xlogx_closed_form(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """x · log x and its derivative log x + 1 where x > 0, and 0 and 0 elsewhere, in float64."""
    x = x.astype(np.float64)
    positive = x > 0
    logs = np.log(np.where(positive, x, 1.0))
    return np.where(positive, x * logs, 0.0), np.where(positive, logs + 1.0, 0.0)


@learner_check
def check_xlogx(xlogx: Any) -> None:
    """Check ``xlogx(x)``: x · log x where x > 0 and 0 elsewhere (x ≤ 0), elementwise, with a
    gradient that is finite everywhere: log x + 1 where x > 0, and 0 where x ≤ 0. The check calls
    it on float64 and float32 tensors you do not see (negative x, 0, tiny x > 0,
    x = 10³⁰), runs backward from its output with an upstream gradient, and compares the values and
    x.grad with the closed forms.

    How to call it (with the function of the lesson whose gradient is nan, not the answer):

    >>> import gradbook as torch
    >>> check_xlogx(lambda x: torch.where(x > 0, x * x.log(), 0.0))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    gradbook.exercises._checking.CheckFailedError: ...
    """
    guard()
    if is_stub(xlogx):
        raise not_attempted("your xlogx")
    if not callable(xlogx):
        raise fail("a function xlogx(x)", describe(xlogx), "define it with def xlogx(x): and pass the function itself.")
    for dtype, points, upstream in _hidden_inputs():
        x = gradbook.tensor(points, dtype=dtype, requires_grad=True)
        out = call_student(xlogx, "your xlogx", x)
        if out is None:
            raise fail(
                "xlogx(x) to return a tensor", "None", "end your function with return and the tensor it computed."
            )
        if isinstance(out, gradbook.Tensor) and tuple(out.shape) == points.shape:
            with quiet():
                finite = bool(np.all(np.isfinite(out.detach().numpy())))
            if not finite:
                raise fail(
                    "the values x · log x where x > 0 and 0 where x ≤ 0, all finite",
                    "nan or inf among the values",
                    "the output is 0 wherever x ≤ 0: log(0) is −inf and 0 · −inf is nan, so the log must not "
                    "see x = 0 in the branch that is kept.",
                )
        values = as_numbers(out, points.shape, "xlogx(x)", "xlogx works elementwise: its output has x's shape.")
        want, slope = _xlogx_closed_form(points)
        if not close(values, want):
            raise fail(
                "the values x · log x where x > 0 and 0 where x ≤ 0",
                "different values",
                "keep the forward as it was: only what the log is taken of changes where x ≤ 0.",
            )
        if not (isinstance(out, gradbook.Tensor) and out.grad_fn is not None):
            raise fail(
                "an output computed from x with torch's ops, so that backward reaches x",
                "an output with no grad_fn",
                "return the tensor your ops computed from x, not a copy, a detached tensor or NumPy values.",
            )
        call_student(out.backward, "backward() through your xlogx", gradbook.tensor(upstream, dtype=dtype))
        grad = x.grad
        if not isinstance(grad, gradbook.Tensor) or tuple(grad.shape) != points.shape:
            raise fail("x.grad with x's shape", describe(grad), "the gradient must reach x through your ops.")
        grads = grad.detach().numpy().astype(np.float64)
        bad = ~np.isfinite(grads)
        if bad.any():
            raise fail(
                "a finite x.grad everywhere",
                "nan or inf in x.grad where x ≤ 0" if np.all(points[bad] <= 0) else "nan or inf in x.grad",
                "where's backward sends 0 to the branch it throws away, and that branch's backward multiplies "
                "the 0 by log's 1/x (inf at x = 0) or by the nan of log(x < 0): 0 · inf and 0 · nan are nan. "
                "Give the log a safe input where x ≤ 0, with a first where.",
            )
        expected = slope * upstream.astype(np.float64)
        if close(grads, expected):
            continue
        positive = points > 0
        tiny = positive & (points < 1e-12)
        if close(grads[~positive], expected[~positive]) and close(grads[positive & ~tiny], expected[positive & ~tiny]):
            hint = (
                "a clamp to a small ε changes the function below ε: keep x itself where x > 0, and replace it "
                "only where the branch is thrown away."
            )
        elif close(grads[positive], (expected - upstream)[positive]):
            hint = "the product rule: d(x · log x)/dx = log x + 1; both factors must be computed from x."
        elif not close(grads[~positive], expected[~positive]):
            hint = "where x ≤ 0 the function is the constant 0, so its gradient there is 0."
        else:
            hint = "where x > 0 the gradient is log x + 1, times the upstream gradient."
        raise fail("x.grad = (log x + 1) · upstream where x > 0, and 0 where x ≤ 0", "a different x.grad", hint)
    passed("Right: the log never sees x ≤ 0, so the branch that where throws away has a finite backward.")


kink_grad = Exercise(
    "kink_grad",
    16,
    "Predict x.grad of clamp + 2·relu − |x − 1| at four points, three of them on a kink.",
    check_kink_grad,
    (
        "On a kink use torch's convention, not the average of the two sides.",
        "clamp passes on its bounds, relu'(0) = 0, sign(0) = 0.",
    ),
)
xlogx = Exercise(
    "xlogx",
    16,
    "Fix xlogx, x · log x where x > 0 and 0 elsewhere, whose where gives a nan gradient at x ≤ 0.",
    check_xlogx,
    (
        "Which branch does the where throw away at x = 0, and what does its backward compute?",
        "A first where gives the log a safe input where x ≤ 0.",
    ),
)
exercises = (kink_grad, xlogx)

__all__ = ["KINK_PROGRAM", "check_kink_grad", "check_xlogx", "exercises"]
