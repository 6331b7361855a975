"""Answers to lesson 17's checks, right and wrong, for the attack table in test_exercises.py.

The loop: x's norm is 0.5; the loop tests the norm before each multiplication, 0.5, 1.5 and 4.5
are below 5 and 13.5 is not: three MulBackward0 nodes, y = 27x, and y.sum() gives x.grad = 27 for
each element. The sum: the lesson's ArrayValue, with sum's backward written right (several ways)
and wrong (the mistakes a learner makes).
"""

from fractions import Fraction

import numpy as np
from exercise_answers_08_10 import replace_allclose

import gradbook as torch


# ---------------------------------------------------------------- count: the loop's graph
class OtherTensor:
    """A tensor of another library as torch's own behaves: np.asarray refuses it while it requires
    grad, detach() and tolist() give its values."""

    def __init__(self, values, requires_grad=True):
        self.values, self.requires_grad = values, requires_grad

    def __array__(self, *args, **kwargs):
        if self.requires_grad:
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.")
        return np.array(self.values)

    def detach(self):
        return OtherTensor(self.values, requires_grad=False)

    def tolist(self):
        return self.values

    def __repr__(self):
        return f"tensor({self.values}, requires_grad={self.requires_grad})"


LOOP_RIGHT = [
    {"mul_nodes": 3, "x_grad": [27.0, 27.0]},
    {"x_grad": np.array([27, 27]), "mul_nodes": 3.0},
    {"mul_nodes": np.int64(3), "x_grad": torch.tensor([27.0, 27.0])},
    {"mul_nodes": Fraction(3), "x_grad": (Fraction(27), 27)},
    {"mul_nodes": OtherTensor(3), "x_grad": OtherTensor([27.0, 27.0])},  # torch's x.grad, as it is
]
LOOP_WRONG = [
    {"mul_nodes": 4, "x_grad": [27.0, 27.0]},  # one more: the last test counted too, or AccumulateGrad
    {"mul_nodes": 2, "x_grad": [27.0, 27.0]},  # one less
    {"mul_nodes": 5, "x_grad": [27.0, 27.0]},  # every node of y.sum()'s graph
    {"mul_nodes": 7, "x_grad": [27.0, 27.0]},
    {"mul_nodes": 3.5, "x_grad": [27.0, 27.0]},  # not a whole number
    {"mul_nodes": 3 + 1e-9, "x_grad": [27.0, 27.0]},  # not quite a whole number either
    {"mul_nodes": 3, "x_grad": OtherTensor([27.0, -27.0])},
    {"mul_nodes": 3, "x_grad": [27.0, -27.0]},  # the signs of x
    {"mul_nodes": 3, "x_grad": [8.1, -10.8]},  # y itself
    {"mul_nodes": 3, "x_grad": [81.0, 81.0]},  # one factor too many
    {"mul_nodes": 3, "x_grad": [9.0, 9.0]},  # one too few
    {"mul_nodes": 3, "x_grad": [1.0, 1.0]},
    {"mul_nodes": 3, "x_grad": 27.0},  # one number for two elements
    {"mul_nodes": 3, "x_grad": [27.0, float("nan")]},
    {"mul_nodes": 3, "x_grad": ...},  # the gradient left at its placeholder
    {"mul_nodes": ..., "x_grad": [27.0, 27.0]},  # the count left at its placeholder
    {"mul_nodes": ..., "x_grad": ...},
    {"mul_nodes": "3", "x_grad": [27.0, 27.0]},
    {"mul_nodes": True, "x_grad": [27.0, 27.0]},
    {"nodes": 3, "x_grad": [27.0, 27.0]},  # another key
    {"mul_nodes": 3},
    [3, [27.0, 27.0]],
    "3, [27, 27]",
    3,
]


class RaisingMapping(dict):
    def __iter__(self):
        raise RuntimeError("no keys")


class LyingDict(dict):
    def __getitem__(self, key):
        return 0.0


