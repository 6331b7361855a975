"""``torch.cuda`` on a machine without CUDA: the queries answer as a CPU-only torch does, and the
calls that need a GPU raise its ``AssertionError: Torch not compiled with CUDA enabled``."""

from __future__ import annotations

from typing import Any

from ._device import CUDA_ERROR


def is_available() -> bool:
    return False


def device_count() -> int:
    return 0


def is_initialized() -> bool:
    return False


def is_bf16_supported(including_emulation: bool = True) -> bool:
    return False


def manual_seed(seed: int) -> None:
    """Nothing to seed without a GPU (torch ignores it too)."""


manual_seed_all = manual_seed


def empty_cache() -> None:
    pass


def memory_allocated(device: Any = None) -> int:
    return 0


max_memory_allocated = memory_reserved = max_memory_reserved = memory_allocated


def _no_cuda(*args: Any, **kwargs: Any) -> Any:
    raise AssertionError(CUDA_ERROR)


current_device = get_device_name = get_device_properties = synchronize = set_device = _no_cuda
