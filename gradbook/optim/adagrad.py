"""Adagrad, as torch.optim.Adagrad."""

from __future__ import annotations

from typing import Any

from .._factories import full_like, tensor
from ..tensor import Tensor
from .optimizer import Optimizer, ParamsT, addcdiv_, addcmul_, check_unsupported


class Adagrad(Optimizer):
    """Gradient steps divided by the root of the sum of every g² so far.

    s ← s + g²,  p ← p - clr · g / (√s + eps),  with clr = lr / (1 + (t - 1)·lr_decay)

    The state exists from the start: ``s`` begins at ``initial_accumulator_value``.

    >>> import gradbook as torch
    >>> w = torch.tensor([1.0], requires_grad=True)
    >>> opt = torch.optim.Adagrad([w], lr=0.5)
    >>> w.grad = torch.tensor([4.0])
    >>> opt.step()  # s = 16: w ← 1 - 0.5·4/4
    >>> w
    tensor([0.5000], requires_grad=True)
    """

    def __init__(
        self,
        params: ParamsT,
        lr: float = 1e-2,
        lr_decay: float = 0,
        weight_decay: float = 0,
        initial_accumulator_value: float = 0,
        eps: float = 1e-10,
        foreach: bool | None = None,
        *,
        maximize: bool = False,
        differentiable: bool = False,
        fused: bool | None = None,
    ) -> None:
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= lr_decay:
            raise ValueError(f"Invalid lr_decay value: {lr_decay}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= initial_accumulator_value:
            raise ValueError(f"Invalid initial_accumulator_value value: {initial_accumulator_value}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        check_unsupported(differentiable=differentiable, fused=fused)
        defaults = {
            "lr": lr,
            "lr_decay": lr_decay,
            "eps": eps,
            "weight_decay": weight_decay,
            "initial_accumulator_value": initial_accumulator_value,
            "foreach": foreach,
            "maximize": maximize,
            "differentiable": differentiable,
            "fused": fused,
        }
        super().__init__(params, defaults)
        for group in self.param_groups:
            for p in group["params"]:
                self._init_state(self.state[p], p)

    def _init_state(self, state: dict[str, Any], p: Tensor) -> None:
        state["step"] = tensor(0.0)
        state["sum"] = full_like(p, self.defaults["initial_accumulator_value"])

    def _update(self, p: Tensor, grad: Tensor, group: dict[str, Any]) -> None:
        state = self.state[p]
        if not state:  # a parameter added with add_param_group after the start
            self._init_state(state, p)
        state["step"] += 1
        step = state["step"].item()
        if group["maximize"]:
            grad = -grad
        if group["weight_decay"] != 0:
            grad = grad.add(p, alpha=group["weight_decay"])
        clr = group["lr"] / (1 + (step - 1) * group["lr_decay"])
        state_sum = addcmul_(state["sum"], grad, grad, value=1)
        addcdiv_(p, grad, state_sum.sqrt().add_(group["eps"]), value=-clr)
