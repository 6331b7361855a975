"""gradbook.nn.functional: the functional forms used in lessons (as torch.nn.functional)."""

from __future__ import annotations

import operator
import warnings
from typing import Any

import numpy as np

from .. import _arguments, _factories, ops
from .._dtypes import float16, scalar_name, type_name
from .._messages import warn_once
from ..autograd import inplace as _inplace
from ..autograd.grad_mode import no_grad
from ..ops.conv import pool_indices
from ..ops.normalization import batch_dims
from ..tensor import Tensor


def relu(input: Tensor, inplace: bool = False) -> Tensor:  # noqa: A002
    """max(x, 0), elementwise (with ``inplace=True``, written into ``input``, as ``input.relu_()``)."""
    return input.relu_() if inplace else input.relu()


def tanh(input: Tensor) -> Tensor:  # noqa: A002
    return input.tanh()


def sigmoid(input: Tensor) -> Tensor:  # noqa: A002
    return input.sigmoid()


def _in_place(t: Tensor, op: Any, **params: Any) -> Tensor:
    """An activation's ``inplace=True``: the op's result written into ``t``, which takes its node (torch's
    ``elu_``, ``hardtanh_`` …: refused on a leaf that requires grad, and on a tensor saved for backward)."""
    return _inplace.update(t, lambda x, _: op.apply(x, **params), None)


def softmax(input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype: Any = None) -> Tensor:  # noqa: A002
    """e^x / Σ e^x along ``dim`` (torch's legacy choice of dim, with its warning, when none is given), computed
    in ``dtype`` if one is given (a ToCopyBackward0 first, as torch)."""
    dim = _implicit_dim("softmax", input.ndim, _stacklevel) if dim is None else dim
    return input.softmax(dim, dtype)


def log_softmax(input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype: Any = None) -> Tensor:  # noqa: A002
    """x - ln Σ e^x along ``dim``, as ``softmax``."""
    dim = _implicit_dim("log_softmax", input.ndim, _stacklevel) if dim is None else dim
    return input.log_softmax(dim, dtype)


def _implicit_dim(name: str, ndim: int, stacklevel: int) -> int:
    """torch's legacy choice when no dim is given (with its warning)."""
    warnings.warn(
        f"Implicit dimension choice for {name} has been deprecated. Change the call to include dim=X as an argument.",
        UserWarning,
        stacklevel=stacklevel,
    )
    return 0 if ndim in (0, 1, 3) else 1


def linear(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:  # noqa: A002
    """y = x Wᵀ + b, recorded as torch records it.

    With a bias, a 2-D input is one AddmmBackward0 node; another input (1-D, 3-D, ...) with a 1-D
    bias is flattened to 2-D first and viewed back: View(Addmm(b, View(x), Wᵀ)). Without a bias it
    is ``x @ Wᵀ``.
    """
    if bias is not None:
        if input.ndim == 2:
            return _arguments.addmm(bias, input, weight.t())
        if input.ndim == 3 or bias.ndim == 1:
            flat = _arguments.addmm(bias, input.reshape(-1, input.shape[-1]), weight.t())
            return flat.view(*input.shape[:-1], flat.shape[-1])
    out = input @ weight.t()
    return out + bias if bias is not None else out


def _check_reduction(reduction: str) -> None:
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not a valid value for reduction")


def _broadcast_target(input: Tensor, target: Any) -> tuple[Tensor, Tensor]:  # noqa: A002
    """As torch's pointwise losses: a target of another size is broadcast against the input,
    with torch's warning."""
    target = _arguments.lift(target, input)
    if input._array.shape != target._array.shape:
        warnings.warn(
            f"Using a target size ({target.shape}) that is different to the input size ({input.shape}). "
            "This will likely lead to incorrect results due to broadcasting. Please ensure they have the same size.",
            UserWarning,
            stacklevel=3,
        )
        _arguments.broadcast_check(input._array.shape, target._array.shape)
        shape = np.broadcast_shapes(input._array.shape, target._array.shape)  # as torch.broadcast_tensors
        input = input.expand(shape) if input._array.shape != shape else input
        target = target.expand(shape) if target._array.shape != shape else target
    return input, target


def mse_loss(input: Tensor, target: Tensor, reduction: str = "mean") -> Tensor:  # noqa: A002
    """Mean squared error: mean((input - target)²) (or ``sum``, or ``none``)."""
    _check_reduction(reduction)
    input, target = _broadcast_target(input, target)
    return ops.MseLossBackward0.apply(input, target, reduction=reduction)


def nll_loss(
    input: Tensor,  # noqa: A002
    target: Tensor,
    weight: Tensor | None = None,
    size_average: Any = None,
    ignore_index: int = -100,
    reduce: Any = None,
    reduction: str = "mean",
) -> Tensor:
    """Negative log-likelihood: -mean of input[i, target[i]], for log-probabilities ``input``
    (weighted by class with ``weight``: the mean divides by the targets' total weight).

    ``input`` is (N, C) with N class indices, or (C,) with one (a 0-d target), or (N, C, d1, d2, ...)
    with (N, d1, d2, ...) targets, one per pixel (torch's NllLoss2DBackward0, the input viewed as
    (N, C, 1, d1·d2·…) unless it is 4-D).
    """
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    if input.ndim < 1:
        raise ValueError(f"Expected 1 or more dimensions (got {input.ndim})")
    if input.ndim > 2:
        return _nll_loss_pixels(input, target, weight, ignore_index, reduction)
    if target.ndim > 1:
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    batch = input.shape[0] if input.ndim == 2 else 1
    targets = target.numel() if input.ndim == 1 else target.shape[0] if target.ndim else 0
    if targets != batch:
        raise ValueError(f"Expected input batch_size ({batch}) to match target batch_size ({targets}).")
    _check_classes(input, input.shape[-1], target, weight, ignore_index)
    return ops.NllLossBackward0.apply(
        input, target=target, reduction=reduction, ignore_index=ignore_index, weight=weight
    )


def _nll_loss_pixels(
    input: Tensor,  # noqa: A002
    target: Tensor,
    weight: Tensor | None,
    ignore_index: int,
    reduction: str,
) -> Tensor:
    """nll_loss of (N, C, d1, ...) log-probabilities and (N, d1, ...) targets, as ATen's nll_loss_nd."""
    n, classes = input.shape[0], input.shape[1]
    if target.ndim and target.shape[0] != n:
        raise ValueError(f"Expected input batch_size ({n}) to match target batch_size ({target.shape[0]}).")
    out_size = [n, *input.shape[2:]]
    if input.ndim == 4:
        if target.ndim != 3:
            raise RuntimeError(
                f"only batches of spatial targets supported (3D tensors) but got targets of dimension: {target.ndim}"
            )
        if list(target.shape) != out_size:
            raise RuntimeError(f"size mismatch (got input: {list(input.shape)} , target: {list(target.shape)}")
    elif list(target.shape) != out_size:
        raise RuntimeError(f"Expected target size {out_size}, got {list(target.shape)}")
    if weight is not None and weight.numel() != classes:
        raise RuntimeError("weight tensor should be defined either for all or no classes")
    weight = None if weight is None else weight.reshape(-1)  # any shape of C elements
    _check_classes(input, classes, target, weight, ignore_index)
    if target._array.dtype != np.int64:  # Byte passes the first check, not the kernel's
        raise RuntimeError(f"expected scalar type Long but found {scalar_name(target._array.dtype)}")
    flat = input.ndim != 4 and input.numel() > 0
    if flat:  # ATen views the pixels as one row: (N, C, 1, d1·d2·…)
        input, target = input.contiguous().view(n, classes, 1, -1), target.contiguous().view(n, 1, -1)
    out = ops.NllLoss2DBackward0.apply(
        input, target=target, reduction=reduction, ignore_index=ignore_index, weight=weight
    )
    return out.view(out_size) if flat and reduction == "none" else out


def _check_classes(input: Tensor, classes: int, target: Tensor, weight: Tensor | None, ignore_index: int) -> None:  # noqa: A002
    if target._array.dtype not in (np.int64, np.uint8):
        raise RuntimeError(f"expected target dtype to be Long or Byte, but got {scalar_name(target._array.dtype)}")
    bad = (target._array != ignore_index) & ((target._array < 0) | (target._array >= classes))
    if bad.any():
        raise IndexError(f"Target {int(target._array[bad][0])} is out of bounds.")
    if weight is not None and (weight.ndim != 1 or weight.numel() != classes):
        raise RuntimeError(
            f"weight tensor should be defined either for all {classes} classes or no classes but got weight "
            f"tensor of shape: {list(weight.shape)}"
        )
    if weight is not None and weight._array.dtype != input._array.dtype:
        raise RuntimeError(
            f"expected scalar type {scalar_name(input._array.dtype)} but found {scalar_name(weight._array.dtype)}"
        )


def cross_entropy(
    input: Tensor,  # noqa: A002
    target: Tensor,
    weight: Tensor | None = None,
    size_average: Any = None,
    ignore_index: int = -100,
    reduce: Any = None,
    reduction: str = "mean",
    label_smoothing: float = 0.0,
) -> Tensor:
    """Cross-entropy of class scores (logits) and class indices, nll_loss(log_softmax(input)), or class
    probabilities (a float target of the input's shape); with ``label_smoothing`` ε, the target mixed with
    the uniform distribution, (1 - ε)·target + ε/C, computed as torch's ATen code computes it."""
    classes = 1 if input.ndim > 1 else 0  # (N, C) scores, or (C,) for one example
    reduction = _legacy_reduction(size_average, reduce, reduction)  # nll_loss checks it
    if label_smoothing > 1.0:
        raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}")
    if isinstance(target, Tensor) and tuple(input.shape) == tuple(target.shape):  # class probabilities
        if not target.is_floating_point():
            raise RuntimeError(
                "Expected floating point type for target with class probabilities, got "
                f"{scalar_name(target._array.dtype)}"
            )
        if ignore_index >= 0:
            raise RuntimeError("ignore_index is not supported for floating point target")
        return _cross_entropy_probabilities(input, target, weight, reduction, label_smoothing, classes)
    log_p = input.log_softmax(classes)
    loss = nll_loss(log_p, target, weight, ignore_index=ignore_index, reduction=reduction)
    if label_smoothing <= 0.0:
        return loss
    n = input.shape[classes]  # ATen's cross_entropy_loss_label_smoothing, step by step
    ignored = target == ignore_index
    if weight is not None:
        shape = [1] * log_p.ndim
        shape[classes] = n
        smooth = -(log_p * weight.view(shape)).sum(classes)
    else:
        smooth = -log_p.sum(classes)
    smooth.masked_fill_(ignored, 0.0)
    if reduction == "mean":
        kept = weight.gather(0, target[~ignored].flatten()).sum() if weight is not None else (~ignored).sum()
        smooth = smooth.sum() / kept
    elif reduction == "sum":
        smooth = smooth.sum()
    return ops.MulBackward1.apply(loss, other=1 - label_smoothing) + ops.MulBackward1.apply(
        smooth, other=label_smoothing / n
    )


