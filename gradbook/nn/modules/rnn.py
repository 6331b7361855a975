"""gradbook.nn.modules.rnn: RNN, LSTM, GRU and their cells, as torch's torch/nn/modules/rnn.py lays them out.

The parameters are torch's (``weight_ih_l0``, ``weight_hh_l0``, ``bias_ih_l0``, ``bias_hh_l0``, ``_reverse`` for
the second direction; the gates stacked in torch's order: LSTM i, f, g, o; GRU r, z, n) and are drawn as torch
draws them, so the same seed gives torch's weights. Each step is written with the engine's ops, so its graph
shows the chain rule through time; torch's CPU kernels record other nodes for the same values (an LSTM layer is
one ``MkldnnRnnLayerBackward0``). Packed sequences and ``proj_size`` are not here.
"""

from __future__ import annotations

import math
import numbers
import warnings
from typing import Any

from ... import _factories
from ..._functions import cat, stack
from ...tensor import Tensor
from .. import functional, init
from ..parameter import Parameter
from .module import Module

_GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}


def _check_sizes(hidden_size: Any, num_layers: int = 1) -> None:
    if not isinstance(hidden_size, int) or isinstance(hidden_size, bool):
        raise TypeError(f"hidden_size should be of type int, got: {type(hidden_size).__name__}")
    if hidden_size <= 0:
        raise ValueError("hidden_size must be greater than zero")
    if num_layers <= 0:
        raise ValueError("num_layers must be greater than zero")


def _rnn_step(x_w: Tensor, h: Tensor, w_hh: Tensor, b_hh: Tensor | None, relu: bool) -> Tensor:
    """h' = tanh(x Wᵢₕᵀ + bᵢₕ + h Wₕₕᵀ + bₕₕ) (or relu), with x Wᵢₕᵀ + bᵢₕ given."""
    pre = functional.linear(h, w_hh, b_hh) + x_w
    return pre.relu() if relu else pre.tanh()


def _lstm_step(x_w: Tensor, h: Tensor, c: Tensor, w_hh: Tensor, b_hh: Tensor | None) -> tuple[Tensor, Tensor]:
    """The gates i, f, g, o from x and h; c' = f c + i g; h' = o tanh(c')."""
    i, f, g, o = (functional.linear(h, w_hh, b_hh) + x_w).chunk(4, 1)
    c = f.sigmoid() * c + i.sigmoid() * g.tanh()
    return o.sigmoid() * c.tanh(), c


def _gru_step(x_w: Tensor, h: Tensor, w_hh: Tensor, b_hh: Tensor | None) -> Tensor:
    """r = σ(·), z = σ(·), n = tanh(xₙ + r hₙ); h' = (1 - z) n + z h."""
    x_r, x_z, x_n = x_w.chunk(3, 1)
    h_r, h_z, h_n = functional.linear(h, w_hh, b_hh).chunk(3, 1)
    r, z = (x_r + h_r).sigmoid(), (x_z + h_z).sigmoid()
    n = (x_n + r * h_n).tanh()
    return (h - n) * z + n


