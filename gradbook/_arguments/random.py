"""In-place random fills (``uniform_``, ``normal_``, ``random_``, ``bernoulli_``) from gradbook's generator."""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import _distributions, _factories, ops
from .._dtypes import (
    scalar_name,
)
from ..autograd import inplace
from ..tensor import Tensor
from .indexing import fill


def fill_random(t: Tensor, op: type[ops.Op], values: np.ndarray) -> Tensor:
    """``x.uniform_()`` and the like: new random values written into x (recorded as ``op``)."""
    return inplace.update(t, lambda x, _: op.apply(x, values=values), None)


def _draws_for(t: Tensor, kernel: str) -> np.ndarray:
    """``t``'s array, checked to be a float one for a float distribution (torch's error otherwise)."""
    if t._array.dtype.kind != "f":
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{scalar_name(t._array.dtype)}'")
    return t._array


def uniform_(t: Tensor, a: Any, b: Any, generator: Any) -> Tensor:
    if a > b:
        raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found from={a:g} > to={b:g}")
    gen = _factories.generator_of(generator, "uniform_")
    like = _draws_for(t, "check_uniform_bounds")
    values = _distributions.uniform(gen, like.size, like.dtype, a, b)
    return fill_random(t, ops.UniformBackward0, _distributions.in_memory_order(values, like))


def normal_(t: Tensor, mean: Any, std: Any, generator: Any) -> Tensor:
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std:g}")
    gen = _factories.generator_of(generator, "normal_")
    like = _draws_for(t, "normal_kernel_cpu")
    values = _distributions.normal(gen, like.size, like.dtype, mean, std, contiguous=like.flags.c_contiguous)
    return fill_random(t, ops.NormalBackward0, _distributions.in_memory_order(values, like))


def random_(t: Tensor, low: Any, high: Any, generator: Any) -> Tensor:
    """Integers in [low, high); ``random_(to)`` is [0, to); with neither, [0, 2^mantissa] for a float
    dtype (every integer it holds exactly) and [0, max] for an integer one."""
    gen = _factories.generator_of(generator, "random_")
    like = t._array
    if high is None and not low:
        values = _distributions.random_bits(gen, like.size, like.dtype)
    else:
        low, high = (0, low) if high is None else (low, high)
        if low >= high:
            raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}")
        values = _distributions.integers(gen, like.size, like.dtype, low, high)
    return inplace.update(t, fill, Tensor._make(_distributions.in_memory_order(values, like)))


def bernoulli_(t: Tensor, p: Any, generator: Any) -> Tensor:
    """1 with probability ``p`` (a number, or a tensor of them), else 0, in place."""
    gen = _factories.generator_of(generator, "bernoulli_")
    like = t._array
    prob = np.broadcast_to(p._array, like.shape) if isinstance(p, Tensor) else float(p)
    values = _distributions.bernoulli(gen, prob, like.size).astype(like.dtype)
    return inplace.update(t, fill, Tensor._make(_distributions.in_memory_order(values, like)))


def normal_node(mean: Any, std: Any, draws: np.ndarray) -> Tensor:
    """``normal(mean, std)``'s draws when a tensor mean or std requires grad: torch's node for them, whose
    gradients are zeros (NormalBackward1: a tensor mean; 2: a tensor std; 3: both)."""
    if isinstance(mean, Tensor) and isinstance(std, Tensor):
        return ops.NormalBackward3.apply(mean, std, values=draws)
    if isinstance(mean, Tensor):
        return ops.NormalBackward1.apply(mean, values=draws)
    return ops.NormalBackward2.apply(std, values=draws)
