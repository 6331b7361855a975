"""Answers to lesson 15's checks, right and wrong, for the attack table in test_exercises.py.

Saved tensors of ((x * v).sin() + x.exp()).sum() with only x requiring grad, counted by hand: the
product keeps v (x's rule reads it; v needs no gradient, so x is not kept), sin keeps its input,
exp its output, + and sum nothing: 3 tensors of 100 float32 numbers, 1200 bytes.
"""

from fractions import Fraction

import numpy as np

import gradbook as torch

SAVED_RIGHT = [
    {"tensors": 3, "bytes": 1200},
    {"tensors": 3.0, "bytes": 1200.0},
    {"bytes": np.int64(1200), "tensors": Fraction(3)},
    {"tensors": torch.tensor(3), "bytes": torch.tensor(1200)},
]
SAVED_WRONG = [
    {"tensors": 4, "bytes": 1600},  # x kept by the product too
    {"tensors": 3, "bytes": 300},  # one byte a number
    {"tensors": 3, "bytes": 2400},  # float64
    {"tensors": 2, "bytes": 800},  # exp counted as saving nothing
    {"tensors": 5, "bytes": 2000},
    {"tensors": 0, "bytes": 0},
    {"tensors": 3.5, "bytes": 1200},
    {"tensors": 3},
    {"tensors": 3, "bytes": 1200, "nodes": 4},
    {"tensors": ..., "bytes": 1200},
    {"tensors": "3", "bytes": "1200"},
    {"tensors": float("nan"), "bytes": 1200},
    [3, 1200],
    (3, 1200),
    3,
    "3 tensors, 1200 bytes",
]


class MaskReLU(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x > 0)
        return x.clamp(min=0)

    @staticmethod
    def backward(ctx, grad_output):
        (mask,) = ctx.saved_tensors
        return grad_output * mask


class MaskReLUByWhere(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        mask = x > 0
        ctx.save_for_backward(mask)
        return torch.where(mask, x, torch.zeros_like(x))

    @staticmethod
    def backward(ctx, grad_output):
        (mask,) = ctx.saved_tensors
        return torch.where(mask, grad_output, torch.zeros_like(grad_output))


class MaskAtZeroToo(MaskReLU):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x >= 0)  # passes the gradient at 0
        return x.relu()


class SavesInput(MaskReLU):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)  # 4 bytes a number
        return x.relu()

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * (x > 0)


class SavesMaskAndInput(MaskReLU):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x > 0, x)
        return x.relu()

    @staticmethod
    def backward(ctx, grad_output):
        mask, _ = ctx.saved_tensors
        return grad_output * mask


class MaskAsAttribute(MaskReLU):
    @staticmethod
    def forward(ctx, x):
        ctx.mask = x > 0  # not seen by the hooks, never freed
        return x.relu()

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output * ctx.mask


class IgnoresUpstream(MaskReLU):
    @staticmethod
    def backward(ctx, grad_output):
        (mask,) = ctx.saved_tensors
        return mask.float()


class ReturnsNone(MaskReLU):
    @staticmethod
    def backward(ctx, grad_output):
        return None


class WrongForward(MaskReLU):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x > 0)
        return x.abs()


class ForwardStub(MaskReLU):
    @staticmethod
    def forward(ctx, x):
        raise NotImplementedError()


class BackwardStub(MaskReLU):
    @staticmethod
    def backward(ctx, grad_output):
        raise NotImplementedError()


class BackwardCrashes(MaskReLU):
    @staticmethod
    def backward(ctx, grad_output):
        return grad_output @ grad_output  # (4, 5) @ (4, 5)


class ApplyByOps(MaskReLU):
    """Its apply computes with an ordinary op: the node is ReluBackward0, not the Function's."""

    @classmethod
    def apply(cls, x):
        return x.relu()


def plain_relu(x):
    return x.relu()


MASK_RIGHT = [MaskReLU, MaskReLUByWhere]
MASK_WRONG = [
    MaskAtZeroToo,
    SavesInput,
    SavesMaskAndInput,
    MaskAsAttribute,
    IgnoresUpstream,
    ReturnsNone,
    WrongForward,
    ForwardStub,
    BackwardStub,
    BackwardCrashes,
    ApplyByOps,
    plain_relu,
    object,
    "MaskReLU",
]


class WrongShape(MaskReLU):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x > 0)
        return x.relu().sum()


EXTRA_SAVED = [{"tensors": 3, "bytes": "1200"}, {"tensors": 3, "bytes": [1200, 0]}]
_GLOBAL = {}


class MaskInAGlobal(MaskReLU):
    @staticmethod
    def forward(ctx, x):
        _GLOBAL["mask"] = x > 0  # memory too, and never freed
        return x.relu()

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output * _GLOBAL["mask"]


class ReturnsArray(MaskReLU):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x > 0)
        return x.relu().numpy()


EXTRA_MASK = [WrongShape, MaskInAGlobal, ReturnsArray]
