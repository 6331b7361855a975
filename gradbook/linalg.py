"""``torch.linalg``: the vector norms lessons use (``linalg.norm``, ``linalg.vector_norm``)."""

from __future__ import annotations

from typing import Any

from . import _arguments
from .tensor import Tensor


def vector_norm(x: Tensor, ord: Any = 2, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> Tensor:  # noqa: A002
    """(Σ |x|ᵖ)^(1/p) of all elements, or along ``dim``; ``ord=float('inf')`` is max |x| (of x cast to ``dtype``)."""
    return _arguments.vector_norm(x, ord, dim, keepdim, dtype=dtype)


def norm(A: Tensor, ord: Any = None, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> Tensor:  # noqa: A002, N803
    """A vector norm (2 by default); for a matrix with no ``dim``, the Frobenius norm. gradbook has
    no other matrix norms (``ord=2`` of a matrix, ``'nuc'``). With ``dtype``, of A cast to it."""
    if ord is None or ord == "fro":
        if ord == "fro" and dim is not None and not (isinstance(dim, (tuple, list)) and len(dim) == 2):
            raise RuntimeError("linalg.norm: If dim is specified, it must be of length 1 or 2. Got []")
        return _arguments.vector_norm(A, 2, dim, keepdim, "linalg.norm", dtype)
    matrix = (dim is None and A.ndim == 2) or (isinstance(dim, (tuple, list)) and len(dim) == 2)
    if matrix:
        raise NotImplementedError(
            f"gradbook has no matrix norm ord={ord!r}: use ord=None or 'fro' (the Frobenius norm), or a vector norm "
            "with dim="
        )
    return _arguments.vector_norm(A, ord, dim, keepdim, "linalg.norm", dtype)


def cross(input: Tensor, other: Tensor, *, dim: int = -1) -> Tensor:  # noqa: A002
    """The cross product of the length-3 vectors along ``dim`` (broadcast), as ``torch.linalg.cross``."""
    return _arguments.cross(input, other, dim, "linalg.cross")