def loop_fakes(lying):
    # LyingFloat(3.0) is a float of value 3, the right count: only the other lying objects are fakes here
    counts = [value for value in lying if not (isinstance(value, float) and float(value) == 3.0)]
    return (
        [{"mul_nodes": value, "x_grad": [27.0, 27.0]} for value in counts]
        + [{"mul_nodes": 3, "x_grad": value} for value in lying]
        + [RaisingMapping(mul_nodes=3, x_grad=[27.0, 27.0]), LyingDict(mul_nodes=3, x_grad=[27.0, 27.0])]
    )


# ---------------------------------------------------------------- build: ArrayValue.sum
def unbroadcast(grad, shape):
    while grad.ndim > len(shape):
        grad = grad.sum(axis=0)
    for axis, size in enumerate(shape):
        if size == 1:
            grad = grad.sum(axis=axis, keepdims=True)
    return grad


class ArrayValue:
    """The lesson's ArrayValue, with the worked answer's sum."""

    def __init__(self, data, _prev=()):
        self.data = np.array(data, dtype=float)
        self.grad = np.zeros_like(self.data)
        self._prev = _prev
        self._backward = lambda: None

    def __add__(self, other):
        if not isinstance(other, ArrayValue):
            other = ArrayValue(other)
        out = ArrayValue(self.data + other.data, (self, other))

        def _backward():
            self.grad += unbroadcast(out.grad, self.data.shape)
            other.grad += unbroadcast(out.grad, other.data.shape)

        out._backward = _backward
        return out

    def __mul__(self, other):
        if not isinstance(other, ArrayValue):
            other = ArrayValue(other)
        out = ArrayValue(self.data * other.data, (self, other))

        def _backward():
            g_self, g_other = other.data * out.grad, self.data * out.grad
            self.grad += unbroadcast(g_self, self.data.shape)
            other.grad += unbroadcast(g_other, other.data.shape)

        out._backward = _backward
        return out

    def __matmul__(self, other):
        out = ArrayValue(self.data @ other.data, (self, other))

        def _backward():
            self.grad += out.grad @ other.data.T
            other.grad += self.data.T @ out.grad

        out._backward = _backward
        return out

    def tanh(self):
        t = np.tanh(self.data)
        out = ArrayValue(t, (self,))

        def _backward():
            self.grad += (1 - t**2) * out.grad

        out._backward = _backward
        return out

    def mean(self):
        out = ArrayValue(self.data.mean(), (self,))

        def _backward():
            self.grad += out.grad / self.data.size

        out._backward = _backward
        return out

    def __sub__(self, other):
        return self + other * -1.0

    def backward(self):  # the lesson's Value.backward
        order, seen = [], set()

        def visit(v):
            if v not in seen:
                seen.add(v)
                for child in v._prev:
                    visit(child)
                order.append(v)

        visit(self)
        self.grad = 1.0
        for v in reversed(order):
            v._backward()

    def sum(self, axis=None):
        out = ArrayValue(self.data.sum(axis=axis), (self,))

        def _backward():
            grad = out.grad if axis is None else np.expand_dims(out.grad, axis)
            self.grad += grad  # broadcast back along the summed axis

        out._backward = _backward
        return out


def _with_sum(name, backward_rule, forward=lambda data, axis: data.sum(axis=axis)):
    """ArrayValue with another sum: ``backward_rule(self, out, axis)`` runs as its backward."""

    def sum_(self, axis=None):
        out = ArrayValue(forward(self.data, axis), (self,))
        out._backward = lambda: backward_rule(self, out, axis)
        return out

    return type(name, (ArrayValue,), {"sum": sum_})


def _add(self, grad):
    self.grad += grad


def _broadcast_to(self, out, axis):
    grad = np.asarray(out.grad, dtype=float)
    if axis is not None:
        grad = np.expand_dims(grad, axis)
    self.grad = self.grad + np.broadcast_to(grad, self.data.shape)


def _by_keepdims_shape(self, out, axis):
    shape = list(self.data.shape)
    if axis is not None:
        shape[axis] = 1
    else:
        shape = [1] * len(shape)
    _add(self, np.reshape(out.grad, shape) * np.ones_like(self.data))


