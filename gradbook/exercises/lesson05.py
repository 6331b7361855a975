"""Lesson 05: higher-order gradients with ``create_graph=True``.

``torch.autograd.grad(y, x)`` returns dy/dx instead of adding it into ``x.grad``. With
``create_graph=True`` the ops that compute the derivative are recorded, so it has a graph of its
own and can be differentiated again (the exercises ask about other functions):

>>> import gradbook as torch
>>> x = torch.tensor(2.0, requires_grad=True)
>>> (dy,) = torch.autograd.grad(x**3, x, create_graph=True)   # 3x² = 12
>>> (d2y,) = torch.autograd.grad(dy, x)                         # 6x = 12
>>> dy, d2y
(tensor(12., grad_fn=<MulBackward0>), tensor(12.))
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

import gradbook

from ._checking import (
    Exercise,
    as_numbers,
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

# The program of the second-derivative exercise: students read this text, and the check runs it.
SECOND_DERIVATIVE_PROGRAM = """\
x = torch.tensor(1.0, requires_grad=True)
y = x ** 4 + 2 * x ** 3
(dy,) = torch.autograd.grad(y, x, create_graph=True)
(d2y,) = torch.autograd.grad(dy, x)
"""


def _second_derivative_program() -> dict[str, float]:
    """Run ``SECOND_DERIVATIVE_PROGRAM`` with gradbook: its dy and d2y, and the derivative after
    them (computed, never stored)."""
    scope = run_program(SECOND_DERIVATIVE_PROGRAM)
    # the same program, with d2y kept differentiable
    once_more = run_program(SECOND_DERIVATIVE_PROGRAM.replace("(dy, x)", "(dy, x, create_graph=True)"))
    (d3y,) = gradbook.autograd.grad(once_more["d2y"], once_more["x"])
    return {"dy": float(scope["dy"].detach().item()), "d2y": float(scope["d2y"].item()), "d3y": float(d3y.item())}


@learner_check
def check_second_derivative(answer: Any) -> None:
    """Predict ``d2y`` at the end of this program, without running it::

        PROGRAM

    The first ``grad`` returns f'(x) with a graph of its own (``create_graph=True``); the second
    differentiates that graph. Differentiate the polynomial twice, then put in x = 1.

    >>> check_second_derivative(3.0)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    gradbook.exercises._checking.CheckFailedError: ...
    """
    guard()
    value = as_numbers(answer, (), "your prediction of d2y")
    with quiet():
        values = _second_derivative_program()
    if close(value, np.float64(values["dy"])):
        raise fail(
            "d2y, the second derivative of y at x = 1",
            f"{float(value):g}, the first derivative dy",
            "d2y is the derivative of dy: differentiate 4x³ + 6x² once more.",
        )
    if close(value, np.float64(values["d3y"])):
        raise fail(
            "d2y, the second derivative of y at x = 1",
            f"{float(value):g}, a third derivative",
            "the program calls autograd.grad twice: differentiate y two times, not three.",
        )
    if not close(value, np.float64(values["d2y"])):
        raise fail(
            "d2y, the second derivative of y at x = 1",
            f"{float(value):g}",
            "the derivative of xⁿ is n·xⁿ⁻¹; apply it twice to each term, then set x = 1.",
        )
    passed("Right: the second grad differentiated the graph that create_graph=True recorded.")


def _hidden_functions() -> list[tuple[Callable[[gradbook.Tensor], gradbook.Tensor], float, Callable[[int], float]]]:
    """Functions the check differentiates, the points, and their n-th derivatives derived by hand.

    Smooth, and not polynomials, so that no derivative runs out of graph. With s_k = sin(t + kπ/2):
    (t sin t)⁽ⁿ⁾ = t s_n + n s_(n-1) (Leibniz); (e^(bt) + cos t)⁽ⁿ⁾ = bⁿ e^(bt) + cos(t + nπ/2);
    log(t² + 1) = log(t + i) + log(t - i), so its n-th derivative (n ≥ 1) is
    2 Re[(-1)ⁿ⁻¹ (n-1)! / (t + i)ⁿ].
    """
    rng = np.random.default_rng(5)
    a, b = (float(v) for v in rng.uniform(0.3, 0.9, size=2))

    def s(t: float, k: int) -> float:
        return math.sin(t + k * math.pi / 2)

    def log_term(t: float, n: int) -> float:
        if n == 0:
            return math.log(t * t + 1)
        return 2 * ((-1) ** (n - 1) * math.factorial(n - 1) / complex(t, 1) ** n).real

    return [
        (lambda t: t * t.sin(), a, lambda n: a * s(a, n) + n * s(a, n - 1)),
        (lambda t: (b * t).exp() + t.cos(), -a, lambda n: b**n * math.exp(-b * a) + math.cos(-a + n * math.pi / 2)),
        (lambda t: (t * t + 1).log(), b, lambda n: log_term(b, n)),
    ]


def _call(nth_derivative: Callable[..., Any], f: Callable[..., Any], point: float, n: int) -> Any:
    """Call the learner's function on a fresh leaf x, with an f that notes where it is evaluated;
    the errors a missing create_graph gives are named."""
    x = gradbook.tensor(point, dtype=gradbook.float64, requires_grad=True)
    elsewhere = []

    def watched(t: Any) -> Any:
        if t is not x:
            elsewhere.append(t)
        return f(t)

    try:
        with quiet():
            out = nth_derivative(watched, x, n)
    except NotImplementedError:
        raise not_attempted("your nth_derivative") from None
    except AssertionError:
        raise
    except RuntimeError as err:
        if "does not require grad" in str(err) or "second time" in str(err):
            raise fail(
                "every derivative but the last to have a graph of its own",
                f"it raised RuntimeError: {err}",
                "pass create_graph=True to autograd.grad, so that its result can be differentiated again.",
            ) from None
        raise crashed("your nth_derivative", err) from None
    except Exception as err:  # the learner's code may fail in any way: say how, kindly
        raise crashed("your nth_derivative", err) from None
    if elsewhere:
        raise fail(
            "f evaluated at x only, and differentiated by autograd",
            "a function that evaluates f at other points (finite differences?)",
            "call f(x) once, then differentiate its graph with torch.autograd.grad.",
        )
    return out


@learner_check
def check_nth_derivative(nth_derivative: Any) -> None:
    """Check ``nth_derivative(f, x, n)``: the n-th derivative of f at the point x (n ≥ 1).

    ``x`` is a single number as a tensor that requires grad, and ``f`` maps tensors to tensors.
    Call ``torch.autograd.grad`` n times, each time on the result of the call before, with
    ``create_graph=True`` so that each result can be differentiated again. The check runs it on
    functions and points you do not see, for n = 1, 2 and 3.

    How to call it (with a function that returns f(x) itself, which is not the answer):

    >>> check_nth_derivative(lambda f, x, n: f(x))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    gradbook.exercises._checking.CheckFailedError: ...
    """
    guard()
    if is_stub(nth_derivative):
        raise not_attempted("your nth_derivative")
    if not callable(nth_derivative):
        raise fail(
            "a function nth_derivative(f, x, n)",
            type(nth_derivative).__name__,
            "define it with def nth_derivative(f, x, n):",
        )
    for f, point, derivative in _hidden_functions():
        expected = {n: derivative(n) for n in range(0, 5)}
        for n in (1, 2, 3):
            out = _call(nth_derivative, f, point, n)
            if is_stub(out):
                raise not_attempted("the result of your nth_derivative")
            if not isinstance(out, (gradbook.Tensor, int, float, np.floating, np.integer)):
                raise fail("a tensor holding one number", describe(out), "return what autograd.grad gave, unpacked.")
            got = as_numbers(out, (), f"your derivative for n = {n}")
            if close(got, np.float64(expected[n])):
                continue
            if close(got, np.float64(expected[0])):
                raise fail(f"the derivative of order {n}", "f(x) itself", "differentiate f(x) with autograd.grad.")
            if n > 1 and close(got, np.float64(expected[1])):
                raise fail(
                    f"the derivative of order {n}",
                    "the first derivative",
                    "call autograd.grad again on its own result, n times in all.",
                )
            if close(got, np.float64(expected[n - 1])) or close(got, np.float64(expected[n + 1])):
                raise fail(
                    f"the derivative of order {n}",
                    "a derivative of another order",
                    "count the calls to autograd.grad: exactly n of them.",
                )
            raise fail(
                f"the derivative of order {n} at x",
                "a different value",
                "differentiate the result of the previous call each time, with respect to the same x.",
            )
    passed("Right: n calls of autograd.grad, each on a graph the previous one recorded.")


second_derivative = Exercise(
    "second_derivative",
    5,
    "Predict d2y, the second derivative of y = x**4 + 2*x**3 at x = 1, computed with two autograd.grad calls.",
    check_second_derivative,
    ("dy is f'(x) as a tensor with a graph; d2y differentiates it.", "f'(x) = 4x³ + 6x²: differentiate it once more."),
)
nth_derivative = Exercise(
    "nth_derivative",
    5,
    "Write nth_derivative(f, x, n): the n-th derivative of f at x, with autograd.grad.",
    check_nth_derivative,
    (
        "Start from out = f(x), and replace out by its derivative n times.",
        "Without create_graph=True the result has no graph, and the next grad cannot differentiate it.",
    ),
)
exercises = (second_derivative, nth_derivative)

__all__ = ["check_nth_derivative", "check_second_derivative", "exercises"]


show_program(check_second_derivative, SECOND_DERIVATIVE_PROGRAM)
