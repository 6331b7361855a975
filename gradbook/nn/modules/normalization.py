"""gradbook.nn.modules.normalization: LayerNorm and RMSNorm, which normalise each row over its last
dimensions (no running statistics), as in torch's torch/nn/modules/normalization.py.
"""

from __future__ import annotations

from typing import Any

from ... import _factories
from ...autograd.grad_mode import no_grad
from ...tensor import Tensor
from .. import functional
from ..parameter import Parameter
from .module import Module


class LayerNorm(Module):
    """Normalise each row over its last dimensions (``normalized_shape``) to mean 0 and variance 1,
    then scale by ``weight`` and shift by ``bias`` (each of ``normalized_shape``), as in a
    transformer block. The same in training and eval: no running statistics.
    """

    def __init__(
        self,
        normalized_shape: Any,
        eps: float = 1e-5,
        elementwise_affine: bool = True,
        bias: bool = True,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
        self.normalized_shape, self.eps, self.elementwise_affine = shape, eps, elementwise_affine
        if elementwise_affine:
            self.weight = Parameter(_factories.ones(shape, dtype=dtype, device=device))
            if bias:
                self.bias = Parameter(_factories.zeros(shape, dtype=dtype, device=device))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return functional.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        has_bias = self.bias is not None
        return f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}, bias={has_bias}"


class RMSNorm(Module):
    """Scale each row, over its last dimensions (``normalized_shape``), by the inverse of its root mean
    square, then by ``weight``: LayerNorm without the mean and the bias (as in LLaMA-style models).
    ``eps=None`` is the dtype's machine epsilon, as in torch."""

    def __init__(
        self,
        normalized_shape: Any,
        eps: float | None = None,
        elementwise_affine: bool = True,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
        self.normalized_shape, self.eps, self.elementwise_affine = shape, eps, elementwise_affine
        if elementwise_affine:
            self.weight = Parameter(_factories.ones(shape, dtype=dtype, device=device))
        else:
            self.register_parameter("weight", None)

    def reset_parameters(self) -> None:
        if self.weight is not None:
            with no_grad():
                self.weight.fill_(1.0)

    def forward(self, x: Tensor) -> Tensor:
        return functional.rms_norm(x, self.normalized_shape, self.weight, self.eps)

    def extra_repr(self) -> str:
        return f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}"
