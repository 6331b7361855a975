"""Lesson 08: a compact engine (micrograd) and where torch differs.

micrograd keeps a ``.grad`` on every node and adds into all of them, so a second ``backward()``
through one graph passes an inner node's *total* on; torch keeps ``.grad`` only on leaves. The
checks recompute both: micrograd's answer with a reference micrograd (below, 30 lines), torch's
with gradbook.

>>> check_torch_grad(...)  # doctest: +ELLIPSIS
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
)

# The program students read: micrograd runs it as written, torch with tensors and retain_graph=True.
PROGRAM = """\
a, b, d = Value(2.0), Value(-3.0), Value(2.0)
e = (a + b) * d
for _ in range(3):
    e.backward()
"""
TORCH_PROGRAM = """\
a, b, d = (torch.tensor(v, requires_grad=True) for v in (2.0, -3.0, 2.0))
e = (a + b) * d
for _ in range(3):
    e.backward(retain_graph=True)
"""


class _Micro:
    """micrograd's ``Value``, reduced to what ``PROGRAM`` uses: + and * and ``backward``."""

    def __init__(self, data: float, prev: tuple = ()) -> None:
        self.data, self.grad, self._prev = data, 0.0, prev
        self._backward: Any = lambda: None

    def __add__(self, other: _Micro) -> _Micro:
        out = _Micro(self.data + other.data, (self, other))

        def rule() -> None:
            self.grad += out.grad
            other.grad += out.grad

        out._backward = rule
        return out

    def __mul__(self, other: _Micro) -> _Micro:
        out = _Micro(self.data * other.data, (self, other))

        def rule() -> None:
            self.grad += other.data * out.grad
            other.grad += self.data * out.grad

        out._backward = rule
        return out

    def backward(self) -> None:
        order: list[_Micro] = []
        seen: set[int] = set()

        def visit(v: _Micro) -> None:
            if id(v) not in seen:
                seen.add(id(v))
                for child in v._prev:
                    visit(child)
                order.append(v)

        visit(self)
        self.grad = 1.0
        for v in reversed(order):
            v._backward()


def _run(program: str, **names: Any) -> float:
    grad = run_program(program, **names)["a"].grad
    return float(grad.item() if isinstance(grad, gradbook.Tensor) else grad)


@learner_check
def check_micrograd_grad(answer: Any) -> None:
    """Predict micrograd's ``a.grad`` after this program (``Value`` is lesson 08's engine)::

        a, b, d = Value(2.0), Value(-3.0), Value(2.0)
        e = (a + b) * d
        for _ in range(3):
            e.backward()

    >>> check_micrograd_grad(0.5)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    gradbook.exercises._checking.CheckFailedError: ...
    """
    guard()
    value = as_numbers(answer, (), "your prediction of micrograd's a.grad")
    if close(value, np.float64(_run(TORCH_PROGRAM, torch=gradbook))):
        raise fail(
            "micrograd's a.grad, which differs from torch's here",
            f"{float(value):g}, what torch gives",
            "micrograd's c = a + b keeps its own .grad between calls and passes its whole total on to a.",
        )
    if not close(value, np.float64(_run(PROGRAM, Value=_Micro))):
        raise fail(
            "micrograd's a.grad after the three calls",
            f"{float(value):g}",
            "follow c.grad call by call (it grows by d each time), and add each call's c.grad into a.grad.",
        )
    passed("Right: micrograd's inner node c passed its growing total to a on every call.")


@learner_check
def check_torch_grad(answer: Any) -> None:
    """Predict torch's ``a.grad`` after this program::

        a, b, d = (torch.tensor(v, requires_grad=True) for v in (2.0, -3.0, 2.0))
        e = (a + b) * d
        for _ in range(3):
            e.backward(retain_graph=True)

    >>> check_torch_grad(0.5)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    gradbook.exercises._checking.CheckFailedError: ...
    """
    guard()
    value = as_numbers(answer, (), "your prediction of torch's a.grad")
    if close(value, np.float64(_run(PROGRAM, Value=_Micro))):
        raise fail(
            "torch's a.grad, which differs from micrograd's here",
            f"{float(value):g}, what micrograd gives",
            "torch's inner nodes keep no .grad: each call passes only that call's gradient on to a.",
        )
    if not close(value, np.float64(_run(TORCH_PROGRAM, torch=gradbook))):
        raise fail(
            "torch's a.grad after the three calls",
            f"{float(value):g}",
            "one call adds de/da = d into a.grad; three calls add it three times.",
        )
    passed("Right: only the leaf accumulates in torch, by the same amount each call.")


