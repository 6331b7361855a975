"""Lesson 03: ``retain_graph`` and freed graphs.

``backward()`` frees what the graph saved for its derivative rules (here, x for d(x²)/dx = 2x),
so a second ``backward()`` through the same graph fails, unless the first one kept it
(``retain_graph=True``, the lesson's subject).

>>> import gradbook as torch
>>> x = torch.tensor(3.0, requires_grad=True)
>>> y = x * x
>>> y.backward()                      # frees the saved x
>>> y.backward()  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
RuntimeError: Trying to backward through the graph a second time ...
"""

from __future__ import annotations

from typing import Any

import numpy as np

import gradbook

from ._checking import (
    Exercise,
    as_numbers,
    close,
    crashed,
    fail,
    guard,
    is_stub,
    learner_check,
    not_attempted,
    passed,
    quiet,
)


@learner_check
def check_grad_after_retain(answer: Any) -> None:
    """Predict ``x.grad`` at the end of this program (it runs without errors)::

        x = torch.tensor(2.0, requires_grad=True)
        y = x ** 3
        y.backward(retain_graph=True)
        y.backward(retain_graph=True)
        z = y * x                      # z = x⁴
        z.backward()

    >>> check_grad_after_retain(0.5)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    gradbook.exercises._checking.CheckFailedError: ...
    """

    def _retained_program() -> float:
        x = gradbook.tensor(2.0, requires_grad=True)
        y = x**3
        y.backward(retain_graph=True)
        y.backward(retain_graph=True)
        z = y * x
        z.backward()
        return float(x.grad.item())

    guard()
    value = as_numbers(answer, (), "your prediction of x.grad")
    if not close(value, np.float64(_retained_program())):
        raise fail(
            "the sum of everything the three backward() calls added to x.grad",
            f"{float(value):g}",
            "retain_graph=True keeps the graph, and each call still adds: 3x² twice, then d(x⁴)/dx = 4x³.",
        )
    passed("Right: retained or not, every backward() adds into x.grad.")


def _hidden_output() -> tuple[gradbook.Tensor, gradbook.Tensor]:
    x = gradbook.tensor(np.random.default_rng(3).uniform(-1.0, 1.0, size=4), requires_grad=True)
    return x, (x.sin() * x).sum()


@learner_check
def check_backward_twice(backward_twice: Any) -> None:
    """Check ``backward_twice(y)``: it must call ``y.backward()`` twice on the same graph.

    The second call only works when the first one kept the graph (``retain_graph=True``).
    Afterwards the leaf's ``.grad`` holds twice dy/dx. The engine counts the passes through
    ``y``'s graph: one pass with a doubled seed is not two passes.

    How to call it (with a function that calls backward once, which is not the answer):

    >>> check_backward_twice(lambda y: y.backward())  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    gradbook.exercises._checking.CheckFailedError: ...
    """
    guard()
    if is_stub(backward_twice):
        raise not_attempted("your backward_twice")
    if not callable(backward_twice):
        raise fail("a function backward_twice(y)", type(backward_twice).__name__, "define it with def.")
    x, y = _hidden_output()
    seeds: list[np.ndarray] = []  # the gradient each pass brought to y's node, as the engine ran it
    y.grad_fn.register_prehook(lambda grad_outputs: seeds.append(np.asarray(grad_outputs[0].numpy())) and None)
    try:
        with quiet():
            backward_twice(y)
    except NotImplementedError:
        raise not_attempted("your backward_twice") from None
    except RuntimeError as err:
        if "second time" in str(err):
            raise fail(
                "both backward() calls to succeed",
                "the second call found the graph already freed",
                "the first call must keep the graph: pass retain_graph=True to it.",
            ) from None
        raise crashed("your backward_twice", err) from None
    except Exception as err:
        raise crashed("your backward_twice", err) from None
    x_once, y_once = _hidden_output()
    (once,) = gradbook.autograd.grad(y_once, x_once)
    if len(seeds) != 2 or not all(close(np.asarray(s, dtype=np.float64), np.float64(1.0)) for s in seeds):
        raise fail(
            "two backward passes through y's graph, each starting from y itself (a seed of 1)",
            f"{len(seeds)} pass(es)"
            + ("" if all(close(np.asarray(s, dtype=np.float64), 1.0) for s in seeds) else ", not all seeded with 1"),
            "call y.backward() a second time, on y itself; the first call needs retain_graph=True.",
        )
    if x.grad is None:
        raise fail("x.grad filled by two backward() calls", "x.grad is None", "call y.backward() in the function.")
    got = as_numbers(x.grad, (4,), "x.grad after your function")
    if close(got, once.numpy()):
        raise fail("two backward() calls", "x.grad from one call only", "call y.backward() a second time.")
    if not close(got, 2 * once.numpy()):
        raise fail(
            "x.grad equal to twice dy/dx",
            "a different x.grad",
            "call y.backward exactly twice, on y itself, with no other changes to x.grad.",
        )
    passed("Right: the first backward kept the graph, so the second could use it.")


grad_after_retain = Exercise(
    "grad_after_retain",
    3,
    "Predict x.grad after two retained backward() calls on y = x**3 and one on z = y * x, with x = 2.",
    check_grad_after_retain,
    ("retain_graph changes what is freed, not how .grad accumulates.", "d(x³)/dx = 3x², d(x⁴)/dx = 4x³."),
)
backward_twice = Exercise(
    "backward_twice",
    3,
    "Write backward_twice(y) so that two backward() calls on y both succeed.",
    check_backward_twice,
    ("Read the error message of the second call.", "y.backward(retain_graph=True) keeps the saved tensors."),
)
exercises = (grad_after_retain, backward_twice)

__all__ = ["check_backward_twice", "check_grad_after_retain", "exercises"]
