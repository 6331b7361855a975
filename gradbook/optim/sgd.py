"""Stochastic gradient descent, as torch.optim.SGD."""

from __future__ import annotations

from typing import Any

from ..tensor import Tensor
from .optimizer import Optimizer, ParamsT, check_unsupported


class SGD(Optimizer):
    """p ← p - lr·v, where v = g (plain) or v ← momentum·v + (1 - dampening)·g (with momentum).

    ``g`` is ``p.grad`` (``-p.grad`` with ``maximize``) plus ``weight_decay·p``; with ``nesterov``
    the step uses g + momentum·v instead of v. The first step starts v at g.

    >>> import gradbook as torch
    >>> w = torch.tensor([1.0], requires_grad=True)
    >>> opt = torch.optim.SGD([w], lr=0.5, momentum=0.9)
    >>> for _ in range(2):
    ...     w.grad = torch.tensor([1.0])
    ...     opt.step()  # v = 1, then v = 0.9·1 + 1 = 1.9
    >>> w
    tensor([-0.4500], requires_grad=True)
    """

    def __init__(
        self,
        params: ParamsT,
        lr: float = 1e-3,
        momentum: float = 0,
        dampening: float = 0,
        weight_decay: float = 0,
        nesterov: bool = False,
        *,
        maximize: bool = False,
        foreach: bool | None = None,
        differentiable: bool = False,
        fused: bool | None = None,
    ) -> None:
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        check_unsupported(differentiable=differentiable, fused=fused)
        defaults = {
            "lr": lr,
            "momentum": momentum,
            "dampening": dampening,
            "weight_decay": weight_decay,
            "nesterov": nesterov,
            "maximize": maximize,
            "foreach": foreach,
            "differentiable": differentiable,
            "fused": fused,
        }
        super().__init__(params, defaults)

    def _update(self, p: Tensor, grad: Tensor, group: dict[str, Any]) -> None:
        if group["maximize"]:
            grad = -grad
        if group["weight_decay"] != 0:
            grad = grad.add(p, alpha=group["weight_decay"])
        momentum = group["momentum"]
        if momentum != 0:
            state = self.state[p]  # only momentum keeps a state, as in torch
            buf = state.get("momentum_buffer")
            if buf is None:
                buf = state["momentum_buffer"] = grad.detach().clone()
            else:
                buf.mul_(momentum).add_(grad, alpha=1 - group["dampening"])
            grad = grad.add(buf, alpha=momentum) if group["nesterov"] else buf
        p.add_(grad, alpha=-group["lr"])