_RULE = "d(xᵏ)/dx = k·xᵏ⁻¹, times out.grad (the gradient arriving from above)."
_UPSTREAM = "multiply by out.grad: here the output is used by * 2, so 2 arrives from above."
_REUSE = "x is used twice here: the rule must add into self.grad (+=), not overwrite it."
# (expression on the learner's Value, the same on a gradbook tensor, the starting x, the hint if wrong)
_EXPRESSIONS = (
    ("x ** 3", lambda x: x**3, 1.7, _RULE),
    ("x ** 2", lambda x: x**2, -0.8, _RULE),
    ("x ** 0.5", lambda x: x**0.5, 2.25, _RULE),
    ("x ** -1", lambda x: x**-1, 0.4, _RULE),
    ("x ** 3 * 2", lambda x: x**3 * 2, 0.9, _UPSTREAM),
    ("x ** 2 * x", lambda x: x**2 * x, 1.3, _REUSE),
    ("x ** 2 * 3 + x ** 3", lambda x: x**2 * 3 + x**3, -1.1, _REUSE),
)


@learner_check
def check_value_pow(value_class: Any) -> None:
    """Check the power rule of a micrograd ``Value`` class: ``(x ** k).backward()`` must give
    ``x.grad`` = k·xᵏ⁻¹, also where x is used more than once. The check builds expressions with
    your class (``Value(number)``, ``+``, ``*``, ``**`` with a number, ``.backward()``,
    ``.grad``) and compares every gradient with gradbook's.

    How to call it (with a class that is not a Value, so not an answer):

    >>> check_value_pow(float)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    gradbook.exercises._checking.CheckFailedError: ...
    """
    guard()
    if is_stub(value_class):
        raise not_attempted("your Value class")
    if not isinstance(value_class, type):
        raise fail("the Value class itself", describe(value_class), "pass the class: check_value_pow(Value).")
    for text, expression, start, hint in _EXPRESSIONS:

        def grad_of_x(expression: Any = expression, start: float = start) -> tuple[Any, Any]:
            with gradbook.no_grad():  # a Value computes with numbers: a wrapped tensor's autograd gets no say
                x = value_class(start)
                out = expression(x)
                out.backward()
            return out, x.grad

        out, grad = call_student(grad_of_x, "your power rule")
        if not hasattr(out, "data"):
            raise fail(f"{text} to give a Value", describe(out), "the class must be lesson 08's Value, with __pow__.")
        if grad is None:
            raise fail(f"x.grad set by backward() through {text}", "None", "start grad at 0.0 and add into it.")
        t = gradbook.tensor(start, dtype=gradbook.float64, requires_grad=True)
        expression(t).backward()
        got = as_numbers(grad, (), f"x.grad after backward() through {text}")
        if not close(got, np.float64(t.grad.item())):
            raise fail(f"x.grad = d({text})/dx at x = {start:g}", f"{float(got):g}", hint)
    passed("Right: your power rule agrees with gradbook, also where x is used twice.")


micrograd_grad = Exercise(
    "micrograd_grad",
    8,
    "Predict micrograd's a.grad after three backward() calls through e = (a + b) * d, with d = 2.",
    check_micrograd_grad,
    ("Write down c.grad after each call.", "a.grad receives c.grad's total on each call, not c's share of it."),
)
torch_grad = Exercise(
    "torch_grad",
    8,
    "Predict torch's a.grad after three backward(retain_graph=True) calls through e = (a + b) * d, with d = 2.",
    check_torch_grad,
    ("de/da = d.", "Only leaves keep a .grad in torch, and each call adds to it."),
)
value_pow = Exercise(
    "value_pow",
    8,
    "Write the backward rule of Value.__pow__ for a number k.",
    check_value_pow,
    ("d(xᵏ)/dx = k·xᵏ⁻¹.", "Multiply by out.grad, and add into self.grad with +=."),
)
exercises = (micrograd_grad, torch_grad, value_pow)

__all__ = ["PROGRAM", "TORCH_PROGRAM", "check_micrograd_grad", "check_torch_grad", "check_value_pow", "exercises"]
