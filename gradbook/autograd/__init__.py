"""gradbook.autograd: backward, grad, grad modes, gradcheck and gradgradcheck, as in ``torch.autograd``."""

from __future__ import annotations

from collections.abc import Callable
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


class GradcheckError(RuntimeError):
    """Raised by :func:`gradcheck` when backward disagrees with finite differences."""


def gradcheck(
    fn: Callable[..., Any],
    inputs: Any,
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-3,
    raise_exception: bool = True,
) -> bool:
    """Check ``fn``'s backward against central finite differences, in float64.

    For each input element xⱼ the numerical derivative (f(x + ε eⱼ) - f(x - ε eⱼ)) / 2ε is
    compared with the column of the Jacobian that backward computes, row by row, through
    vector-Jacobian products. Inputs that require grad are checked; others are held fixed.

    >>> import gradbook as torch
    >>> x = torch.tensor([0.5, -1.0], dtype=torch.float64, requires_grad=True)
    >>> torch.autograd.gradcheck(lambda x: (x * x.sin()).sum(), (x,))
    True
    """
    given = (inputs,) if isinstance(inputs, Tensor) else tuple(inputs)
    args = [
        Tensor._make(t._array.astype(np.float64)).requires_grad_(t.requires_grad)
        if isinstance(t, Tensor) and t.is_floating_point()
        else t
        for t in given
    ]
    checked = [i for i, a in enumerate(args) if isinstance(a, Tensor) and a.requires_grad]
    if not checked:
        raise ValueError(
            "gradcheck expects at least one input tensor to require gradient, but none of them have requires_grad=True."
        )

    def run() -> list[np.ndarray]:
        out = fn(*args)
        return [o._array.astype(np.float64).ravel().copy() for o in _as_list(out)]

    outs = _as_list(fn(*args))
    for k, out in enumerate(outs):
        for i in checked:
            x = args[i]
            flat = x._array.reshape(-1)
            numerical = np.zeros((flat.size, out.numel()))
            for j in range(flat.size):
                old = flat[j]
                flat[j] = old + eps
                plus = run()[k]
                flat[j] = old - eps
                minus = run()[k]
                flat[j] = old
                numerical[j] = (plus - minus) / (2 * eps)
            analytical = np.zeros_like(numerical)
            if out.requires_grad:
                for r in range(out.numel()):
                    seed = np.zeros(out.numel())
                    seed[r] = 1
                    (g,) = grad(
                        out,
                        x,
                        Tensor._make(seed.reshape(out._array.shape).astype(out._array.dtype)),
                        retain_graph=True,
                        allow_unused=True,
                    )
                    if g is not None:
                        analytical[:, r] = g._array.ravel()
            bad = ~np.isclose(analytical, numerical, rtol=rtol, atol=atol)
            if bad.any():
                j, r = np.argwhere(bad)[0]
                where = f"element {tuple(int(k) for k in np.unravel_index(j, x._array.shape))} of input {i}"
                msg = (
                    f"Gradient check failed for output {k} with respect to input {i}.\n"
                    f"At {where}, output element {r}: backward gave {analytical[j, r]:.6g}, but finite "
                    f"differences give {numerical[j, r]:.6g}.\n"
                    "The backward rule (or the function) does not match the slope of the forward "
                    "computation there: check the derivative formula, its sign, and that the "
                    "gradient is summed over every place the input is used."
                )
                if raise_exception:
                    raise GradcheckError(msg)
                return False
    return True


def gradgradcheck(
    func: Callable[..., Any],
    inputs: Any,
    grad_outputs: Any = None,
    *,
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-3,
    raise_exception: bool = True,
    **torch_options: Any,
) -> bool:
    """Check second derivatives: :func:`gradcheck` of the function that maps (inputs, v) to the
    gradient vᵀ·∂func/∂inputs, which backward computes with ``create_graph=True``.

    ``grad_outputs`` (the v, one per output that requires grad) are random in [-1, 1) when not
    given. torch's other options (``check_undefined_grad``, ``fast_mode``, ...) are accepted and
    change nothing.

    >>> import gradbook as torch
    >>> x = torch.tensor([0.5, -1.0], dtype=torch.float64, requires_grad=True)
    >>> torch.autograd.gradgradcheck(lambda x: x.sin() * x, (x,))
    True
    """
    given = (inputs,) if isinstance(inputs, Tensor) else tuple(inputs)
    if grad_outputs is None:
        rng = np.random.default_rng(0)  # its own generator: a check does not move the user's seed
        outs = [o for o in _as_list(func(*given)) if o.requires_grad]
        dtypes = [o._array.dtype if o.is_floating_point() else np.float64 for o in outs]
        seeds = tuple(
            Tensor._make(rng.uniform(-1, 1, o._array.shape).astype(dt)).requires_grad_() for o, dt in zip(outs, dtypes)
        )
    else:
        seeds = (grad_outputs,) if isinstance(grad_outputs, Tensor) else tuple(grad_outputs)
    n = len(seeds)
    differentiable = [i for i, x in enumerate(given) if isinstance(x, Tensor) and x.requires_grad]

    def first_derivative(*args: Any) -> tuple:
        outputs = [o for o in _as_list(func(*args[:-n])) if o.requires_grad]
        grads = grad(outputs, [args[i] for i in differentiable], list(args[-n:]), create_graph=True, allow_unused=True)
        return tuple(g for g in grads if g is not None)

    return gradcheck(first_derivative, given + seeds, eps=eps, atol=atol, rtol=rtol, raise_exception=raise_exception)
