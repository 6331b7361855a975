"""Lesson 17: your own engine, end to end; and define-by-run, a graph per path taken.

Two checks of two kinds: *count* the nodes a data-dependent loop records, and the gradient of
the path it took (``check_loop_graph``), and *build* the backward rule of ``sum(axis)`` for the
lesson's array engine (``check_array_sum``). Each recomputes what it expects with gradbook: the
count by running the lesson's program and walking its graph, the gradients by autograd on the
same expressions.

>>> check_loop_graph(...)  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
gradbook.exercises._checking.NotAttemptedError: not attempted: ...
"""

from __future__ import annotations

import numbers
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
    named_answers,
    not_attempted,
    passed,
    quiet,
    run_program,
    show_program,
)

# The loop whose graph the learner counts; the lesson shows it word for word.
LOOP_PROGRAM = """\
x = torch.tensor([0.3, -0.4], requires_grad=True)
y = x
while y.norm() < 5:
    y = y * 3
y.sum().backward()
"""


def _graph_names(program: str) -> tuple[list[str], np.ndarray, np.ndarray]:
    """The names of every node of y's graph in ``program`` (each node once, AccumulateGrad
    included), x.grad, and y."""
    scope = run_program(program)
    names, seen, todo = [], set(), [scope["y"].grad_fn]
    while todo:
        node = todo.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        names.append(node.name())
        todo.extend(fn for fn, _ in node.next_functions)
    x_grad = scope["x"].grad.numpy().astype(np.float64)
    return names, x_grad, scope["y"].detach().numpy().astype(np.float64)


def _readable(value: Any) -> Any:
    """A tensor of another library (torch's own, which ``np.asarray`` refuses while it requires
    grad) as the list of its values, when it has ``detach()`` and ``tolist()``; any other answer as
    it is. What comes back is still only read as numbers, by ``as_numbers``."""
    if isinstance(value, (gradbook.Tensor, np.ndarray, numbers.Number)) or is_stub(value):
        return value
    try:
        with quiet():
            if callable(getattr(type(value), "detach", None)) and callable(getattr(type(value), "tolist", None)):
                return value.detach().tolist()
    except Exception:  # an object that only looks like a tensor: read as it is, and named
        pass
    return value


def _whole(number: float) -> str:
    """A whole count as the learner wrote it: 4, not 4.0, and never 1e+06."""
    return str(int(number)) if abs(number) < 1e15 else repr(number)


@learner_check
def check_loop_graph(answer: Any) -> None:
    """Count the ``MulBackward0`` nodes in y's graph, and predict ``x.grad``, for this program::

        PROGRAM

    Give a dict ``{"mul_nodes": a whole number, "x_grad": a list of two numbers}``.

    How to call it (with numbers that are not the answer):

    >>> check_loop_graph({"mul_nodes": 0, "x_grad": [0.0, 0.0]})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    gradbook.exercises._checking.CheckFailedError: ...
    """
    guard()
    values = named_answers(
        answer,
        ("mul_nodes", "x_grad"),
        "your dict of the count and the gradient",
        "one entry for the number of MulBackward0 nodes, one for x.grad.",
        'exactly these two keys, as strings: {"mul_nodes": ..., "x_grad": ...}.',
    )
    names, x_grad, y = _graph_names(LOOP_PROGRAM)
    muls = names.count("MulBackward0")  # the loop's own nodes, whatever else the graph holds
    if is_stub(values["mul_nodes"]):
        raise not_attempted("the number of MulBackward0 nodes")
    number = _readable(values["mul_nodes"])
    count = as_numbers(number, (), "the number of MulBackward0 nodes", "a count is one whole number.")
    if float(count) != round(float(count)):
        raise fail("a whole number of MulBackward0 nodes", repr(float(count)), "count nodes: 0, 1, 2, ...")
    if float(count) != muls:
        if float(count) == muls + 2:  # every node of y.sum()'s graph
            hint = "count only the MulBackward0 nodes: y.sum() adds a SumBackward0, and x is an AccumulateGrad."
        elif abs(float(count) - muls) == 1:
            hint = (
                "count only the MulBackward0 nodes, and follow y.norm(): the loop tests it before each "
                "multiplication, starting from x's norm, 0.5, and stops at the first norm that is not below 5."
            )
        else:
            hint = (
                "each pass through the loop's body records one MulBackward0; the test y.norm() < 5 "
                "records no MulBackward0."
            )
        raise fail("the number of MulBackward0 nodes in y's graph", _whole(float(count)), hint)
    if is_stub(values["x_grad"]):
        raise not_attempted("your x.grad")
    got = as_numbers(_readable(values["x_grad"]), (2,), "your x.grad", "x.grad has x's shape: two numbers.")
    if close(got, x_grad):
        passed("Right: the input decided how often the loop ran, and the graph holds just those products.")
        return
    factor = float(x_grad[0])  # the product of the loop's factors: one 3 per MulBackward0
    if close(got, y):
        hint = "that is y itself; x.grad is ∂(y.sum())/∂x, the product of the factors the loop multiplied by."
    elif close(got, factor * np.sign(y)):
        hint = "y.sum() sends 1 to every element of y: x's values decided only how often the loop ran."
    elif close(got, np.full(2, factor * 3)) or close(got, np.full(2, factor / 3)):
        hint = "one factor of 3 for each MulBackward0 you counted, no more and no less."
    else:
        hint = "y.sum() is the sum of x's elements times the product of the loop's factors: differentiate that."
    raise fail("x.grad after y.sum().backward()", describe(values["x_grad"]), hint)


