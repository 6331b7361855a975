"""The arguments of ``backward()`` and ``autograd.grad()``: seeds, ``inputs=``, and torch's refusals."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..tensor import Tensor


def as_list(x: Any) -> list:
    """One tensor, or a sequence of them (None: none), as a list."""
    if x is None:
        return []
    return [x] if isinstance(x, Tensor) else list(x)


def backward_seeds(outputs: list[Tensor], given: Any) -> list[Tensor | None]:
    """The v of vᵀJ for each output: the one given (one tensor, a sequence, or None), checked as
    torch checks it, or v = 1 for a one-element output (pairing them as zip() does, then counting)."""
    if given is None and len(outputs) == 1 and outputs[0].requires_grad and outputs[0]._array.size == 1:
        return [Tensor._make(np.ones_like(outputs[0]._array))]  # loss.backward(): what the loop below gives it
    grads = as_list(given) if given is not None else [None] * len(outputs)
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
            if out._array.size != 1:
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


def check_tensors(inputs: list) -> None:
    """torch's error for an input of ``backward`` or ``grad`` that is not a tensor."""
    for t in inputs:
        if not isinstance(t, Tensor):
            raise RuntimeError(f"all inputs have to be Tensors or GradientEdges, but got {type(t).__name__}")


def backward_inputs(only: list) -> list[Tensor]:
    """``backward(inputs=...)``, checked; each non-leaf among them will retain its gradient."""
    if not only:
        raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
    check_tensors(only)
    for t in only:
        if not t.requires_grad:
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
    for t in only:
        if t.grad_fn is not None:
            t.retain_grad()
    return only
