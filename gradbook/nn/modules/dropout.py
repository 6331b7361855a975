"""gradbook.nn.modules.dropout: Dropout, which zeroes elements at random in training and passes its
input in eval, as in torch's torch/nn/modules/dropout.py.
"""

from __future__ import annotations

from ...tensor import Tensor
from .. import functional
from .module import Module


class Dropout(Module):
    """In training, each element zeroed with probability p and the others scaled by 1/(1-p); in eval, the input."""

    def __init__(self, p: float = 0.5, inplace: bool = False) -> None:
        super().__init__()
        if p < 0 or p > 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p, self.inplace = p, inplace

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return functional.dropout(input, self.p, self.training, self.inplace)

    def extra_repr(self) -> str:
        return f"p={self.p}, inplace={self.inplace}"
