"""What every check shares: stub detection, reading an answer as numbers, learner messages.

A check either prints one confirmation line and returns None, or raises ``AssertionError`` with
a message for the learner: what was expected (in words, never the value), what they gave, and a
hint. Nothing is written to stderr, because nbgrader gives 0 points to a cell that writes there.
"""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

import gradbook

NOT_ATTEMPTED = "not attempted"


class NotAttemptedError(AssertionError):
    """The answer is still the stub it started as (``...``, ``None``, ``raise NotImplementedError``)."""


class CheckFailedError(AssertionError):
    """The answer was attempted but is not right yet; the message says why and hints how."""


def fail(expected: str, got: str, hint: str) -> CheckFailedError:
    """The learner message, in the same three parts everywhere: expected, got, hint."""
    return CheckFailedError(f"\n  Expected: {expected}\n  You gave: {got}\n  Hint: {hint}")


def not_attempted(what: str) -> NotAttemptedError:
    return NotAttemptedError(f"{NOT_ATTEMPTED}: {what} is still the placeholder. Replace it with your answer.")


def is_stub(answer: Any) -> bool:
    return answer is None or answer is Ellipsis


@contextlib.contextmanager
def quiet() -> Iterator[None]:
    """Run student code and reference code without warnings (they would go to stderr)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with np.errstate(all="ignore"):
            yield


def call_student(fn: Callable[..., Any], what: str, *args: Any) -> Any:
    """Call the learner's function; a stub or a crash becomes a learner message."""
    try:
        with quiet():
            return fn(*args)
    except NotImplementedError:
        raise not_attempted(what) from None
    except AssertionError:
        raise
    except Exception as err:  # the learner's code may fail in any way: say how, kindly
        raise crashed(what, err) from None


def crashed(what: str, err: Exception) -> CheckFailedError:
    """The learner message for an error raised by the learner's own code."""
    return fail(
        f"{what} to run without an error",
        f"it raised {type(err).__name__}: {err}",
        "read the error message from the bottom up; it names the line and the operation that failed.",
    )


def describe(answer: Any) -> str:
    """A short, safe description of what the learner gave (never a huge repr)."""
    if isinstance(answer, gradbook.Tensor):
        return f"a tensor of shape {tuple(answer.shape)} and dtype {answer.dtype}"
    if isinstance(answer, np.ndarray):
        return f"a NumPy array of shape {answer.shape} and dtype {answer.dtype}"
    text = repr(answer)
    return text if len(text) <= 60 else text[:57] + "..."


def as_numbers(answer: Any, shape: tuple[int, ...], what: str) -> np.ndarray:
    """Read a number, list, NumPy array or tensor as float64 values of the expected shape.

    Comparing through ``np.asarray`` means an object whose ``__eq__`` always says True gains
    nothing: only its numbers count. Wrong kinds, dtypes, shapes, NaN and inf are named.
    """
    if is_stub(answer):
        raise not_attempted(what)
    if isinstance(answer, (bool, np.bool_, str, bytes)):
        raise fail(f"{what} as numbers", describe(answer), "give a number or a tensor, not text or True/False.")
    if isinstance(answer, gradbook.Tensor):
        if not answer.is_floating_point():
            raise fail(
                f"{what} as a floating-point tensor",
                describe(answer),
                "gradients are floating point: create the tensor from floats (2.0, not 2), or call .float().",
            )
        values = answer.detach().numpy()
    else:
        try:
            with quiet():
                values = np.asarray(answer)
        except Exception:
            values = np.asarray(None)
        if values.dtype.kind not in "iuf":
            raise fail(f"{what} as numbers", describe(answer), "give a number, a list of numbers, or a tensor.")
        if isinstance(answer, np.ndarray) and values.dtype.kind != "f":
            raise fail(
                f"{what} as floating-point numbers",
                describe(answer),
                "gradients are floating point: use floats (2.0, not 2).",
            )
    values = np.asarray(values, dtype=np.float64)
    if values.size == 1 and shape == ():
        values = values.reshape(())
    if values.shape != shape:
        expected = "a single number" if shape == () else f"shape {shape}"
        raise fail(
            f"{what} with {expected}",
            f"shape {values.shape}",
            "a gradient has the same shape as the tensor it belongs to.",
        )
    if not np.all(np.isfinite(values)):
        raise fail(f"{what} with finite values", "NaN or inf in your answer", "look for a division by zero or log(0).")
    return values


def close(values: np.ndarray, expected: np.ndarray) -> bool:
    return bool(np.allclose(values, expected, rtol=1e-4, atol=1e-6))


def passed(message: str) -> None:
    print(f"✓ {message}")


@dataclass(frozen=True)
class Exercise:
    """One exercise: its question, its check, and hints that never give the answer away.

    ``check(answer)`` prints one confirmation line and returns None, or raises AssertionError
    with feedback. Solutions are not shipped with gradbook, so ``solution_available`` is False.

    >>> from gradbook.exercises import lesson01
    >>> ex = lesson01.grad_after_three_calls
    >>> ex.solution_available
    False
    >>> ex.check(...)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    gradbook.exercises._checking.NotAttemptedError: not attempted: your prediction of x.grad is still the placeholder...
    """

    name: str
    lesson: int
    question: str
    check_answer: Callable[[Any], None] = field(repr=False)
    hints: tuple[str, ...] = ()
    solution_available: bool = False

    def check(self, answer: Any) -> None:
        """Check ``answer``: one line on success, an AssertionError with feedback otherwise."""
        self.check_answer(answer)

    __call__ = check

    def hint(self, level: int = 0) -> str:
        """The ``level``-th hint (0 is the gentlest); asking for more than there are repeats the last."""
        if not self.hints:
            return "No hint for this one: reread the question and the worked example before it."
        return self.hints[min(level, len(self.hints) - 1)]
