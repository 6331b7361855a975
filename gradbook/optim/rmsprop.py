"""RMSprop, as torch.optim.RMSprop."""

from __future__ import annotations

from typing import Any

from .._factories import zeros, zeros_like
from ..tensor import Tensor
from .optimizer import Optimizer, ParamsT, addcdiv_, addcmul_, check_unsupported, lerp_


class RMSprop(Optimizer):
    """Gradient steps divided by the root of a running average of g².

    v ← α·v + (1 - α)·g²,  p ← p - lr · g / (√v + eps)

    ``centered`` subtracts the squared running mean of g from v; ``momentum`` accumulates the
    divided steps in a buffer b ← momentum·b + g / (√v + eps) and steps by lr·b.

    >>> import gradbook as torch
    >>> w = torch.tensor([1.0], requires_grad=True)
    >>> opt = torch.optim.RMSprop([w], lr=0.01, alpha=0.75)
    >>> w.grad = torch.tensor([2.0])
    >>> opt.step()  # v = 0.25·4 = 1: w ← 1 - 0.01·2/1
    >>> w
    tensor([0.9800], requires_grad=True)
    """

    def __init__(
        self,
        params: ParamsT,
        lr: float = 1e-2,
        alpha: float = 0.99,
        eps: float = 1e-8,
        weight_decay: float = 0,
        momentum: float = 0,
        centered: bool = False,
        capturable: bool = False,
        foreach: bool | None = None,
        maximize: bool = False,
        differentiable: bool = False,
    ) -> None:
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= momentum:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= alpha:
            raise ValueError(f"Invalid alpha value: {alpha}")
        check_unsupported(capturable=capturable, differentiable=differentiable)
        defaults = {
            "lr": lr,
            "momentum": momentum,
            "alpha": alpha,
            "eps": eps,
            "centered": centered,
            "weight_decay": weight_decay,
            "capturable": capturable,
            "foreach": foreach,
            "maximize": maximize,
            "differentiable": differentiable,
        }
        super().__init__(params, defaults)

    def _update(self, p: Tensor, grad: Tensor, group: dict[str, Any]) -> None:
        state = self.state[p]
        if not state:
            state["step"] = zeros(())
            state["square_avg"] = zeros_like(p)
            if group["momentum"] > 0:
                state["momentum_buffer"] = zeros_like(p)
            if group["centered"]:
                state["grad_avg"] = zeros_like(p)
        alpha, square_avg = group["alpha"], state["square_avg"]
        if group["maximize"]:
            grad = -grad
        state["step"] += 1
        if group["weight_decay"] != 0:
            grad = grad.add(p, alpha=group["weight_decay"])
        addcmul_(square_avg.mul_(alpha), grad, grad, value=1 - alpha)
        if group["centered"]:
            grad_avg = lerp_(state["grad_avg"], grad, 1 - alpha)
            avg = addcmul_(square_avg.clone(), grad_avg, grad_avg, value=-1).sqrt()
        else:
            avg = square_avg.sqrt()
        avg.add_(group["eps"])
        if group["momentum"] > 0:
            buf = addcdiv_(state["momentum_buffer"].mul_(group["momentum"]), grad, avg)
            p.add_(buf, alpha=-group["lr"])
        else:
            addcdiv_(p, grad, avg, value=-group["lr"])