class RNNBase(Module):
    """The recurrent layers: ``num_layers`` stacked, each in one or two directions, over a whole sequence."""

    def __init__(
        self,
        mode: str,
        input_size: int,
        hidden_size: int,
        num_layers: int = 1,
        bias: bool = True,
        batch_first: bool = False,
        dropout: float = 0.0,
        bidirectional: bool = False,
        proj_size: int = 0,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        if not isinstance(dropout, numbers.Number) or isinstance(dropout, bool) or not 0 <= dropout <= 1:
            raise ValueError(
                "dropout should be a number in range [0, 1] representing the probability of an element being zeroed"
            )
        if dropout > 0 and num_layers == 1:
            warnings.warn(
                "dropout option adds dropout after all but last recurrent layer, so non-zero dropout expects "
                f"num_layers greater than 1, but got dropout={dropout} and num_layers={num_layers}",
                stacklevel=2,
            )
        _check_sizes(hidden_size, num_layers)
        if proj_size:
            raise NotImplementedError("gradbook's LSTM has no proj_size")
        self.mode, self.input_size, self.hidden_size, self.num_layers = mode, input_size, hidden_size, num_layers
        self.bias, self.batch_first, self.dropout = bias, batch_first, float(dropout)
        self.bidirectional, self.proj_size = bidirectional, proj_size
        gates = _GATES[mode] * hidden_size
        self._flat_weights_names: list[str] = []
        for layer in range(num_layers):
            for direction in range(2 if bidirectional else 1):
                inputs = input_size if layer == 0 else hidden_size * (2 if bidirectional else 1)
                suffix = f"_l{layer}" + ("_reverse" if direction else "")
                shapes = [("weight_ih", (gates, inputs)), ("weight_hh", (gates, hidden_size))]
                shapes += [("bias_ih", (gates,)), ("bias_hh", (gates,))] if bias else []
                for name, shape in shapes:
                    setattr(self, name + suffix, Parameter(_factories.empty(*shape, dtype=dtype, device=device)))
                    self._flat_weights_names.append(name + suffix)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Every weight and bias uniform in ±1/√hidden_size, in registration order (torch's draws)."""
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        if self.num_layers != 1:
            s += f", num_layers={self.num_layers}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if self.batch_first is not False:
            s += f", batch_first={self.batch_first}"
        if self.dropout != 0:
            s += f", dropout={self.dropout}"
        if self.bidirectional is not False:
            s += f", bidirectional={self.bidirectional}"
        return s

    def _weights(self, layer: int, direction: int) -> list[Any]:
        suffix = f"_l{layer}" + ("_reverse" if direction else "")
        names = ["weight_ih", "weight_hh", "bias_ih", "bias_hh"]
        return [getattr(self, name + suffix, None) for name in names]

    def _check_hidden(self, h: Tensor, expected: tuple, which: str = "") -> None:
        if tuple(h.shape) != expected:
            raise RuntimeError(f"Expected hidden{which} size {expected}, got {list(h.shape)}")

    def forward(self, input: Tensor, hx: Any = None) -> tuple[Tensor, Any]:  # noqa: A002
        name = {"RNN_TANH": "RNN", "RNN_RELU": "RNN"}.get(self.mode, self.mode)
        if input.dim() not in (2, 3):
            raise ValueError(f"{name}: Expected input to be 2D or 3D, got {input.dim()}D instead")
        batched = input.dim() == 3
        lstm = self.mode == "LSTM"
        if not batched:
            input = input.unsqueeze(1)
            if hx is not None:
                for h in hx if lstm else (hx,):
                    if h.dim() != 2:
                        raise RuntimeError(f"For unbatched 2-D input, hx should also be 2-D but got {h.dim()}-D tensor")
                hx = tuple(h.unsqueeze(1) for h in hx) if lstm else hx.unsqueeze(1)
        elif self.batch_first:
            input = input.transpose(0, 1)
        if input.shape[-1] != self.input_size:
            raise RuntimeError(
                f"input.size(-1) must be equal to input_size. Expected {self.input_size}, got {input.shape[-1]}"
            )
        steps, batch = input.shape[0], input.shape[1]
        directions = 2 if self.bidirectional else 1
        expected = (self.num_layers * directions, batch, self.hidden_size)
        if hx is None:
            zeros = _factories.zeros(*expected, dtype=input.dtype)
            hx = (zeros, zeros) if lstm else zeros
        if lstm:
            self._check_hidden(hx[0], expected, "[0]")
            self._check_hidden(hx[1], expected, "[1]")
        else:
            self._check_hidden(hx, expected)
        h0, c0 = hx if lstm else (hx, None)
        last_h, last_c = [], []
        layer_input = input
        for layer in range(self.num_layers):
            outputs = []
            for direction in range(directions):
                w_ih, w_hh, b_ih, b_hh = self._weights(layer, direction)
                x_w = functional.linear(layer_input, w_ih, b_ih)  # every step's input part, in one product
                h = h0[layer * directions + direction]
                c = c0[layer * directions + direction] if lstm else None
                out: list[Any] = [None] * steps
                for t in reversed(range(steps)) if direction else range(steps):
                    if lstm:
                        h, c = _lstm_step(x_w[t], h, c, w_hh, b_hh)
                    elif self.mode == "GRU":
                        h = _gru_step(x_w[t], h, w_hh, b_hh)
                    else:
                        h = _rnn_step(x_w[t], h, w_hh, b_hh, self.mode == "RNN_RELU")
                    out[t] = h
                outputs.append(stack(out))
                last_h.append(h)
                last_c.append(c)
            layer_input = outputs[0] if directions == 1 else cat(outputs, 2)
            if self.dropout and self.training and layer < self.num_layers - 1:
                layer_input = functional.dropout(layer_input, self.dropout, training=True)
        output, h_n = layer_input, stack(last_h)
        c_n = stack(last_c) if lstm else None
        if not batched:
            output, h_n = output.squeeze(1), h_n.squeeze(1)
            c_n = c_n.squeeze(1) if lstm else None
        elif self.batch_first:
            output = output.transpose(0, 1)
        return output, ((h_n, c_n) if lstm else h_n)


class RNN(RNNBase):
    """An Elman RNN: hₜ = tanh(xₜ Wᵢₕᵀ + bᵢₕ + hₜ₋₁ Wₕₕᵀ + bₕₕ) (``nonlinearity="relu"``: relu)."""

    def __init__(self, *args: Any, nonlinearity: str = "tanh", **kwargs: Any) -> None:
        if len(args) > 3:
            args, nonlinearity = args[:3] + args[4:], args[3]
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"Unknown nonlinearity '{nonlinearity}'. Select from 'tanh' or 'relu'.")
        super().__init__("RNN_TANH" if nonlinearity == "tanh" else "RNN_RELU", *args, **kwargs)
        self.nonlinearity = nonlinearity


class LSTM(RNNBase):
    """Long short-term memory: gates i, f, g, o; cₜ = f cₜ₋₁ + i g, hₜ = o tanh(cₜ). Returns
    ``output, (h_n, c_n)``."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__("LSTM", *args, **kwargs)


class GRU(RNNBase):
    """Gated recurrent unit: r, z gates; n = tanh(xₙ + r hₙ); hₜ = (1 - z) n + z hₜ₋₁."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__("GRU", *args, **kwargs)


class RNNCellBase(Module):
    """One step of a recurrent layer, for a loop written by hand."""

    def __init__(
        self, input_size: int, hidden_size: int, bias: bool, num_chunks: int, device: Any = None, dtype: Any = None
    ) -> None:
        super().__init__()
        _check_sizes(hidden_size)
        self.input_size, self.hidden_size, self.bias = input_size, hidden_size, bias
        self.weight_ih = Parameter(_factories.empty(num_chunks * hidden_size, input_size, dtype=dtype, device=device))
        self.weight_hh = Parameter(_factories.empty(num_chunks * hidden_size, hidden_size, dtype=dtype, device=device))
        if bias:
            self.bias_ih = Parameter(_factories.empty(num_chunks * hidden_size, dtype=dtype, device=device))
            self.bias_hh = Parameter(_factories.empty(num_chunks * hidden_size, dtype=dtype, device=device))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    reset_parameters = RNNBase.reset_parameters

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if getattr(self, "nonlinearity", "tanh") != "tanh":
            s += f", nonlinearity={self.nonlinearity}"
        return s

    def _inputs(self, input: Tensor, hx: Any, lstm: bool = False) -> tuple[Tensor, Any, bool]:  # noqa: A002
        if input.dim() not in (1, 2):
            raise ValueError(f"{type(self).__name__}: Expected input to be 1D or 2D, got {input.dim()}D instead")
        if input.shape[-1] != self.input_size:
            raise RuntimeError(f"input has inconsistent input_size: got {input.shape[-1]} expected {self.input_size}")
        batched = input.dim() == 2
        if not batched:
            input = input.unsqueeze(0)
        if hx is None:
            zeros = _factories.zeros(input.shape[0], self.hidden_size, dtype=input.dtype)
            hx = (zeros, zeros) if lstm else zeros
        elif not batched:
            hx = tuple(h.unsqueeze(0) for h in hx) if lstm else hx.unsqueeze(0)
        return input, hx, batched


class RNNCell(RNNCellBase):
    """h' = tanh(x Wᵢₕᵀ + bᵢₕ + h Wₕₕᵀ + bₕₕ) (or relu)."""

    def __init__(
        self,
        input_size: int,
        hidden_size: int,
        bias: bool = True,
        nonlinearity: str = "tanh",
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"Unknown nonlinearity: {nonlinearity}")
        super().__init__(input_size, hidden_size, bias, 1, device, dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input: Tensor, hx: Tensor | None = None) -> Tensor:  # noqa: A002
        x, h, batched = self._inputs(input, hx)
        h = _rnn_step(
            functional.linear(x, self.weight_ih, self.bias_ih),
            h,
            self.weight_hh,
            self.bias_hh,
            self.nonlinearity == "relu",
        )
        return h if batched else h.squeeze(0)


class LSTMCell(RNNCellBase):
    """One LSTM step: returns ``(h', c')``."""

    def __init__(
        self, input_size: int, hidden_size: int, bias: bool = True, device: Any = None, dtype: Any = None
    ) -> None:
        super().__init__(input_size, hidden_size, bias, 4, device, dtype)

    def forward(self, input: Tensor, hx: Any = None) -> tuple[Tensor, Tensor]:  # noqa: A002
        x, (h, c), batched = self._inputs(input, hx, lstm=True)
        h, c = _lstm_step(functional.linear(x, self.weight_ih, self.bias_ih), h, c, self.weight_hh, self.bias_hh)
        return (h, c) if batched else (h.squeeze(0), c.squeeze(0))


class GRUCell(RNNCellBase):
    """One GRU step: returns h'."""

    def __init__(
        self, input_size: int, hidden_size: int, bias: bool = True, device: Any = None, dtype: Any = None
    ) -> None:
        super().__init__(input_size, hidden_size, bias, 3, device, dtype)

    def forward(self, input: Tensor, hx: Tensor | None = None) -> Tensor:  # noqa: A002
        x, h, batched = self._inputs(input, hx)
        h = _gru_step(functional.linear(x, self.weight_ih, self.bias_ih), h, self.weight_hh, self.bias_hh)
        return h if batched else h.squeeze(0)