def _cross_entropy_probabilities(
    input: Tensor,  # noqa: A002
    target: Tensor,
    weight: Tensor | None,
    reduction: str,
    label_smoothing: float,
    classes: int,
) -> Tensor:
    """Cross-entropy against class probabilities, -Σ target · log_softmax(input), as ATen computes it."""
    _check_reduction(reduction)
    n = input.shape[classes]
    if weight is not None and (weight.ndim != 1 or weight.numel() != n):
        raise RuntimeError(
            f"cross_entropy: weight tensor should be defined either for all {n} classes or no classes but got "
            f"weight tensor of shape: {list(weight.shape)}"
        )
    log_p = input.log_softmax(classes)
    if label_smoothing > 0.0:
        target = target * (1 - label_smoothing) + label_smoothing / n
    product = log_p * target
    if weight is not None:
        shape = [1] * log_p.ndim
        shape[classes] = n
        product = product * (weight.view(shape) if log_p.ndim > 1 else weight)
    if reduction == "none":
        return -product.sum(classes)
    total = -product.sum()
    return total if reduction == "sum" else ops.DivBackward1.apply(total, other=input.numel() // n)


# ------------------------------------------------ activations


def _floating_input(input: Tensor, kernel: str) -> None:  # noqa: A002
    if input._array.dtype.kind != "f":
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{scalar_name(input._array.dtype)}'")


def leaky_relu(input: Tensor, negative_slope: float = 0.01, inplace: bool = False) -> Tensor:  # noqa: A002
    """x where x > 0, else negative_slope · x (one LeakyReluBackward0 node).

    >>> import gradbook as torch
    >>> torch.nn.functional.leaky_relu(torch.tensor([-2.0, 3.0]), 0.1)
    tensor([-0.2000,  3.0000])
    """
    _floating_input(input, "leaky_relu_cpu")
    if inplace:  # torch's leaky_relu_: its node reads the result
        return _in_place(input, ops.LeakyReluBackward1, negative_slope=negative_slope)
    return ops.LeakyReluBackward0.apply(input, negative_slope=negative_slope)


def softplus(input: Tensor, beta: float = 1.0, threshold: float = 20.0) -> Tensor:  # noqa: A002
    """log(1 + e^(beta·x)) / beta, a smooth relu (x itself where beta·x > threshold).

    >>> import gradbook as torch
    >>> torch.nn.functional.softplus(torch.tensor([-1.0, 0.0, 30.0]))
    tensor([ 0.3133,  0.6931, 30.0000])
    """
    _floating_input(input, "softplus_cpu")
    return ops.SoftplusBackward0.apply(input, beta=beta, threshold=threshold)


def silu(input: Tensor, inplace: bool = False) -> Tensor:  # noqa: A002
    """x · σ(x) (also called swish).

    >>> import gradbook as torch
    >>> torch.nn.functional.silu(torch.tensor([-1.0, 0.0, 1.0]))
    tensor([-0.2689,  0.0000,  0.7311])
    """
    _floating_input(input, "silu_cpu")
    return _in_place(input, ops.SiluBackward0) if inplace else ops.SiluBackward0.apply(input)


def mish(input: Tensor, inplace: bool = False) -> Tensor:  # noqa: A002
    """x · tanh(softplus(x))."""
    _floating_input(input, "mish_cpu")
    return _in_place(input, ops.MishBackward0) if inplace else ops.MishBackward0.apply(input)


def elu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:  # noqa: A002
    """x where x > 0, else alpha · (eˣ - 1)."""
    _floating_input(input, "elu_cpu")
    if inplace:  # torch's elu_: its node reads the result
        return _in_place(input, ops.EluBackward1, alpha=alpha)
    return ops.EluBackward0.apply(input, alpha=alpha)


def hardtanh(input: Tensor, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False) -> Tensor:  # noqa: A002
    """x limited to [min_val, max_val]."""
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    if inplace:
        return _in_place(input, ops.HardtanhBackward0, min_val=min_val, max_val=max_val)
    return ops.HardtanhBackward0.apply(input, min_val=min_val, max_val=max_val)


def relu6(input: Tensor, inplace: bool = False) -> Tensor:  # noqa: A002
    """x limited to [0, 6] (a hardtanh, as torch records it)."""
    return hardtanh(input, 0.0, 6.0, inplace)


def logsigmoid(input: Tensor) -> Tensor:  # noqa: A002
    """log σ(x), computed without overflow."""
    _floating_input(input, "log_sigmoid_cpu")
    return ops.LogSigmoidBackward0.apply(input)


def softsign(input: Tensor) -> Tensor:  # noqa: A002
    """x / (1 + |x|) (recorded as its ops: Div, Add, Abs, as torch)."""
    return input / (input.abs() + 1)


def normalize(input: Tensor, p: float = 2.0, dim: int = 1, eps: float = 1e-12) -> Tensor:  # noqa: A002
    """x divided by its p-norm along ``dim`` (at least eps), as torch composes it."""
    denom = input.norm(p, dim, keepdim=True).clamp_min(eps).expand_as(input)
    return input / denom


def gelu(input: Tensor, approximate: str = "none") -> Tensor:  # noqa: A002
    """x · Φ(x), Φ the standard normal CDF; ``approximate="tanh"`` uses torch's tanh formula.

    >>> import gradbook as torch
    >>> torch.nn.functional.gelu(torch.tensor([-1.0, 0.0, 1.0]))
    tensor([-0.1587,  0.0000,  0.8413])
    """
    if approximate not in ("none", "tanh"):
        raise RuntimeError("approximate argument must be either none or tanh.")
    _floating_input(input, "GeluKernelImpl")
    return ops.GeluBackward0.apply(input, approximate=approximate)


def dropout(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:  # noqa: A002
    """In training, each element zeroed with probability p and the rest scaled by 1/(1-p), as
    torch: ``input * mask`` (a MulBackward0 node); outside training (or p = 0), ``input`` itself.

    >>> import gradbook as torch
    >>> x = torch.ones(4)
    >>> torch.nn.functional.dropout(x, 0.5, training=False) is x
    True
    """
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0:
        return input
    if p == 1:
        mask = _factories.zeros((), dtype=input.dtype)  # torch multiplies by a 0-d zero
    else:
        mask = _factories.empty(input.shape, dtype=input.dtype).bernoulli_(1 - p).div_(1 - p)  # as torch draws it
    return input.mul_(mask) if inplace else input * mask


# ------------------------------------------------ normalisation and lookup


def _ints(value: Any, nd: int) -> tuple[int, ...]:
    """An int or a tuple of them, as one per spatial dimension."""
    return tuple(int(v) for v in value) if isinstance(value, (tuple, list)) else (int(value),) * nd


def _conv_padding(padding: Any, kernel: tuple, dilation: tuple, stride: tuple) -> tuple[tuple[int, int], ...]:
    """Each spatial dimension's (before, after) padding; 'same' keeps the size (stride 1 only)."""
    if padding == "valid":
        return ((0, 0),) * len(kernel)
    if padding == "same":
        if any(s != 1 for s in stride):
            raise RuntimeError("padding='same' is not supported for strided convolutions")
        totals = [d * (k - 1) for k, d in zip(kernel, dilation)]
        return tuple((t // 2, t - t // 2) for t in totals)
    if isinstance(padding, str):
        raise ValueError(f"Invalid padding string '{padding}', should be one of {{'valid', 'same'}}")
    return tuple((p, p) for p in _ints(padding, len(kernel)))


def _convolution(
    input: Tensor, weight: Tensor, bias: Any, stride: Any, padding: Any, dilation: Any, groups: int, nd: int
) -> Tensor:  # noqa: A002
    if input.ndim == nd + 1:  # one example without a batch dimension, as torch accepts
        return _convolution(input.unsqueeze(0), weight, bias, stride, padding, dilation, groups, nd).squeeze(0)
    if input.ndim != nd + 2:
        raise RuntimeError(
            f"Expected {nd + 1}D (unbatched) or {nd + 2}D (batched) input to conv{nd}d, but got input of size: "
            f"{list(input.shape)}"
        )
    if input.shape[1] != weight.shape[1] * groups:
        raise RuntimeError(
            f"Given groups={groups}, weight of size {list(weight.shape)}, expected input{list(input.shape)} to have "
            f"{weight.shape[1] * groups} channels, but got {input.shape[1]} channels instead"
        )
    kernel = tuple(weight.shape[2:])
    stride, dilation = _ints(stride, nd), _ints(dilation, nd)
    pads = _conv_padding(padding, kernel, dilation, stride)
    if any(b != e for b, e in pads):  # 'same' with an even kernel: torch pads the extra element first, and warns
        warn_once(
            "Using padding='same' with even kernel lengths and odd dilation may require a zero-padded copy of the "
            "input be created"
        )
        extra = [x for b, e in reversed(pads) for x in (0, e - b)]
        input = pad(input, extra)  # noqa: A001
        pads = tuple((b, b) for b, _ in pads)
    padded = [s + b + e for s, (b, e) in zip(input.shape[2:], pads)]
    span = [d * (k - 1) + 1 for k, d in zip(kernel, dilation)]
    if any(p < k for p, k in zip(padded, span)):
        raise RuntimeError(
            f"Calculated padded input size per channel: ({' x '.join(map(str, padded))}). Kernel size: "
            f"({' x '.join(map(str, span))}). Kernel size can't be greater than actual input size"
        )
    bias = bias if bias is not None else _factories.zeros(weight.shape[0], dtype=input.dtype)  # needs no gradient
    return ops.ConvolutionBackward0.apply(
        input, weight, bias, stride=stride, padding=pads, dilation=dilation, groups=groups, output_padding=(0,) * nd
    )


def conv2d(
    input: Tensor,  # noqa: A002
    weight: Tensor,
    bias: Tensor | None = None,
    stride: Any = 1,
    padding: Any = 0,
    dilation: Any = 1,
    groups: int = 1,
) -> Tensor:
    """A 2-D convolution (as torch, a cross-correlation): input (N, C, H, W), weight (O, C/groups, kH,
    kW); one ConvolutionBackward0 node.

    >>> import gradbook as torch
    >>> x = torch.arange(9.0).reshape(1, 1, 3, 3)
    >>> torch.nn.functional.conv2d(x, torch.ones(1, 1, 2, 2))
    tensor([[[[ 8., 12.],
              [20., 24.]]]])
    """
    return _convolution(input, weight, bias, stride, padding, dilation, groups, 2)


def _conv_transpose(
    input: Tensor,  # noqa: A002
    weight: Tensor,
    bias: Any,
    stride: Any,
    padding: Any,
    output_padding: Any,
    groups: int,
    dilation: Any,
    nd: int,
) -> Tensor:
    if isinstance(padding, str):
        raise TypeError(f"conv_transpose{nd}d(): argument 'padding' must be tuple of ints, not str")
    if input.ndim == nd + 1:  # one example without a batch dimension
        args = (weight, bias, stride, padding, output_padding, groups, dilation, nd)
        return _conv_transpose(input.unsqueeze(0), *args).squeeze(0)
    if input.ndim != nd + 2:
        raise RuntimeError(
            f"Expected {nd + 1}D (unbatched) or {nd + 2}D (batched) input to conv_transpose{nd}d, but got input of "
            f"size: {list(input.shape)}"
        )
    if input.shape[1] != weight.shape[0]:
        raise RuntimeError(
            f"Given transposed=1, weight of size {list(weight.shape)}, expected input{list(input.shape)} to have "
            f"{weight.shape[0]} channels, but got {input.shape[1]} channels instead"
        )
    stride, dilation, pads, extra = (_ints(v, nd) for v in (stride, dilation, padding, output_padding))
    if any(e >= s and e >= d for e, s, d in zip(extra, stride, dilation)):
        names = ("height", "width") if nd == 2 else ("width",)
        got = " ".join(
            f"{what}_{name}: {v}"
            for what, vs in (("output_padding", extra), ("stride", stride), ("dilation", dilation))
            for name, v in zip(names, vs)
        )
        raise RuntimeError(f"output padding must be smaller than either stride or dilation, but got {got}")
    size = [
        (i - 1) * s - 2 * p + d * (k - 1) + e + 1
        for i, s, p, d, k, e in zip(input.shape[2:], stride, pads, dilation, weight.shape[2:], extra)
    ]
    if any(v <= 0 for v in size):  # torch names the sizes as 2-D for conv_transpose1d
        shown = [[1, *input.shape[2:]], [1, *size]] if nd == 1 else [list(input.shape[2:]), size]
        raise RuntimeError(
            f"Given input size per channel: ({' x '.join(map(str, shown[0]))}). Calculated output size per channel: "
            f"({' x '.join(map(str, shown[1]))}). Output size is too small"
        )
    bias = bias if bias is not None else _factories.zeros(weight.shape[1] * groups, dtype=input.dtype)
    return ops.ConvolutionBackward0.apply(
        input,
        weight,
        bias,
        stride=stride,
        padding=tuple((p, p) for p in pads),
        dilation=dilation,
        groups=groups,
        transposed=True,
        output_padding=extra,
    )


def conv_transpose2d(
    input: Tensor,  # noqa: A002
    weight: Tensor,
    bias: Tensor | None = None,
    stride: Any = 1,
    padding: Any = 0,
    output_padding: Any = 0,
    groups: int = 1,
    dilation: Any = 1,
) -> Tensor:
    """A transposed 2-D convolution (the input gradient of conv2d, used to upsample): input (N, C_in, H, W),
    weight (C_in, C_out/groups, kH, kW); one ConvolutionBackward0 node (``transposed=True``)."""
    return _conv_transpose(input, weight, bias, stride, padding, output_padding, groups, dilation, 2)


def conv_transpose1d(
    input: Tensor,  # noqa: A002
    weight: Tensor,
    bias: Tensor | None = None,
    stride: Any = 1,
    padding: Any = 0,
    output_padding: Any = 0,
    groups: int = 1,
    dilation: Any = 1,
) -> Tensor:
    """A transposed 1-D convolution: input (N, C_in, L), weight (C_in, C_out/groups, k)."""
    return _conv_transpose(input, weight, bias, stride, padding, output_padding, groups, dilation, 1)


def conv1d(
    input: Tensor,  # noqa: A002
    weight: Tensor,
    bias: Tensor | None = None,
    stride: Any = 1,
    padding: Any = 0,
    dilation: Any = 1,
    groups: int = 1,
) -> Tensor:
    """A 1-D convolution: input (N, C, L), weight (O, C/groups, k); one ConvolutionBackward0 node."""
    return _convolution(input, weight, bias, stride, padding, dilation, groups, 1)


_PAD_SIZES = (
    "Supported combinations for non-constant padding:\n"
    "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
    "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
    "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)"
)


def pad(input: Tensor, pad: Any, mode: str = "constant", value: float | None = None) -> Tensor:  # noqa: A002
    """``input`` with borders added to its last dimensions: ``pad`` is (left, right) for the last one, then
    (top, bottom) for the one before ...; ``mode`` "constant" (``value``, 0 by default; a negative pad crops),
    "reflect", "replicate" or "circular" (the last 1, 2 or 3 dimensions of a batch).

    >>> import gradbook as torch
    >>> torch.nn.functional.pad(torch.tensor([[1.0, 2.0, 3.0]]), (2, 1), mode="reflect")
    tensor([[3., 2., 1., 2., 3., 2.]])
    """
    return _pad(input, tuple(int(p) for p in pad), mode, value)


def _pad(input: Tensor, pad: tuple, mode: str, value: float | None) -> Tensor:  # noqa: A002
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) // 2 > input.ndim:
        raise RuntimeError(
            "Padding length should be less than or equal to two times the input dimension but got padding length "
            f"{len(pad)} and input of dimension {input.ndim}"
        )
    if mode == "constant":
        return ops.ConstantPadNdBackward0.apply(input, pad=pad, value=0.0 if value is None else value)
    if value is not None and value != 0:
        raise RuntimeError(f'Padding mode "{mode}" doesn\'t take in value argument')
    if mode not in ("reflect", "replicate", "circular"):
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    dims = len(pad) // 2
    if not 1 <= dims <= 3 or input.ndim not in (dims + 1, dims + 2):
        raise NotImplementedError(
            f"Padding size {len(pad)} is not supported for {input.ndim}D input tensor.\n{_PAD_SIZES}"
        )
    if mode in ("reflect", "replicate") and min(pad) < 0:
        raise NotImplementedError(f"gradbook's pad in {mode} mode takes no negative pad: crop by slicing first")
    if mode == "reflect":
        for k in range(dims):
            d = input.ndim - 1 - k
            if pad[2 * k] >= input.shape[d] or pad[2 * k + 1] >= input.shape[d]:
                raise RuntimeError(
                    "Argument #4: Padding size should be less than the corresponding input dimension, but got: "
                    f"padding ({pad[2 * k]}, {pad[2 * k + 1]}) at dimension {d} of input {list(input.shape)}"
                )
        reflection = (ops.ReflectionPad1DBackward0, ops.ReflectionPad2DBackward0, ops.ReflectionPad3DBackward0)
        return reflection[dims - 1].apply(input, padding=pad)
    if mode == "replicate":
        replication = (ops.ReplicationPad1DBackward0, ops.ReplicationPad2DBackward0, ops.ReplicationPad3DBackward0)
        return replication[dims - 1].apply(input, padding=pad)
    return _pad_circular(input, pad)


def _pad_circular(input: Tensor, pad: tuple) -> Tensor:  # noqa: A002
    """Circular padding as torch's ``_pad_circular`` builds it: the input copied into the middle of a new
    tensor, then each border copied from the opposite side of that tensor (CopySlices of slices)."""
    dims = len(pad) // 2
    shape = list(input.shape)
    for k in range(dims):
        d = input.ndim - 1 - k
        if pad[2 * k] > shape[d] or pad[2 * k + 1] > shape[d]:
            raise RuntimeError("Padding value causes wrapping around more than once.")
        shape[d] += pad[2 * k] + pad[2 * k + 1]
        if shape[d] < 0:
            raise RuntimeError("Negative padding value is resulting in an empty dimension")
    out = _factories.empty(*shape, dtype=input.dtype)
    inner, source = [slice(None)] * input.ndim, [slice(None)] * input.ndim
    for k in range(dims):
        d, (left, right) = input.ndim - 1 - k, (pad[2 * k], pad[2 * k + 1])
        inner[d] = slice(max(left, 0), shape[d] - max(right, 0))
        source[d] = slice(max(-left, 0), input.shape[d] - max(-right, 0))
    out[tuple(inner)] = input[tuple(source)]
    for k in range(dims):
        d, (left, right) = input.ndim - 1 - k, (pad[2 * k], pad[2 * k + 1])
        if left > 0:
            out[(slice(None),) * d + (slice(0, left),)] = out[
                (slice(None),) * d + (slice(shape[d] - left - max(right, 0), shape[d] - max(right, 0)),)
            ]
        if right > 0:
            out[(slice(None),) * d + (slice(shape[d] - right, shape[d]),)] = out[
                (slice(None),) * d + (slice(max(left, 0), max(left, 0) + right),)
            ]
    return out


def _pool_args(
    input: Tensor,  # noqa: A002
    kernel_size: Any,
    stride: Any,
    padding: Any,
    dilation: Any = 1,
    ceil_mode: bool = False,
) -> tuple:
    """kernel, stride, each spatial dim's (before, after) padding, dilation. With ``ceil_mode`` the last
    window may run past the input: padded after as far as it does (torch's rule: it starts inside)."""
    if input.ndim not in (3, 4):
        raise RuntimeError("non-empty 3D or 4D (batch mode) tensor expected for input")
    kernel = _ints(kernel_size, 2)
    stride = kernel if stride is None or stride == [] else _ints(stride, 2)
    pads, dilation = _ints(padding, 2), _ints(dilation, 2)
    for p, k, d in zip(pads, kernel, dilation):
        if p > (d * (k - 1) + 1) // 2:
            raise RuntimeError(
                f"pad should be at most half of effective kernel size, but got pad={p}, kernel_size={k} and "
                f"dilation={d}"
            )
    sides = zip(input.shape[-2:], kernel, pads, stride, dilation)
    pairs = tuple(_padding_pair(*side, _windows(*side, ceil_mode)) for side in sides)
    return kernel, stride, pairs, dilation


def _windows(size: int, k: int, p: int, s: int, d: int, ceil_mode: bool) -> int:
    """How many windows fit along one dimension (ATen's pooling_output_shape); with ``ceil_mode`` the last
    may run past the input, but must start inside it or its padding."""
    out = (size + 2 * p - d * (k - 1) - 1 + (s - 1 if ceil_mode else 0)) // s + 1
    return out - 1 if ceil_mode and (out - 1) * s >= size + p else out


def _padding_pair(size: int, k: int, p: int, s: int, d: int, windows: int) -> tuple[int, int]:
    """(before, after) padding along one dimension: ``p``, and after as far as the last window runs."""
    return p, max(p, (windows - 1) * s + d * (k - 1) + 1 - size - p)


def max_pool2d(
    input: Tensor,  # noqa: A002
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    dilation: Any = 1,
    ceil_mode: bool = False,
    return_indices: bool = False,
) -> Any:
    """The largest value of each window; one MaxPool2DWithIndicesBackward0 node (the gradient goes
    to each window's largest value). ``return_indices=True`` also gives where each one was, as an
    index into its channel's H·W values."""
    caller = "max_pool2d_with_indices" if return_indices else "max_pool2d"
    kernel_size, stride, padding, dilation = (
        _int_list(value, name, position, caller)
        for value, name, position in (
            (kernel_size, "kernel_size", 2),
            ((), "stride", 3) if stride is None else (stride, "stride", 3),
            (padding, "padding", 4),
            (dilation, "dilation", 5),
        )
    )
    window = _max_pool_window(input, kernel_size, stride, padding, dilation, bool(ceil_mode))
    batch = input._array if input.ndim == 4 else input._array[None]
    indices = pool_indices(batch, *window)
    indices = indices if input.ndim == 4 else indices[0]
    out = ops.MaxPool2DWithIndicesBackward0.apply(
        input,
        kernel_size=kernel_size,
        stride=stride,
        padding=padding,
        dilation=dilation,
        ceil_mode=bool(ceil_mode),
        result1=indices,
        window=window,
    )
    return (out, Tensor._make(indices)) if return_indices else out


def _int_list(value: Any, name: str, position: int, caller: str) -> tuple[int, ...]:
    """An ``int[2]`` argument as torch's parser takes it: an int (made two), or a tuple or list as given. The
    parser checks the first element's type (a bool is no int there); the others need only convert."""
    if isinstance(value, (tuple, list)):
        if value and (isinstance(value[0], bool) or not hasattr(value[0], "__index__")):
            raise TypeError(
                f"{caller}(): argument '{name}' (position {position}) must be tuple of ints, but found element of "
                f"type {type(value[0]).__name__} at pos 0"
            )
        for i, v in enumerate(value[1:], 2):
            if not hasattr(v, "__index__"):
                raise TypeError(
                    f"{caller}(): argument '{name}' failed to unpack the object at pos {i} with error "
                    f'"type must be tuple of ints,but got {type(v).__name__}"'
                )
        return tuple(operator.index(v) for v in value)
    if isinstance(value, bool) or not hasattr(value, "__index__"):
        raise TypeError(
            f"{caller}(): argument '{name}' (position {position}) must be tuple of ints, not {type(value).__name__}"
        )
    return (operator.index(value),) * 2


def _max_pool_window(
    input: Tensor, kernel_size: tuple, stride: tuple, padding: tuple, dilation: tuple, ceil_mode: bool
) -> tuple:  # noqa: A002
    """kernel, stride, each spatial dimension's (before, after) padding and dilation, after torch's checks in
    its order (ATen's max_pool2d_with_indices meta function, pooling_output_shape, pool2d_shape_check). With
    ``ceil_mode`` the last window may run past the input: padded after as far as it does."""
    for value, name, verb in (
        (kernel_size, "kernel_size", "must either be a single int"),
        (stride, "stride", "must either be omitted, a single int"),
        (padding, "padding", "must either be a single int"),
        (dilation, "dilation", "must be either a single int"),
    ):
        if len(value) not in ((0, 1, 2) if name == "stride" else (1, 2)):
            raise RuntimeError(f"max_pool2d: {name} {verb}, or a tuple of two ints")
    kernel = kernel_size * (3 - len(kernel_size))  # one int: the same for both dimensions
    stride = kernel if not stride else stride * (3 - len(stride))
    pads, dilation = padding * (3 - len(padding)), dilation * (3 - len(dilation))
    if input.ndim not in (3, 4):
        raise RuntimeError("non-empty 3D or 4D (batch mode) tensor expected for input")
    outputs = []
    for size, k, p, s, d in zip(input.shape[-2:], kernel, pads, stride, dilation):
        if s == 0:
            raise RuntimeError("stride should not be zero")
        if p < 0:
            raise RuntimeError(f"pad must be non-negative, but got pad: {p}")
        if p > _c_div((k - 1) * d + 1, 2):
            raise RuntimeError(
                f"pad should be at most half of effective kernel size, but got pad={p}, kernel_size={k} and "
                f"dilation={d}"
            )
        outputs.append(_windows(size, k, p, s, d, ceil_mode))
    (kh, kw), (sh, sw), (dh, dw), (ph, pw) = kernel, stride, dilation, pads
    if kw <= 0 or kh <= 0:
        raise RuntimeError(f"kernel size should be greater than zero, but got kH: {kh} kW: {kw}")
    if sw <= 0 or sh <= 0:
        raise RuntimeError(f"stride should be greater than zero, but got dH: {sh} dW: {sw}")
    if dh <= 0 or dw <= 0:
        raise RuntimeError(f"dilation should be greater than zero, but got dilationH: {dh} dilationW: {dw}")
    shape = tuple(input.shape)
    if not (
        (len(shape) == 3 and shape[0] != 0 and shape[1] != 0 and shape[2] != 0)
        or (len(shape) == 4 and shape[1] != 0 and shape[2] != 0 and shape[3] != 0)
    ):
        raise RuntimeError(
            "Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, but got:"
            f"[{', '.join(map(str, shape))}]"
        )
    if kw // 2 < pw or kh // 2 < ph:
        raise RuntimeError(
            f"pad should be smaller than or equal to half of kernel size, but got padW = {pw}, padH = {ph}, "
            f"kW = {kw}, kH = {kh}"
        )
    (c, h, w), (oh, ow) = shape[-3:], outputs
    if ow < 1 or oh < 1:
        raise RuntimeError(
            f"Given input size: ({c}x{h}x{w}). Calculated output size: ({c}x{oh}x{ow}). Output size is too small"
        )
    pairs = tuple(_padding_pair(*side, o) for side, o in zip(zip(shape[-2:], kernel, pads, stride, dilation), outputs))
    return kernel, stride, pairs, dilation


def _c_div(a: int, b: int) -> int:
    """C's integer division (toward zero), as ATen's checks compute."""
    return abs(a) // abs(b) * (1 if (a >= 0) == (b > 0) else -1)


def avg_pool2d(
    input: Tensor,  # noqa: A002
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    ceil_mode: bool = False,
    count_include_pad: bool = True,
    divisor_override: Any = None,
) -> Tensor:
    """The mean of each window; one AvgPool2DBackward0 node. The divisor is torch's: the window's size within
    the input and its padding (``count_include_pad``), or within the input only, or ``divisor_override``;
    with ``ceil_mode`` a last window running past the padding counts only what it covers."""
    if input.ndim == 3:
        args = (kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)
        return avg_pool2d(input.unsqueeze(0), *args).squeeze(0)
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    kernel, stride, pads, _ = _pool_args(input, kernel_size, stride, padding, 1, ceil_mode)
    sizes = []
    for size, (before, after), k, s in zip(input.shape[-2:], pads, kernel, stride):
        padded = size + before + after
        starts = np.arange(0, padded - k + 1, s) - before  # each window's first place, in the input
        low, high = (
            (starts, np.minimum(starts + k, size + before))
            if count_include_pad
            else (
                np.maximum(starts, 0),
                np.minimum(starts + k, size),
            )
        )
        sizes.append(high - low)
    divisor = (
        np.multiply.outer(*sizes)
        if divisor_override is None
        else np.full((len(sizes[0]), len(sizes[1])), divisor_override)
    )
    return ops.AvgPool2DBackward0.apply(input, kernel=kernel, stride=stride, padding=pads, divisor=divisor)


def adaptive_avg_pool2d(input: Tensor, output_size: Any) -> Tensor:  # noqa: A002
    """The mean over each channel's H × W (output_size 1: the global average pooling of a CNN's head)."""
    if _ints(output_size, 2) != (1, 1):
        raise NotImplementedError("gradbook's adaptive_avg_pool2d has output_size 1 only: use avg_pool2d for others")
    return input.mean((-2, -1), keepdim=True)


def layer_norm(
    input: Tensor,  # noqa: A002
    normalized_shape: Any,
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    eps: float = 1e-05,
) -> Tensor:
    """weight · (x - mean)/√(var + eps) + bias, mean and var over the last dimensions
    (``normalized_shape``) of each row: one NativeLayerNormBackward0 node.

    >>> import gradbook as torch
    >>> torch.nn.functional.layer_norm(torch.tensor([[1.0, 3.0]]), (2,))
    tensor([[-1.0000,  1.0000]])
    """
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    if tuple(input.shape[input.ndim - len(shape) :]) != shape or len(shape) > input.ndim:
        expected = "[*, " + ", ".join(map(str, shape)) + "]"
        raise RuntimeError(
            f"Given normalized_shape={list(shape)}, expected input with shape {expected}, but got input of size"
            f"{list(input.shape)}"
        )
    weight = weight if weight is not None else _factories.ones(shape, dtype=input.dtype)  # needs no gradient
    bias = bias if bias is not None else _factories.zeros(shape, dtype=input.dtype)
    return ops.NativeLayerNormBackward0.apply(input, weight, bias, normalized_shape=shape, eps=eps)


def rms_norm(
    input: Tensor,  # noqa: A002
    normalized_shape: Any,
    weight: Tensor | None = None,
    eps: float | None = None,
) -> Tensor:
    """weight · x / √(mean(x²) + eps), the mean over the last dimensions (``normalized_shape``), recorded
    as torch's composite records it: Pow, Mean, Add, Rsqrt, Mul (and Mul by the weight). ``eps``
    defaults to the dtype's machine epsilon; float16 is computed in float32, as torch does.

    >>> import gradbook as torch
    >>> torch.nn.functional.rms_norm(torch.tensor([[3.0, 4.0]]), (2,))   # √((9 + 16)/2) = 3.5355
    tensor([[0.8485, 1.1314]])
    """
    if not isinstance(normalized_shape, (tuple, list)):
        raise TypeError(
            "rms_norm(): argument 'normalized_shape' (position 2) must be tuple of ints, not "
            f"{type(normalized_shape).__name__}"
        )
    shape = tuple(normalized_shape)
    if len(shape) > input.ndim or tuple(input.shape[input.ndim - len(shape) :]) != shape:
        raise RuntimeError(
            f"Given normalized_shape={list(shape)}, expected input with shape [*{', '.join(map(str, shape))}], but "
            f"got input of size{list(input.shape)}"
        )
    if weight is not None and tuple(weight.shape) != shape:
        raise RuntimeError(
            f"Expected weight to be of same shape as normalized_shape, but got weight of shape {list(weight.shape)} "
            f"and normalized_shape = {list(shape)}"
        )
    if not input.is_floating_point():
        raise NotImplementedError(f"\"rms_norm\" not implemented for '{scalar_name(input._array.dtype)}'")
    x = input.float() if input.dtype == float16 else input  # computed in float32 for float16
    if eps is None:
        eps = float(np.finfo(x._array.dtype).eps)
    dims = list(range(input.ndim - 1, input.ndim - 1 - len(shape), -1))  # the last dims, last first (as ATen)
    mean_square = ops.AddBackward1.apply(x.pow(2).mean(dims, keepdim=True), other=eps)
    result = x.mul(mean_square.rsqrt())
    return (result if weight is None else result.mul(weight)).to(input.dtype)


def batch_norm(
    input: Tensor,  # noqa: A002
    running_mean: Tensor | None,
    running_var: Tensor | None,
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    training: bool = False,
    momentum: float = 0.1,
    eps: float = 1e-05,
) -> Tensor:
    """weight · (x - mean)/√(var + eps) + bias for each channel (dimension 1), one
    NativeBatchNormBackward0 node.

    In training, mean and (biased) var are the batch's, and the running statistics, if given, move
    towards them in place: ``running = (1 - momentum)·running + momentum·batch``, with the unbiased
    variance, as torch. Otherwise the running statistics are used.

    >>> import gradbook as torch
    >>> x = torch.tensor([[1.0], [3.0]])
    >>> mean, var = torch.zeros(1), torch.ones(1)
    >>> torch.nn.functional.batch_norm(x, mean, var, training=True)
    tensor([[-1.0000],
            [ 1.0000]])
    >>> mean, var
    (tensor([0.2000]), tensor([1.1000]))
    """
    if training:
        per_channel = input.numel() // input.shape[1] if input.ndim > 1 else input.numel()
        if per_channel <= 1:
            raise ValueError(f"Expected more than 1 value per channel when training, got input size {input.shape}")
    elif running_mean is None or running_var is None:
        raise RuntimeError("running_mean and running_var must be defined in evaluation mode")
    channels = input.shape[1]
    weight = weight if weight is not None else _factories.ones(channels, dtype=input.dtype)  # needs no gradient
    bias = bias if bias is not None else _factories.zeros(channels, dtype=input.dtype)
    stats = {"running_mean": None, "running_var": None}
    if not training:
        stats = {"running_mean": running_mean._array, "running_var": running_var._array}
    out = ops.NativeBatchNormBackward0.apply(input, weight, bias, **stats, training=training, eps=eps)
    if training and running_mean is not None and running_var is not None:
        x = input._array
        dims = batch_dims(x.shape)
        count = x.size // channels
        mean = np.mean(x, axis=dims, dtype=np.float64)
        unbiased = np.var(x, axis=dims, dtype=np.float64) * count / (count - 1)
        with no_grad():
            running_mean.copy_(Tensor._make(momentum * mean + (1 - momentum) * running_mean._array))
            running_var.copy_(Tensor._make(momentum * unbiased + (1 - momentum) * running_var._array))
    return out


def one_hot(tensor: Tensor, num_classes: int = -1) -> Tensor:
    """Class indices as one-hot rows: an int64 tensor of shape ``(*tensor.shape, num_classes)`` (with -1, one
    more than the largest index). No gradient flows through it: its input is integers.

    >>> import gradbook as torch
    >>> torch.nn.functional.one_hot(torch.tensor([0, 2, 1]))
    tensor([[1, 0, 0],
            [0, 0, 1],
            [0, 1, 0]])
    """
    if not isinstance(tensor, Tensor):
        raise TypeError(f"one_hot(): argument 'input' (position 1) must be Tensor, not {type(tensor).__name__}")
    if tensor._array.dtype != np.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    a = tensor._array
    if a.size == 0:
        if num_classes <= 0:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
        return _factories.zeros((*a.shape, num_classes), dtype=_factories.int64)
    if a.min() < 0:
        raise RuntimeError("Class values must be non-negative.")
    if num_classes == -1:
        num_classes = int(a.max()) + 1
    elif num_classes <= a.max():
        raise RuntimeError("Class values must be smaller than num_classes.")
    out = np.zeros((*a.shape, num_classes), dtype=np.int64)
    np.put_along_axis(out, a[..., None], 1, axis=-1)
    return Tensor._make(out)


def embedding(
    input: Tensor,  # noqa: A002
    weight: Tensor,
    padding_idx: int | None = None,
    max_norm: float | None = None,
    norm_type: float = 2.0,
    scale_grad_by_freq: bool = False,
    sparse: bool = False,
) -> Tensor:
    """The rows of ``weight`` at the indices ``input``: shape ``input.shape + (embedding_dim,)``.

    ``padding_idx``'s row gets no gradient.

    >>> import gradbook as torch
    >>> torch.nn.functional.embedding(torch.tensor([2, 0]), torch.arange(6.0).reshape(3, 2))
    tensor([[4., 5.],
            [0., 1.]])
    """
    if sparse:
        raise NotImplementedError("gradbook's embedding has no sparse gradients (gradbook has no sparse tensors)")
    if input._array.dtype not in (np.int64, np.int32):
        raise RuntimeError(
            "Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, Int; "
            f"but got {type_name(input._array.dtype)} instead (while checking arguments for embedding)"
        )
    rows = weight.shape[0]
    if input.numel() and (input._array.min() < 0 or input._array.max() >= rows):
        raise IndexError("index out of range in self")
    if padding_idx is not None and padding_idx < 0:
        padding_idx += rows
    if max_norm is not None:  # the rows used rescaled in place to norm ≤ max_norm first: torch's embedding_renorm_
        with no_grad():
            for i in np.unique(input._array):
                norm = float(weight[int(i)].norm(norm_type))
                if norm > max_norm:
                    weight._array[i] *= np.asarray(max_norm / (norm + 1e-7), weight._array.dtype)
        weight._version += 1  # one in-place op
    return ops.EmbeddingBackward0.apply(
        weight, indices=input, padding_idx=padding_idx, scale_grad_by_freq=scale_grad_by_freq
    )


# ------------------------------------------------ losses


def _same_dtype(input: Tensor, target: Tensor) -> None:  # noqa: A002
    if target._array.dtype != input._array.dtype:
        raise RuntimeError(
            f"Found dtype {scalar_name(target._array.dtype)} but expected {scalar_name(input._array.dtype)}"
        )


def _not_differentiable(function: str, **tensors: Tensor | None) -> None:
    for name, t in tensors.items():
        if t is not None and t.requires_grad:
            raise RuntimeError(
                f"The function '{function}' is not differentiable with respect to argument '{name}'. "
                "This input cannot have requires_grad True."
            )


def _legacy_reduction(size_average: Any, reduce: Any, reduction: str) -> str:
    """torch's old size_average= and reduce= arguments, turned into reduction= with torch's warning
    (for every loss that takes them, functional or module)."""
    if size_average is None and reduce is None:
        return reduction
    size_average, reduce = size_average is not False, reduce is not False
    reduction = "none" if not reduce else "mean" if size_average else "sum"
    warnings.warn(
        f"size_average and reduce args will be deprecated, please use reduction='{reduction}' instead.",
        UserWarning,
        stacklevel=3,
    )
    return reduction


def _array_of(t: Tensor | None) -> np.ndarray | None:
    return None if t is None else t._array


def binary_cross_entropy(
    input: Tensor,  # noqa: A002
    target: Tensor,
    weight: Tensor | None = None,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
) -> Tensor:
    """-mean(weight · (t ln x + (1 - t) ln(1 - x))) for probabilities x, each log clamped at -100.

    >>> import gradbook as torch
    >>> torch.nn.functional.binary_cross_entropy(torch.tensor([0.5]), torch.tensor([1.0]))
    tensor(0.6931)
    """
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    if target.shape != input.shape:
        raise ValueError(
            f"Using a target size ({target.shape}) that is different to the input size ({input.shape}) is deprecated. "
            "Please ensure they have the same size."
        )
    _same_dtype(input, target)
    x, t = input._array, target._array
    if ((x < 0) | (x > 1)).any():
        raise RuntimeError("all elements of input should be between 0 and 1")
    if ((t < 0) | (t > 1)).any():
        raise RuntimeError("all elements of target should be between 0 and 1")
    _not_differentiable("binary_cross_entropy", weight=weight)
    return ops.BinaryCrossEntropyBackward0.apply(input, target, weight=_array_of(weight), reduction=reduction)


def binary_cross_entropy_with_logits(
    input: Tensor,  # noqa: A002
    target: Tensor,
    weight: Tensor | None = None,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
    pos_weight: Tensor | None = None,
) -> Tensor:
    """binary_cross_entropy(sigmoid(x), t), computed stably from the logits x in one node;
    ``pos_weight`` weighs the positive term.

    >>> import gradbook as torch
    >>> torch.nn.functional.binary_cross_entropy_with_logits(torch.tensor([0.0]), torch.tensor([1.0]))
    tensor(0.6931)
    """
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    if target.shape != input.shape:
        raise ValueError(f"Target size ({target.shape}) must be the same as input size ({input.shape})")
    if target._array.dtype.kind != "f" and input._array.dtype.kind == "f":
        raise RuntimeError(
            f"result type {scalar_name(input._array.dtype)} can't be cast to the desired output type "
            f"{scalar_name(target._array.dtype)}"
        )
    _not_differentiable("binary_cross_entropy_with_logits", weight=weight, pos_weight=pos_weight)
    return ops.BinaryCrossEntropyWithLogitsBackward0.apply(
        input, target, weight=_array_of(weight), pos_weight=_array_of(pos_weight), reduction=reduction
    )


def l1_loss(
    input: Tensor,  # noqa: A002
    target: Tensor,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
    weight: Tensor | None = None,
) -> Tensor:
    """mean(|input - target|), recorded as torch records it: Sub, Abs, then Mean (or Sum).

    >>> import gradbook as torch
    >>> torch.nn.functional.l1_loss(torch.tensor([1.0, 4.0]), torch.tensor([2.0, 2.0]))
    tensor(1.5000)
    """
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    if weight is not None:
        raise NotImplementedError("gradbook's l1_loss has no weight")
    input, target = _broadcast_target(input, target)
    loss = (input - target).abs()
    return loss if reduction == "none" else loss.sum() if reduction == "sum" else loss.mean()


def smooth_l1_loss(
    input: Tensor,  # noqa: A002
    target: Tensor,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
    beta: float = 1.0,
) -> Tensor:
    """mean of ½d²/beta where |d| < beta, else |d| - ½beta, for d = input - target (beta = 0: l1_loss).

    >>> import gradbook as torch
    >>> torch.nn.functional.smooth_l1_loss(torch.tensor([0.5, 3.0]), torch.tensor([0.0, 0.0]))
    tensor(1.3125)
    """
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    if beta == 0:
        return l1_loss(input, target, reduction=reduction)
    input, target = _broadcast_target(input, target)
    return ops.SmoothL1LossBackward0.apply(input, target, beta=beta, reduction=reduction)


def huber_loss(
    input: Tensor,  # noqa: A002
    target: Tensor,
    reduction: str = "mean",
    delta: float = 1.0,
    weight: Tensor | None = None,
) -> Tensor:
    """mean of ½d² where |d| < delta, else delta·(|d| - ½delta), for d = input - target.

    >>> import gradbook as torch
    >>> torch.nn.functional.huber_loss(torch.tensor([0.5, 3.0]), torch.tensor([0.0, 0.0]), delta=2.0)
    tensor(2.0625)
    """
    _check_reduction(reduction)
    if weight is not None:
        raise NotImplementedError("gradbook's huber_loss has no weight")
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    input, target = _broadcast_target(input, target)
    return ops.HuberLossBackward0.apply(input, target, delta=delta, reduction=reduction)
