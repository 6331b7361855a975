"""Which library a tensor comes from, gradbook's or PyTorch's, read through the API both share.

viz reads a graph only through the names torch gives it (``grad_fn``, ``next_functions``,
``name()``, ``_sequence_nr()``, ``AccumulateGrad.variable``, ``_saved_<name>``, node and tensor
hooks), so the same code draws and records a real PyTorch graph. torch is never imported to find
out: a torch tensor is recognised by the module its class was defined in, and torch's
``autograd`` is imported only once a torch tensor has been passed in (torch is loaded by then).
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable
from typing import Any

import numpy as np

from .. import Tensor
from ..autograd.graph import Node

__all__ = ["is_module", "is_tensor", "is_torch_tensor", "library_of", "numpy_of", "op_class"]


def _has_base(value: Any, module: str, name: str) -> bool:
    return any(k.__module__ == module and k.__name__ == name for k in type(value).__mro__)


def is_torch_tensor(value: Any) -> bool:
    """A ``torch.Tensor`` (or a subclass, such as ``nn.Parameter``), told without importing torch.

    >>> import gradbook
    >>> is_torch_tensor(gradbook.ones(2)), is_torch_tensor([1.0])
    (False, False)
    """
    return _has_base(value, "torch", "Tensor")


def is_tensor(value: Any) -> bool:
    """A gradbook tensor or a torch tensor."""
    return isinstance(value, Tensor) or is_torch_tensor(value)


def is_module(value: Any) -> bool:
    """A gradbook ``nn.Module`` or a torch ``nn.Module``: its parameters are named after it."""
    from ..nn import Module

    return isinstance(value, Module) or _has_base(value, "torch.nn.modules.module", "Module")


def library_of(tensors: Iterable[Any], caller: str) -> Any:
    """``gradbook``, or ``torch`` when the tensors are torch's (never both at once).

    >>> import gradbook
    >>> library_of([gradbook.ones(1)], "draw").__name__
    'gradbook'
    """
    tensors = list(tensors)
    for t in tensors:
        if not is_tensor(t):
            raise TypeError(f"{caller}() takes tensors (gradbook's or torch's), got {type(t).__name__}")
    kinds = {is_torch_tensor(t) for t in tensors}
    if kinds == {True, False}:
        raise TypeError(f"{caller}() got both gradbook and torch tensors; pass tensors of one library")
    if kinds == {True}:
        return importlib.import_module("torch")  # loaded already: it made these tensors
    return importlib.import_module("gradbook")


def numpy_of(t: Any) -> np.ndarray:
    """A tensor's values as a NumPy array, through the public API (``detach().numpy()``)."""
    return t.detach().numpy()


def _op_table() -> dict[str, type]:
    """gradbook's op table by torch's names: every node class that carries backward rules."""
    table: dict[str, type] = {}
    classes = list(Node.__subclasses__())
    while classes:
        cls = classes.pop()
        if getattr(cls, "rules", None):
            table.setdefault(cls.__name__, cls)
        classes.extend(cls.__subclasses__())
    return table


_OPS: dict[str, type] = {}


def op_class(node: Any) -> type | None:
    """The class in gradbook's op table for a node: its own class for gradbook's nodes, the op of
    the same ``name()`` for torch's (None when gradbook has no such op, e.g. a custom Function).

    >>> import gradbook
    >>> x = gradbook.ones(2, requires_grad=True)
    >>> op_class((x * x).grad_fn).__name__
    'MulBackward0'
    """
    if isinstance(node, Node):  # gradbook's own: an op of the table, or a custom Function's node
        return type(node) if getattr(type(node), "rules", None) else None
    if not _OPS:
        _OPS.update(_op_table())
    return _OPS.get(node.name())
