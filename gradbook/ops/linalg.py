"""Matrix products: dot, mv, mm, bmm, addmm (``@`` picks one), and trace."""

from __future__ import annotations

from typing import Any

import numpy as np

from .op import Op
from .rules import constant, dtype_of, shape_of, unsqueeze


class DotBackward0(Op):
    """out = Σᵢ selfᵢ tensorᵢ"""

    inputs = ("self", "tensor")
    saves = ("self", "tensor")
    forward = staticmethod(lambda a, b: np.dot(a, b))
    rules = {
        "∂out/∂self = tensor": lambda n, g, tensor: g * tensor,
        "∂out/∂tensor = self": lambda n, g, self: g * self,
    }


class MvBackward0(Op):
    """out = self @ vec (matrix · vector)"""

    inputs = ("self", "vec")
    saves = ("self", "vec")
    forward = np.matmul
    rules = {
        "∂/∂self: g ⊗ vec": lambda n, g, vec: unsqueeze(g, 1) * vec,
        "∂/∂vec: selfᵀ @ g": lambda n, g, self: self.mT @ g,
    }


class MmBackward0(Op):
    """out = self @ mat2"""

    inputs = ("self", "mat2")
    saves = ("self", "mat2")
    forward = np.matmul
    rules = {
        "∂/∂self: g @ mat2ᵀ": lambda n, g, mat2: g @ mat2.mT,
        "∂/∂mat2: selfᵀ @ g": lambda n, g, self: self.mT @ g,
    }


class BmmBackward0(Op):
    """out = self @ mat2 over (broadcast) batch dimensions"""

    inputs = ("self", "mat2")
    saves = ("self", "mat2")
    forward = np.matmul
    rules = {
        "∂/∂self: g @ mat2ᵀ, per batch": lambda n, g, mat2: g @ mat2.mT,
        "∂/∂mat2: selfᵀ @ g, per batch": lambda n, g, self: self.mT @ g,
    }


def _addmm(b: np.ndarray, m1: np.ndarray, m2: np.ndarray, beta: Any = 1, alpha: Any = 1) -> np.ndarray:
    if beta == 1 and alpha == 1:
        return np.add(np.matmul(m1, m2), b)
    product = np.matmul(m1, m2) * m1.dtype.type(alpha)
    return product if beta == 0 else np.add(product, b * b.dtype.type(beta))  # beta = 0: self is not read (nor its nan)


class AddmmBackward0(Op):
    """out = beta · self + alpha · mat1 @ mat2 (``nn.Linear`` on a batch: bias + x @ Wᵀ)"""

    inputs = ("self", "mat1", "mat2")
    saves = ("mat1", "mat2")
    beta = alpha = 1
    forward = staticmethod(_addmm)
    rules = {
        "∂out/∂self = beta, summed over the batch": lambda n, g: g if n.beta == 1 else g * n.beta,
        "∂/∂mat1: alpha · g @ mat2ᵀ": lambda n, g, mat2: g @ mat2.mT if n.alpha == 1 else (g @ mat2.mT) * n.alpha,
        "∂/∂mat2: alpha · mat1ᵀ @ g": lambda n, g, mat1: mat1.mT @ g if n.alpha == 1 else (mat1.mT @ g) * n.alpha,
    }


class TraceBackward0(Op):
    """out = Σ selfᵢᵢ (a matrix's diagonal sum)"""

    forward = staticmethod(lambda a: np.trace(a))
    rules = {
        "∂out/∂selfᵢⱼ = 1 on the diagonal, else 0": lambda n, g: (
            g * constant(np.eye(*shape_of(n), dtype=dtype_of(n)), g)
        )
    }


def _cross(a: Any, b: Any, dim: int) -> Any:
    return np.cross(a, b, axis=dim) if isinstance(a, np.ndarray) else LinalgCrossBackward0.apply(a, b, dim=dim)


class LinalgCrossBackward0(Op):
    """out = self × other, the cross product of the length-3 vectors along dim"""

    inputs = ("self", "other")
    saves = ("self", "other")
    forward = staticmethod(lambda a, b, dim: np.cross(a, b, axis=dim))
    rules = {
        "∂/∂self: other × g": lambda n, g, other: _cross(other, g, n.dim),
        "∂/∂other: g × self": lambda n, g, self: _cross(g, self, n.dim),
    }
