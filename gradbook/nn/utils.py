"""``torch.nn.utils``: clipping the gradients of parameters in place, as torch clips them.

``clip_grad_norm_`` scales every gradient by min(1, max_norm / (total + 1e-6)), where total is the
norm of all the gradients taken together, as if they were one vector; ``clip_grad_value_`` clamps
each element into [-clip_value, clip_value].

>>> import gradbook as torch
>>> w = torch.tensor([3.0, 4.0], requires_grad=True)
>>> (w * w).sum().backward()  # w.grad = 2w = (6, 8), of norm 10
>>> torch.nn.utils.clip_grad_norm_([w], max_norm=5.0)
tensor(10.)
>>> w.grad
tensor([3.0000, 4.0000])
"""

from __future__ import annotations

import types
import warnings
from collections.abc import Iterable

from .. import _arguments, _factories, linalg
from ..autograd.grad_mode import no_grad
from ..tensor import Tensor


def _listed(parameters: Tensor | Iterable[Tensor]) -> list[Tensor]:
    return [parameters] if isinstance(parameters, Tensor) else list(parameters)


def clip_grad_norm_(
    parameters: Tensor | Iterable[Tensor],
    max_norm: float,
    norm_type: float = 2.0,
    error_if_nonfinite: bool = False,
    foreach: bool | None = None,
) -> Tensor:
    """Scale the gradients so that their total ``norm_type``-norm is at most ``max_norm``; return
    the total norm they had."""
    is_generator = isinstance(parameters, types.GeneratorType)
    parameters = _listed(parameters)
    if is_generator and not parameters:
        warnings.warn("`parameters` is an empty generator, no gradient clipping will occur.", stacklevel=2)
    grads = [p.grad for p in parameters if p.grad is not None]
    norm_type = float(norm_type)
    if not grads:
        return _factories.tensor(0.0)
    with no_grad():
        total = linalg.vector_norm(_arguments.stack([linalg.vector_norm(g, norm_type) for g in grads]), norm_type)
        if error_if_nonfinite and (total.isnan() | total.isinf()):
            raise RuntimeError(
                f"The total norm of order {norm_type} for gradients from `parameters` is non-finite, so it cannot "
                "be clipped. To disable this error and scale the gradients by the non-finite norm anyway, set "
                "`error_if_nonfinite=False`"
            )
        coef = (float(max_norm) / (total + 1e-6)).clamp(max=1.0)
        for g in grads:
            g.mul_(coef)
    return total


def clip_grad_value_(parameters: Tensor | Iterable[Tensor], clip_value: float, foreach: bool | None = None) -> None:
    """Clamp every element of every gradient into [-clip_value, clip_value]."""
    clip_value = float(clip_value)
    with no_grad():
        for p in _listed(parameters):
            if p.grad is not None:
                p.grad.clamp_(min=-clip_value, max=clip_value)
