"""Lesson 04: reading the graph: ``grad_fn``, ``next_functions`` and leaves.

Every result of an op on tensors that require grad has a ``grad_fn`` named after the op's
backward (``MulBackward0``); ``next_functions`` points to the nodes of its inputs, down to one
``AccumulateGrad`` per leaf, whose ``.variable`` is the leaf tensor.

>>> import gradbook as torch
>>> x = torch.tensor(2.0, requires_grad=True)
>>> y = (x * 3).exp()
>>> y.grad_fn  # doctest: +ELLIPSIS
<ExpBackward0 object at 0x...>
>>> y.grad_fn.next_functions  # doctest: +ELLIPSIS
((<MulBackward0 object at 0x...>, 0),)
>>> y.grad_fn.next_functions[0][0].next_functions[0][0].variable is x
True
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

import gradbook

from ._checking import (
    Exercise,
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
)

CHAIN = ("ExpBackward0", "MulBackward0", "SumBackward0")


def graph_chain(root: gradbook.Tensor) -> list[str]:
    """The grad_fn names from the leaf up to ``root``, when the graph is a single chain.

    Each node must have exactly one input that belongs to the graph (constants do not count).
    Raises ValueError where the graph branches.

    >>> import gradbook as torch
    >>> x = torch.tensor([1.0, 2.0], requires_grad=True)
    >>> graph_chain((x.sin() * 2).mean())
    ['AccumulateGrad', 'SinBackward0', 'MulBackward0', 'MeanBackward0']
    """
    names = []
    node = root.grad_fn
    while node is not None:
        names.append(type(node).__name__)
        inputs = [fn for fn, _ in node.next_functions if fn is not None]
        if len(inputs) > 1:
            raise ValueError(f"{type(node).__name__} has {len(inputs)} inputs in the graph")
        node = inputs[0] if inputs else None
    return names[::-1]


@learner_check
def check_graph_chain(build: Any) -> None:
    """Check ``build(x)``: it must return a tensor whose graph, from the leaf x to the result, is
    exactly the chain AccumulateGrad → ExpBackward0 → MulBackward0 → SumBackward0.

    Follow ``grad_fn.next_functions`` from the result to see the chain you built. The check
    compares the nodes' real types (the classes gradbook's ops make, not their names) and the
    values your result and its gradient take.

    How to call it (with another chain, which is not the answer):

    >>> check_graph_chain(lambda x: x.sin().sum())  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    gradbook.exercises._checking.CheckFailedError: ...AccumulateGrad → SinBackward0 → SumBackward0...
    """
    guard()
    if is_stub(build):
        raise not_attempted("your build function")
    if not callable(build):
        raise fail("a function build(x)", type(build).__name__, "define it with def build(x):")
    x = gradbook.tensor(np.random.default_rng(4).uniform(-1.0, 1.0, size=3), requires_grad=True)
    out = call_student(build, "your build function", x)
    if is_stub(out):
        raise not_attempted("the result of your build function")
    wanted = " → ".join(("AccumulateGrad",) + CHAIN)
    if not isinstance(out, gradbook.Tensor) or out.grad_fn is None:
        raise fail(
            f"a tensor with the graph {wanted}",
            describe(out) + " with no grad_fn",
            "compute the result from x with tensor operations, and return it.",
        )
    try:
        chain = graph_chain(out)
    except ValueError as err:
        raise fail(
            f"a single chain {wanted}",
            f"a graph that branches: {err}",
            "use x only once, and combine it with plain numbers, not with other tensors that require grad.",
        ) from None
    got = " → ".join(chain)
    if chain[0] != "AccumulateGrad" or chain[1:] != list(CHAIN):
        raise fail(wanted, got, "the last op you apply is the root of the graph; read the chain from x upwards.")
    # the real node types: those of the same ops built here (a class renamed to look right is not one)
    reference = (gradbook.tensor([0.5], requires_grad=True).exp() * 2).sum().grad_fn
    node = out.grad_fn
    while node is not None and reference is not None:
        if type(node) is not type(reference):
            raise fail(
                wanted,
                f"a node named {type(node).__name__} that is not gradbook's {type(reference).__name__}",
                "build the chain with the tensor operations themselves (x.exp(), *, .sum()).",
            )
        node, reference = (next((fn for fn, _ in n.next_functions if fn is not None), None) for n in (node, reference))
    leaf = out.grad_fn
    while type(leaf).__name__ != "AccumulateGrad":
        leaf = next(fn for fn, _ in leaf.next_functions if fn is not None)
    if leaf.variable is not x:
        raise fail("a graph that starts at the x passed to build", "a graph of another leaf", "use the argument x.")
    # and what those ops compute: sum(c · exp(x)) for one constant c, with gradient c · exp(x)
    with quiet():
        value = float(out.detach().numpy())
        constant = value / float(np.exp(x.detach().numpy()).sum())
        (grad,) = gradbook.autograd.grad(out, x)
    if not (np.isfinite(constant) and close(grad.numpy().astype(np.float64), constant * np.exp(x.detach().numpy()))):
        raise fail(
            f"{wanted}, computing sum(c · exp(x))",
            "a result or gradient that those ops do not give",
            "multiply exp(x) by a plain number, then sum.",
        )
    passed(f"Right: your graph is exactly the chain {wanted}.")


# The program of the leaves exercise: students read this text, and the check runs this text.
LEAVES_PROGRAM = """\
a = torch.tensor(1.0, requires_grad=True)
b = torch.tensor(2.0, requires_grad=True)
c = torch.tensor(3.0)
d = torch.tensor(4.0, requires_grad=True)
e = a * c + b.detach() * d
with torch.no_grad():
    f = e * d