SumByBroadcastTo = _with_sum("SumByBroadcastTo", _broadcast_to)
SumByKeepdimsShape = _with_sum("SumByKeepdimsShape", _by_keepdims_shape)


class TypedArrayValue(ArrayValue):
    """The same, for a learner who writes the sum as a method with a default and a docstring."""

    def sum(self, axis=None):
        """Sum along axis (all elements for None)."""
        return super().sum(axis)


ARRAY_RIGHT = [ArrayValue, SumByBroadcastTo, SumByKeepdimsShape, TypedArrayValue]


def _no_expand_dims(self, out, axis):
    _add(self, out.grad)  # (N,) onto (N, M): an error, or a wrong broadcast when N == M


def _expand_when_it_does_not_fit(self, out, axis):
    grad = np.asarray(out.grad)
    if axis is not None and grad.shape[-1:] != self.data.shape[-1:]:
        grad = np.expand_dims(grad, axis)
    _add(self, grad)  # silently wrong for a square x summed along axis 1


def _overwrite(self, out, axis):
    grad = out.grad if axis is None else np.expand_dims(out.grad, axis)
    self.grad = np.zeros_like(self.data) + grad  # = for +=: wrong where x goes into two sums


def _overwrite_with_the_upstream(self, out, axis):
    self.grad = out.grad  # a number or the sum's shape, not x's


def _ones(self, out, axis):
    _add(self, np.ones_like(self.data))  # out.grad forgotten


def _mean_rule(self, out, axis):
    size = self.data.size if axis is None else self.data.shape[axis]
    grad = out.grad if axis is None else np.expand_dims(out.grad, axis)
    _add(self, grad / size)


def _other_axis(self, out, axis):
    grad = out.grad if axis is None else np.expand_dims(out.grad, -1 - axis)
    _add(self, grad)


def _row_or_column(self, out, axis):
    _add(self, out.grad if axis in (None, 0) else out.grad.reshape(-1, 1))  # right for 2-D arrays only


def _positive_axis(self, out, axis):
    shape = self.data.shape
    if axis is None:
        _add(self, out.grad)
    else:  # right for axis >= 0 only: for -1, shape[:-1] + (1,) + shape[0:]
        _add(self, out.grad.reshape(shape[:axis] + (1,) + shape[axis + 1 :]))


def _negative_axis_offset(self, out, axis):
    # a negative axis counted from the sum's shape, not x's: -1 becomes the wrong axis, and the
    # gradient does not broadcast back (found by an independent read of lesson 17)
    grad = out.grad if axis is None else np.expand_dims(out.grad, axis + out.grad.ndim if axis < 0 else axis)
    _add(self, grad)


def _axis_one_or_zero(self, out, axis):  # right in 2-D only: every axis but 0 taken as axis 1
    _add(self, out.grad if axis is None else (out.grad[None] if axis == 0 else out.grad[:, None]))


def _negative_axis_for_2d(self, out, axis):  # a negative axis made positive as if x were 2-D
    _add(self, out.grad if axis is None else np.expand_dims(out.grad, axis if axis >= 0 else axis + 2))


def _stub(self, out, axis):
    raise NotImplementedError()


def _crash(self, out, axis):
    raise ZeroDivisionError("division by zero")


def _nan(self, out, axis):
    _add(self, np.full(self.data.shape, np.nan))


NoExpandDims = _with_sum("NoExpandDims", _no_expand_dims)
ExpandWhenItDoesNotFit = _with_sum("ExpandWhenItDoesNotFit", _expand_when_it_does_not_fit)
OverwritingSum = _with_sum("OverwritingSum", _overwrite)
UpstreamAsGrad = _with_sum("UpstreamAsGrad", _overwrite_with_the_upstream)
OnesSum = _with_sum("OnesSum", _ones)
MeanRuleSum = _with_sum("MeanRuleSum", _mean_rule)
OtherAxisSum = _with_sum("OtherAxisSum", _other_axis)
RowOrColumnSum = _with_sum("RowOrColumnSum", _row_or_column)
PositiveAxisSum = _with_sum("PositiveAxisSum", _positive_axis)
NegativeAxisOffsetSum = _with_sum("NegativeAxisOffsetSum", _negative_axis_offset)
AxisOneOrZeroSum = _with_sum("AxisOneOrZeroSum", _axis_one_or_zero)
NegativeAxisFor2dSum = _with_sum("NegativeAxisFor2dSum", _negative_axis_for_2d)
StubSum = _with_sum("StubSum", _stub)
CrashingSum = _with_sum("CrashingSum", _crash)
NanSum = _with_sum("NanSum", _nan)
MeanForward = _with_sum(
    "MeanForward", lambda self, out, axis: _add(self, np.ones_like(self.data)), lambda d, a: d.mean(axis=a)
)


