"""What every check shares: stub detection, reading an answer as numbers, learner messages.

A check either prints one confirmation line and returns None, or raises ``AssertionError`` with
a message for the learner: what was expected (in words, never the value), what they gave, and a
hint. Nothing is written to stderr, because nbgrader gives 0 points to a cell that writes there.

An answer is only ever *read*: its numbers through ``float``, its functions by calling them on
private data. An answer that lies (an ``__eq__`` that is always True), or whose ``repr``,
iteration or comparison raises, is a wrong answer with an explanation, never a crash. Before each
check, ``guard()`` makes sure the tools the check relies on (builtins, NumPy, gradbook's engine,
``gradcheck``, the modules in ``sys.modules``) are still the ones imported with it: a notebook
that replaced one of them gets a failure that says so, not points.
"""

from __future__ import annotations

import builtins
import contextlib
import decimal
import functools
import math
import numbers
import sys
import warnings
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

import gradbook
import gradbook.autograd
from gradbook import nn

from ..language import colon, translate
from ._zh import ZH

NOT_ATTEMPTED = "not attempted"


class _LearnerMessageError(AssertionError):
    def _render_traceback_(self) -> list[str]:
        """What IPython shows in place of a traceback: the message is all a learner needs (the
        lines inside gradbook's checks would only hide it)."""
        return [f"\x1b[0;31m{type(self).__name__}\x1b[0m: {self}"]


class NotAttemptedError(_LearnerMessageError):
    """The answer is still the stub it started as (``...``, ``None``, ``raise NotImplementedError``)."""


class CheckFailedError(_LearnerMessageError):
    """The answer was attempted but is not right yet; the message says why and hints how."""


@contextlib.contextmanager
def _fresh_state() -> Iterator[None]:
    """A check computes as in a fresh kernel (grad on, float32 by default) and leaves the learner's
    grad mode, default dtype and random stream as they were."""
    rng, dtype = gradbook.get_rng_state(), gradbook.get_default_dtype()
    try:
        gradbook.set_default_dtype(gradbook.float32)
        with gradbook.enable_grad():
            yield
    finally:
        gradbook.set_default_dtype(dtype)
        gradbook.set_rng_state(rng)


def learner_check(check: Callable[[Any], None]) -> Callable[[Any], None]:
    """Run a ``check_...`` as in a fresh kernel: one called inside ``no_grad()``, after
    ``set_default_dtype(float64)`` or between two ``randn`` calls neither decides differently nor
    changes what the learner's next line computes."""

    @functools.wraps(check)
    def run(answer: Any) -> None:
        guard()  # first: the state below is read and restored with the tools as imported
        with _fresh_state():
            return check(answer)

    return run


def fail(expected: str, got: str, hint: str) -> CheckFailedError:
    """The learner message, in the same three parts everywhere: expected, got, hint (in the
    language of ``gradbook.set_language``)."""
    parts = [(translate(label, ZH), translate(text, ZH)) for label, text in
             (("Expected", expected), ("You gave", got), ("Hint", hint))]  # fmt: skip
    return CheckFailedError("".join(f"\n  {label}{colon()}{text}" for label, text in parts))  # 期望：…


def not_attempted(what: str) -> NotAttemptedError:
    message = f"{NOT_ATTEMPTED}: {what} is still the placeholder. Replace it with your answer."
    return NotAttemptedError(translate(message, ZH))


def is_stub(answer: Any) -> bool:
    return answer is None or answer is Ellipsis


