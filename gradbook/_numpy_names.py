"""NumPy's names for two of torch's arguments, which torch's argument parser takes everywhere: ``axis=`` for
``dim=`` and ``keepdims=`` for ``keepdim=`` (``x.cumsum(axis=0)``, ``torch.cat(ts, axis=1)``)."""

from __future__ import annotations

import functools
import inspect
from typing import Any


def with_numpy_names(function: Any) -> Any:
    """``function`` taking NumPy's names as torch's argument parser does: ``axis=`` for ``dim=``, ``keepdims=``
    for ``keepdim=`` (``x.cumsum(axis=0)``, ``torch.cat(ts, axis=1)``)."""

    @functools.wraps(function)
    def with_numpy_names(*args: Any, **kwargs: Any) -> Any:
        if "axis" in kwargs or "keepdims" in kwargs:
            for numpy_name, name in (("axis", "dim"), ("keepdims", "keepdim")):
                if numpy_name in kwargs:
                    if name in kwargs:
                        raise TypeError(f"{function.__name__}() got multiple values for argument '{name}'")
                    kwargs[name] = kwargs.pop(numpy_name)
        return function(*args, **kwargs)

    return with_numpy_names


def accept_numpy_names(cls: type) -> None:
    """Every public method of ``cls`` with a ``dim`` parameter, as :func:`with_numpy_names`."""
    for name, method in list(vars(cls).items()):
        if name.startswith("_") or not inspect.isfunction(method):
            continue
        params = inspect.signature(method).parameters
        if "dim" in params and not any(p.kind == p.VAR_KEYWORD for p in params.values()):
            setattr(cls, name, with_numpy_names(method))