class NoSum(ArrayValue):
    sum = None  # the stub never run: ArrayValue without sum


class Value:
    """Lesson 08's scalar Value (two ops): no sum, and no arrays."""

    def __init__(self, data, _prev=()):
        self.data, self.grad, self._prev = data, 0.0, _prev


ARRAY_WRONG = [
    NoExpandDims,
    ExpandWhenItDoesNotFit,
    OverwritingSum,
    UpstreamAsGrad,
    OnesSum,
    MeanRuleSum,
    OtherAxisSum,
    RowOrColumnSum,
    PositiveAxisSum,
    NegativeAxisOffsetSum,
    AxisOneOrZeroSum,
    NegativeAxisFor2dSum,
    StubSum,
    CrashingSum,
    NanSum,
    MeanForward,
    NoSum,
    Value,
    int,
    ArrayValue(np.ones(3)),
    "ArrayValue",
    3,
]


class TensorArray:
    """An "ArrayValue" whose gradients gradbook's autograd computes: a tensor in a wrapper."""

    def __init__(self, data):
        self.t = data if isinstance(data, torch.Tensor) else torch.tensor(data, requires_grad=True)

    data = property(lambda self: self.t.detach().numpy())
    grad = property(lambda self: self.t.grad)

    def _wrap(self, other):
        return other.t if isinstance(other, TensorArray) else other

    def __add__(self, other):
        return TensorArray(self.t + self._wrap(other))

    def __mul__(self, other):
        return TensorArray(self.t * self._wrap(other))

    def __matmul__(self, other):
        return TensorArray(self.t @ self._wrap(other))

    def tanh(self):
        return TensorArray(self.t.tanh())

    def mean(self):
        return TensorArray(self.t.mean())

    def sum(self, axis=None):
        return TensorArray(self.t.sum() if axis is None else self.t.sum(dim=axis))

    def backward(self):
        self.t.backward()


def _patch_then_ones(self, out, axis):
    replace_allclose()  # undone by exercise_answers_08_10.undo_patches after each case
    _ones(self, out, axis)


PatchingSum = _with_sum("PatchingSum", _patch_then_ones)


class LyingGrad:
    def __eq__(self, other):
        return True

    __hash__ = object.__hash__


def _lying(self, out, axis):
    self.grad = LyingGrad()


LyingGradSum = _with_sum("LyingGradSum", _lying)


class RaisingClass:
    def __init__(self, data):
        raise RuntimeError("no ArrayValue for you")


ARRAY_FAKES = [TensorArray, PatchingSum, LyingGradSum, RaisingClass]


# ---------------------------------------------------------------- what the attack table does not reach
class _NoData:
    def backward(self):
        pass


def _sum_without_data(self, axis=None):
    return _NoData()


SumWithoutData = type("SumWithoutData", (ArrayValue,), {"sum": _sum_without_data})
GradNone = _with_sum("GradNone", lambda self, out, axis: setattr(self, "grad", None))
GradText = _with_sum("GradText", lambda self, out, axis: setattr(self, "grad", "0"))

EXTRA_LOOP = [
    {"mul_nodes": 3, "x_grad": [27.0, 27.0, 27.0]},
    {"mul_nodes": -1, "x_grad": [27.0, 27.0]},
    {"mul_nodes": [3, 3], "x_grad": [27.0, 27.0]},
]
EXTRA_ARRAY = [SumWithoutData, GradNone, GradText]
