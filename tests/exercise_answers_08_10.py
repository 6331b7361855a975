"""Answers for the checks of lessons 08-10, for the attack table of tests/test_exercises.py.

Right ones (lesson 08's micrograd ``Value`` with its power rule, ``unbroadcast``, a ``LogCosh``
Function) in the forms a learner may write them, wrong ones (the usual slips: ``=`` for ``+=``, a
forgotten ``out.grad`` or ``grad_output``, a forgotten ``keepdim``), and fakes (gradients from
built-in ops, lying values, code that replaces a tool the check relies on while it runs).
"""

import math
import types

import numpy as np

import gradbook as torch

# What a fake replaced while a check ran, as (owner, name, original): the attack table puts it back
# after the case (the check must fail, and later cases must see the real tools).
PATCHED = []


def undo_patches():
    while PATCHED:
        owner, name, original = PATCHED.pop()
        setattr(owner, name, original)


def replace_allclose():
    """What a fake does in the middle of a check: np.allclose always True, noted for undo_patches."""
    PATCHED.append((np, "allclose", np.allclose))
    np.allclose = lambda *args, **kwargs: True


def not_implemented(*args):
    raise NotImplementedError()


# ---------------------------------------------------------------- lesson 08: micrograd's Value
class Value:
    """Lesson 08's engine as the notebook builds it (``Value(...)`` by name, the operators
    added as one-liners), with the power rule filled in."""

    def __init__(self, data, _prev=(), _op=""):
        self.data = data
        self.grad = 0.0
        self._prev = set(_prev)
        self._op = _op
        self._backward = lambda: None

    def __add__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        out = Value(self.data + other.data, (self, other), "+")

        def _backward():
            self.grad += out.grad
            other.grad += out.grad

        out._backward = _backward
        return out

    def __mul__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        out = Value(self.data * other.data, (self, other), "*")

        def _backward():
            self.grad += other.data * out.grad
            other.grad += self.data * out.grad

        out._backward = _backward
        return out

    def __pow__(self, k):
        out = Value(self.data**k, (self,), f"**{k}")

        def _backward():
            self.grad += k * self.data ** (k - 1) * out.grad

        out._backward = _backward
        return out

    def backward(self):
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

    __radd__ = __add__
    __rmul__ = __mul__

    def __repr__(self):
        return f"Value(data={self.data:g}, grad={self.grad:g})"


class TypedValue(Value):
    """The same engine where every result is ``type(self)(...)``, and a power rule written with
    the output's value: k·xᵏ⁻¹ = k·out/x (x is never 0 here)."""

    def __add__(self, other):
        other = other if isinstance(other, Value) else type(self)(other)
        out = type(self)(self.data + other.data, (self, other))

        def _backward():
            self.grad += out.grad
            other.grad += out.grad

        out._backward = _backward
        return out

    def __mul__(self, other):
        other = other if isinstance(other, Value) else type(self)(other)
        out = type(self)(self.data * other.data, (self, other))

        def _backward():
            self.grad += other.data * out.grad
            other.grad += self.data * out.grad

        out._backward = _backward
        return out

    def __pow__(self, k):
        out = type(self)(self.data**k, (self,))

        def _backward():
            self.grad += out.grad * k * out.data / self.data

        out._backward = _backward
        return out


def _pow_with(rule):
    """A ``__pow__`` whose backward is ``rule(self, k, out)``."""

    def power(self, k):
        out = Value(self.data**k, (self,), f"**{k}")
        out._backward = lambda: rule(self, k, out)
        return out

    return power


def _set_grad(value):
    return lambda self, k, out: setattr(self, "grad", value(self, k, out))


class OverwritingPow(Value):  # = instead of +=: wrong where x is used twice
    __pow__ = _pow_with(_set_grad(lambda self, k, out: k * self.data ** (k - 1) * out.grad))


class NoUpstreamPow(Value):  # forgets out.grad
    __pow__ = _pow_with(_set_grad(lambda self, k, out: self.grad + k * self.data ** (k - 1)))


class WrongExponentPow(Value):  # k·xᵏ instead of k·xᵏ⁻¹
    __pow__ = _pow_with(_set_grad(lambda self, k, out: self.grad + k * self.data**k * out.grad))


class StubPow(Value):  # the lesson's cell as given: raise NotImplementedError() in _backward
    __pow__ = _pow_with(lambda self, k, out: not_implemented())


class CrashingPow(Value):
    __pow__ = _pow_with(lambda self, k, out: 1 / 0)


class PowReturnsNoValue(Value):
    def __pow__(self, k):
        return types.SimpleNamespace(backward=lambda: None)  # has backward, no data


