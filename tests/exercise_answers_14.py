"""Answers to lesson 14's checks, right and wrong, for the attack table in test_exercises.py.

z.grad: row 0's softmax of (log 2, 0, 0) is (1/2, 1/4, 1/4), minus one-hot (1, 0, 0); row 1's is
(1/3, 1/3, 1/3), minus (0, 0, 1); both divided by N = 2.
"""

from fractions import Fraction

import numpy as np

import gradbook as torch

CE_RIGHT = [
    [[-0.25, 0.125, 0.125], [1 / 6, 1 / 6, -1 / 3]],
    [[-0.25, 0.125, 0.125], [0.1667, 0.1667, -0.3333]],  # rounded to four places
    np.array([[-0.25, 0.125, 0.125], [1 / 6, 1 / 6, -1 / 3]]),
    [[Fraction(-1, 4), Fraction(1, 8), Fraction(1, 8)], [Fraction(1, 6), Fraction(1, 6), Fraction(-1, 3)]],
]
CE_WRONG = [
    [[-0.5, 0.25, 0.25], [1 / 3, 1 / 3, -2 / 3]],  # not divided by N
    [[0.25, -0.125, -0.125], [-1 / 6, -1 / 6, 1 / 3]],  # the sign
    [[0.25, 0.125, 0.125], [1 / 6, 1 / 6, 1 / 6]],  # the softmax alone, divided
    [[-0.25, 0.125, 0.125]],  # one row
    [-0.25, 0.125, 0.125, 1 / 6, 1 / 6, -1 / 3],  # flat
    [[-0.25, 0.125, 0.125], [1 / 6, 1 / 6, float("nan")]],
    "[[-0.25, 0.125, 0.125], [1/6, 1/6, -1/3]]",
    0.0,
]


class LinearFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, weight, bias):
        ctx.save_for_backward(x, weight)
        return x @ weight.T + bias

    @staticmethod
    def backward(ctx, grad_output):
        x, weight = ctx.saved_tensors
        return grad_output @ weight, grad_output.T @ x, grad_output.sum(0)


class LinearByEinsumOrder(torch.autograd.Function):
    """The same rules, written with the transposes the other way round."""

    @staticmethod
    def forward(ctx, x, weight, bias):
        ctx.save_for_backward(x, weight)
        return (weight @ x.T).T + bias

    @staticmethod
    def backward(ctx, grad_output):
        x, weight = ctx.saved_tensors
        return (weight.T @ grad_output.T).T, (x.T @ grad_output).T, grad_output.sum(0)


class WrongWeightGrad(LinearFunction):
    @staticmethod
    def backward(ctx, grad_output):
        x, weight = ctx.saved_tensors
        return grad_output @ weight, (grad_output.T @ x) * 2, grad_output.sum(0)


class SwappedGrads(LinearFunction):
    @staticmethod
    def backward(ctx, grad_output):
        x, weight = ctx.saved_tensors
        return grad_output @ weight, grad_output.T @ x, grad_output.mean(0)  # mean, not sum


class TransposedWeightGrad(LinearFunction):
    @staticmethod
    def backward(ctx, grad_output):
        x, weight = ctx.saved_tensors
        return grad_output @ weight, x.T @ grad_output, grad_output.sum(0)  # (in, out): refused


class ForgetsUpstream(LinearFunction):
    @staticmethod
    def backward(ctx, grad_output):
        x, weight = ctx.saved_tensors
        ones = torch.ones_like(grad_output)
        return ones @ weight, ones.T @ x, ones.sum(0)


class NoBiasGrad(LinearFunction):
    @staticmethod
    def backward(ctx, grad_output):
        x, weight = ctx.saved_tensors
        return grad_output @ weight, grad_output.T @ x, None


class WrongForward(LinearFunction):
    @staticmethod
    def forward(ctx, x, weight, bias):
        ctx.save_for_backward(x, weight)
        return x @ weight.T  # no bias


class StubBackward(LinearFunction):
    @staticmethod
    def backward(ctx, grad_output):
        raise NotImplementedError()


def plain_function(x, weight, bias):
    return x @ weight.T + bias


LINEAR_RIGHT = [LinearFunction, LinearByEinsumOrder]
LINEAR_WRONG = [
    WrongWeightGrad,
    SwappedGrads,
    TransposedWeightGrad,
    ForgetsUpstream,
    NoBiasGrad,
    WrongForward,
    StubBackward,
    plain_function,
    object,
    "LinearFunction",
]


class WrongShape(LinearFunction):
    @staticmethod
    def forward(ctx, x, weight, bias):
        ctx.save_for_backward(x, weight)
        return (x @ weight.T + bias)[:, :1]


class ApplyByOps(LinearFunction):
    """Its apply computes with ordinary ops: the output's node is AddBackward0, not the Function's."""

    @classmethod
    def apply(cls, x, weight, bias):
        return x @ weight.T + bias


class ApplyWithoutGraph(LinearFunction):
    @classmethod
    def apply(cls, x, weight, bias):
        with torch.no_grad():
            return x @ weight.T + bias


EXTRA = [WrongShape, ApplyByOps, ApplyWithoutGraph]  # the messages the attack table does not reach
