"""gradbook.autograd: backward, grad, grad modes, gradcheck and gradgradcheck, as in ``torch.autograd``."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..tensor import Tensor
from . import engine, function, functional, graph, profiler
from .engine import AccumulateGrad, Node
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

__all__ = [
    "AccumulateGrad",
    "Function",
    "Node",
    "backward",
    "enable_grad",
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
]


def __getattr__(name: str) -> Any:  # a torch.autograd name gradbook lacks: say so, by name
    from .. import _missing

    if name in _missing.AUTOGRAD:
        raise _missing.missing("autograd.", name)
    raise AttributeError(f"module 'gradbook.autograd' has no attribute '{name}'")


def _as_list(x: Any) -> list:
    if x is None:
        return []
    return [x] if isinstance(x, Tensor) else list(x)


def _check_inputs(inputs: list) -> None:
    for t in inputs:
        if not isinstance(t, Tensor):
            raise RuntimeError(f"all inputs have to be Tensors or GradientEdges, but got {type(t).__name__}")


def _make_grads(outputs: list, grads: list) -> list:
    """Check the seeds v of vᵀJ and fill in v = 1 for one-element outputs, as torch does (pairing
    them as zip() does, then counting)."""
    result = []
    for i, (out, g) in enumerate(zip(outputs, grads)):
        if g is not None:
            if not isinstance(g, Tensor):
                raise TypeError(f"gradients can be either Tensors or None, but got {type(g).__name__}")
            if g.shape != out.shape:
                raise RuntimeError(
                    f"Mismatch in shape: grad_output[{i}] has a shape of {g.shape} and output[{i}] "
                    f"has a shape of {out.shape}."
                )
            result.append(g if g._array.dtype == out._array.dtype else g.to(out.dtype))
        elif out.requires_grad:
            if out.numel() != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            result.append(Tensor._make(np.ones_like(out._array)))
        else:
            result.append(None)
    if len(result) != len(outputs):
        raise RuntimeError(f"got {len(outputs)} tensors and {len(result)} gradients")
    for i, out in enumerate(outputs):
        if not out.requires_grad:
            raise RuntimeError(f"element {i} of tensors does not require grad and does not have a grad_fn")
    return result


def backward(
    tensors: Any,
    grad_tensors: Any = None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    inputs: Any = None,
) -> None:
    """Add d(tensors)/d(leaf), weighted by ``grad_tensors``, into each leaf's ``.grad``.

    For an output y and seed v (``grad_tensors``) each leaf x receives vᵀ·∂y/∂x. v may be left
    out only for one-element outputs. ``retain_graph`` defaults to ``create_graph``; without it
    the graph's saved tensors are freed. ``inputs`` limits which tensors accumulate. Every check
    happens before any ``.grad`` changes.

    >>> import gradbook as torch
    >>> x = torch.tensor([2.0, 3.0, 4.0], requires_grad=True)
    >>> y = x * x
    >>> torch.autograd.backward(y, torch.ones_like(y))
    >>> x.grad
    tensor([4., 6., 8.])
    """
    keep = create_graph if retain_graph is None else retain_graph
    outputs = _as_list(tensors)
    grads = _as_list(grad_tensors) if grad_tensors is not None else [None] * len(outputs)
    seeds = _make_grads(outputs, grads)
    only = None
    if inputs is not None:
        only = _as_list(inputs)
        if not only:
            raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
        _check_inputs(only)
        for t in only:
            if not t.requires_grad:
                raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        for t in only:
            if t.grad_fn is not None:
                t.retain_grad()
    engine.backward(outputs, seeds, keep, create_graph, inputs=only)


def grad(
    outputs: Any,
    inputs: Any,
    grad_outputs: Any = None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    allow_unused: bool | None = None,
) -> tuple:
    """Return d(outputs)/d(inputs) (weighted by ``grad_outputs``) without touching any ``.grad``.

    With ``create_graph=True`` the result is itself differentiable, for higher derivatives.

    >>> import gradbook as torch
    >>> x = torch.tensor(3.0, requires_grad=True)
    >>> (dy,) = torch.autograd.grad(x ** 3, x, create_graph=True)   # 3x² = 27
    >>> (d2y,) = torch.autograd.grad(dy, x)                         # 6x = 18
    >>> dy, d2y
    (tensor(27., grad_fn=<MulBackward0>), tensor(18.))
    """
    outs = _as_list(outputs)
    ins = _as_list(inputs)
    if not ins:
        raise RuntimeError("`inputs` argument to `grad()` cannot be empty.")
    _check_inputs(ins)
    grads = _as_list(grad_outputs) if grad_outputs is not None else [None] * len(outs)
    seeds = _make_grads(outs, grads)
    for t in ins:
        if not t.requires_grad:
            raise RuntimeError("One of the differentiated Tensors does not require grad")
    keep = create_graph if retain_graph is None else retain_graph
    if not allow_unused:
        ops, leaves, _ = engine.discover([t.grad_fn or t._grad_accumulator() for t in outs])
        reachable = set(ops) | leaves.keys()
        for i, t in enumerate(ins):
            if (t.grad_fn or t._grad_accumulator()) not in reachable:
                raise RuntimeError(
                    f"The differentiated Tensor at index {i} appears to not have been used in the graph. "
                    "Set allow_unused=True if this is the desired behavior."
                )
    captured = engine.backward(outs, seeds, keep, create_graph, inputs=ins, accumulate=False)
    return tuple(c if c is None or create_graph else c.detach() for c in captured)
