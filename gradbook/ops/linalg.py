"""Matrix products: dot, mv, mm, bmm, addmm (``@`` picks one), and trace."""

from __future__ import annotations

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


class AddmmBackward0(Op):
    """out = self + mat1 @ mat2 (``nn.Linear`` on a batch: bias + x @ Wᵀ)"""

    inputs = ("self", "mat1", "mat2")
    saves = ("mat1", "mat2")
    forward = staticmethod(lambda b, m1, m2: np.add(np.matmul(m1, m2), b))
    rules = {
        "∂out/∂self = 1, summed over the batch": lambda n, g: g,
        "∂/∂mat1: g @ mat2ᵀ": lambda n, g, mat2: g @ mat2.mT,
        "∂/∂mat2: mat1ᵀ @ g": lambda n, g, mat1: mat1.mT @ g,
    }


class TraceBackward0(Op):
    """out = Σ selfᵢᵢ (a matrix's diagonal sum)"""

    forward = staticmethod(lambda a: np.trace(a))
    rules = {
        "∂out/∂selfᵢⱼ = 1 on the diagonal, else 0": lambda n, g: (
            g * constant(np.eye(*shape_of(n), dtype=dtype_of(n)), g)
        )
    }
