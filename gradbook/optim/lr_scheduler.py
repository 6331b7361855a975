"""Learning-rate schedules, as torch.optim.lr_scheduler: each ``step()`` sets every group's ``lr``.

Call ``scheduler.step()`` once per epoch, after ``optimizer.step()``. Making a scheduler records
each group's ``initial_lr`` and counts as epoch 0 (``last_epoch`` becomes 0).
"""

from __future__ import annotations

import types
import warnings
from bisect import bisect_right
from collections import Counter
from functools import wraps
from typing import TYPE_CHECKING, Any

from .optimizer import Optimizer

if TYPE_CHECKING:  # only torch's names show in dir(lr_scheduler)
    from collections.abc import Callable, Iterable

__all__ = ["ExponentialLR", "LRScheduler", "LambdaLR", "MultiStepLR", "StepLR"]

EPOCH_DEPRECATION_WARNING = (
    "The epoch parameter in `scheduler.step()` was not necessary and is being deprecated where possible. "
    "Please use `scheduler.step()` to step the scheduler. During the deprecation, if epoch is different from "
    "None, the closed form is used instead of the new chainable form, where available. Please open an issue "
    "if you are unable to replicate your use case: https://github.com/pytorch/pytorch/issues/new/choose."
)
_STEP_ORDER_WARNING = (
    "Detected call of `lr_scheduler.step()` before `optimizer.step()`. In PyTorch 1.1.0 and later, you should "
    "call them in the opposite order: `optimizer.step()` before `lr_scheduler.step()`.  Failure to do this will "
    "result in PyTorch skipping the first value of the learning rate schedule. See more details at "
    "https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate"
)
_GET_LR_WARNING = "To get the last learning rate computed by the scheduler, please use `get_last_lr()`."


class LRScheduler:
    """Base class: a subclass says in ``get_lr()`` what the lrs of epoch ``last_epoch`` are."""

    def __init__(self, optimizer: Optimizer, last_epoch: int = -1) -> None:
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        self.optimizer = optimizer
        if last_epoch == -1:
            for group in optimizer.param_groups:
                group.setdefault("initial_lr", group["lr"])
        else:
            for i, group in enumerate(optimizer.param_groups):
                if "initial_lr" not in group:
                    raise KeyError(
                        f"param 'initial_lr' is not specified in param_groups[{i}] when resuming scheduler "
                        "with last_epoch >= 0.\n"
                        "This typically happens when:\n"
                        "1. You're trying to resume training from a checkpoint but haven't properly loaded "
                        "the optimizer state\n"
                        "2. You're using last_epoch >= 0 for a fresh training run (not recommended)"
                    )
        self.base_lrs: list[float] = [group["initial_lr"] for group in optimizer.param_groups]
        self.last_epoch = last_epoch
        _watch_step(optimizer)
        self._step_count = 0
        self._is_initial = True
        self.step()
        self._is_initial = False

    def get_lr(self) -> list[float]:
        """The lrs for epoch ``last_epoch`` (to read the current ones, use ``get_last_lr()``)."""
        raise NotImplementedError

    def get_last_lr(self) -> list[float]:
        """The lrs the last ``step()`` set, one per parameter group."""
        return self._last_lr

    def step(self, epoch: int | None = None) -> None:
        """Move to the next epoch and set each group's ``lr`` to its value there."""
        if self._step_count == 1 and not getattr(self.optimizer, "_opt_called", False):
            warnings.warn(_STEP_ORDER_WARNING, UserWarning, stacklevel=2)
        self._step_count += 1
        self._get_lr_called_within_step = True
        try:
            if epoch is None:
                self.last_epoch += 1
                values = self.get_lr()
            else:
                warnings.warn(EPOCH_DEPRECATION_WARNING, UserWarning, stacklevel=2)
                self.last_epoch = epoch
                values = self._get_closed_form_lr() if hasattr(self, "_get_closed_form_lr") else self.get_lr()
        finally:
            self._get_lr_called_within_step = False
        for group, lr in zip(self.optimizer.param_groups, values):
            group["lr"] = lr
        self._last_lr = [group["lr"] for group in self.optimizer.param_groups]

    def state_dict(self) -> dict[str, Any]:
        """Everything the scheduler holds except its optimizer."""
        return {key: value for key, value in self.__dict__.items() if key != "optimizer"}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Take the state that ``state_dict()`` gave."""
        self.__dict__.update(state_dict)

    def _warn_outside_step(self) -> None:
        if not getattr(self, "_get_lr_called_within_step", False):
            warnings.warn(_GET_LR_WARNING, UserWarning, stacklevel=3)

    def _group_lrs(self) -> list[float]:
        return [group["lr"] for group in self.optimizer.param_groups]


def _watch_step(optimizer: Optimizer) -> None:
    """Wrap ``optimizer.step`` so the scheduler can tell whether it ran before its own first step."""
    if hasattr(optimizer.step, "_wrapped_by_lr_sched"):
        return
    step = optimizer.step

    @wraps(step)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        optimizer._opt_called = True  # type: ignore[attr-defined]
        return step(*args, **kwargs)

    wrapper._wrapped_by_lr_sched = True  # type: ignore[attr-defined]
    optimizer.step = wrapper  # type: ignore[method-assign]


class LambdaLR(LRScheduler):
    """lr = initial_lr · lr_lambda(epoch).

    >>> import gradbook as torch
    >>> opt = torch.optim.SGD([torch.ones(1, requires_grad=True)], lr=1.0)
    >>> sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda epoch: 1 / (epoch + 1))
    >>> opt.step(); sched.step()
    >>> sched.get_last_lr()
    [0.5]
    """

    def __init__(
        self,
        optimizer: Optimizer,
        lr_lambda: Callable[[int], float] | list[Callable[[int], float]],
        last_epoch: int = -1,
    ) -> None:
        self.optimizer = optimizer
        if not isinstance(lr_lambda, (list, tuple)):
            self.lr_lambdas = [lr_lambda] * len(optimizer.param_groups)
        else:
            if len(lr_lambda) != len(optimizer.param_groups):
                raise ValueError(f"Expected {len(optimizer.param_groups)} lr_lambdas, but got {len(lr_lambda)}")
            self.lr_lambdas = list(lr_lambda)
        super().__init__(optimizer, last_epoch)

    def state_dict(self) -> dict[str, Any]:
        """The state, with ``None`` for each lambda that is a plain function (those cannot be saved)."""
        state = {key: value for key, value in self.__dict__.items() if key not in ("optimizer", "lr_lambdas")}
        state["lr_lambdas"] = [
            None if isinstance(f, types.FunctionType) else f.__dict__.copy() for f in self.lr_lambdas
        ]
        return state

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Take the state; callable objects among the lambdas get their saved attributes back."""
        lr_lambdas = state_dict.pop("lr_lambdas")
        self.__dict__.update(state_dict)
        state_dict["lr_lambdas"] = lr_lambdas
        for f, saved in zip(self.lr_lambdas, lr_lambdas):
            if saved is not None:
                f.__dict__.update(saved)

    def get_lr(self) -> list[float]:
        """initial_lr · lr_lambda(last_epoch), for each group."""
        self._warn_outside_step()
        return [base_lr * f(self.last_epoch) for f, base_lr in zip(self.lr_lambdas, self.base_lrs)]


