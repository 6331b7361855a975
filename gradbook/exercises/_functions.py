"""The check of a learner's ``autograd.Function``, shared by the lessons that ask for one.

The learner's class is subclassed so that the engine's calls to its ``backward`` are counted:
``gradcheck`` must call it, and the output's node must be the Function's own. A Function with only
``apply``, or one whose forward lets built-in ops differentiate, fails.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

import gradbook
from gradbook.autograd import GradcheckError

from ._checking import (
    CheckFailedError,
    as_numbers,
    call_student,
    close,
    fail,
    guard,
    is_stub,
    not_attempted,
    passed,
    quiet,
)


@dataclass(frozen=True)
class Rule:
    """What a Function must compute: its forward in NumPy and the texts its feedback uses."""

    class_name: str  # "XSinX"
    forward: Callable[[np.ndarray], np.ndarray]  # the reference forward, elementwise
    forward_text: str  # "x · sin(x)"
    forward_code: str  # "x * x.sin()"
    derivative_text: str  # "sin(x) + x·cos(x)"
    derivative_hint: str
    inputs: Callable[[], list[np.ndarray]]  # the hidden inputs
    # where the formula written directly overflows: (inputs, the true values, the true gradients, a hint)
    large: tuple[np.ndarray, np.ndarray, np.ndarray, str] | None = None


def check_function_rule(function: Any, rule: Rule) -> None:
    """Check ``function`` (a subclass of ``torch.autograd.Function``) against ``rule``."""
    guard()
    if is_stub(function):
        raise not_attempted("your Function")
    if not (isinstance(function, type) and issubclass(function, gradbook.autograd.Function)):
        raise fail(
            "a class that subclasses torch.autograd.Function",
            f"{type(function).__name__}",
            f"write class {rule.class_name}(torch.autograd.Function): with static forward and backward methods.",
        )
    calls = []

    try:  # the learner's class, with each call of its backward counted by the engine

        class Counted(function):  # type: ignore[misc, valid-type]
            @staticmethod
            def backward(ctx: Any, *grad_outputs: Any) -> Any:
                calls.append(1)
                return function.backward(ctx, *grad_outputs)

    except Exception as err:
        raise fail(
            "a plain subclass of torch.autograd.Function",
            f"a class that cannot be extended ({err})",
            "define it with class.",
        ) from None
    for data in rule.inputs():
        x = gradbook.tensor(data, dtype=gradbook.float64, requires_grad=True)
        out = call_student(Counted.apply, "your Function", x)
        if not isinstance(out, gradbook.Tensor):
            raise fail(
                "forward to return a tensor", f"{type(out).__name__}", f"return {rule.forward_code} from forward."
            )
        if tuple(out.shape) != data.shape:
            raise fail(
                "forward to return one value per element of x",
                f"shape {tuple(out.shape)} for an x of shape {data.shape}",
                "compute elementwise, and do not sum.",
            )
        got = as_numbers(out, tuple(data.shape), "your forward's output")
        if not close(got, rule.forward(data)):
            raise fail(
                f"forward to compute {rule.forward_text}", "different values", f"forward returns {rule.forward_code}."
            )
        if out.grad_fn is None:
            raise fail("an output with a grad_fn", "no graph", "call YourFunction.apply(x), not forward directly.")
        if type(out.grad_fn).__name__ != "CountedBackward":  # the node torch names after the Function
            raise fail(
                "the output's grad_fn to be your Function's own backward node",
                f"a {type(out.grad_fn).__name__} made by built-in operations",
                "keep apply as torch.autograd.Function defines it, and compute in forward without autograd.",
            )
        before = len(calls)
        try:
            with quiet():
                gradbook.autograd.gradcheck(Counted.apply, (x,))
        except GradcheckError:
            raise fail(
                f"backward to return grad_output times f'(x) = {rule.derivative_text}",
                "a backward that disagrees with finite differences",
                rule.derivative_hint,
            ) from None
        except NotImplementedError:
            raise not_attempted("your backward") from None
        except Exception as err:
            raise fail(
                "backward to run without an error",
                f"it raised {type(err).__name__}: {err}",
                "read x back with (x,) = ctx.saved_tensors, and return one gradient per input.",
            ) from None
        if len(calls) == before:
            raise fail(
                "gradients computed by your backward method",
                "a check in which your backward was never called",
                "write backward(ctx, grad_output) as a static method of your Function.",
            )
    if rule.large is not None:
        _check_large(Counted, rule)
    passed(
        "Right: forward and backward agree with finite differences on hidden inputs"
        + (", and stay finite far out." if rule.large is not None else ".")
    )


def _check_large(function: Any, rule: Rule) -> None:
    """Values and gradients at inputs so large that the formula written directly gives inf or nan."""
    data, values, gradients, hint = rule.large
    where = ", ".join(f"{v:g}" for v in data)
    x = gradbook.tensor(data, dtype=gradbook.float64, requires_grad=True)
    out = call_student(function.apply, "your Function", x)
    got = _values(out, data.shape, "your forward's output")
    if not close(np.asarray(got, dtype=float), values):
        raise fail(f"forward at x = {where} to give {values.tolist()}", f"{got}", hint)
    expected = f"gradients at x = {where} of {gradients.tolist()}"
    try:
        with quiet():
            out.sum().backward()
    except Exception as err:
        raise fail(expected, f"it raised {type(err).__name__}: {err}", hint) from None
    grad = _values(x.grad, data.shape, "the gradient your backward gave")
    if not close(np.asarray(grad, dtype=float), gradients):
        raise fail(expected, f"{grad}", hint)


def _values(answer: Any, shape: tuple[int, ...], what: str) -> Any:
    """``answer``'s numbers as a list, inf and nan included (the overflow ``_check_large`` is about)."""
    try:
        return as_numbers(answer, tuple(shape), what).tolist()
    except CheckFailedError:  # as_numbers refuses inf and nan
        if isinstance(answer, gradbook.Tensor):
            return np.asarray(answer.detach().numpy(), dtype=float).tolist()
        return answer
