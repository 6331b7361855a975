"""gradbook.nn.modules.conv: the convolution layers Conv1d and Conv2d over their shared base _ConvNd
(the weight and bias drawn as torch draws them), as in torch's torch/nn/modules/conv.py.
"""

from __future__ import annotations

import math
from typing import Any

from ... import _factories
from ...tensor import Tensor
from .. import functional, init
from ..parameter import Parameter
from .module import Module


class _ConvNd(Module):
    """Conv1d and Conv2d: the weight (out, in/groups, *kernel) and bias start as torch's do
    (kaiming_uniform_ with a=√5, then uniform in ±1/√fan_in), from torch's random numbers."""

    _nd = 2
    _transposed = False

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        kernel_size: Any,
        stride: Any = 1,
        padding: Any = 0,
        dilation: Any = 1,
        groups: int = 1,
        bias: bool = True,
        padding_mode: str = "zeros",
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        valid_padding_modes = {"zeros", "reflect", "replicate", "circular"}
        if padding_mode not in valid_padding_modes:
            raise ValueError(
                f"padding_mode must be one of {valid_padding_modes}, but got padding_mode='{padding_mode}'"
            )
        nd = self._nd
        self.in_channels, self.out_channels, self.groups, self.padding_mode = (
            in_channels,
            out_channels,
            groups,
            padding_mode,
        )
        self.kernel_size, self.stride, self.dilation = (
            functional._ints(v, nd) for v in (kernel_size, stride, dilation)
        )
        self.padding = padding if isinstance(padding, str) else functional._ints(padding, nd)
        if isinstance(padding, str):  # F.pad's widths for a padding_mode other than zeros, last dimension first
            totals = [d * (k - 1) if padding == "same" else 0 for d, k in zip(self.dilation, self.kernel_size)]
            self._reversed_padding_repeated_twice = [x for t in reversed(totals) for x in (t // 2, t - t // 2)]
        else:
            self._reversed_padding_repeated_twice = [x for p in reversed(self.padding) for x in (p, p)]
        self.output_padding, self.transposed = (0,) * nd, self._transposed
        if self._transposed:  # a transposed convolution's weight: (in, out/groups, *kernel)
            shape = (in_channels, out_channels // groups, *self.kernel_size)
        else:
            shape = (out_channels, in_channels // groups, *self.kernel_size)
        self.weight = Parameter(_factories.empty(shape, dtype=dtype, device=device))
        if bias:
            self.bias = Parameter(_factories.empty(out_channels, dtype=dtype, device=device))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Draw the weights again, as a new layer would."""
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            if fan_in != 0:
                bound = 1 / math.sqrt(fan_in)
                init.uniform_(self.bias, -bound, bound)

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        conv = functional.conv2d if self._nd == 2 else functional.conv1d
        if self.padding_mode != "zeros":  # the border first (F.pad), then a convolution without padding
            padded = functional.pad(input, self._reversed_padding_repeated_twice, mode=self.padding_mode)
            return conv(padded, self.weight, self.bias, self.stride, 0, self.dilation, self.groups)
        return conv(input, self.weight, self.bias, self.stride, self.padding, self.dilation, self.groups)

    def extra_repr(self) -> str:
        nd = self._nd
        text = f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, stride={self.stride}"
        if self.padding != (0,) * nd:
            text += f", padding={self.padding}"
        if self.dilation != (1,) * nd:
            text += f", dilation={self.dilation}"
        if self.groups != 1:
            text += f", groups={self.groups}"
        if self.bias is None:
            text += ", bias=False"
        if self.padding_mode != "zeros":
            text += f", padding_mode={self.padding_mode}"
        return text


class Conv2d(_ConvNd):
    """A 2-D convolution layer: (N, in_channels, H, W) → (N, out_channels, H', W')."""

    _nd = 2


class Conv1d(_ConvNd):
    """A 1-D convolution layer: (N, in_channels, L) → (N, out_channels, L')."""

    _nd = 1


class _ConvTransposeNd(_ConvNd):
    """A transposed convolution layer: its weight is (in_channels, out_channels/groups, *kernel_size)."""

    _transposed = True

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        kernel_size: Any,
        stride: Any = 1,
        padding: Any = 0,
        output_padding: Any = 0,
        groups: int = 1,
        bias: bool = True,
        dilation: Any = 1,
        padding_mode: str = "zeros",
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        if padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for {type(self).__name__}')
        super().__init__(
            in_channels, out_channels, kernel_size, stride, padding, dilation, groups, bias, padding_mode, device, dtype
        )
        self.output_padding = functional._ints(output_padding, self._nd)

    def _output_padding(self, input: Tensor, output_size: Any) -> tuple:  # noqa: A002
        if output_size is None:
            return self.output_padding
        size = list(output_size)[-self._nd :]
        return tuple(
            o - ((i - 1) * s - 2 * p + d * (k - 1) + 1)
            for o, i, s, p, d, k in zip(
                size, input.shape[-self._nd :], self.stride, self.padding, self.dilation, self.kernel_size
            )
        )

    def forward(self, input: Tensor, output_size: Any = None) -> Tensor:  # noqa: A002
        conv = functional.conv_transpose2d if self._nd == 2 else functional.conv_transpose1d
        extra = self._output_padding(input, output_size)
        return conv(input, self.weight, self.bias, self.stride, self.padding, extra, self.groups, self.dilation)

    def extra_repr(self) -> str:
        text = super().extra_repr()
        if self.output_padding != (0,) * self._nd:
            at = text.find(", groups=") if ", groups=" in text else text.find(", bias=")
            at = len(text) if at < 0 else at
            text = text[:at] + f", output_padding={self.output_padding}" + text[at:]
        return text


class ConvTranspose2d(_ConvTransposeNd):
    """A transposed 2-D convolution layer (upsampling): (N, in_channels, H, W) → (N, out_channels, H', W')."""

    _nd = 2


class ConvTranspose1d(_ConvTransposeNd):
    """A transposed 1-D convolution layer: (N, in_channels, L) → (N, out_channels, L')."""

    _nd = 1
