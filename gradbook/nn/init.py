"""gradbook.nn.init: torch's weight initialisers, each filling a tensor in place under no_grad.

The bounds and standard deviations are torch's, computed in torch's order, and the draws are
torch's: after the same ``manual_seed`` an initialiser fills in torch's numbers.

>>> import gradbook as torch
>>> w = torch.nn.Parameter(torch.empty(4, 2))
>>> torch.nn.init.constant_(w, 0.5)
Parameter containing:
tensor([[0.5000, 0.5000],
        [0.5000, 0.5000],
        [0.5000, 0.5000],
        [0.5000, 0.5000]], requires_grad=True)
>>> torch.nn.init.calculate_gain("relu")
1.4142135623730951
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np

from .. import _arguments, _factories
from ..autograd.grad_mode import no_grad
from ..tensor import Tensor

__all__ = [
    "calculate_gain",
    "constant_",
    "kaiming_normal_",
    "kaiming_uniform_",
    "normal_",
    "ones_",
    "orthogonal_",
    "trunc_normal_",
    "uniform_",
    "xavier_normal_",
    "xavier_uniform_",
    "zeros_",
]

_LINEAR = ("linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d")


def calculate_gain(nonlinearity: str, param: float | None = None) -> float:
    """The factor that keeps activations' variance steady through ``nonlinearity``: 1 for
    linear and sigmoid, 5/3 for tanh, √2 for relu, √(2/(1 + slope²)) for leaky_relu, 3/4 for selu."""
    if nonlinearity in _LINEAR or nonlinearity == "sigmoid":
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            slope = 0.01
        elif not isinstance(param, bool) and isinstance(param, (int, float)):
            slope = param
        else:
            raise ValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + slope**2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def uniform_(tensor: Tensor, a: float = 0.0, b: float = 1.0, generator: Any = None) -> Tensor:
    """Fill with numbers drawn uniformly from [a, b)."""
    with no_grad():
        return tensor.uniform_(a, b, generator=generator)


def normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0, generator: Any = None) -> Tensor:
    """Fill with numbers drawn from the normal distribution N(mean, std²)."""
    with no_grad():
        return tensor.normal_(mean, std, generator=generator)


def constant_(tensor: Tensor, val: float) -> Tensor:
    """Fill with ``val``."""
    with no_grad():
        return tensor.fill_(val)


def ones_(tensor: Tensor) -> Tensor:
    return constant_(tensor, 1.0)


def zeros_(tensor: Tensor) -> Tensor:
    with no_grad():
        return tensor.zero_()


def _calculate_fan_in_and_fan_out(tensor: Tensor) -> tuple[int, int]:
    """(fan_in, fan_out): for a weight (out, in, *kernel), in and out times the kernel's size."""
    if tensor.dim() < 2:
        raise ValueError("Fan in and fan out can not be computed for tensor with fewer than 2 dimensions")
    receptive_field = math.prod(tensor.shape[2:])
    return tensor.shape[1] * receptive_field, tensor.shape[0] * receptive_field


def _calculate_correct_fan(tensor: Tensor, mode: str) -> int:
    mode = mode.lower()
    valid_modes = ["fan_in", "fan_out"]
    if mode not in valid_modes:
        raise ValueError(f"Mode {mode} not supported, please use one of {valid_modes}")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def _no_elements(tensor: Tensor) -> bool:
    if 0 in tensor.shape:
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=3)
        return True
    return False


def kaiming_uniform_(
    tensor: Tensor, a: float = 0, mode: str = "fan_in", nonlinearity: str = "leaky_relu", generator: Any = None
) -> Tensor:
    """He initialisation: uniform in ±√3 · gain/√fan (fan_in keeps the forward pass's variance)."""
    if _no_elements(tensor):
        return tensor
    std = calculate_gain(nonlinearity, a) / math.sqrt(_calculate_correct_fan(tensor, mode))
    bound = math.sqrt(3.0) * std  # torch's order of operations: the same bound to the last bit
    return uniform_(tensor, -bound, bound, generator)


