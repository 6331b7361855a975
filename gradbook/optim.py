"""gradbook.optim: stochastic gradient descent, as torch.optim.SGD."""

from __future__ import annotations

from collections.abc import Iterable

from .autograd.grad_mode import no_grad
from .tensor import Tensor


class SGD:
    """p ← p - lr·v, where v = g (plain) or v ← momentum·v + g (with momentum).

    ``g`` is ``p.grad`` plus ``weight_decay·p``. The update runs under ``no_grad``: it changes the
    weights in place and is not itself part of any graph.
    """

    def __init__(
        self, params: Iterable[Tensor], lr: float = 1e-3, momentum: float = 0, weight_decay: float = 0
    ) -> None:
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        self.params = list(params)
        if not self.params:
            raise ValueError("optimizer got an empty parameter list")
        self.lr, self.momentum, self.weight_decay = lr, momentum, weight_decay
        self._velocity: dict[int, Tensor] = {}

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Forget the gradients of every parameter before the next backward."""
        for p in self.params:
            if set_to_none:
                p.grad = None
            elif p._grad is not None:
                p._grad.detach_().zero_()

    @no_grad()
    def step(self) -> None:
        """Move every parameter that has a gradient one step downhill."""
        for p in self.params:
            if p._grad is None:
                continue
            g = p._grad
            if self.weight_decay:
                g = g + self.weight_decay * p
            if self.momentum:
                v = self._velocity.get(id(p))
                if v is None:
                    v = self._velocity[id(p)] = g.clone()
                else:
                    v.mul_(self.momentum).add_(g)
                g = v
            p.sub_(g * self.lr)

    def __repr__(self) -> str:
        # torch's text, with the options gradbook does not have at torch's defaults
        return (
            "SGD (\nParameter Group 0\n    dampening: 0\n    differentiable: False\n    foreach: None\n"
            f"    fused: None\n    lr: {self.lr}\n    maximize: False\n    momentum: {self.momentum}\n"
            f"    nesterov: False\n    weight_decay: {self.weight_decay}\n)"
        )
