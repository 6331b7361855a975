"""Devices as torch names them, for a library that runs on the CPU only.

``torch.device``, ``tensor.device``, ``device=`` on the factories, ``.to(device)`` and the
queries a lesson starts with (``torch.cuda.is_available()``), so that the usual
``device = "cuda" if torch.cuda.is_available() else "cpu"`` just works. Asking for CUDA fails as a
CPU-only torch fails: ``AssertionError: Torch not compiled with CUDA enabled``.
"""

from __future__ import annotations

import builtins
import re
from typing import Any

CUDA_ERROR = "Torch not compiled with CUDA enabled"
TYPES = (
    "cpu cuda ipu xpu mkldnn opengl opencl ideep hip ve fpga maia xla lazy vulkan mps meta hpu mtia privateuseone"
).split()


class device:  # noqa: N801  (torch's name)
    """Where a tensor lives: ``device(type='cpu')``. gradbook has the CPU only."""

    __module__ = "gradbook"  # prints as <class 'gradbook.device'>, as torch's <class 'torch.device'>

    __slots__ = ("type", "index")

    def __init__(self, type: Any, index: builtins.int | None = None) -> None:  # noqa: A002  (torch's name)
        if isinstance(type, device):
            type, index = type.type, type.index if index is None else index
        elif isinstance(type, builtins.int) and not isinstance(type, builtins.bool):
            raise RuntimeError("Cannot access accelerator device when none is available.")
        elif not isinstance(type, str):
            raise TypeError(
                f"device() received an invalid combination of arguments - got ({builtins.type(type).__name__}), "
                "but expected one of:\n * (torch.device device)\n * (str type, int index = -1)"
            )
        else:
            parts = re.fullmatch(r"([a-zA-Z_]+)(?::([1-9][0-9]*|0))?", type)
            if parts is None or (parts[2] is not None and index is not None):
                raise RuntimeError(f"Invalid device string: '{type}'")
            type, index = parts[1], builtins.int(parts[2]) if parts[2] is not None else index
        if type not in TYPES:
            raise RuntimeError(f"Expected one of {', '.join(TYPES)} device type at start of device string: {type}")
        if index is not None and index < 0:
            raise RuntimeError("Device index must not be negative")
        object.__setattr__(self, "type", type)
        object.__setattr__(self, "index", index)

    def __reduce__(self) -> tuple:  # pickled as torch pickles a device: device("cpu")
        return (device, (self.type,) if self.index is None else (self.type, self.index))

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"attribute '{name}' of 'gradbook.device' objects is not writable")

    def __repr__(self) -> str:
        return (
            f"device(type='{self.type}')" if self.index is None else f"device(type='{self.type}', index={self.index})"
        )

    def __str__(self) -> str:
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __eq__(self, other: object) -> builtins.bool:
        return isinstance(other, device) and (self.type, self.index) == (other.type, other.index)

    def __hash__(self) -> builtins.int:
        return hash((self.type, self.index))

    def __enter__(self) -> device:
        return self

    def __exit__(self, *exc: Any) -> None:
        return None


CPU = device("cpu")
_default = [CPU]  # set_default_device


def check(where: Any) -> device:
    """The device a tensor may be made on: the CPU. torch's error for CUDA, a clear one for others."""
    d = _default[0] if where is None else device(where)
    if d.type == "cpu":
        return CPU
    if d.type == "cuda":
        raise AssertionError(CUDA_ERROR)
    raise NotImplementedError(
        f"gradbook runs on the CPU only: there is no '{d.type}' device; use device='cpu' (or leave device out)"
    )


def set_default_device(where: Any) -> None:
    """The device factories use when none is given (torch checks it when a tensor is made)."""
    _default[0] = CPU if where is None else device(where)


def get_default_device() -> device:
    return _default[0]
