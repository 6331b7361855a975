"""gradbook.nn.functional: the functional forms used in lessons (as torch.nn.functional)."""

from __future__ import annotations

from typing import Any

from .. import _ops
from .._tensor import Tensor


def relu(input: Tensor) -> Tensor:  # noqa: A002
    """max(x, 0), elementwise."""
    return input.relu()


def tanh(input: Tensor) -> Tensor:  # noqa: A002
    return input.tanh()


def sigmoid(input: Tensor) -> Tensor:  # noqa: A002
    return input.sigmoid()


def softmax(input: Tensor, dim: int) -> Tensor:  # noqa: A002
    return input.softmax(dim)


def log_softmax(input: Tensor, dim: int) -> Tensor:  # noqa: A002
    return input.log_softmax(dim)


def linear(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:  # noqa: A002
    """y = x Wᵀ + b. A 2-D input with a bias is one AddmmBackward0 node, as in torch."""
    if input.ndim == 2 and bias is not None:
        return _ops.AddmmBackward0.apply(bias, input, weight.t())
    out = input @ weight.t()
    return out + bias if bias is not None else out


def mse_loss(input: Tensor, target: Tensor, reduction: str = "mean") -> Tensor:  # noqa: A002
    """Mean squared error: mean((input - target)²) (or ``sum``, or ``none``)."""
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if input.shape != target.shape:
        import warnings

        warnings.warn(
            f"Using a target size ({target.shape}) that is different to the input size ({input.shape}). "
            "This will likely lead to incorrect results due to broadcasting. Please ensure they have the same size.",
            UserWarning,
            stacklevel=2,
        )
        _ops._broadcast_check(input._array.shape, target._array.shape)
    return _ops.MseLossBackward0.apply(input, _ops._lift(target, input), reduction=reduction)


def nll_loss(input: Tensor, target: Tensor, reduction: str = "mean", ignore_index: int = -100) -> Tensor:  # noqa: A002
    """Negative log-likelihood: -mean of input[i, target[i]], for log-probabilities ``input``."""
    if target._array.dtype.kind not in "iu":
        raise RuntimeError(f"expected scalar type Long but found {target.dtype}")
    if input.ndim != 2 or target.shape != input.shape[:1]:
        raise ValueError(f"Expected input batch_size ({input.shape[0]}) to match target batch_size ({target.shape[0]}).")
    classes = input.shape[1]
    bad = (target._array != ignore_index) & ((target._array < 0) | (target._array >= classes))
    if bad.any():
        raise IndexError(f"Target {int(target._array[bad][0])} is out of bounds.")
    return _ops.NllLossBackward0.apply(input, target=target, reduction=reduction, ignore_index=ignore_index)


def cross_entropy(input: Tensor, target: Tensor, reduction: str = "mean", ignore_index: int = -100) -> Tensor:  # noqa: A002
    """Cross-entropy of class scores (logits) and class indices: nll_loss(log_softmax(input))."""
    return nll_loss(input.log_softmax(1), target, reduction=reduction, ignore_index=ignore_index)


_ = Any
