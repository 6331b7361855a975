"""gradbook.nn.modules.flatten: Flatten, which joins dimensions start_dim..end_dim into one, as in
torch's torch/nn/modules/flatten.py.
"""

from __future__ import annotations

from ...tensor import Tensor
from .module import Module


class Flatten(Module):
    """Dimensions start_dim..end_dim joined into one: (N, C, H, W) → (N, C·H·W) by default."""

    def __init__(self, start_dim: int = 1, end_dim: int = -1) -> None:
        super().__init__()
        self.start_dim, self.end_dim = start_dim, end_dim

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return input.flatten(self.start_dim, self.end_dim)

    def extra_repr(self) -> str:
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"
