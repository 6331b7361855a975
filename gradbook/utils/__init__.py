"""gradbook.utils: as torch.utils, the part lessons use: ``data`` (datasets and DataLoader)."""

from . import data

__all__ = ["data"]
