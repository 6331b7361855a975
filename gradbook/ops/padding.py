"""Padding, as ``F.pad`` and convolutions' ``padding_mode`` call it: a constant border (or a crop, for a
negative pad), and the reflected and replicated borders of the last 1, 2 or 3 dimensions."""

from __future__ import annotations

from typing import Any

import numpy as np

from .op import Op
from .rules import constant, is_tensor, shape_of, swapaxes


def _pairs(pad: tuple, ndim: int) -> list[tuple[int, int]]:
    """torch's pad list (last dimension first: left, right, then top, bottom ...) as NumPy's pairs."""
    pairs = [(0, 0)] * ndim
    for k in range(len(pad) // 2):
        pairs[ndim - 1 - k] = (pad[2 * k], pad[2 * k + 1])
    return pairs


def _constant_pad(a: np.ndarray, pad: tuple, value: float) -> np.ndarray:
    pairs = _pairs(pad, a.ndim)
    crop = tuple(slice(max(-b, 0), a.shape[d] - max(-e, 0)) for d, (b, e) in enumerate(pairs))
    grow = [(max(b, 0), max(e, 0)) for b, e in pairs]
    return np.pad(a[crop], grow, constant_values=value)


class ConstantPadNdBackward0(Op):
    """out = self with ``pad`` elements of ``value`` around its last dimensions (a negative pad crops)"""

    unexposed = ("value",)
    forward = staticmethod(lambda a, pad, value: _constant_pad(a, pad, value))
    rules = {"∂/∂self: g without the border (padded where self was cropped)": lambda n, g: _unpad(n, g)}


def _unpad(n: Op, g: Any) -> Any:
    back = tuple(-p for p in n.pad)
    return ConstantPadNdBackward0.apply(g, pad=back, value=0.0) if is_tensor(g) else _constant_pad(g, back, 0.0)


def _sources(size: int, before: int, after: int, mode: str) -> np.ndarray:
    """Which element of a dimension each padded position shows (NumPy's reflect is torch's, edge its replicate)."""
    return np.pad(np.arange(size), (before, after), mode=mode)


def _border(a: np.ndarray, padding: tuple, mode: str) -> np.ndarray:
    return np.pad(a, _pairs(padding, a.ndim), mode=mode)


def _border_grad(n: Op, g: Any, mode: str) -> Any:
    """Each padded position's g added to the element it shows: one dimension at a time, a product with a
    one-hot matrix (the same ops for arrays and recorded tensors)."""
    shape = shape_of(n)
    for d, (b, e) in enumerate(_pairs(n.padding, len(shape))):
        if b or e:
            onehot = (_sources(shape[d], b, e, mode)[:, None] == np.arange(shape[d])).astype(
                g._array.dtype if is_tensor(g) else g.dtype
            )
            g = swapaxes(swapaxes(g, d, -1) @ constant(onehot, g), d, -1)
    return g


class ReflectionPad1DBackward0(Op):
    """out = self with its last dimension's borders reflected (``padding``: left, right)"""

    saves = ("self",)
    forward = staticmethod(lambda a, padding: _border(a, padding, "reflect"))
    rules = {"∂/∂self: each g added to the element it reflects": lambda n, g, self: _border_grad(n, g, "reflect")}


class ReflectionPad2DBackward0(ReflectionPad1DBackward0):
    """out = self with its last two dimensions' borders reflected"""


class ReflectionPad3DBackward0(ReflectionPad1DBackward0):
    """out = self with its last three dimensions' borders reflected"""


class ReplicationPad1DBackward0(Op):
    """out = self with its last dimension's edge values repeated (``padding``: left, right)"""

    saves = ("self",)
    forward = staticmethod(lambda a, padding: _border(a, padding, "edge"))
    rules = {"∂/∂self: each g added to the edge element it repeats": lambda n, g, self: _border_grad(n, g, "edge")}


class ReplicationPad2DBackward0(ReplicationPad1DBackward0):
    """out = self with its last two dimensions' edge values repeated"""


class ReplicationPad3DBackward0(ReplicationPad1DBackward0):
    """out = self with its last three dimensions' edge values repeated"""