class GradNotTouched(Value):  # grad starts at None, and backward sets nothing
    def __init__(self, data, _prev=(), _op=""):
        super().__init__(data, _prev, _op)
        self.grad = None

    def __pow__(self, k):
        return type(self)(self.data**k, (self,))

    def backward(self):
        pass


class GradNoneCrashes(Value):  # grad starts at None: the first += raises
    def __init__(self, data, _prev=(), _op=""):
        super().__init__(data, _prev, _op)
        self.grad = None


class GradText(Value):
    __pow__ = _pow_with(_set_grad(lambda self, k, out: "k * x ** (k - 1)"))


class GradBoolTensor(Value):
    __pow__ = _pow_with(_set_grad(lambda self, k, out: torch.tensor(True)))


class GradList(Value):
    __pow__ = _pow_with(_set_grad(lambda self, k, out: [k, self.data]))


class GradNan(Value):
    __pow__ = _pow_with(_set_grad(lambda self, k, out: math.nan))


class GradTensor(Value):  # a grad of the wrong shape
    __pow__ = _pow_with(_set_grad(lambda self, k, out: torch.ones(2)))


# fakes
class AlwaysEqualGrad:
    def __repr__(self):
        return "<a grad equal to everything>"

    def __eq__(self, other):
        return True

    def __sub__(self, other):
        return 0.0

    __rsub__ = __sub__
    __hash__ = object.__hash__


class LyingGrad(float):
    def __eq__(self, other):
        return True

    __hash__ = float.__hash__


class GradAlwaysEqual(Value):
    __pow__ = _pow_with(_set_grad(lambda self, k, out: AlwaysEqualGrad()))


class GradLyingFloat(Value):
    __pow__ = _pow_with(_set_grad(lambda self, k, out: LyingGrad(0.0)))


class GradRaisesOnRead(Value):
    @property
    def grad(self):
        raise RuntimeError("no grad for you")

    @grad.setter
    def grad(self, value):
        pass


class TensorValue:
    """A "Value" whose gradients gradbook computes: a tensor in a wrapper, no rule written."""

    def __init__(self, data):
        self.t = data if isinstance(data, torch.Tensor) else torch.tensor(float(data), requires_grad=True)

    data = property(lambda self: self.t.detach().item())
    grad = property(lambda self: self.t.grad)

    def __add__(self, other):
        return TensorValue(self.t + (other.t if isinstance(other, TensorValue) else other))

    def __mul__(self, other):
        return TensorValue(self.t * (other.t if isinstance(other, TensorValue) else other))

    def __pow__(self, k):
        return TensorValue(self.t**k)

    def backward(self):
        self.t.backward()


class PatchingPow(Value):
    """A wrong rule (no out.grad), from code that replaces np.allclose while the check runs."""

    def __pow__(self, k):
        replace_allclose()
        return NoUpstreamPow.__pow__(self, k)


# ---------------------------------------------------------------- lesson 09: unbroadcast
def unbroadcast(grad, shape):
    """The notebook's worked answer."""
    while grad.dim() > len(shape):
        grad = grad.sum(dim=0)
    for i, n in enumerate(shape):
        if n == 1 and grad.shape[i] != 1:
            grad = grad.sum(dim=i, keepdim=True)
    return grad


def unbroadcast_in_one_sum(grad, shape):
    """shape padded with leading 1s, one keepdim sum over every dimension where it has a 1, reshaped."""
    padded = (1,) * (grad.dim() - len(shape)) + tuple(shape)
    dims = tuple(i for i, n in enumerate(padded) if n == 1 and grad.shape[i] != 1)
    if dims:
        grad = grad.sum(dim=dims, keepdim=True)
    return grad.reshape(shape)


def unbroadcast_in_numpy(grad, shape):
    values = grad.numpy()
    while values.ndim > len(shape):
        values = values.sum(axis=0)
    for i, n in enumerate(shape):
        if n == 1:
            values = values.sum(axis=i, keepdims=True)
    return values


def leading_only(grad, shape):
    while grad.dim() > len(shape):
        grad = grad.sum(dim=0)
    return grad


def forgets_keepdim(grad, shape):
    while grad.dim() > len(shape):
        grad = grad.sum(dim=0)
    for i, n in enumerate(shape):
        if n == 1 and grad.shape[i] != 1:
            grad = grad.sum(dim=i)
    return grad


def first_slice_of_size_one(grad, shape):  # takes one copy where it should add them up
    while grad.dim() > len(shape):
        grad = grad.sum(dim=0)
    for i, n in enumerate(shape):
        if n == 1 and grad.shape[i] != 1:
            grad = grad[(slice(None),) * i + (slice(0, 1),)]
    return grad


