"""The base of every optimizer, as torch.optim.Optimizer: parameter groups, state, state_dict.

An optimizer keeps ``param_groups`` (dicts: ``"params"`` and the options, with torch's keys and
defaults) and ``state`` (one dict per parameter: step counts, running averages). Each subclass
writes its update rule once, for one parameter, in ``_update``; ``step`` runs it under ``no_grad``
for every parameter that has a gradient, as torch's single-tensor (``foreach=False``) code does.
"""

from __future__ import annotations

import copy
import itertools
import warnings
from collections import defaultdict
from collections.abc import Callable, Iterable
from typing import Any

from .._dtypes import type_name
from ..autograd.grad_mode import enable_grad, no_grad
from ..tensor import Tensor

ParamsT = Iterable[Tensor] | Iterable[dict[str, Any]]

DUPLICATE_PARAMETERS_WARNING = (
    "optimizer contains a parameter group with duplicate parameters; "
    "in future, this will cause an error; "
    "see github.com/pytorch/pytorch/issues/40967 for more information"
)


def typename(obj: Any) -> str:
    """What torch's messages call an object: ``gradbook.FloatTensor``, ``float``, ``list``."""
    if isinstance(obj, Tensor):
        return type_name(obj.dtype.numpy)
    return (
        type(obj).__qualname__
        if type(obj).__module__ == "builtins"
        else f"{type(obj).__module__}.{type(obj).__qualname__}"
    )


