"""gradbook.nn.modules.linear: Linear (y = x Wᵀ + b, initialised as torch initialises it) and
Identity, as in torch's torch/nn/modules/linear.py.
"""

from __future__ import annotations

import math
from typing import Any

from ... import _factories
from ...tensor import Tensor
from .. import functional, init
from ..parameter import Parameter
from .module import Module


class Linear(Module):
    """y = x Wᵀ + b, with W of shape (out_features, in_features).

    Weights and bias start uniform in ±1/√in_features, drawn as torch draws them (the same seed
    gives torch's numbers): ``kaiming_uniform_(weight, a=√5)``, then ``uniform_`` for the bias.
    """

    def __init__(self, in_features: int, out_features: int, bias: bool = True) -> None:
        super().__init__()
        self.in_features, self.out_features = in_features, out_features
        self.weight = Parameter(_factories.empty(out_features, in_features))
        if bias:
            self.bias = Parameter(_factories.empty(out_features))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Draw the weights again, as a new Linear would."""
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))  # = uniform in ±1/√in_features
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return functional.linear(input, self.weight, self.bias)

    def extra_repr(self) -> str:
        return f"in_features={self.in_features}, out_features={self.out_features}, bias={self.bias is not None}"


class Identity(Module):
    """Its input, unchanged (a placeholder layer)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__()

    def forward(self, input: Any) -> Any:  # noqa: A002
        return input
