"""``gradbook.autograd.graph``, as ``torch.autograd.graph``: the node classes of the graph, and
``saved_tensors_hooks``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .engine import AccumulateGrad, Node, RemovableHandle
from .grad_mode import _State

__all__ = ["AccumulateGrad", "Node", "RemovableHandle", "saved_tensors_hooks"]


class saved_tensors_hooks:  # noqa: N801  (torch's name)
    """``with saved_tensors_hooks(pack, unpack):`` the ops recorded inside keep ``pack(t)`` of each
    tensor they save for backward, and backward (or ``grad_fn._saved_<name>``) reads
    ``unpack(packed)``: a lesson can watch what autograd saves, or keep it elsewhere."""

    def __init__(self, pack_hook: Callable[[Any], Any], unpack_hook: Callable[[Any], Any]) -> None:
        self.hooks = (pack_hook, unpack_hook)

    def __enter__(self) -> saved_tensors_hooks:
        _State.saved_hooks.append(self.hooks)
        return self

    def __exit__(self, *exc: object) -> None:
        _State.saved_hooks.pop()


class OutputPlace:
    """The hooks and retain_grad of one output of a node with several outputs (a tensor's hooks
    belong to the tensor: here, to its output number), run by the engine when its gradient is ready."""

    _tensor_pre_hooks: dict | None = None
    _retains: Any = None
    _hooked = False


class SeveralOutputs:
    """For a node with several outputs (``split``, a custom Function's): edges ``(node, k)`` reach
    it, the engine gives it one gradient per output, and each output's hooks have their place."""

    _places: dict[int, OutputPlace] = {}  # read-only here: output() gives each node its own

    def output(self, k: int) -> OutputPlace:
        """Where the hooks of output k live."""
        if "_places" not in self.__dict__:
            self._places = {}
        return self._places.setdefault(k, OutputPlace())
