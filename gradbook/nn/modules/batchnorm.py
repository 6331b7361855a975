"""gradbook.nn.modules.batchnorm: BatchNorm1d and BatchNorm2d, which normalise each channel with the
batch's statistics in training and the running ones (buffers) in eval, as in torch's
torch/nn/modules/batchnorm.py.
"""

from __future__ import annotations

from typing import Any

from ... import _factories
from ...tensor import Tensor
from .. import functional
from ..parameter import Parameter
from .module import Module


class BatchNorm1d(Module):
    """Normalise each channel (dimension 1 of (N, C) or (N, C, L)) to mean 0 and variance 1, then
    scale by ``weight`` and shift by ``bias``.

    In training it uses the batch's statistics and updates the buffers ``running_mean`` and
    ``running_var`` (unbiased) with ``momentum`` (None: their cumulative average), counting
    ``num_batches_tracked``; in eval it uses the running statistics.
    """

    _version = 2
    _input_dims, _input_text = (2, 3), "2D or 3D"
    _optional_keys = ("num_batches_tracked",)  # as torch: a plain dict (no _metadata) may omit it

    def __init__(
        self,
        num_features: int,
        eps: float = 1e-5,
        momentum: float | None = 0.1,
        affine: bool = True,
        track_running_stats: bool = True,
        device: Any = None,
        dtype: Any = None,
        *,
        bias: bool = True,
    ) -> None:
        super().__init__()
        self.num_features, self.eps, self.momentum = num_features, eps, momentum
        self.affine, self.track_running_stats = affine, track_running_stats
        if affine:
            self.weight = Parameter(_factories.ones(num_features, dtype=dtype, device=device))
            if bias:
                self.bias = Parameter(_factories.zeros(num_features, dtype=dtype, device=device))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        if track_running_stats:
            self.register_buffer("running_mean", _factories.zeros(num_features, dtype=dtype, device=device))
            self.register_buffer("running_var", _factories.ones(num_features, dtype=dtype, device=device))
            self.register_buffer("num_batches_tracked", _factories.tensor(0))
        else:
            for name in ("running_mean", "running_var", "num_batches_tracked"):
                self.register_buffer(name, None)

    def reset_running_stats(self) -> None:
        if self.track_running_stats:
            self.running_mean.zero_()
            self.running_var.fill_(1)
            self.num_batches_tracked.zero_()

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        if input.dim() not in self._input_dims:
            raise ValueError(f"expected {self._input_text} input (got {input.dim()}D input)")
        factor = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats and self.num_batches_tracked is not None:
            self.num_batches_tracked.add_(1)
            factor = 1.0 / float(self.num_batches_tracked) if self.momentum is None else self.momentum
        use_batch = self.training or (self.running_mean is None and self.running_var is None)
        tracked = not self.training or self.track_running_stats
        return functional.batch_norm(
            input,
            self.running_mean if tracked else None,
            self.running_var if tracked else None,
            self.weight,
            self.bias,
            use_batch,
            factor,
            self.eps,
        )

    def extra_repr(self) -> str:
        return (
            f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, affine={self.affine}, "
            f"bias={self.bias is not None}, track_running_stats={self.track_running_stats}"
        )


class BatchNorm2d(BatchNorm1d):
    """Normalise each channel (dimension 1 of (N, C, H, W)) to mean 0 and variance 1 over the batch
    and the positions, then scale and shift: BatchNorm1d for images."""

    _input_dims, _input_text = (4,), "4D"