# What the checks rely on, as imported: (owner, attribute name, the object it was).
_MODULES = ("builtins", "math", "numpy", "gradbook", "gradbook.autograd", "gradbook.exercises._checking")
_BUILTINS = (
    "abs", "all", "any", "bool", "callable", "float", "isinstance", "issubclass", "len", "list", "max",
    "min", "print", "range", "repr", "round", "set", "sorted", "str", "sum", "tuple", "type", "zip",
)  # fmt: skip
_NUMPY = ("allclose", "array", "asarray", "isclose", "isfinite", "all", "abs", "stack", "float64", "ndarray")
_GRADBOOK = ("Tensor", "tensor", "no_grad", "stack", "eye", "float64")
_MATH = ("cos", "exp", "log", "sin", "sinh")  # what the checks' own functions of plain floats use
_ORIGINALS: list[tuple[Any, str, Any]] = (
    [(builtins, name, getattr(builtins, name)) for name in _BUILTINS]
    + [(math, name, getattr(math, name)) for name in _MATH]
    + [(np, name, getattr(np, name)) for name in _NUMPY]
    + [(gradbook, name, getattr(gradbook, name)) for name in _GRADBOOK]
    + [(gradbook.autograd, name, getattr(gradbook.autograd, name)) for name in ("grad", "gradcheck", "Function")]
    + [(gradbook.Tensor, name, getattr(gradbook.Tensor, name)) for name in ("backward", "__eq__", "numpy", "detach")]
)
_MODULE_OBJECTS = {name: sys.modules[name] for name in _MODULES if name in sys.modules}


def guard() -> None:
    """Fail (never pass) when the notebook replaced something a check relies on.

    >>> guard()  # nothing replaced: silent
    """
    for owner, name, original in _ORIGINALS:
        if getattr(owner, name, None) is not original:
            where = getattr(owner, "__name__", "?")
            raise tampered(f"{where}.{name}")
    for name, module in _MODULE_OBJECTS.items():
        if sys.modules.get(name) is not module:
            raise tampered(f"sys.modules[{name!r}]")


def tampered(what: str) -> CheckFailedError:
    return fail(
        "the checking tools as gradbook imported them",
        f"a notebook in which {what} was replaced",
        "restart the kernel, remove the code that replaces it, and answer the question itself.",
    )


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
    except NotImplementedError as err:
        if isinstance(err, AttributeError):  # gradbook lacks a torch name the code used: not a stub
            raise crashed(what, err) from None
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
        "call your code on its own in a cell: the traceback names the line and the operation that failed.",
    )


def run_program(program: str, **names: Any) -> dict[str, Any]:
    """Run a program the lesson shows (one of the checks' own constants, word for word) with
    gradbook as ``torch`` (and ``names`` defined), and return its variables: a check computes
    its answer this way, and stores none."""
    scope: dict[str, Any] = {"torch": gradbook, **names}
    exec(program, scope)  # our own constant (or a variant of it), never the learner's text
    return scope


def show_program(check: Callable[..., Any], program: str) -> None:
    """Write ``program`` into ``check``'s docstring where it says PROGRAM, indented as a code
    block: ``help(check)`` shows the program the check runs, from the one copy of it."""
    check.__doc__ = check.__doc__.replace("PROGRAM", program.strip().replace("\n", "\n        "))


def describe(answer: Any) -> str:
    """A short, safe description of what the learner gave (never a huge repr, never a crash)."""
    try:
        if isinstance(answer, gradbook.Tensor):
            return f"a tensor of shape {tuple(answer.shape)} and dtype {answer.dtype}"
        if isinstance(answer, np.ndarray):
            return f"a NumPy array of shape {answer.shape} and dtype {answer.dtype}"
        with quiet():
            text = repr(answer)
        if not isinstance(text, str):
            raise TypeError("__repr__ returned a non-string")
    except Exception as err:  # the answer's own repr may raise: describe it by its type
        return f"an object of type {type(answer).__name__} (its repr raised {type(err).__name__})"
    return text if len(text) <= 60 else text[:57] + "..."


def _floats(answer: Any) -> np.ndarray | None:
    """The answer's values as float64 (numbers, Fractions, nested lists, integer or float arrays),
    or None when they are not all real numbers. Each value goes through ``float``: an object
    that only pretends to be a number (no ``__float__``) is not one."""
    try:
        with quiet():
            values = np.asarray(answer)
            if values.dtype.kind in "iuf":
                return values.astype(np.float64)
            if values.dtype.kind != "O":
                return None
            flat = [v for v in values.reshape(-1)]
            real = (numbers.Real, decimal.Decimal)  # Fraction, Decimal, int, float, NumPy scalars
            if not all(isinstance(v, real) and not isinstance(v, (bool, np.bool_)) for v in flat):
                return None
            return np.array([float(v) for v in flat], dtype=np.float64).reshape(values.shape)
    except Exception:  # an answer whose iteration, len or __array__ raises is not numbers
        return None