e.backward()
"""


def _leaves_program() -> dict[str, gradbook.Tensor]:
    scope = run_program(LEAVES_PROGRAM)
    return {name: scope[name] for name in ("a", "b", "c", "d", "f")}


def _names(answer: Any) -> set[str]:
    if isinstance(answer, str):
        answer = answer.replace(",", " ").split()
    if not isinstance(answer, Iterable):
        raise fail(
            "the names of the tensors, like {'x', 'y'}",
            describe(answer),
            "give a set (or list) of names as strings.",
        )
    try:
        with quiet():
            items = list(answer)
    except Exception as err:  # an answer whose iteration raises is not a set of names
        raise fail(
            "the names of the tensors, like {'x', 'y'}",
            f"{describe(answer)}, whose iteration raised {type(err).__name__}",
            "give a set (or list) of names as strings.",
        ) from None
    names = set()
    for item in items:
        if isinstance(item, gradbook.Tensor):
            raise fail("names as strings, like 'a'", "a tensor", "write the variable names in quotes.")
        if not isinstance(item, str):
            raise fail("names as strings, like 'a'", describe(item), "write the variable names in quotes.")
        names.add(str.strip(item))  # str's own strip: a str subclass cannot answer for itself
    return names


@learner_check
def check_leaves_with_grad(answer: Any) -> None:
    """Which of a, b, c, d, f have a ``.grad`` after this program? Answer with a set of names::

        PROGRAM

    >>> check_leaves_with_grad({"c"})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    gradbook.exercises._checking.CheckFailedError: ...
    """
    guard()
    if is_stub(answer):
        raise not_attempted("your set of names")
    names = _names(answer)
    with quiet():
        tensors = _leaves_program()
        expected = {name for name, t in tensors.items() if t.grad is not None}
    unknown = names - set(tensors)
    if unknown:
        raise fail("names among a, b, c, d, f", f"{sorted(unknown)}", "use the variable names from the program.")
    if names != expected:
        extra = sorted(names - expected)
        reasons = []
        for name in extra:
            t = tensors[name]
            if not t.requires_grad:
                reasons.append(f"{name} does not require grad")
            else:
                reasons.append(f"no path of grad_fn nodes leads from e back to {name}")
        hint = "; ".join(reasons) if reasons else "some leaf that e was computed from is missing from your set"
        raise fail(
            "exactly the leaves that backward() reached through the graph of e",
            f"{sorted(names)}",
            f"{hint}. Remember that .detach() and no_grad() cut the graph.",
        )
    passed("Right: only leaves that require grad and are reached through the graph get a .grad.")


graph_chain_exercise = Exercise(
    "graph_chain",
    4,
    "Write build(x) whose graph is exactly AccumulateGrad → ExpBackward0 → MulBackward0 → SumBackward0.",
    check_graph_chain,
    ("The root's grad_fn is the last op.", "Multiplying by a plain number does not add a leaf."),
)
leaves_with_grad = Exercise(
    "leaves_with_grad",
    4,
    "Which of a, b, c, d, f have a .grad after e.backward()?",
    check_leaves_with_grad,
    ("Follow next_functions from e.grad_fn.", "A detached tensor is a new leaf that does not require grad."),
)
exercises = (graph_chain_exercise, leaves_with_grad)

__all__ = ["check_graph_chain", "check_leaves_with_grad", "exercises", "graph_chain"]


check_leaves_with_grad.__doc__ = check_leaves_with_grad.__doc__.replace(
    "PROGRAM", LEAVES_PROGRAM.strip().replace("\n", "\n        ")
)
