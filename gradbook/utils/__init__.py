"""gradbook.utils: as torch.utils, the part lessons use: ``data`` (datasets and DataLoader)."""

from typing import Any

from . import data

__all__ = ["data"]


def __getattr__(name: str) -> Any:  # a torch.utils name gradbook lacks (checkpoint, ...): say so, by name
    from .. import _missing

    if name in _missing.UTILS:
        raise _missing.missing("utils.", name)
    raise AttributeError(f"module 'gradbook.utils' has no attribute '{name}'")