show_program(check_loop_graph, LOOP_PROGRAM)


_AXIS = (
    "out.grad has the sum's shape: the summed axis is gone from it, so it does not line up with x. Every "
    "element along that axis went into the same sum: out.grad must broadcast back along the summed axis."
)
_NEGATIVE = (
    "axis may be negative, as in NumPy (-1 is the last axis): the gradient goes back along the axis that "
    "was summed, whichever way it was named."
)
_UPSTREAM = "use out.grad, the gradient arriving from above (here it is not 1), for every element of that sum."
_REUSE = "x goes into two sums here: each sum's backward must add into self.grad (+=), not overwrite it."
_WHOLE = "for axis=None every element went into the one sum: each gets out.grad, broadcast to x's shape."
# (the expression, its leaves' names and shapes, the hint when a gradient is wrong): each runs on the
# learner's class (ArrayValue(array), +, *, @, tanh, mean, sum(axis), backward) and on gradbook's tensors
_CASES: tuple[tuple[str, Callable[..., Any], str, tuple[tuple[int, ...], ...], str], ...] = (
    ("x.sum()", lambda x: x.sum(), "x", ((3, 4),), _WHOLE),
    ("(x.sum() * w).mean()", lambda x, w: (x.sum() * w).mean(), "xw", ((2, 3), (2,)), _UPSTREAM),
    ("(x.sum(0) * w).mean()", lambda x, w: (x.sum(0) * w).mean(), "xw", ((3, 4), (4,)), _UPSTREAM),
    ("(x.sum(1) * w).mean()", lambda x, w: (x.sum(1) * w).mean(), "xw", ((3, 4), (3,)), _AXIS),
    ("(q.sum(1) * w).mean()", lambda q, w: (q.sum(1) * w).mean(), "qw", ((3, 3), (3,)), _AXIS),  # q is square
    ("(x.sum(1) * w).mean()", lambda x, w: (x.sum(1) * w).mean(), "xw", ((2, 3, 4), (2, 4)), _AXIS),  # 3-D
    ("(x.sum(-1) * w).mean()", lambda x, w: (x.sum(-1) * w).mean(), "xw", ((3, 4), (3,)), _NEGATIVE),
    ("(x.sum(2) * w).mean()", lambda x, w: (x.sum(2) * w).mean(), "xw", ((2, 3, 4), (2, 3)), _AXIS),  # 3-D, last
    ("(x.sum(-1) * w).mean()", lambda x, w: (x.sum(-1) * w).mean(), "xw", ((2, 3, 4), (2, 3)), _NEGATIVE),  # 3-D
    ("(x.sum(-2) * w).mean()", lambda x, w: (x.sum(-2) * w).mean(), "xw", ((2, 3, 4), (2, 4)), _NEGATIVE),  # 3-D
    ("(x.sum(0) * x.sum(0)).mean()", lambda x: (x.sum(0) * x.sum(0)).mean(), "x", ((2, 3),), _REUSE),
    (
        "((x @ w).tanh().sum(1) * v).mean()",
        lambda x, w, v: ((x @ w).tanh().sum(1) * v).mean(),
        "xwv",
        ((4, 3), (3, 2), (4,)),
        _AXIS,
    ),
)


def _hidden_arrays(shapes: tuple[tuple[int, ...], ...], seed: int) -> list[np.ndarray]:
    rng = np.random.default_rng(20261217 + seed)
    return [rng.normal(size=shape) for shape in shapes]


