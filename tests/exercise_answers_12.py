"""Answers to lesson 12's checks, right and wrong, for the attack table in test_exercises.py.

h(x) = (x0·x2, sin x1 + x0, x2²) at x = (2, 0, -1): J = [[x2, 0, x0], [1, cos x1, 0], [0, 0, 2x2]]
= [[-1, 0, 2], [1, 1, 0], [0, 0, -2]], so J·e2 = [2, 0, -2] (a column) and e2ᵀJ = [0, 0, -2] (a row).
"""

import math

import numpy as np

import gradbook as torch

JVP_RIGHT = [[2.0, 0.0, -2.0], (2, 0, -2), np.array([2.0, 0.0, -2.0]), torch.tensor([2.0, 0.0, -2.0])]
JVP_WRONG = [
    [0.0, 0.0, -2.0],  # the row vᵀJ
    [-1.0, 1.0, 0.0],  # the first column
    [2.0, 1.0, -2.0],  # cos 0 put in the wrong place
    [2.0, 0.0, 2.0],  # a sign
    [2.0, 0.0],
    [[2.0, 0.0, -2.0]],
    [[2.0], [0.0], [-2.0]],
    [2.0, 0.0, float("nan")],
    "2, 0, -2",
    2.0,
    [True, False, True],
]


class Dual:
    def __init__(self, value, tangent=0.0):
        self.value = value
        self.tangent = tangent

    def __add__(self, other):
        return type(self)(self.value + other.value, self.tangent + other.tangent)

    def __mul__(self, other):
        return type(self)(self.value * other.value, self.value * other.tangent + self.tangent * other.value)

    def sin(self):
        return type(self)(math.sin(self.value), math.cos(self.value) * self.tangent)


class RightDual(Dual):
    def exp(self):
        return RightDual(math.exp(self.value), math.exp(self.value) * self.tangent)


class NumpyDual(Dual):
    def exp(self):
        e = np.exp(self.value)
        return NumpyDual(e, e * self.tangent)


class ForgetsTangent(Dual):
    def exp(self):
        return ForgetsTangent(math.exp(self.value), math.exp(self.value))  # the tangent coming in is lost


class TangentOnly(Dual):
    def exp(self):
        return TangentOnly(math.exp(self.value), self.tangent)


class WrongValue(Dual):
    def exp(self):
        return WrongValue(self.value, math.exp(self.value) * self.tangent)


class ZeroTangent(Dual):
    def exp(self):
        return ZeroTangent(math.exp(self.value), 0.0)


class StubExp(Dual):
    def exp(self):
        raise NotImplementedError()


class RaisesExp(Dual):
    def exp(self):
        return 1 / 0


class NoneExp(Dual):
    def exp(self):
        return None


class TextTangent(Dual):
    def exp(self):
        return TextTangent(math.exp(self.value), "e^a·a'")


DUAL_RIGHT = [RightDual, NumpyDual]
DUAL_WRONG = [
    ForgetsTangent,
    TangentOnly,
    WrongValue,
    ZeroTangent,
    StubExp,
    RaisesExp,
    NoneExp,
    TextTangent,
    Dual,  # no exp at all
    complex,
    RightDual(1.0),  # an instance, not the class
    "Dual",
]


def dual_fakes(lying):
    fakes = []
    for v in lying:

        class Lying(Dual):
            def exp(self, v=v):
                return Lying(v, v)

        fakes.append(Lying)
    return fakes


PASSES_RIGHT = [
    {"forward": 1000, "reverse": 10},
    {"reverse": 10.0, "forward": 1000.0},
    {"forward": np.int64(1000), "reverse": 10},
]
PASSES_WRONG = [
    {"forward": 10, "reverse": 1000},  # swapped
    {"forward": 1, "reverse": 1},
    {"forward": 1000, "reverse": 1},  # a loss's count
    {"forward": 1000, "reverse": 11},  # the forward pass counted with the backward ones
    {"forward": 999.9999999, "reverse": 10},  # not a whole number
    {"forward": 1, "reverse": 10},
    {"forward": 10000, "reverse": 10},
    {"forward": 1000},
    {"forward": 1000, "reverse": 10, "both": 1010},
    {"forward": 1000, "reverse": ...},
    {"forward": "1000", "reverse": 10},
    [1000, 10],
    1010,
]