def mean_not_sum(grad, shape):
    while grad.dim() > len(shape):
        grad = grad.mean(dim=0)
    for i, n in enumerate(shape):
        if n == 1 and grad.shape[i] != 1:
            grad = grad.mean(dim=i, keepdim=True)
    return grad


def trailing_instead_of_leading(grad, shape):
    while grad.dim() > len(shape):
        grad = grad.sum(dim=-1)
    return grad


def sum_everything_to_shape(grad, shape):  # the total, in every element
    return torch.ones(shape, dtype=grad.dtype) * grad.sum()


def by_autograd(grad, shape):
    """The check's own reference, run by the learner: autograd does the summing."""
    x = torch.zeros(shape, dtype=grad.dtype, requires_grad=True)
    x.expand(grad.shape).backward(grad)
    return x.grad


def patching_unbroadcast(grad, shape):
    """Zeros of the right shape, from code that replaces np.allclose while the check runs."""
    replace_allclose()
    return torch.zeros(shape)


# ---------------------------------------------------------------- lesson 10: LogCosh
class LogCosh(torch.autograd.Function):
    """The stable form: cosh(x) = e^|x| (1 + e^(-2|x|)) / 2, finite at x = ±1000."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        a = x.abs()
        return a + (-2 * a).exp().log1p() - math.log(2)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * x.tanh()


class NaiveLogCosh(LogCosh):
    """Right on small inputs, but cosh(1000) overflows: inf at x = ±1000."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x.cosh().log()


class StableForwardSinhOverCosh(LogCosh):
    """A finite forward, but the rule as sinh/cosh: inf / inf = nan at x = ±1000."""

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * x.sinh() / x.cosh()


class LogCoshByExp(torch.autograd.Function):
    """cosh and tanh written out with exp, the rule as sinh/cosh: overflows at x = ±1000."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return ((x.exp() + (-x).exp()) / 2).log()

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * (x.exp() - (-x).exp()) / (x.exp() + (-x).exp())


class LogCoshSavesTanh(torch.autograd.Function):
    """Saves what the rule needs, tanh(x), instead of x."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x.tanh())
        a = x.abs()
        return a + (-2 * a).exp().log1p() - math.log(2)

    @staticmethod
    def backward(ctx, grad_output):
        (t,) = ctx.saved_tensors
        return t * grad_output


class WrongSignLogCosh(LogCosh):
    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return -grad_output * x.tanh()


class ForgetfulLogCosh(LogCosh):  # returns f'(x) without grad_output
    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return x.tanh()


class SinhLogCosh(LogCosh):  # forgot to divide by cosh
    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * x.sinh()


class StubLogCosh(torch.autograd.Function):  # the lesson's cell as given
    @staticmethod
    def forward(ctx, x):
        raise NotImplementedError()

    @staticmethod
    def backward(ctx, grad_output):
        raise NotImplementedError()


class BackwardStubLogCosh(LogCosh):
    @staticmethod
    def backward(ctx, grad_output):
        raise NotImplementedError()


class BackwardRaisesLogCosh(LogCosh):
    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * y.tanh()  # noqa: F821 - a NameError, as a typo gives


class ForwardRaisesLogCosh(LogCosh):
    @staticmethod
    def forward(ctx, x):
        return x.cosh().log(base=10)


class LogCoshSummed(LogCosh):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x.cosh().log().sum()


class LogCoshNan(LogCosh):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x.cosh().log() * math.nan


class LogCoshWrongForward(LogCosh):  # cosh(x), the log forgotten
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x.cosh()


class TwoGradients(LogCosh):
    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * x.tanh(), grad_output


class NoBackwardLogCosh(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x.cosh().log()


def logcosh_function(x):
    return x.cosh().log()


# fakes
class LogCoshReturnsFloat(torch.autograd.Function):
    @classmethod
    def apply(cls, x):
        return 0.5


class LogCoshReturnsBool(torch.autograd.Function):
    @classmethod
    def apply(cls, x):
        return x > 0


class DetachedLogCosh(torch.autograd.Function):
    @classmethod
    def apply(cls, x):
        return x.cosh().log().detach()


class BuiltInLogCosh(torch.autograd.Function):  # only apply: built-in ops differentiate
    @classmethod
    def apply(cls, x):
        return x.cosh().log()


class FinalLogCosh(torch.autograd.Function):
    def __init_subclass__(cls, **kwargs):
        raise TypeError("FinalLogCosh cannot be subclassed")


class SneakyLogCosh(LogCosh):
    """Right gradients, from a backward put in place of the one the check counts."""

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        cls.backward = LogCosh.backward


class PatchingLogCosh(LogCosh):
    """A forward of the wrong function, from code that replaces np.allclose while the check runs."""

    @staticmethod
    def forward(ctx, x):
        replace_allclose()
        ctx.save_for_backward(x)
        return x * 0