def _run_learner(value_class: type, expression: Callable[..., Any], arrays: list[np.ndarray]) -> tuple[Any, list]:
    """The expression on the learner's class, its output and its leaves (under no_grad: an
    ArrayValue computes with NumPy, and a wrapped tensor's autograd gets no say)."""
    with quiet(), gradbook.no_grad():
        leaves = [value_class(a.copy()) for a in arrays]
        out = expression(*leaves)
        out.backward()
    return out, leaves


@learner_check
def check_array_sum(value_class: Any) -> None:
    """Check the backward rule of ``sum(axis)`` in the lesson's ``ArrayValue`` class: ``x.sum()``
    adds up every element, ``x.sum(axis)`` the elements along one axis (x may have any number of
    dimensions, and axis may be negative, as in NumPy), and each element's gradient is the
    ``out.grad`` of the sum it went into. The check builds expressions with your class
    (``ArrayValue(array)``, ``+``, ``*``, ``@``, ``tanh``, ``mean``, ``sum``, ``.backward()``,
    ``.grad``) on arrays you do not see, and compares every gradient with gradbook's.

    How to call it (with a class that is not an ArrayValue, so not an answer):

    >>> check_array_sum(float)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    gradbook.exercises._checking.CheckFailedError: ...
    """
    guard()
    if is_stub(value_class):
        raise not_attempted("your ArrayValue class")
    if not isinstance(value_class, type):
        raise fail("the ArrayValue class itself", describe(value_class), "pass the class: check_array_sum(ArrayValue).")
    for i, (text, expression, names, shapes, hint) in enumerate(_CASES):
        arrays = _hidden_arrays(shapes, i)
        try:
            out, leaves = _run_learner(value_class, expression, arrays)
        except NotImplementedError:
            raise not_attempted("your sum's backward") from None
        except AssertionError:
            raise
        except Exception as err:  # the learner's code may fail in any way: say how, and where
            got = f"it raised {type(err).__name__}: {err}"
            if hint is _NEGATIVE:  # a rule that reads axis as a position counted from the front
                raise fail(f"{text}.backward() to run", got, _NEGATIVE) from None
            if "broadcast" in str(err):  # a gradient of the sum's shape, added into x's
                raise fail(f"{text}.backward() to run", got, _AXIS) from None
            raise crashed(f"your ArrayValue on {text}", err) from None
        tensors = [gradbook.tensor(a, dtype=gradbook.float64, requires_grad=True) for a in arrays]
        reference = expression(*tensors)
        reference.backward()
        data = getattr(out, "data", None)
        if data is None:
            raise fail(f"{text} to give an ArrayValue", describe(out), "pass the lesson's ArrayValue class, with sum.")
        value = as_numbers(data, (), f"the value of {text}")
        if not close(value, np.float64(reference.item())):
            raise fail(f"the value of {text}", f"{float(value):g}", "keep the forward line: self.data.sum(axis=axis).")
        for name, leaf, tensor in zip(names, leaves, tensors):
            grad = getattr(leaf, "grad", None)
            what = f"{name}.grad after {text}.backward()"
            if grad is None:
                raise fail(what, "None", "start grad at zeros, as ArrayValue does, and add into it.")
            shape = tuple(tensor.shape)
            got = as_numbers(grad, shape, what, f"a gradient has the shape of its tensor, here {shape}.")
            if not close(got, tensor.grad.numpy()):
                raise fail(what, "different values", hint)
    passed("Right: a sum's backward spreads out.grad back along the summed axis, and adds into self.grad.")


loop_graph = Exercise(
    "loop_graph",
    17,
    "Count the MulBackward0 nodes a while loop records for one input, and predict x.grad.",
    check_loop_graph,
    (
        "Follow y.norm(): the loop tests it before each multiplication.",
        "x.grad is the product of the factors the recorded nodes multiply by.",
    ),
)
array_sum = Exercise(
    "array_sum",
    17,
    "Write the backward rule of ArrayValue.sum(axis), for axis=None and for one axis.",
    check_array_sum,
    (
        "Each element of x went into one sum: its gradient is that sum's out.grad.",
        "out.grad lost the summed axis: give it back with size 1, and let += broadcast it.",
    ),
)
exercises = (loop_graph, array_sum)

__all__ = ["LOOP_PROGRAM", "check_array_sum", "check_loop_graph", "exercises"]
