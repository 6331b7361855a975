"""``torch.autograd.profiler``: gradbook has no profiler. ``with profile() as prof:`` runs the code,
and printing ``prof`` (or its ``key_averages().table()``) prints a note instead of a table."""

from __future__ import annotations

from typing import Any

_NO_PROFILER = "gradbook has no profiler: the code ran, but no times were recorded (profile it under torch)."


class _NoProfile:
    """``torch.autograd.profiler.profile``: runs the code; printing it prints a note, not a table."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        pass

    def __enter__(self) -> _NoProfile:
        return self

    def __exit__(self, *exc: object) -> None:
        pass

    def __str__(self) -> str:
        return _NO_PROFILER

    __repr__ = __str__

    def key_averages(self, *args: Any, **kwargs: Any) -> _NoProfile:
        return self

    def table(self, *args: Any, **kwargs: Any) -> str:
        return _NO_PROFILER


class _NoRecordFunction:
    """``torch.autograd.profiler.record_function(name)``: a label for the profiler; here it does nothing."""

    def __init__(self, name: str, args: str | None = None) -> None:
        self.name = name

    def __enter__(self) -> _NoRecordFunction:
        return self

    def __exit__(self, *exc: object) -> None:
        pass


profile, record_function = _NoProfile, _NoRecordFunction
