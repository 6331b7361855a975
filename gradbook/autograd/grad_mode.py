"""Grad modes: whether operations are recorded in the graph (torch.no_grad and friends)."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

from .._messages import INFERENCE_INPLACE_ERROR, INFERENCE_SAVED_ERROR, INFERENCE_VERSION_ERROR

F = TypeVar("F", bound=Callable[..., Any])


class _State:
    enabled = True  # read on every op, so a plain class attribute (no thread-locals)
    inference = False  # inside inference_mode: the tensors made are inference tensors
    saved_hooks: list = []  # (pack, unpack) of each saved_tensors_hooks entered, innermost last
    dual = False  # inside forward_ad.dual_level(): every op goes through Op.apply, which carries tangents


def is_grad_enabled() -> bool:
    """Whether new operations are recorded for backward, as ``torch.is_grad_enabled()``."""
    return _State.enabled


def is_inference_mode_enabled() -> bool:
    """Whether code runs inside ``inference_mode()``, as ``torch.is_inference_mode_enabled()``."""
    return _State.inference


class InferenceVersion(list):
    """The version counter (``Tensor._version_counter``) of a tensor made under ``inference_mode``: its type is
    the mark ``Tensor.is_inference()`` reads, and views and detached copies share it, as in torch.
    It counts nothing: reading the version outside inference mode raises torch's error (saving
    the tensor for backward reads it: the saving code names that error, ``check_saving``), and
    in-place changes are refused outside inference mode."""

    def __getitem__(self, i: Any) -> Any:
        if i != 0:
            return super().__getitem__(i)  # the live views of this memory
        if _State.inference:
            return 0
        raise RuntimeError(INFERENCE_VERSION_ERROR)

    def __setitem__(self, i: Any, value: Any) -> None:
        if i != 0:
            super().__setitem__(i, value)
        elif not _State.inference:
            raise RuntimeError(INFERENCE_INPLACE_ERROR)


def check_saving(t: Any) -> None:
    """Refuse to save ``t`` for backward if it is an inference tensor outside inference mode, with
    torch's error for that (called where a tensor is saved: ``Op._record``, ``save_for_backward``)."""
    if type(t._version_counter) is InferenceVersion and not _State.inference:
        raise RuntimeError(INFERENCE_SAVED_ERROR)


class _GradMode:
    """Shared body of the three grad-mode objects: context manager and decorator."""

    mode = True

    def __enter__(self) -> None:
        self.prev = _State.enabled
        _State.enabled = self.mode

    def __exit__(self, *exc: object) -> None:
        _State.enabled = self.prev

    def __call__(self, fn: F) -> F:
        mode = self.mode

        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            prev = _State.enabled
            _State.enabled = mode
            try:
                return fn(*args, **kwargs)
            finally:
                _State.enabled = prev

        return wrapper  # type: ignore[return-value]


class no_grad(_GradMode):
    """Don't record operations: results have ``requires_grad=False``.

    This is what makes the manual SGD update ``w -= lr * w.grad`` legal on a leaf.

    >>> import gradbook as torch
    >>> w = torch.tensor(1.0, requires_grad=True)
    >>> with torch.no_grad():
    ...     y = w * 2
    >>> y.requires_grad
    False
    """

    mode = False


class enable_grad(_GradMode):
    """Record operations again, for example inside a ``no_grad`` block."""

    mode = True


class set_grad_enabled(_GradMode):
    """Turn recording on or off: takes effect at once, and also works with ``with``.

    >>> import gradbook as torch
    >>> x = torch.tensor(1.0, requires_grad=True)
    >>> with torch.set_grad_enabled(False):
    ...     (x * 2).requires_grad
    False
    >>> torch.is_grad_enabled()
    True
    """

    def __init__(self, mode: bool) -> None:
        self.mode = bool(mode)
        self.prev = _State.enabled
        _State.enabled = self.mode

    def __enter__(self) -> None:
        _State.enabled = self.mode  # prev was taken when the call switched the mode


class inference_mode(_GradMode):
    """Run code that will never be differentiated: like ``no_grad``, nothing is recorded, and
    the tensors made inside are inference tensors (``t.is_inference()``). A context manager and
    a decorator (with or without parentheses); ``inference_mode(False)`` turns it off again.

    >>> import gradbook as torch
    >>> x = torch.tensor(1.0, requires_grad=True)
    >>> with torch.inference_mode():
    ...     y = x * 2
    ...     torch.is_inference_mode_enabled()
    True
    >>> y.requires_grad, torch.is_inference_mode_enabled()
    (False, False)
    """

    def __new__(cls, mode: Any = True) -> Any:
        if mode is None or isinstance(mode, bool):
            return super().__new__(cls)
        return cls()(mode)  # @inference_mode without parentheses: mode is the function

    def __init__(self, mode: bool = True) -> None:
        self.mode = mode

    def __enter__(self) -> None:
        self.prev = (_State.enabled, _State.inference)
        _State.enabled = not self.mode  # as torch: False turns grad on
        _State.inference = self.mode  # Tensor._make marks the tensors made inside

    def __exit__(self, *exc: object) -> None:
        _State.enabled, _State.inference = self.prev

    def __call__(self, fn: F) -> F:
        mode = self.mode

        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with inference_mode(mode):
                return fn(*args, **kwargs)

        return wrapper  # type: ignore[return-value]
