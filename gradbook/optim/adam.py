"""Adam and AdamW, as torch.optim.Adam and torch.optim.AdamW."""

from __future__ import annotations

from typing import Any

from .._factories import tensor, zeros_like
from ..tensor import Tensor
from .optimizer import Optimizer, ParamsT, addcdiv_, addcmul_, check_unsupported, lerp_


class Adam(Optimizer):
    """Steps of about ``lr`` along m / √v: running averages of the gradient and of its square.

    m ← β₁·m + (1 - β₁)·g,  v ← β₂·v + (1 - β₂)·g²,  p ← p - lr/(1 - β₁ᵗ) · m / (√v / √(1 - β₂ᵗ) + eps)

    ``g`` is ``p.grad`` (``-p.grad`` with ``maximize``) plus ``weight_decay·p``; ``amsgrad`` uses
    the largest v so far. The first step is about ``lr·sign(g)``: m/√v = g/|g| after bias correction.

    >>> import gradbook as torch
    >>> w = torch.tensor([1.0, -2.0], requires_grad=True)
    >>> opt = torch.optim.Adam([w], lr=0.1)
    >>> w.grad = torch.tensor([3.0, -0.5])
    >>> opt.step()
    >>> w
    tensor([ 0.9000, -1.9000], requires_grad=True)
    """

    def __init__(
        self,
        params: ParamsT,
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0,
        amsgrad: bool = False,
        *,
        foreach: bool | None = None,
        maximize: bool = False,
        capturable: bool = False,
        differentiable: bool = False,
        fused: bool | None = None,
        decoupled_weight_decay: bool = False,
    ) -> None:
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= betas[0] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
        if not 0.0 <= betas[1] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not (isinstance(betas[0], float) and isinstance(betas[1], float)):
            raise ValueError("betas must be either both floats or both Tensors")
        check_unsupported(capturable=capturable, differentiable=differentiable, fused=fused)
        defaults = {
            "lr": lr,
            "betas": tuple(betas),
            "eps": eps,
            "weight_decay": weight_decay,
            "amsgrad": amsgrad,
            "maximize": maximize,
            "foreach": foreach,
            "capturable": capturable,
            "differentiable": differentiable,
            "fused": fused,
            "decoupled_weight_decay": decoupled_weight_decay,
        }
        super().__init__(params, defaults)

    def _update(self, p: Tensor, grad: Tensor, group: dict[str, Any]) -> None:
        state = self.state[p]
        if not state:
            state["step"] = tensor(0.0)
            state["exp_avg"] = zeros_like(p)
            state["exp_avg_sq"] = zeros_like(p)
            if group["amsgrad"]:
                state["max_exp_avg_sq"] = zeros_like(p)
        lr, (beta1, beta2), eps, weight_decay = group["lr"], group["betas"], group["eps"], group["weight_decay"]
        exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
        if group["maximize"]:
            grad = -grad
        state["step"] += 1
        if weight_decay != 0:
            if group["decoupled_weight_decay"]:
                p.mul_(1 - lr * weight_decay)  # AdamW: decay the weights, not the gradient
            else:
                grad = grad.add(p, alpha=weight_decay)
        lerp_(exp_avg, grad, 1 - beta1)
        addcmul_(exp_avg_sq.mul_(beta2), grad, grad, value=1 - beta2)
        step = state["step"].item()
        step_size = lr / (1 - beta1**step)
        bias_correction2_sqrt = (1 - beta2**step) ** 0.5
        if group["amsgrad"]:
            state["max_exp_avg_sq"].copy_(state["max_exp_avg_sq"].maximum(exp_avg_sq))
            exp_avg_sq = state["max_exp_avg_sq"]
        denom = (exp_avg_sq.sqrt() / bias_correction2_sqrt).add_(eps)
        addcdiv_(p, exp_avg, denom, value=-step_size)


class AdamW(Adam):
    """Adam with decoupled weight decay: p ← p·(1 - lr·weight_decay) before the Adam step.

    >>> import gradbook as torch
    >>> torch.optim.AdamW([torch.ones(1, requires_grad=True)]).param_groups[0]["weight_decay"]
    0.01
    """

    def __init__(
        self,
        params: ParamsT,
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 1e-2,
        amsgrad: bool = False,
        *,
        maximize: bool = False,
        foreach: bool | None = None,
        capturable: bool = False,
        differentiable: bool = False,
        fused: bool | None = None,
    ) -> None:
        super().__init__(
            params,
            lr,
            betas,
            eps,
            weight_decay,
            amsgrad,
            foreach=foreach,
            maximize=maximize,
            capturable=capturable,
            differentiable=differentiable,
            fused=fused,
            decoupled_weight_decay=True,
        )