class StepLR(LRScheduler):
    """lr ← lr·gamma every ``step_size`` epochs.

    >>> import gradbook as torch
    >>> opt = torch.optim.SGD([torch.ones(1, requires_grad=True)], lr=1.0)
    >>> sched = torch.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
    >>> lrs = []
    >>> for epoch in range(5):
    ...     opt.step(); sched.step(); lrs.append(sched.get_last_lr()[0])
    >>> lrs
    [1.0, 0.5, 0.5, 0.25, 0.25]
    """

    def __init__(self, optimizer: Optimizer, step_size: int, gamma: float = 0.1, last_epoch: int = -1) -> None:
        self.step_size = step_size
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        """The current lrs, times gamma when ``last_epoch`` is a multiple of ``step_size``."""
        self._warn_outside_step()
        if self.last_epoch == 0 or self.last_epoch % self.step_size != 0:
            return self._group_lrs()
        return [lr * self.gamma for lr in self._group_lrs()]

    def _get_closed_form_lr(self) -> list[float]:
        return [base_lr * self.gamma ** (self.last_epoch // self.step_size) for base_lr in self.base_lrs]


class MultiStepLR(LRScheduler):
    """lr ← lr·gamma at each epoch in ``milestones``.

    >>> import gradbook as torch
    >>> opt = torch.optim.SGD([torch.ones(1, requires_grad=True)], lr=1.0)
    >>> sched = torch.optim.lr_scheduler.MultiStepLR(opt, milestones=[1, 3], gamma=0.5)
    >>> lrs = []
    >>> for epoch in range(4):
    ...     opt.step(); sched.step(); lrs.append(sched.get_last_lr()[0])
    >>> lrs
    [0.5, 0.5, 0.25, 0.25]
    """

    def __init__(
        self, optimizer: Optimizer, milestones: Iterable[int], gamma: float = 0.1, last_epoch: int = -1
    ) -> None:
        self.milestones = Counter(milestones)
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        """The current lrs, times gamma (once per repeat) at a milestone."""
        self._warn_outside_step()
        if self.last_epoch not in self.milestones:
            return self._group_lrs()
        return [lr * self.gamma ** self.milestones[self.last_epoch] for lr in self._group_lrs()]

    def _get_closed_form_lr(self) -> list[float]:
        milestones = sorted(self.milestones.elements())
        return [base_lr * self.gamma ** bisect_right(milestones, self.last_epoch) for base_lr in self.base_lrs]


class ExponentialLR(LRScheduler):
    """lr ← lr·gamma every epoch.

    >>> import gradbook as torch
    >>> opt = torch.optim.SGD([torch.ones(1, requires_grad=True)], lr=1.0)
    >>> sched = torch.optim.lr_scheduler.ExponentialLR(opt, gamma=0.5)
    >>> opt.step(); sched.step(); opt.step(); sched.step()
    >>> sched.get_last_lr()
    [0.25]
    """

    def __init__(self, optimizer: Optimizer, gamma: float, last_epoch: int = -1) -> None:
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        """The current lrs times gamma (unchanged when the scheduler is made)."""
        self._warn_outside_step()
        if self._is_initial:
            return self._group_lrs()
        return [lr * self.gamma for lr in self._group_lrs()]

    def _get_closed_form_lr(self) -> list[float]:
        return [base_lr * self.gamma**self.last_epoch for base_lr in self.base_lrs]
