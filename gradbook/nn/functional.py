"""gradbook.nn.functional: the functional forms used in lessons (as torch.nn.functional)."""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import _dispatch, ops
from .._dtypes import scalar_name
from ..tensor import Tensor


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
    """y = x Wᵀ + b, recorded as torch records it.

    With a bias, a 2-D input is one AddmmBackward0 node; another input (1-D, 3-D, ...) with a 1-D
    bias is flattened to 2-D first and viewed back: View(Addmm(b, View(x), Wᵀ)). Without a bias it
    is ``x @ Wᵀ``.
    """
    if bias is not None:
        if input.ndim == 2:
            return _dispatch.addmm(bias, input, weight.t())
        if input.ndim == 3 or bias.ndim == 1:
            flat = _dispatch.addmm(bias, input.reshape(-1, input.shape[-1]), weight.t())
            return flat.view(*input.shape[:-1], flat.shape[-1])
    out = input @ weight.t()
    return out + bias if bias is not None else out


def mse_loss(input: Tensor, target: Tensor, reduction: str = "mean") -> Tensor:  # noqa: A002
    """Mean squared error: mean((input - target)²) (or ``sum``, or ``none``)."""
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    target = _dispatch.lift(target, input)
    if input._array.shape != target._array.shape:
        import warnings

        warnings.warn(
            f"Using a target size ({target.shape}) that is different to the input size ({input.shape}). "
            "This will likely lead to incorrect results due to broadcasting. Please ensure they have the same size.",
            UserWarning,
            stacklevel=2,
        )
        _dispatch.broadcast_check(input._array.shape, target._array.shape)
        shape = np.broadcast_shapes(input._array.shape, target._array.shape)  # as torch.broadcast_tensors
        input = input.expand(shape) if input._array.shape != shape else input
        target = target.expand(shape) if target._array.shape != shape else target
    return ops.MseLossBackward0.apply(input, target, reduction=reduction)


def nll_loss(input: Tensor, target: Tensor, reduction: str = "mean", ignore_index: int = -100) -> Tensor:  # noqa: A002
    """Negative log-likelihood: -mean of input[i, target[i]], for log-probabilities ``input``.

    ``input`` is (N, C) with N class indices, or (C,) with one (a 0-d target).
    """
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if target._array.dtype not in (np.int64, np.uint8):
        raise RuntimeError(f"expected target dtype to be Long or Byte, but got {scalar_name(target._array.dtype)}")
    if target.ndim > 1:
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if input.ndim not in (1, 2):
        raise NotImplementedError(f"gradbook's nll_loss takes (C,) or (N, C) scores, not {input.ndim}-D ones")
    batch, targets = (input.shape[0] if input.ndim == 2 else 1), target.numel()
    if targets != batch:
        raise ValueError(f"Expected input batch_size ({batch}) to match target batch_size ({targets}).")
    classes = input.shape[-1]
    bad = (target._array != ignore_index) & ((target._array < 0) | (target._array >= classes))
    if bad.any():
        raise IndexError(f"Target {int(target._array[bad][0])} is out of bounds.")
    return ops.NllLossBackward0.apply(input, target=target, reduction=reduction, ignore_index=ignore_index)


def cross_entropy(input: Tensor, target: Tensor, reduction: str = "mean", ignore_index: int = -100) -> Tensor:  # noqa: A002
    """Cross-entropy of class scores (logits) and class indices: nll_loss(log_softmax(input))."""
    classes = 1 if input.ndim > 1 else 0  # (N, C) scores, or (C,) for one example
    return nll_loss(input.log_softmax(classes), target, reduction=reduction, ignore_index=ignore_index)


_ = Any