class Optimizer:
    """Holds the parameters to train, in groups with their options, and each parameter's state.

    >>> import gradbook as torch
    >>> w = torch.tensor([1.0, 2.0], requires_grad=True)
    >>> opt = torch.optim.SGD([w], lr=0.1)
    >>> (w * w).sum().backward()
    >>> opt.step()  # w ← w - 0.1·2w
    >>> w
    tensor([0.8000, 1.6000], requires_grad=True)
    >>> opt.state_dict()["param_groups"][0]["params"]
    [0]
    """

    def __init__(self, params: ParamsT, defaults: dict[str, Any]) -> None:
        self.defaults = defaults
        if isinstance(params, Tensor):
            raise TypeError(
                "params argument given to the optimizer should be an iterable of Tensors or dicts, but got "
                + typename(params)
            )
        self.state: defaultdict[Tensor, dict[str, Any]] = defaultdict(dict)
        self.param_groups: list[dict[str, Any]] = []
        groups = list(params)
        if not groups:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(groups[0], dict):
            groups = [{"params": groups}]
        for group in groups:
            self.add_param_group(group)

    def add_param_group(self, param_group: dict[str, Any]) -> None:
        """Add a group of parameters with its own options (the others come from the defaults)."""
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group)}")
        params = param_group["params"]
        if isinstance(params, Tensor):
            param_group["params"] = [params]
        elif isinstance(params, set):
            raise TypeError(
                "optimizer parameters need to be organized in ordered collections, but the ordering of "
                "tensors in sets will change between runs. Please use a list instead."
            )
        else:
            param_group["params"] = list(params)
        for p in param_group["params"]:
            if not isinstance(p, Tensor):
                raise TypeError("optimizer can only optimize Tensors, but one of the params is " + typename(p))
            if not (p.is_leaf or p.retains_grad):
                raise ValueError("can't optimize a non-leaf Tensor")
        for name, default in self.defaults.items():
            param_group.setdefault(name, default)
        params = param_group["params"]
        if len(params) != len(set(params)):
            warnings.warn(DUPLICATE_PARAMETERS_WARNING, stacklevel=3)
        taken = set(itertools.chain.from_iterable(g["params"] for g in self.param_groups))
        if not taken.isdisjoint(params):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Forget every parameter's gradient before the next backward (``None``, or zeros)."""
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                if set_to_none:
                    p.grad = None
                else:
                    if p.grad.grad_fn is not None:
                        p.grad.detach_()
                    else:
                        p.grad.requires_grad_(False)
                    p.grad.zero_()

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """Update every parameter that has a gradient; ``closure`` recomputes and returns the loss."""
        loss = None
        if closure is not None:
            with enable_grad():
                loss = closure()
        with no_grad():  # the update changes the weights in place and is part of no graph
            for group in self.param_groups:
                for p in group["params"]:
                    if p.grad is not None:
                        self._update(p, p.grad, group)
        return loss

    def _update(self, p: Tensor, grad: Tensor, group: dict[str, Any]) -> None:
        raise NotImplementedError

    # ------------------------------------------------ saving and loading

    def state_dict(self) -> dict[str, Any]:
        """``{"state": {id: state}, "param_groups": [...]}``, parameters named by their index.

        Indices count the parameters in the order of the groups, from 0, as in torch.
        """
        ids: dict[int, int] = {}
        for p in itertools.chain.from_iterable(g["params"] for g in self.param_groups):
            ids.setdefault(id(p), len(ids))
        groups = [
            {**{k: v for k, v in g.items() if k != "params"}, "params": [ids[id(p)] for p in g["params"]]}
            for g in self.param_groups
        ]
        state = {(ids[id(k)] if isinstance(k, Tensor) else k): v for k, v in self.state.items()}
        return {"state": state, "param_groups": groups}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Take the options and the state from a ``state_dict()``, matching parameters by position."""
        saved_groups = copy.deepcopy(state_dict["param_groups"])
        if len(self.param_groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(g["params"]) != len(s["params"]) for g, s in zip(self.param_groups, saved_groups)):
            raise ValueError(
                "loaded state dict contains a parameter group that doesn't match the size of optimizer's group"
            )
        params = dict(
            zip(
                itertools.chain.from_iterable(s["params"] for s in saved_groups),
                itertools.chain.from_iterable(g["params"] for g in self.param_groups),
            )
        )
        self.state = defaultdict(dict)
        for k, v in state_dict["state"].items():
            if k in params:
                self.state[params[k]] = {name: _cast(params[k], name, value) for name, value in v.items()}
            else:
                self.state[k] = v
        for group, saved in zip(self.param_groups, saved_groups):
            saved["params"] = group["params"]
        self.param_groups = saved_groups

    def __repr__(self) -> str:
        text = self.__class__.__name__ + " ("
        for i, group in enumerate(self.param_groups):
            text += f"\nParameter Group {i}\n"
            text += "".join(f"    {key}: {group[key]}\n" for key in sorted(group) if key != "params")
        return text + ")"


def _cast(param: Tensor, name: str, value: Any) -> Any:
    """A loaded state value, in the parameter's floating dtype (the step count stays as it is)."""
    if isinstance(value, Tensor) and name != "step" and param.is_floating_point():
        return value.to(param.dtype)
    return value


def check_unsupported(**options: Any) -> None:
    """Refuse torch's device and speed options that change nothing on gradbook's one CPU path."""
    for name, value in options.items():
        if value:
            raise NotImplementedError(
                f"gradbook.optim: {name}=True is not supported (gradbook has no fast paths); leave it out"
            )


# ------------------------------------------------ torch's in-place helpers, from gradbook's ops
# Each keeps the order of torch's CPU kernel, so float32 rounds at the same places.


def addcmul_(t: Tensor, t1: Tensor, t2: Tensor, value: float = 1) -> Tensor:
    """t ← t + value·t1·t2"""
    return t.add_(t1 * value * t2)


def addcdiv_(t: Tensor, t1: Tensor, t2: Tensor, value: float = 1) -> Tensor:
    """t ← t + value·t1/t2"""
    return t.add_(t1 * value / t2)


def lerp_(t: Tensor, end: Tensor, weight: float) -> Tensor:
    """t ← t + weight·(end - t), written from the nearer end as torch does."""
    if abs(weight) < 0.5:
        return t.add_((end - t) * weight)
    return t.copy_(end - (end - t) * (1 - weight))