def as_numbers(
    answer: Any,
    shape: tuple[int, ...],
    what: str,
    shape_hint: str = "a gradient has the same shape as the tensor it belongs to.",
) -> np.ndarray:
    """Read a number, list, NumPy array or tensor as float64 values of the expected shape.

    Comparing through ``np.asarray`` means an object whose ``__eq__`` always says True gains
    nothing: only its numbers count. Wrong kinds, dtypes, shapes, NaN and inf are named.
    """
    if is_stub(answer):
        raise not_attempted(what)
    if isinstance(answer, (bool, np.bool_, str, bytes)):
        raise fail(f"{what} as numbers", describe(answer), "give a number or a tensor, not text or True/False.")
    if isinstance(answer, gradbook.Tensor):
        if answer.dtype == gradbook.bool:
            raise fail(f"{what} as real numbers", describe(answer), "give a tensor of real numbers.")
        values = answer.detach().numpy().astype(np.float64)
    else:
        values = _floats(answer)
        if values is None:
            raise fail(f"{what} as numbers", describe(answer), "give a number, a list of numbers, or a tensor.")
    if values.size == 1 and shape == ():
        values = values.reshape(())
    if values.shape != shape:
        expected = "a single number" if shape == () else f"shape {shape}"
        raise fail(
            f"{what} with {expected}",
            f"shape {values.shape}",
            shape_hint,
        )
    if not np.all(np.isfinite(values)):
        raise fail(f"{what} with finite values", "NaN or inf in your answer", "look for a division by zero or log(0).")
    return values


def named_answers(answer: Any, names: tuple[str, ...], what: str, entry_hint: str, keys_hint: str) -> dict[str, Any]:
    """The entries of an answer given as a dict with exactly the keys ``names`` (strings), each
    still unread: a stub, a non-dict, a dict whose iteration or lookup raises, or other keys are
    named. All entries left at their placeholder is "not attempted"; reading each entry as a
    number is left to the check, entry by entry."""
    if is_stub(answer):
        raise not_attempted(what)
    shown = "a dict {" + ", ".join(f'"{name}": ...' for name in names) + "}"
    if not isinstance(answer, Mapping):
        raise fail(shown, describe(answer), entry_hint)
    try:
        keys = sorted(str(key) for key in answer)
        values = {name: answer[name] for name in names if name in answer}
    except Exception as err:  # a Mapping whose iteration or lookup raises is not an answer
        raise fail(shown, describe(answer), f"it raised {type(err).__name__}") from None
    if keys != sorted(names) or len(values) != len(names):
        quoted = [f'"{name}"' for name in names]
        raise fail(f"the keys {', '.join(quoted[:-1])} and {quoted[-1]}", f"the keys {keys}", keys_hint)
    if all(is_stub(value) for value in values.values()):
        raise not_attempted(what)
    return values


def linear_model(weight: np.ndarray, bias: np.ndarray) -> nn.Linear:
    """An ``nn.Linear`` with these (float32) weight and bias: the model a training check runs."""
    model = nn.Linear(weight.shape[1], weight.shape[0])
    with gradbook.no_grad():
        model.weight.copy_(gradbook.tensor(weight, dtype=gradbook.float32))
        model.bias.copy_(gradbook.tensor(bias, dtype=gradbook.float32))
    return model


def linear_parameters(model: nn.Linear) -> np.ndarray:
    """An ``nn.Linear``'s weight and bias, flat, as float64."""
    return np.concatenate([p.detach().numpy().astype(np.float64).ravel() for p in (model.weight, model.bias)])


def close(values: np.ndarray, expected: np.ndarray) -> bool:
    with quiet():  # 1e308 - 1 overflows in the comparison: a wrong answer, and nothing on stderr
        return bool(np.allclose(values, expected, rtol=1e-4, atol=1e-6))


def passed(message: str) -> None:
    guard()  # the learner's code ran during the check: it must not have replaced anything either
    print(f"✓ {translate(message, ZH)}")


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
            return translate("No hint for this one: reread the question and the worked example before it.", ZH)
        return translate(self.hints[min(level, len(self.hints) - 1)], ZH)
