"""Random numbers: ``Generator``, the default one that ``manual_seed`` seeds, and ``generator=``.

The numbers come from NumPy, not from torch's generator, so a seed repeats gradbook's draws but not
torch's (torch-identical draws are the next step). A Generator and ``manual_seed`` behave as
torch's: ``manual_seed`` returns the default generator, ``initial_seed`` gives the seed back.
"""

from __future__ import annotations

import builtins
import secrets
from typing import Any

import numpy as np

from . import _device

DEFAULT_SEED = 67280421310721  # torch's default_generator.initial_seed() before any manual_seed


class Generator:
    """A source of random numbers: ``Generator().manual_seed(0)`` makes its draws repeatable."""

    __module__ = "gradbook._C"  # prints as torch's <torch._C.Generator object at ...>

    def __init__(self, device: Any = "cpu") -> None:
        if str(device).startswith("cuda"):
            raise RuntimeError("Cannot get CUDA generator without ATen_cuda library: gradbook runs on the CPU only.")
        _device.check(device)
        self.manual_seed(DEFAULT_SEED)

    @property
    def device(self) -> _device.device:
        return _device.CPU

    def manual_seed(self, seed: Any) -> Generator:
        """Start over from ``seed`` (any integer torch accepts: a 64-bit one is reduced)."""
        seed = builtins.int(seed)
        if not -(2**63) <= seed < 2**64:
            raise ValueError("Overflow when unpacking long long")
        self._seed = seed % 2**64
        self.numpy = np.random.default_rng(self._seed)
        return self

    def seed(self) -> builtins.int:
        """Seed from the operating system; returns the seed."""
        s = secrets.randbits(63)
        self.manual_seed(s)
        return s

    def initial_seed(self) -> builtins.int:
        return self._seed


default_generator = Generator()


def manual_seed(seed: Any) -> Generator:
    """Seed gradbook's random numbers (rand, randn, nn.Linear's initial weights); returns the default
    Generator. The numbers differ from torch's for the same seed: the determinism carries over."""
    return default_generator.manual_seed(seed)


def seed() -> builtins.int:
    return default_generator.seed()


def initial_seed() -> builtins.int:
    return default_generator.initial_seed()


def numpy_generator(generator: Any, caller: str, *args: Any) -> np.random.Generator:
    """The NumPy generator to draw from: ``generator``'s, or the default one's; torch's error for
    anything else (``args``: the call's other arguments, which a function's message lists)."""
    if generator is None:
        return default_generator.numpy
    if not isinstance(generator, Generator):
        got = type(generator).__name__
        if caller.endswith("_"):  # a method: uniform_(), normal_()
            raise TypeError(f"{caller}(): argument 'generator' must be gradbook.Generator, not {got}")
        given = [type(a).__name__ for a in args] + [f"generator={got}"]
        raise TypeError(
            f"{caller}() received an invalid combination of arguments - got ({', '.join(given)}), but expected one of:"
        )
    return generator.numpy
