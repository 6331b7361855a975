"""``torch.accelerator`` on a CPU-only machine: none is available."""

from __future__ import annotations


def is_available() -> bool:
    return False


def current_accelerator(check_available: bool = False) -> None:
    return None


def device_count() -> int:
    return 0
