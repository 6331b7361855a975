"""torch's random numbers, below the tensors: the engine of torch's CPU generator.

Seeded random numbers are torch's: a Generator is torch's CPU generator, a 32-bit Mersenne
Twister (mt19937) seeded with the standard ``init_genrand`` from the low 32 bits of the seed, as
``at::CPUGeneratorImpl``. NumPy's ``MT19937`` is the same engine, so gradbook keeps its state there
and takes raw 32-bit words from it; ``_distributions`` turns the words into torch's numbers, and
``_factories`` makes the public ``Generator``, the default one that ``manual_seed`` seeds, and the
tensors. Unseeded, the default generator starts from the operating system's randomness, as torch's.
"""

from __future__ import annotations

import builtins
import secrets
import struct
from typing import Any

import numpy as np

from . import _device

DEFAULT_SEED = 67280421310721  # torch's seed for a new Generator()
_N = 624  # mt19937's state: 624 words

# torch's get_state() bytes (CPUGeneratorImplState): the legacy THGenerator struct (initial seed,
# left, seeded, next, the 624 words as uint64, normal_x/y/rho, normal_is_valid), then the cached
# float normal and its flag. 5056 bytes on the 64-bit platforms.
_HEAD = struct.Struct("<QiiQ")
_TAIL = struct.Struct("<dddi4xf?3x")
STATE_SIZE = _HEAD.size + 8 * _N + _TAIL.size


class MT19937:
    """torch's CPU generator without the tensors: the mt19937 engine seeded as torch seeds it, its
    raw 32- and 64-bit words, and torch's state bytes. ``gradbook.Generator`` (``_factories.py``)
    is this with ``get_state()`` as a tensor; ``_distributions`` turns the words into numbers.
    """

    def __init__(self, device: Any = "cpu") -> None:
        if str(device).startswith("cuda"):
            raise RuntimeError("Cannot get CUDA generator without ATen_cuda library: gradbook runs on the CPU only.")
        _device.check(device)
        self._engine = np.random.MT19937()
        self._words = np.random.RandomState(self._engine)  # shares the engine's state
        self.manual_seed(DEFAULT_SEED)

    @property
    def device(self) -> _device.device:
        return _device.CPU

    def manual_seed(self, seed: Any) -> MT19937:
        """Start over from ``seed`` (any integer torch accepts: the engine takes its low 32 bits,
        ``initial_seed()`` gives back all 64)."""
        seed = builtins.int(seed)
        if not -(2**63) <= seed < 2**64:
            raise ValueError("Overflow when unpacking long long")
        self._seed = seed % 2**64
        self._engine.state = np.random.RandomState(self._seed & 0xFFFFFFFF).get_state(legacy=False)
        self._fresh = True  # torch's state says next = 0 until the first word is drawn
        self._next_double_normal: float | None = None  # Box–Muller's second value, kept for the next draw
        self._next_float_normal: float | None = None  # torch keeps one for float too (unused on the CPU)
        return self

    def seed(self) -> builtins.int:
        """Seed from the operating system; returns the seed."""
        s = secrets.randbits(64)
        self.manual_seed(s)
        return s

    def initial_seed(self) -> builtins.int:
        return self._seed

    # ------------------------------------------------ the raw words

    def random(self, n: builtins.int) -> np.ndarray:
        """The next ``n`` 32-bit words (torch's ``generator->random()``), as uint32."""
        if n:
            self._fresh = False
        # RandomState's randint over the full 32-bit range takes one word per value, unchanged
        return self._words.randint(0, 2**32, size=n, dtype=np.uint32)

    def random64(self, n: builtins.int) -> np.ndarray:
        """The next ``n`` 64-bit words (torch's ``random64()``: two words, the first one high)."""
        w = self.random(2 * n).astype(np.uint64)
        return (w[0::2] << np.uint64(32)) | w[1::2]

    # ------------------------------------------------ torch's state bytes

    def set_state(self, new_state: Any) -> MT19937:
        """Restore a state from ``get_state()`` (gradbook's or torch's bytes)."""
        data = bytes(np.asarray(new_state.tolist() if hasattr(new_state, "tolist") else new_state, dtype=np.uint8))
        if len(data) != STATE_SIZE:
            raise RuntimeError(
                f"Expected a CPUGeneratorImplState of size {STATE_SIZE} but found the input RNG state size to be "
                f"{len(data)}"
            )
        seed, left, seeded, nxt = _HEAD.unpack_from(data)
        words = np.frombuffer(data, dtype="<u8", count=_N, offset=_HEAD.size)
        _, normal_y, _, normal_valid, next_float, float_valid = _TAIL.unpack_from(data, _HEAD.size + 8 * _N)
        if not (seeded and 0 < left <= _N and nxt <= _N):
            raise RuntimeError("Invalid mt19937 state")
        self._seed = seed
        # torch counts the words left before the next twist; NumPy the position of the next word
        key = words.astype(np.uint32)
        self._engine.state = {"bit_generator": "MT19937", "state": {"key": key, "pos": _N + 1 - left}}
        self._fresh = nxt == 0 and left == 1
        self._next_double_normal = normal_y if normal_valid else None
        self._next_float_normal = next_float if float_valid else None
        return self

    def _state_bytes(self) -> bytes:
        state = self._engine.state["state"]
        pos = builtins.int(state["pos"])
        head = _HEAD.pack(self._seed, _N + 1 - pos, 1, 0 if self._fresh else pos)
        tail = _TAIL.pack(
            0.0,
            self._next_double_normal or 0.0,
            0.0,
            self._next_double_normal is not None,
            self._next_float_normal or 0.0,
            self._next_float_normal is not None,
        )
        return head + np.asarray(state["key"], dtype="<u8").tobytes() + tail
