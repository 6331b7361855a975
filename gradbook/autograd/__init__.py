"""gradbook.autograd: backward, grad, grad modes, gradcheck and gradgradcheck, as in ``torch.autograd``.

This module only gathers the names: ``backward`` and ``grad`` are in ``engine.py``, the nodes in
``graph.py``."""

from __future__ import annotations

from typing import Any

from . import engine, function, functional, graph, profiler
from .engine import backward, grad
from .function import Function
from .grad_mode import (
    enable_grad,
    inference_mode,
    is_grad_enabled,
    is_inference_mode_enabled,
    no_grad,
    set_grad_enabled,
)
from .gradcheck import GradcheckError, gradcheck, gradgradcheck
from .graph import AccumulateGrad, Node
from .variable import Variable

__all__ = [
    "AccumulateGrad",
    "Function",
    "Node",
    "backward",
    "enable_grad",
    "engine",
    "forward_ad",
    "function",
    "functional",
    "grad",
    "gradcheck",
    "gradgradcheck",
    "GradcheckError",
    "graph",
    "inference_mode",
    "is_grad_enabled",
    "is_inference_mode_enabled",
    "no_grad",
    "profiler",
    "set_grad_enabled",
    "Variable",
]


def __getattr__(name: str) -> Any:  # a torch.autograd name gradbook lacks: say so, by name
    if name == "forward_ad":  # imported when first used: it builds on the ops, which build on autograd
        import importlib

        return importlib.import_module(f"{__name__}.forward_ad")
    from .. import _missing

    if name in _missing.AUTOGRAD:
        raise _missing.missing("autograd.", name)
    raise AttributeError(f"module 'gradbook.autograd' has no attribute '{name}'")