def kaiming_normal_(
    tensor: Tensor, a: float = 0, mode: str = "fan_in", nonlinearity: str = "leaky_relu", generator: Any = None
) -> Tensor:
    """He initialisation: normal with std = gain/√fan."""
    if _no_elements(tensor):
        return tensor
    return normal_(
        tensor, 0, calculate_gain(nonlinearity, a) / math.sqrt(_calculate_correct_fan(tensor, mode)), generator
    )


def xavier_uniform_(tensor: Tensor, gain: float = 1.0, generator: Any = None) -> Tensor:
    """Glorot initialisation: uniform in ±gain·√(6/(fan_in + fan_out))."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    bound = math.sqrt(3.0) * std
    return uniform_(tensor, -bound, bound, generator)


def xavier_normal_(tensor: Tensor, gain: float = 1.0, generator: Any = None) -> Tensor:
    """Glorot initialisation: normal with std = gain·√(2/(fan_in + fan_out))."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return normal_(tensor, 0.0, gain * math.sqrt(2.0 / float(fan_in + fan_out)), generator)


def orthogonal_(tensor: Tensor, gain: float = 1.0, generator: Any = None) -> Tensor:
    """Fill with a (semi-)orthogonal matrix times ``gain`` (Saxe et al.): the Q of the QR decomposition of a
    normal draw (torch's draw), its columns' signs fixed by R's diagonal. The values are torch's up to the
    rounding of the LAPACK each library calls (about 1e-7 in float32)."""
    if tensor.dim() < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0:
        return tensor
    rows = tensor.shape[0]
    cols = tensor.numel() // rows
    flattened = _factories.empty(rows, cols, dtype=tensor.dtype).normal_(0, 1, generator=generator)._array
    q, r = np.linalg.qr(flattened if rows >= cols else flattened.T)
    q = q * np.sign(np.diag(r))
    with no_grad():
        tensor.copy_(Tensor._make(np.ascontiguousarray(q if rows >= cols else q.T)).reshape(tensor.shape))
        tensor.mul_(gain)
    return tensor


def trunc_normal_(
    tensor: Tensor, mean: float = 0.0, std: float = 1.0, a: float = -2.0, b: float = 2.0, generator: Any = None
) -> Tensor:
    """Fill with draws from N(mean, std²) truncated to [a, b], as torch 2.13 draws them: normal draws, the ones
    outside [a, b] drawn again, when [a, b] holds more than 30% of the distribution; else uniform draws on
    [a, b] accepted with the normal density's probability (rejection sampling), with torch's random stream."""

    def norm_cdf(x: float) -> float:
        return (1.0 + math.erf(x / math.sqrt(2.0))) / 2.0

    if (mean < a - 2 * std) or (mean > b + 2 * std):
        warnings.warn(
            "mean is more than 2 std from [a, b] in nn.init.trunc_normal_. The distribution of values may be "
            "incorrect.",
            stacklevel=2,
        )
    with no_grad():
        if norm_cdf((b - mean) / std) - norm_cdf((a - mean) / std) > 0.3:
            lo, hi = (_factories.tensor(v, dtype=tensor.dtype).item() for v in (a, b))  # in the tensor's dtype
            result = tensor.normal_(mean, std, generator=generator)
            while True:
                outside = (result < lo) | (result > hi)
                if not outside.any():
                    break
                again = _factories.empty(result.shape, dtype=result.dtype).normal_(mean, std, generator=generator)
                result = _arguments.where(outside, again, result)
            if tensor is not result:
                tensor.copy_(result)
            return tensor
        log_peak = -0.5 * ((max(a, min(mean, b)) - mean) / std) ** 2
        candidates, accept = (_factories.empty(tensor.shape, dtype=tensor.dtype) for _ in range(2))
        tensor.uniform_(a, b, generator=generator)
        candidates.copy_(tensor)
        candidates.sub_(mean).div_(std).pow_(2).mul_(-0.5).sub_(log_peak)  # the log density, up to its peak
        pending = accept.uniform_(generator=generator).log_() > candidates
        if pending.any():
            result = tensor
            while True:
                candidates.uniform_(a, b, generator=generator)
                result = _arguments.where(pending, candidates, result)
                candidates.sub_(mean).div_(std).pow_(2).mul_(-0.5).sub_(log_peak)
                pending = _arguments.where(pending, accept.uniform_(generator=generator).log_() > candidates, pending)
                if not pending.any():
                    break
            tensor.copy_(result)
        return tensor
