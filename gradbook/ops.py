"""The op table: one class per op, named after the ``grad_fn`` torch records for it.

Each op has a ``forward`` written in NumPy and, in ``rules``, one backward rule per input: its
text (the local derivative, as the ledger shows it) and the function that computes the
vector-Jacobian product ``g · ∂out/∂input`` from the upstream gradient ``g``. A rule is written
once, in operators and the helpers at the end of this file, and runs on NumPy arrays in a plain
``backward()`` and on Tensors under ``create_graph=True`` (so that it can be differentiated again).

Adding an op is one class here and one line in ``tests/test_ops_table.py``.
"""

from __future__ import annotations

import inspect
import math
import operator
import weakref
from collections.abc import Callable
from typing import Any, ClassVar

import numpy as np

from ._dtypes import default_float, promoted, restore_numpy, silence_numpy
from ._messages import FREED_ERROR
from .autograd.grad_mode import InferenceVersion, _State, check_saving
from .autograd.graph import Node, SeveralOutputs, creation_order
from .tensor import Tensor

_array_of = operator.attrgetter("_array")


class Op(Node):
    """The base of every op.

    A subclass declares ``inputs`` (torch's names of its tensor arguments), ``forward(*arrays,
    **params)``, ``saves`` (the inputs, array params or ``"result"`` backward may need; freed by
    a backward without ``retain_graph``) and ``rules``: ``{text: rule}``, one per input, in
    order, where ``rule(node, g, ...)`` returns the gradient for that input. A rule's parameters
    after ``(node, g)`` name the saved values it reads (``lambda n, g, other: g * other``); params
    are read from ``node``. As in torch, an input is saved only if the rule of an input that
    needs a gradient reads it (``x * 2`` saves the 2, not x).
    """

    inputs: ClassVar[tuple[str, ...]] = ("self",)
    rules: ClassVar[dict[str, Callable[..., Any]]] = {}
    forward: ClassVar[Callable[..., Any]]
    _vjps: ClassVar[tuple[Callable[..., Any], ...]] = ()
    _reads: ClassVar[tuple[tuple[str, ...], ...]] = ()  # what each rule reads, after (node, g)
    _inputs_kept: ClassVar[tuple[tuple[str, int, int], ...]] = ()  # (name, position, readers)
    _saves_result: ClassVar[bool] = False
    view: ClassVar[bool] = False  # its result shares the input's memory (x[0], x.t(), x.view(...))

    @classmethod
    def apply(cls, *tensors: Tensor, out_dtype: Any = None, **params: Any) -> Tensor:
        """Compute the op (its result cast to ``out_dtype``, torch's promotion, where NumPy's differs);
        if an input requires grad (and grad mode is on), record a node for it."""
        quiet = silence_numpy()  # no NumPy warnings: torch gives inf and nan silently
        try:
            if len(tensors) == 2:  # the common cases, without building an argument list
                out = cls.forward(tensors[0]._array, tensors[1]._array, **params)
            elif len(tensors) == 1:
                out = cls.forward(tensors[0]._array, **params)
            else:
                out = cls.forward(*map(_array_of, tensors), **params)
        finally:
            restore_numpy(quiet)
        if type(out) is not np.ndarray or (out_dtype is not None and out.dtype != out_dtype):
            out = np.asarray(out, dtype=out_dtype)  # NumPy gives scalars for 0-d results
        if _State.enabled:
            for t in tensors:
                if t.requires_grad:
                    result = cls._record(tensors, params, out)
                    return result if not cls.view else _view(result, tensors[0], cls, params)
        return Tensor._make(out) if not cls.view else _view(Tensor._make(out), tensors[0], cls, params)

    @classmethod
    def _record(cls, tensors: tuple[Tensor, ...], params: dict, out: np.ndarray) -> Tensor:
        """The result, with a new node as its grad_fn: the inputs' nodes, and what backward needs."""
        node = cls.__new__(cls)
        d = node.__dict__
        if params:
            d.update(params)
        d["_seq"] = next(creation_order)
        edges, meta, needs = [], [], 0  # each input's node (None: it needs no grad), shape and dtype
        for i, t in enumerate(tensors):
            if t.requires_grad:
                edges.append((t.grad_fn or t._grad_accumulator(), t._output_nr or 0))
                needs |= 1 << i  # bit i: input i needs a gradient
            else:
                edges.append((None, 0))
            meta.append((t._array.shape, t._array.dtype))  # the shape and dtype its gradient must have
        d["next_functions"], d["_meta"] = tuple(edges), meta
        if cls._inputs_kept:
            versions = d["_versions"] = []  # each saved input and its version, to tell later if it changed
            for name, i, readers in cls._inputs_kept:
                t = d[name] = tensors[i] if needs & readers else None  # kept if a needed gradient reads it
                if t is not None:  # (None: not saved, as in torch)
                    if type(t._vc) is InferenceVersion:
                        check_saving(t)
                    versions.append((t, t._version))
        result = Tensor._make(out, node)
        if cls._saves_result:  # the output, and its version counter: watched for in-place changes
            d["_result"] = out
            result._vc = d["_result_version"] = [0]
        return result if not _State.saved_hooks else _pack(node, result)  # saved_tensors_hooks

    def run_rules(self, grad: Any, needed: set | None, on_arrays: bool) -> tuple[list, list[bool]]:
        """The gradient for each input (None where none is needed), summed back to the input's
        shape and dtype, and whether each is a new array that nothing else holds (``on_arrays``: the
        values are NumPy arrays; else Tensors, and the rules record a graph of their own)."""
        d = self.__dict__ if "_packed" not in self.__dict__ else self._unpacked()
        grads, owned = [], []
        for rule, reads, (fn, _), (shape, dtype) in zip(self._vjps, self._reads, self.next_functions, self._meta):
            if fn is None or (needed is not None and fn not in needed):
                grads.append(None)
                owned.append(False)
                continue
            if on_arrays:  # the rule reads the saved arrays
                args = [d["_result"] if name == "result" else d[name]._array for name in reads]
            else:  # the saved tensors, so that the rule is recorded in turn (create_graph)
                args = [self.result if name == "result" else d[name] for name in reads]
            g = rule(self, grad, *args)
            a = g if on_arrays else g._array
            if a.shape != shape:
                g = unbroadcast(g, shape)
            if a.dtype != dtype:
                g = g.astype(dtype) if on_arrays else g.to(dtype)
            grads.append(g)
            owned.append(on_arrays and g.base is None and g is not grad and id(g) not in map(id, args))  # a new array
        return grads, owned

    @property
    def result(self) -> Tensor:
        """The saved output, as a tensor whose grad_fn is this node (so it can be differentiated)."""
        t = Tensor._make(self._result if "_packed" not in self.__dict__ else self._unpacked()["_result"], self)
        t._vc = self._result_version  # the output's own version counter (None when packed: version 0)
        return t

    def release(self) -> None:
        """Free the saved tensors (a backward without retain_graph)."""
        d = self.__dict__
        for name in self.saves:
            if d.get(name, True) is not None:  # an input never saved stays None
                d.pop("_result" if name == "result" else name, None)
        d.pop("_versions", None), d.pop("_packed", None)  # they hold the saved tensors too
        d["_freed"] = True

    def _unpacked(self) -> dict:
        """The node's values, with what saved_tensors_hooks packed unpacked (the result as an array)."""
        d = dict(self.__dict__)
        for key, (packed, unpack) in self.__dict__["_packed"].items():
            t = unpack(packed)
            if not isinstance(t, Tensor):
                got = type(t).__name__
                raise TypeError(
                    f"Output of saved tensor unpack_hook expected to be a Tensor but got result of type {got}"
                )  # noqa: E501
            d[key] = t._array if key == "_result" else t
        return d

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if not isinstance(cls.__dict__.get("_vjps"), property):
            cls._vjps = tuple(cls.rules.values())
            cls._reads = tuple(_reads(cls, rule) for rule in cls._vjps)
        else:  # a variadic op makes its rules per node; they read nothing saved
            cls._reads = property(lambda node: ((),) * len(node.next_functions))
        cls._inputs_kept = tuple(
            (name, cls.inputs.index(name), sum(1 << j for j, names in enumerate(cls._reads) if name in names))
            for name in cls.saves
            if name in cls.inputs
        )
        cls._saves_result = "result" in cls.saves
        for name in cls.saves:  # torch's _saved_<name>: readable until freed
            setattr(cls, f"_saved_{name}", property(lambda node, name=name: node._read_saved(name)))
        for name in _params(cls):
            if name not in cls.saves:
                setattr(cls, f"_saved_{name}", property(lambda node, name=name: getattr(node, name, None)))

    def _read_saved(self, name: str) -> Any:
        d = self.__dict__
        if ("_result" if name == "result" else name) not in d:
            raise RuntimeError(FREED_ERROR)
        if d.get(name, True) is None:
            return None  # not saved: no gradient that reads it was needed
        if "_packed" in d:  # kept by saved_tensors_hooks: unpacked at each read, as in torch
            return self.result if name == "result" else self._unpacked()[name]
        if self.stale():
            raise self.version_error()
        return self.result if name == "result" else d[name]


class WrappedNumber(Tensor):
    """A Python number an op lifted to a tensor (the 2 of ``x * 2``: torch's "wrapped number"). A
    node saves it as it saves a tensor, but ``saved_tensors_hooks`` never see it, as in torch."""

    __slots__ = ()


def _pack(node: Op, result: Tensor) -> Tensor:
    """Under ``autograd.graph.saved_tensors_hooks``: the node keeps ``pack(t)`` of each tensor it
    saved, not the tensor (nor its version: the hooks own the values now)."""
    pack, unpack = _State.saved_hooks[-1]
    d, packed = node.__dict__, {}
    for name, _, _ in type(node)._inputs_kept:
        if d[name] is not None and type(d[name]) is not WrappedNumber:  # x * 2's 2 is not packed
            packed[name], d[name] = (pack(d[name]), unpack), _PACKED
    if type(node)._saves_result:
        packed["_result"], d["_result"], d["_result_version"] = (pack(result), unpack), _PACKED, None
    d["_versions"], d["_packed"] = [], packed
    return result


_PACKED = "packed by saved_tensors_hooks"  # what a node holds in place of a packed tensor


def _view(result: Tensor, t: Tensor, cls: type[Op], params: dict) -> Tensor:
    """A view op's result shares its input's memory (when NumPy gave a view) and so its version
    counter, and remembers the tensor it is a view of (``._base``) and the view ops from there
    (``_views``, to write through it: ``CopySlices``), as in torch."""
    if np.may_share_memory(result._array, t._array):
        vc = t._vc  # [version, the live views of this memory (weakly)], shared by base and views
        if vc is None:
            vc = t._vc = [0, []]
        elif len(vc) == 1:
            vc.append([])
        views = vc[1]
        if len(views) >= 16 and not len(views) & (len(views) - 1):  # at 16, 32, 64 ...: drop the dead
            views[:] = [ref for ref in views if ref() is not None]
        views.append(weakref.ref(result))
        result._vc = vc
        result._base = t._base if t._base is not None else t
        result._views = (t._views or ()) + ((cls, params),)
    return result


def view_region(x: Any, views: tuple) -> Any:
    """The part of ``x`` (shaped as a view's base) that the view ``views`` sees: a NumPy view of
    an array, or, for a Tensor, the same view ops recorded."""
    for cls, params in views:
        x = cls.apply(x, **params) if _is_tensor(x) else cls.forward(x, **params)
    return x


def _reads(cls: type[Op], rule: Callable) -> tuple[str, ...]:
    """The saved values a rule reads: the names of its parameters after ``(node, g)``."""
    code = rule.__code__
    names = code.co_varnames[2 : code.co_argcount]
    unknown = [name for name in names if name not in cls.saves or (name not in cls.inputs and name != "result")]
    if unknown:
        raise TypeError(f"{cls.__name__}: a rule reads {unknown}, which are not saved inputs or the result")
    return names


def _params(cls: type[Op]) -> list[str]:
    """The names of ``forward``'s non-tensor arguments (what ``_saved_<param>`` reads)."""
    if isinstance(cls.forward, np.ufunc):  # a NumPy ufunc: tensors only (its keywords are NumPy's)
        return []
    try:
        ps = list(inspect.signature(cls.forward).parameters.values())
    except (TypeError, ValueError):  # a NumPy ufunc: tensors only
        return []
    positional = [p for p in ps if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    return [p.name for p in positional[len(cls.inputs) :]] + [p.name for p in ps if p.kind == p.KEYWORD_ONLY]


def unbroadcast(grad: Any, shape: tuple[int, ...]) -> Any:
    """Sum ``grad`` back to ``shape``: the adjoint of broadcasting ``shape`` up to ``grad.shape``.

    A broadcast input was used once per position it was copied to, so its gradient is the sum
    over those positions: over the leading dimensions it lacked, and over its size-1 dimensions.
    ``grad`` is a NumPy array or a Tensor.

    >>> import gradbook as torch
    >>> unbroadcast(torch.ones(2, 3), (3,))
    tensor([2., 2., 2.])
    """
    if isinstance(grad, Tensor):
        lead = grad._array.ndim - len(shape)
        if lead:
            grad = grad.sum(dim=tuple(range(lead)) if lead > 1 else 0)
        if grad._array.shape != shape:
            ones = tuple(i for i, n in enumerate(shape) if n == 1 and grad._array.shape[i] != 1)
            grad = grad.sum(dim=ones, keepdim=True)
        return grad
    lead = grad.ndim - len(shape)
    if grad.shape[lead:] == shape:  # only new leading dimensions (a bias): one reduction
        return np.add.reduce(grad, axis=tuple(range(lead)))
    dims = tuple(range(lead)) + tuple(i + lead for i, n in enumerate(shape) if n == 1 and grad.shape[i + lead] != 1)
    return np.add.reduce(grad, axis=dims, keepdims=True).reshape(shape)


def _rounded(fn: Any) -> Any:
    """``_floating(fn)``, computed in float64 and rounded once to float32: the result then has
    torch's bits far more often than NumPy's float32 kernel gives them (exp: 99% instead of 61%;
    ``benchmarks/float32_numerics.py`` measures each function)."""

    def forward(a: np.ndarray) -> np.ndarray:
        want = a.dtype if a.dtype.kind == "f" else default_float()
        return fn(a) if want == np.float64 else fn(a.astype(np.float64)).astype(want)

    forward.rounded = True  # type: ignore[attr-defined]  (read by the benchmark)
    return staticmethod(forward)


def _floating(fn: Any) -> Any:
    """``fn`` for an op with a floating-point result: integer and bool inputs are computed in
    float32, as torch does (NumPy would give float64)."""
    return staticmethod(lambda a: fn(a) if a.dtype.kind == "f" else fn(a.astype(default_float())))


# ================================================================ arithmetic


class AddBackward0(Op):
    """out = self + alpha·other"""

    inputs = ("self", "other")
    alpha = 1
    forward = staticmethod(lambda a, b, alpha=1: np.add(a, b) if alpha == 1 else a + alpha * b)
    rules = {
        "∂out/∂self = 1": lambda n, g: g,
        "∂out/∂other = alpha": lambda n, g: g if n.alpha == 1 else g * n.alpha,
    }


class SubBackward0(Op):
    """out = self - alpha·other"""

    inputs = ("self", "other")
    alpha = 1
    forward = staticmethod(lambda a, b, alpha=1: np.subtract(a, b) if alpha == 1 else a - alpha * b)
    rules = {
        "∂out/∂self = 1": lambda n, g: g,
        "∂out/∂other = -alpha": lambda n, g: -g if n.alpha == 1 else g * -n.alpha,
    }


class RsubBackward1(Op):
    """out = other - self, for a number ``other`` (``1 - x``)"""

    forward = staticmethod(lambda a, other: np.subtract(other, a, dtype=a.dtype))
    rules = {"∂out/∂self = -1": lambda n, g: -g}


class MulBackward0(Op):
    """out = self · other"""

    inputs = ("self", "other")
    saves = ("self", "other")
    forward = np.multiply
    rules = {
        "∂out/∂self = other": lambda n, g, other: g * other,
        "∂out/∂other = self": lambda n, g, self: g * self,
    }


class DivBackward0(Op):
    """out = self / other"""

    inputs = ("self", "other")
    saves = ("self", "other")
    forward = np.true_divide
    rules = {
        "∂out/∂self = 1/other": lambda n, g, other: g / other,
        "∂out/∂other = -self/other²": lambda n, g, self, other: -g * ((self / other) / other),  # torch's order
    }


class ReciprocalBackward0(Op):
    """out = 1/self"""

    saves = ("result",)
    forward = _floating(np.reciprocal)
    rules = {"∂out/∂self = -1/self² = -out²": lambda n, g, result: -g * result * result}


class NegBackward0(Op):
    """out = -self"""

    forward = np.negative
    rules = {"∂out/∂self = -1": lambda n, g: -g}


class PowBackward0(Op):
    """out = self ** exponent, for a number exponent (kept as a param)"""

    saves = ("self",)
    forward = staticmethod(lambda a, exponent: np.power(a, exponent))
    rules = {
        "∂out/∂self = exponent · self^(exponent-1)": (
            lambda n, g, self: g * 0 if n.exponent == 0 else g * n.exponent * self ** (n.exponent - 1)
        ),
    }


class PowBackward1(Op):
    """out = self ** exponent, both tensors"""

    inputs = ("self", "exponent")
    saves = ("self", "exponent", "result")
    forward = np.power
    rules = {
        "∂out/∂self = exponent · self^(exponent-1)": lambda n, g, self, exponent: (
            g * _where(exponent == 0, 0.0, exponent * self ** (exponent - 1))
        ),
        "∂out/∂exponent = out · ln(self)": (
            lambda n, g, self, exponent, result: g * _where((self == 0) & (exponent >= 0), 0.0, result * _log(self))
        ),
    }


class PowBackward2(Op):
    """out = base ** exponent, for a number base (``2 ** x``; the base is kept as a param)"""

    inputs = ("exponent",)
    saves = ("exponent", "result")
    forward = staticmethod(lambda e, base: np.power(np.asarray(base, dtype=e.dtype), e))
    rules = {
        "∂out/∂exponent = out · ln(base)": (
            lambda n, g, exponent, result: g * 0 if n.base == 0 else g * result * float(np.log(n.base))
        ),
    }


class RemainderBackward0(Op):
    """out = self mod other, for a number other: Python's %, with the sign of other"""

    forward = staticmethod(lambda a, other: np.remainder(a, other))
    rules = {"∂out/∂self = 1": lambda n, g: g}


class RemainderBackward1(Op):
    """out = self mod other = self - other · floor(self/other), both tensors"""

    inputs = ("self", "other")
    saves = ("self", "other")
    forward = np.remainder
    rules = {
        "∂out/∂self = 1": lambda n, g: g,
        "∂out/∂other = -floor(self/other)": (
            lambda n, g, self, other: -g * _constant(np.floor(_array(self) / _array(other)), g)  # floor' = 0
        ),
    }


def _not_implemented(n: Op, g: Any) -> Any:
    raise RuntimeError(f"derivative for aten::{n.op} is not implemented")


class NotImplementedBackward(Op):
    """An op whose derivative torch does not implement: ``//``, and a number % a tensor

    torch records it as a node named NotImplemented; backward through it raises torch's error.
    """

    inputs = ("self", "other")
    forward = staticmethod(lambda *arrays, compute, op: compute(*arrays))
    rules = {"∂out/∂self: not implemented": _not_implemented, "∂out/∂other: not implemented": _not_implemented}

    def name(self) -> str:
        return "torch::autograd::NotImplemented"

    def _sequence_nr(self) -> int:
        return 2**64 - 1


NotImplementedBackward.__name__ = NotImplementedBackward.__qualname__ = "NotImplemented"  # torch's repr


# ================================================================ matrix products


class DotBackward0(Op):
    """out = Σᵢ selfᵢ tensorᵢ"""

    inputs = ("self", "tensor")
    saves = ("self", "tensor")
    forward = np.dot
    rules = {
        "∂out/∂self = tensor": lambda n, g, tensor: g * tensor,
        "∂out/∂tensor = self": lambda n, g, self: g * self,
    }


class MvBackward0(Op):
    """out = self @ vec (matrix · vector)"""

    inputs = ("self", "vec")
    saves = ("self", "vec")
    forward = np.matmul
    rules = {
        "∂/∂self: g ⊗ vec": lambda n, g, vec: _unsqueeze(g, 1) * vec,
        "∂/∂vec: selfᵀ @ g": lambda n, g, self: self.mT @ g,
    }


class MmBackward0(Op):
    """out = self @ mat2"""

    inputs = ("self", "mat2")
    saves = ("self", "mat2")
    forward = np.matmul
    rules = {
        "∂/∂self: g @ mat2ᵀ": lambda n, g, mat2: g @ mat2.mT,
        "∂/∂mat2: selfᵀ @ g": lambda n, g, self: self.mT @ g,
    }


class BmmBackward0(Op):
    """out = self @ mat2 over (broadcast) batch dimensions"""

    inputs = ("self", "mat2")
    saves = ("self", "mat2")
    forward = np.matmul
    rules = {
        "∂/∂self: g @ mat2ᵀ, per batch": lambda n, g, mat2: g @ mat2.mT,
        "∂/∂mat2: selfᵀ @ g, per batch": lambda n, g, self: self.mT @ g,
    }


class AddmmBackward0(Op):
    """out = self + mat1 @ mat2 (``nn.Linear`` on a batch: bias + x @ Wᵀ)"""

    inputs = ("self", "mat1", "mat2")
    saves = ("mat1", "mat2")
    forward = staticmethod(lambda b, m1, m2: np.add(np.matmul(m1, m2), b))
    rules = {
        "∂out/∂self = 1, summed over the batch": lambda n, g: g,
        "∂/∂mat1: g @ mat2ᵀ": lambda n, g, mat2: g @ mat2.mT,
        "∂/∂mat2: mat1ᵀ @ g": lambda n, g, mat1: mat1.mT @ g,
    }


# ================================================================ elementwise functions


def _sigmoid(a: np.ndarray) -> np.ndarray:
    return 1 / (1 + np.exp(-a))  # torch's formula: e⁻ᵃ overflows to inf and σ to 0 (not a subnormal)


class ExpBackward0(Op):
    """out = eˢᵉˡᶠ"""

    saves = ("result",)
    forward = _rounded(np.exp)
    rules = {"∂out/∂self = eˢᵉˡᶠ = out": lambda n, g, result: g * result}


class LogBackward0(Op):
    """out = ln(self)"""

    saves = ("self",)
    forward = _rounded(np.log)
    rules = {"∂out/∂self = 1/self": lambda n, g, self: g / self}


class SqrtBackward0(Op):
    """out = √self"""

    saves = ("result",)
    forward = _floating(np.sqrt)
    rules = {"∂out/∂self = 1/(2√self) = 1/(2·out)": lambda n, g, result: g / (2 * result)}


class AbsBackward0(Op):
    """out = |self|"""

    saves = ("self",)
    forward = np.abs
    rules = {
        "∂out/∂self = sign(self) (0 at 0)": lambda n, g, self: g * _constant(np.nan_to_num(np.sign(_array(self))), g),
    }  # torch: 0 at nan too


class SinBackward0(Op):
    """out = sin(self)"""

    saves = ("self",)
    forward = _rounded(np.sin)
    rules = {"∂out/∂self = cos(self)": lambda n, g, self: g * _cos(self)}


class CosBackward0(Op):
    """out = cos(self)"""

    saves = ("self",)
    forward = _rounded(np.cos)
    rules = {"∂out/∂self = -sin(self)": lambda n, g, self: g * -_sin(self)}


class TanhBackward0(Op):
    """out = tanh(self)"""

    saves = ("result",)
    forward = _floating(np.tanh)  # float64 would give torch's bits 99.8% of the time, not 67%, but the MLP
    # benchmark's medium step 14% slower (benchmarks/float32_numerics.py)
    rules = {"∂out/∂self = 1 - tanh² = 1 - out²": lambda n, g, result: g * (1 - result * result)}


class SigmoidBackward0(Op):
    """out = σ(self) = 1/(1+e⁻ˢᵉˡᶠ)"""

    saves = ("result",)
    forward = _floating(_sigmoid)
    rules = {"∂out/∂self = σ(1-σ) = out·(1-out)": lambda n, g, result: g * result * (1 - result)}


class ReluBackward0(Op):
    """out = max(self, 0)"""

    saves = ("result",)
    forward = staticmethod(lambda a: np.maximum(a, 0, dtype=a.dtype))
    # (~(out <= 0), not out > 0: 1 at nan, as torch)
    rules = {"∂out/∂self = 1 where out > 0, else 0": lambda n, g, result: _select(g, ~(_array(result) <= 0))}


class ClampBackward1(Op):
    """out = min(max(self, min), max)"""

    saves = ("self",)
    forward = staticmethod(lambda a, min, max: np.clip(a, min, max).astype(a.dtype, copy=False))
    rules = {
        "∂out/∂self = 1 inside [min, max], else 0": (
            lambda n, g, self: _select(g, (_array(self) >= _or(n.min, -np.inf)) & (_array(self) <= _or(n.max, np.inf)))
        ),
    }


class MaximumBackward0(Op):
    """out = max(self, other), elementwise"""

    inputs = ("self", "other")
    saves = ("self", "other")
    forward = np.maximum
    rules = {
        "∂out/∂self = 1 where self > other, ½ on ties": (
            lambda n, g, self, other: _select(g, _picked(self, other, n))
        ),
        "∂out/∂other = 1 where other > self, ½ on ties": (
            lambda n, g, self, other: _select(g, _picked(other, self, n))
        ),
    }


class MinimumBackward0(Op):
    """out = min(self, other), elementwise"""

    inputs = ("self", "other")
    saves = ("self", "other")
    forward = np.minimum
    rules = {
        "∂out/∂self = 1 where self < other, ½ on ties": (
            lambda n, g, self, other: _select(g, _picked(other, self, n))
        ),
        "∂out/∂other = 1 where other < self, ½ on ties": (
            lambda n, g, self, other: _select(g, _picked(self, other, n))
        ),
    }


class WhereBackward0(Op):
    """out = condition ? self : other"""

    inputs = ("self", "other")
    saves = ("condition",)
    forward = staticmethod(lambda a, b, condition: np.where(condition, a, b))
    rules = {
        "∂out/∂self = 1 where condition, else 0": lambda n, g: _select(g, n.condition),
        "∂out/∂other = 1 where not condition, else 0": lambda n, g: _select(g, ~n.condition),
    }


class SoftmaxBackward0(Op):
    """out = eˢᵉˡᶠ / Σ eˢᵉˡᶠ along dim"""

    saves = ("result",)

    @staticmethod
    def forward(a: np.ndarray, dim: int) -> np.ndarray:
        dim = dim if a.ndim else None
        e = np.exp(a - np.maximum.reduce(a, axis=dim, keepdims=True))
        return e / np.add.reduce(e, axis=dim, keepdims=True)

    rules = {"∂/∂self: out · (g - Σ g·out)": lambda n, g, result: result * (g - _sum(g * result, n.dim))}


class LogSoftmaxBackward0(Op):
    """out = self - ln Σ eˢᵉˡᶠ along dim, computed stably"""

    saves = ("result",)

    @staticmethod
    def forward(a: np.ndarray, dim: int) -> np.ndarray:
        dim = dim if a.ndim else None
        shifted = a - np.maximum.reduce(a, axis=dim, keepdims=True)
        return shifted - np.log(np.add.reduce(np.exp(shifted), axis=dim, keepdims=True))

    rules = {"∂/∂self: g - softmax · Σ g": lambda n, g, result: g - _exp(result) * _sum(g, n.dim)}


class Log1PBackward0(Op):
    """out = ln(1 + self)"""

    saves = ("self",)
    forward = _rounded(np.log1p)
    rules = {"∂out/∂self = 1/(1 + self)": lambda n, g, self: g / (self + 1)}


class Expm1Backward0(Op):
    """out = eˢᵉˡᶠ - 1"""

    saves = ("result",)
    forward = _rounded(np.expm1)
    rules = {"∂out/∂self = eˢᵉˡᶠ = out + 1": lambda n, g, result: g * (result + 1)}


class Exp2Backward0(Op):
    """out = 2ˢᵉˡᶠ"""

    saves = ("result",)
    forward = _rounded(np.exp2)
    rules = {"∂out/∂self = 2ˢᵉˡᶠ · ln 2 = out · ln 2": lambda n, g, result: g * result * math.log(2)}


class Log2Backward0(Op):
    """out = log₂(self)"""

    saves = ("self",)
    forward = _rounded(np.log2)
    rules = {"∂out/∂self = 1/(self · ln 2)": lambda n, g, self: g / (self * math.log(2))}


class Log10Backward0(Op):
    """out = log₁₀(self)"""

    saves = ("self",)
    forward = _rounded(np.log10)
    rules = {"∂out/∂self = 1/(self · ln 10)": lambda n, g, self: g / (self * math.log(10))}


class ErfBackward0(Op):
    """out = erf(self) = 2/√π ∫₀ˢᵉˡᶠ e^(-t²) dt"""

    saves = ("self",)
    forward = _floating(lambda a: _erf_of(a))
    rules = {"∂out/∂self = 2/√π · e^(-self²)": lambda n, g, self: g * (2 / math.sqrt(math.pi)) * _exp(-self * self)}


def _erf_of(a: np.ndarray) -> np.ndarray:
    return np.vectorize(math.erf, otypes=[np.float64])(a).astype(a.dtype, copy=False)  # NumPy has no erf


class SignBackward0(Op):
    """out = -1, 0 or 1, the sign of self"""

    forward = staticmethod(lambda a: np.sign(a) if a.dtype.kind != "b" else a.copy())
    rules = {"∂out/∂self = 0 (a step function)": lambda n, g: _zeros(g)}


class FloorBackward0(Op):
    """out = ⌊self⌋"""

    forward = staticmethod(lambda a: np.floor(a) if a.dtype.kind == "f" else a.copy())
    rules = {"∂out/∂self = 0 (a step function)": lambda n, g: _zeros(g)}


class CeilBackward0(Op):
    """out = ⌈self⌉"""

    forward = staticmethod(lambda a: np.ceil(a) if a.dtype.kind == "f" else a.copy())
    rules = {"∂out/∂self = 0 (a step function)": lambda n, g: _zeros(g)}


class RoundBackward0(Op):
    """out = self rounded to the nearest integer (halves to even)"""

    forward = staticmethod(lambda a: np.round(a) if a.dtype.kind == "f" else a.copy())
    rules = {"∂out/∂self = 0 (a step function)": lambda n, g: _zeros(g)}


class RoundBackward1(Op):
    """out = self rounded to ``decimals`` decimal places (halves to even)"""

    forward = staticmethod(lambda a, decimals: np.round(a, decimals) if a.dtype.kind == "f" else a.copy())
    rules = {"∂out/∂self = 0 (a step function)": lambda n, g: _zeros(g)}


# ================================================================ reductions


class SumBackward0(Op):
    """out = Σ self (all elements)"""

    forward = staticmethod(lambda a: np.add.reduce(a, axis=None))
    rules = {"∂out/∂selfᵢ = 1: g copied to every element": lambda n, g: _expand(g, n._meta[0][0])}


class SumBackward1(Op):
    """out = Σ self along ``dim``"""

    forward = staticmethod(lambda a, dim, keepdim: np.add.reduce(a, axis=dim, keepdims=keepdim))
    rules = {"∂out/∂selfᵢ = 1: g copied back along dim": lambda n, g: _expand(_unreduce(g, n), n._meta[0][0])}


class MeanBackward0(Op):
    """out = (Σ self) / N"""

    forward = staticmethod(lambda a: _mean(a, None, False))
    rules = {"∂out/∂selfᵢ = 1/N": lambda n, g: _expand(g, n._meta[0][0]) / max(math.prod(n._meta[0][0]), 1)}


class MeanBackward1(Op):
    """out = mean of self along ``dim``"""

    forward = staticmethod(lambda a, dim, keepdim: _mean(a, dim, keepdim))
    rules = {
        "∂out/∂selfᵢ = 1/(number averaged)": (
            lambda n, g: _expand(_unreduce(g, n), n._meta[0][0]) / math.prod(n._meta[0][0][d] for d in n.dim)
        ),
    }


class ProdBackward0(Op):
    """out = ∏ self (all elements)"""

    saves = ("self", "result")
    forward = staticmethod(lambda a: np.multiply.reduce(a, axis=None))
    rules = {
        "∂out/∂selfᵢ = ∏ of the other elements": (
            lambda n, g, self, result: g * _prod_others(self.reshape(-1), 0, result).reshape(n._meta[0][0])
        ),
    }


class ProdBackward1(Op):
    """out = ∏ self along ``dim``"""

    saves = ("self", "result")
    forward = staticmethod(lambda a, dim, keepdim: np.multiply.reduce(a, axis=dim, keepdims=keepdim))
    rules = {
        "∂out/∂selfᵢ = ∏ of the other elements along dim": (
            lambda n, g, self, result: _unreduce(g, n) * _prod_others(self, n.dim[0], _unreduce(result, n))
        ),
    }


class CumsumBackward0(Op):
    """outᵢ = Σ_{j ≤ i} selfⱼ along ``dim``"""

    forward = staticmethod(lambda a, dim: np.cumsum(a, axis=dim, dtype=a.dtype if a.dtype.kind == "f" else np.int64))
    rules = {"∂/∂selfⱼ: Σ_{i ≥ j} gᵢ (g summed from the end)": lambda n, g: _reverse_cumsum(g, n.dim)}


class VarBackward0(Op):
    """out = Σ (self - mean)² / (N - correction), over ``dim`` (all elements if None)"""

    saves = ("self",)
    forward = staticmethod(lambda a, dim, correction, keepdim: _var(a, dim, correction, keepdim))
    rules = {
        "∂out/∂selfᵢ = 2 (selfᵢ - mean) / (N - correction)": (
            lambda n, g, self: _unreduce(g, n) * (self - _mean_of(self, n)) * (2 / _dof(n))
        ),
    }


class StdBackward0(Op):
    """out = √var(self), over ``dim`` (all elements if None)"""

    saves = ("self", "result")
    forward = staticmethod(
        lambda a, dim, correction, keepdim: np.sqrt(_var(a.astype(np.float64), dim, correction, keepdim)).astype(
            a.dtype
        )
    )
    rules = {
        "∂out/∂selfᵢ = (selfᵢ - mean) / ((N - correction) · out)": (
            lambda n, g, self, result: _unreduce(g, n) * (self - _mean_of(self, n)) / (_dof(n) * _unreduce(result, n))
        ),
    }


class LinalgVectorNormBackward0(Op):
    """out = (Σ |self|ᵖ)^(1/p) over ``dim`` (all elements if None); p = ∞: max |self|"""

    saves = ("self", "result")

    @staticmethod
    def forward(a: np.ndarray, ord: float, dim: Any, keepdim: bool) -> np.ndarray:  # noqa: A002
        x = np.abs(a)
        if ord == math.inf:
            return np.maximum.reduce(x, axis=dim, keepdims=keepdim)
        if ord == 2:
            return np.sqrt(np.add.reduce(x * x, axis=dim, keepdims=keepdim))
        if ord == 1:
            return np.add.reduce(x, axis=dim, keepdims=keepdim)
        return np.add.reduce(x**ord, axis=dim, keepdims=keepdim) ** (1 / ord)

    rules = {
        "∂out/∂self = self·|self|ᵖ⁻² / outᵖ⁻¹ (2-norm: self / out)": (
            lambda n, g, self, result: _unreduce(g, n) * _norm_grad(self, _unreduce(result, n), n)
        ),
    }


class MaxBackward1(Op):
    """out = max of all elements"""

    saves = ("self", "result")
    forward = staticmethod(lambda a: np.maximum.reduce(a, axis=None))
    rules = {
        "∂out/∂selfᵢ = 1/k at each of the k maxima, else 0": (
            lambda n, g, self, result: _select(g, _share(self, result, n))
        ),
    }


class MinBackward1(MaxBackward1):
    """out = min of all elements"""

    forward = staticmethod(lambda a: np.minimum.reduce(a, axis=None))
    rules = {"∂out/∂selfᵢ = 1/k at each of the k minima, else 0": MaxBackward1._vjps[0]}


class MaxBackward0(Op):
    """values = max along ``dim`` (``indices`` say where)"""

    saves = ("indices",)
    forward = staticmethod(
        lambda a, dim, keepdim, indices: np.take_along_axis(a, np.expand_dims(indices, dim), dim).squeeze(
            axis=dim if not keepdim else ()
        )
    )
    rules = {
        "∂out/∂self = 1 at the maximum, else 0": (
            lambda n, g: _select(g if n.keepdim else _unsqueeze(g, n.dim), _one_hot(n))
        ),
    }


class MinBackward0(MaxBackward0):
    """values = min along ``dim`` (``indices`` say where)"""

    rules = {"∂out/∂self = 1 at the minimum, else 0": MaxBackward0._vjps[0]}


# ================================================================ shape


class ViewBackward0(Op):
    """out = self with a new shape (same elements, same order)"""

    view = True

    forward = staticmethod(lambda a, shape, dim=None: a.reshape(shape))  # squeeze keeps its dim too
    rules = {"∂/∂self: g reshaped back": lambda n, g: g.reshape(n._meta[0][0])}


class UnsafeViewBackward0(ViewBackward0):
    """out = a copy of self in a new shape (``reshape`` where no view can do it: after a clone)"""

    view = False


class SqueezeBackward0(ViewBackward0):
    """out = self without its size-1 dimensions"""


class SqueezeBackward1(ViewBackward0):
    """out = self without size-1 dimension ``dim``"""


class SqueezeBackward2(ViewBackward0):
    """out = self without size-1 dimensions ``dim`` (a tuple)"""


class SqueezeBackward4(ViewBackward0):
    """out = self without size-1 dimension ``dim``, in place (``squeeze_``, as matmul of a 1-D
    tensor leaves it)"""


class UnsqueezeBackward0(Op):
    """out = self with a new size-1 dimension at ``dim``"""

    view = True

    forward = staticmethod(lambda a, dim: np.expand_dims(a, dim))
    rules = {"∂/∂self: g squeezed at dim": lambda n, g: g.squeeze(n.dim)}


class TBackward0(Op):
    """out = selfᵀ (``t()``, up to 2-D)"""

    view = True

    forward = staticmethod(lambda a: a.T)
    rules = {"∂/∂self: gᵀ": lambda n, g: g.T}


class TransposeBackward0(Op):
    """out = self with dimensions ``dim0`` and ``dim1`` swapped"""

    view = True

    forward = staticmethod(lambda a, dim0, dim1: np.swapaxes(a, dim0, dim1))
    rules = {"∂/∂self: g with dim0 and dim1 swapped back": lambda n, g: _swapaxes(g, n.dim0, n.dim1)}


class PermuteBackward0(Op):
    """out = self with dimensions reordered by ``dims`` (also ``.T``)"""

    view = True

    forward = staticmethod(lambda a, dims: np.transpose(a, dims))
    rules = {
        "∂/∂self: g in the inverse order": lambda n, g: _permute(g, tuple(int(d) for d in np.argsort(n.dims))),
    }


class ExpandBackward0(Op):
    """out = self repeated along size-1 (or new leading) dimensions"""

    view = True

    forward = staticmethod(lambda a, size: np.broadcast_to(a, size))
    rules = {"∂/∂self: g summed over the expanded dimensions": lambda n, g: g}  # by unbroadcast


class CloneBackward0(Op):
    """out = a copy of self (in self's memory layout, as torch's clone keeps strides)"""

    forward = staticmethod(lambda a: np.copy(a, order="K"))
    rules = {"∂out/∂self = 1": lambda n, g: g}


class AliasBackward0(Op):
    """out = self (a view: ``x[:]``, ``x[...]``)"""

    view = True

    forward = staticmethod(lambda a: a.view())
    rules = {"∂out/∂self = 1": lambda n, g: g}


class ToCopyBackward0(Op):
    """out = self converted to ``dtype``"""

    forward = staticmethod(lambda a, dtype: a.astype(dtype))
    rules = {"∂out/∂self = 1, converted back to self's dtype": lambda n, g: g}  # converted by run_rules

    @classmethod
    def apply(cls, t: Tensor, dtype: np.dtype) -> Tensor:  # type: ignore[override]
        if dtype.kind != "f":  # an integer or bool result is never differentiable (x.long())
            return Tensor._make(t._array.astype(dtype))
        return super().apply(t, dtype=dtype)


class ZeroBackward0(Op):
    """out = self filled with zeros (``zero_``)"""

    forward = staticmethod(np.zeros_like)
    rules = {"∂out/∂self = 0": lambda n, g: _constant(np.zeros_like(_array(g)), g)}


class FillBackward2(Op):
    """out = self filled with the number ``value`` (``fill_``)"""

    forward = staticmethod(lambda a, value: np.full_like(a, value))
    rules = {"∂out/∂self = 0": lambda n, g: _constant(np.zeros_like(_array(g)), g)}


class CopyBackwards(Op):
    """out = src broadcast into self's shape and dtype (``copy_``)"""

    inputs = ("self", "src")
    forward = staticmethod(lambda a, src: np.broadcast_to(src, a.shape).astype(a.dtype))
    rules = {
        "∂out/∂self = 0": lambda n, g: _constant(np.zeros_like(_array(g)), g),
        "∂out/∂src = 1": lambda n, g: g,
    }

    def name(self) -> str:
        return "torch::autograd::CopyBackwards"  # a hand-written node in torch, named like AccumulateGrad


class CopySlices(Op):
    """out = self with the part a view sees replaced by src: ``y[0] = v``, or an in-place change
    of a view, ``y[1:].mul_(2)``, recorded on the view's base"""

    inputs = ("self", "src")

    @staticmethod
    def forward(base: np.ndarray, src: np.ndarray, views: tuple) -> np.ndarray:
        out = base.copy()
        view_region(out, views)[...] = src
        return out

    rules = {
        "∂out/∂self = 1 outside the view, 0 inside": lambda n, g: g * _constant(_outside(n), g),
        "∂out/∂src = 1 inside the view": lambda n, g: view_region(g, n.views),
    }

    def name(self) -> str:
        return "torch::autograd::CopySlices"


def _outside(n: Op) -> np.ndarray:
    mask = np.ones(*n._meta[0])
    view_region(mask, n.views)[...] = 0
    return mask


class SelectBackward0(Op):
    """out = self[index] along ``dim``"""

    view = True

    forward = staticmethod(lambda a, dim, index: a[(slice(None),) * dim + (index, Ellipsis)])  # a view, 0-d too
    rules = {
        "∂/∂self: g at index, zeros elsewhere": (
            lambda n, g: _scatter(g, n._meta[0][0], (slice(None),) * n.dim + (n.index,))
        ),
    }


class SliceBackward0(Op):
    """out = self[start:end:step] along ``dim``"""

    view = True

    forward = staticmethod(lambda a, dim, start, end, step: a[(slice(None),) * dim + (slice(start, end, step),)])
    rules = {
        "∂/∂self: g at start:end:step, zeros elsewhere": (
            lambda n, g: _scatter(g, n._meta[0][0], (slice(None),) * n.dim + (slice(n.start, n.end, n.step),))
        ),
    }


class IndexBackward0(Op):
    """out = self[indices] (integer arrays or a boolean mask)"""

    saves = ("indices",)
    forward = staticmethod(lambda a, indices: a[indices])
    rules = {"∂/∂self: g added back at each index": lambda n, g: _scatter(g, n._meta[0][0], n.indices)}


class UniformBackward0(Op):
    """out = new random values, uniform in [from, to) (``uniform_``): they do not depend on self"""

    forward = staticmethod(lambda a, values: values.astype(a.dtype))
    rules = {"∂out/∂self = 0 (new random values)": lambda n, g: _zeros(g)}


class NormalBackward0(UniformBackward0):
    """out = new random values, normal with ``mean`` and ``std`` (``normal_``)"""


class MaskedFillBackward0(Op):
    """out = value where mask, else self (``masked_fill`` with a number)"""

    forward = staticmethod(lambda a, mask, value: np.where(mask, np.asarray(value).astype(a.dtype), a))
    rules = {"∂out/∂self = 1 where not mask, else 0": lambda n, g: _select(g, ~n.mask)}


class GatherBackward0(Op):
    """out = self picked along ``dim`` at ``index`` (for dim 0: out[i][j] = self[index[i][j]][j])"""

    forward = staticmethod(lambda a, dim, index: a[_along(index, dim)])
    rules = {
        "∂/∂self: g added back where it was picked": lambda n, g: _scatter(g, n._meta[0][0], _along(n.index, n.dim))
    }


class ScatterBackward0(Op):
    """out = self with src written at ``index`` along ``dim`` (dim 0: out[index[i][j]][j] = src[i][j])"""

    inputs = ("self", "src")
    forward = staticmethod(lambda a, src, dim, index: _put_along(a, dim, index, src[_region(index)]))
    rules = {
        "∂out/∂self = 1, 0 where src was written": lambda n, g: g * _constant(_unwritten(n), g),
        "∂/∂src: g gathered at index": lambda n, g: _src_grad(n, g),
    }


class ScatterBackward1(Op):
    """out = self with the number ``value`` written at ``index`` along ``dim``"""

    forward = staticmethod(lambda a, dim, index, value: _put_along(a, dim, index, value))
    rules = {"∂out/∂self = 1, 0 where value was written": lambda n, g: g * _constant(_unwritten(n), g)}


class ScatterAddBackward0(Op):
    """out = self with src added at ``index`` along ``dim`` (repeated indices add up)"""

    inputs = ("self", "src")
    forward = staticmethod(lambda a, src, dim, index: _add_along(a, dim, index, src[_region(index)]))
    rules = {
        "∂out/∂self = 1": lambda n, g: g,
        "∂/∂src: g gathered at index": lambda n, g: _src_grad(n, g),
    }


class IndexSelectBackward0(Op):
    """out = the slices of self at ``index`` along ``dim``"""

    forward = staticmethod(lambda a, dim, index: np.take(a, index, axis=dim))
    rules = {
        "∂/∂self: g added back at each index": (
            lambda n, g: _scatter(g, n._meta[0][0], (slice(None),) * n.dim + (n.index,))
        ),
    }


class IndexPutBackward0(Op):
    """out = self with values put at ``indices`` (``y[mask] = v``), or added there (``accumulate``:
    zeros with g added at each index is the backward of indexing, as x[[0, 0]] uses x[0] twice)"""

    inputs = ("self", "values")

    @staticmethod
    def forward(base: np.ndarray, values: np.ndarray, indices: Any, accumulate: bool) -> np.ndarray:
        out = base.copy()
        if accumulate:
            np.add.at(out, indices, values)
        else:
            out[indices] = values
        return out

    rules = {
        "∂out/∂self = 1, 0 where values were put": lambda n, g: g if n.accumulate else g * _constant(_unput(n), g),
        "∂out/∂values = g[indices]": lambda n, g: g[n.indices],  # indexing means the same on arrays and Tensors
    }


def _unput(n: Op) -> np.ndarray:
    mask = np.ones(*n._meta[0])
    mask[n.indices] = 0
    return mask


class CatBackward0(Op):
    """out = the tensors joined along ``dim``"""

    inputs = ("tensors",)  # any number of them; the rule is the same for each
    forward = staticmethod(lambda *arrays, dim, sizes: np.concatenate(arrays, axis=dim))
    rules = {
        "∂/∂tensors[i]: g's slice i along dim": lambda n, g, start, end: g[
            (slice(None),) * n.dim + (slice(start, end),)
        ]
    }

    @property
    def _vjps(self) -> list:  # type: ignore[override]
        rule, ends = self.rules["∂/∂tensors[i]: g's slice i along dim"], np.cumsum(self.sizes)
        return [lambda n, g, s=int(end - size), e=int(end): rule(n, g, s, e) for size, end in zip(self.sizes, ends)]


class StackBackward0(Op):
    """out = the tensors stacked along a new dimension ``dim``"""

    inputs = ("tensors",)  # any number of them; the rule is the same for each
    forward = staticmethod(lambda *arrays, dim: np.stack(arrays, axis=dim))
    rules = {"∂/∂tensors[i]: g selected at i along dim": lambda n, g, i: g[(slice(None),) * n.dim + (i,)]}

    @property
    def _vjps(self) -> list:  # type: ignore[override]
        rule = self.rules["∂/∂tensors[i]: g selected at i along dim"]
        return [lambda n, g, i=i: rule(n, g, i) for i in range(len(self.next_functions))]


# ================================================================ more elementwise functions


class AtanBackward0(Op):
    """out = atan(self)"""

    saves = ("self",)
    forward = _rounded(np.arctan)
    rules = {"∂out/∂self = 1 / (1 + self²)": lambda n, g, self: g / (self * self + 1)}


class AsinBackward0(Op):
    """out = asin(self)"""

    saves = ("self",)
    forward = _rounded(np.arcsin)
    rules = {"∂out/∂self = 1 / √(1 - self²)": lambda n, g, self: g * (1 - self * self) ** -0.5}


class AcosBackward0(Op):
    """out = acos(self)"""

    saves = ("self",)
    forward = _rounded(np.arccos)
    rules = {"∂out/∂self = -1 / √(1 - self²)": lambda n, g, self: g * -((1 - self * self) ** -0.5)}


class SinhBackward0(Op):
    """out = sinh(self)"""

    saves = ("self",)
    forward = _rounded(np.sinh)
    rules = {"∂out/∂self = cosh(self)": lambda n, g, self: g * _unary(self, "cosh", np.cosh)}


class CoshBackward0(Op):
    """out = cosh(self)"""

    saves = ("self",)
    forward = _rounded(np.cosh)
    rules = {"∂out/∂self = sinh(self)": lambda n, g, self: g * _unary(self, "sinh", np.sinh)}


class Atan2Backward0(Op):
    """out = atan2(self, other): the angle of the point (other, self)"""

    inputs = ("self", "other")
    saves = ("self", "other")
    forward = staticmethod(lambda a, b: _in_float64(lambda x: np.arctan2(x, b.astype(x.dtype)), a))
    rules = {
        "∂out/∂self = other / (self² + other²)": lambda n, g, self, other: g * other / (self * self + other * other),
        "∂out/∂other = -self / (self² + other²)": lambda n, g, self, other: g * -self / (self * self + other * other),
    }


class HypotBackward0(Op):
    """out = √(self² + other²)"""

    inputs = ("self", "other")
    saves = ("self", "other", "result")
    forward = staticmethod(np.hypot)
    rules = {
        "∂out/∂self = self / out": lambda n, g, self, result: g * self / result,
        "∂out/∂other = other / out": lambda n, g, other, result: g * other / result,
    }


class LogaddexpBackward0(Op):
    """out = log(eˢᵉˡᶠ + eᵒᵗʰᵉʳ)"""

    inputs = ("self", "other")
    saves = ("self", "other")
    forward = staticmethod(np.logaddexp)
    rules = {
        "∂out/∂self = 1 / (1 + e^(other - self))": lambda n, g, self, other: g / (_exp(other - self) + 1),
        "∂out/∂other = 1 / (1 + e^(self - other))": lambda n, g, self, other: g / (_exp(self - other) + 1),
    }


class TruncBackward0(Op):
    """out = self rounded toward 0"""

    forward = staticmethod(np.trunc)
    rules = {"∂out/∂self = 0 (a step function)": lambda n, g: _zeros(g)}


class FracBackward0(Op):
    """out = self - trunc(self)"""

    forward = staticmethod(lambda a: a - np.trunc(a))
    rules = {"∂out/∂self = 1": lambda n, g: g}


class ClampMinBackward0(Op):
    """out = max(self, min)"""

    saves = ("self",)
    forward = staticmethod(lambda a, min: np.maximum(a, a.dtype.type(min)))
    rules = {"∂out/∂self = 1 where self ≥ min, else 0": lambda n, g, self: _select(g, _array(self) >= n.min)}


class ClampMaxBackward0(Op):
    """out = min(self, max)"""

    saves = ("self",)
    forward = staticmethod(lambda a, max: np.minimum(a, a.dtype.type(max)))
    rules = {"∂out/∂self = 1 where self ≤ max, else 0": lambda n, g, self: _select(g, _array(self) <= n.max)}


class NanToNumBackward0(Op):
    """out = self, with nan, +inf and -inf replaced by numbers"""

    saves = ("self",)
    forward = staticmethod(lambda a, nan, posinf, neginf: np.nan_to_num(a, nan=nan, posinf=posinf, neginf=neginf))
    rules = {
        "∂out/∂self = 1 where self is finite, else 0": lambda n, g, self: g * _constant(np.isfinite(_array(self)), g)
    }


class LerpBackward0(Op):
    """out = self + weight · (end - self), for a number weight"""

    inputs = ("self", "end")
    forward = staticmethod(lambda a, b, weight: a + a.dtype.type(weight) * (b - a))
    rules = {
        "∂out/∂self = 1 - weight": lambda n, g: g * (1 - n.weight),
        "∂out/∂end = weight": lambda n, g: g * n.weight,
    }


class AddcmulBackward0(Op):
    """out = self + value · tensor1 · tensor2"""

    inputs = ("self", "tensor1", "tensor2")
    saves = ("tensor1", "tensor2")
    forward = staticmethod(lambda a, t1, t2, value: a + value * t1 * t2)
    rules = {
        "∂out/∂self = 1": lambda n, g: g,
        "∂out/∂tensor1 = value · tensor2": lambda n, g, tensor2: g * tensor2 * n.value,
        "∂out/∂tensor2 = value · tensor1": lambda n, g, tensor1: g * tensor1 * n.value,
    }


# ================================================================ more reductions


class AmaxBackward0(Op):
    """out = the largest value along ``dim`` (all dimensions if empty)"""

    saves = ("self", "result")
    forward = staticmethod(lambda a, dim, keepdim: np.max(a, axis=dim, keepdims=keepdim))
    rules = {
        "∂out/∂selfᵢ = 1/k at each of the k maxima, else 0": (
            lambda n, g, self, result: _unreduce(g, n) * _constant(_ties(self, _unreduce(result, n), n), g)
        ),
    }


class AminBackward0(AmaxBackward0):
    """out = the smallest value along ``dim`` (all dimensions if empty)"""

    forward = staticmethod(lambda a, dim, keepdim: np.min(a, axis=dim, keepdims=keepdim))
    rules = {"∂out/∂selfᵢ = 1/k at each of the k minima, else 0": AmaxBackward0._vjps[0]}


class LogsumexpBackward0(Op):
    """out = log Σ e^self along ``dim``"""

    saves = ("self", "result")
    forward = staticmethod(lambda a, dim, keepdim: _logsumexp(a, dim, keepdim))
    rules = {
        "∂out/∂selfᵢ = e^(selfᵢ - out) (the softmax)": (
            lambda n, g, self, result: _unreduce(g, n) * _exp(self - _unreduce(result, n))
        ),
    }


class CumprodBackward0(Op):
    """outᵢ = ∏_{j ≤ i} selfⱼ along ``dim``"""

    saves = ("self", "result")
    forward = staticmethod(lambda a, dim: np.cumprod(a, axis=dim, dtype=a.dtype if a.dtype.kind == "f" else np.int64))
    rules = {
        "∂/∂selfⱼ: Σ_{i ≥ j} gᵢ · outᵢ / selfⱼ": (lambda n, g, self, result: _cumprod_grad(g, self, result, n.dim)),
    }


class TraceBackward0(Op):
    """out = Σ selfᵢᵢ (a matrix's diagonal sum)"""

    forward = staticmethod(lambda a: np.trace(a))
    rules = {
        "∂out/∂selfᵢⱼ = 1 on the diagonal, else 0": lambda n, g: (
            g * _constant(np.eye(*n._meta[0][0], dtype=n._meta[0][1]), g)
        )
    }


class DiagonalBackward0(Op):
    """outᵢ = self[i, i + offset] over dimensions ``dim1`` and ``dim2`` (the diagonal goes last)"""

    forward = staticmethod(lambda a, offset, dim1, dim2: np.diagonal(a, offset, dim1, dim2).copy())
    rules = {
        "∂out/∂self: g back on the diagonal, zeros elsewhere": lambda n, g: _scatter(
            g, n._meta[0][0], _diagonal_index(n._meta[0][0], n.offset, n.dim1, n.dim2)
        )
    }


# ================================================================ sorting


class SortBackward0(Op):
    """values = self sorted along ``dim`` (``indices`` say where each came from)"""

    forward = staticmethod(lambda a, dim, indices: a.copy() if indices is None else np.take_along_axis(a, indices, dim))
    rules = {"∂out/∂self: each gᵢ back to where its value was": lambda n, g: _unsort(g, n)}


class TopkBackward0(Op):
    """values = the k largest (or smallest) along ``dim`` (``indices`` say where)"""

    forward = staticmethod(lambda a, dim, indices: np.take_along_axis(a, indices, dim))
    rules = {"∂out/∂self: each gᵢ back to where its value was, else 0": lambda n, g: _unsort(g, n)}


# ================================================================ more shape


class TrilBackward0(Op):
    """out = self with the elements above diagonal ``diagonal`` set to 0"""

    forward = staticmethod(lambda a, diagonal: np.tril(a, diagonal))
    rules = {"∂out/∂self = 1 on and below the diagonal, else 0": lambda n, g: _unary(g, "tril", np.tril, n.diagonal)}


class TriuBackward0(Op):
    """out = self with the elements below diagonal ``diagonal`` set to 0"""

    forward = staticmethod(lambda a, diagonal: np.triu(a, diagonal))
    rules = {"∂out/∂self = 1 on and above the diagonal, else 0": lambda n, g: _unary(g, "triu", np.triu, n.diagonal)}


class FlipBackward0(Op):
    """out = self with the order along ``dims`` reversed"""

    forward = staticmethod(lambda a, dims: np.flip(a, dims).copy())
    rules = {"∂out/∂self: the gradient flipped back": lambda n, g: _unary(g, "flip", np.flip, n.dims)}


class RollBackward0(Op):
    """out = self shifted by ``shifts`` along ``dims``, wrapping around (flattened if no dims)"""

    forward = staticmethod(lambda a, shifts, dims: np.roll(a, shifts, dims or None))
    rules = {"∂out/∂self: the gradient rolled back": lambda n, g: _roll(g, tuple(-s for s in n.shifts), n.dims)}


class RepeatBackward0(Op):
    """out = self tiled ``repeats`` times along each dimension"""

    forward = staticmethod(lambda a, repeats: np.tile(a, repeats))
    rules = {"∂out/∂self = the sum of the gradient over the copies": lambda n, g: _untile(g, n)}


# ================================================================ split: one node, several outputs


class SplitBackward0(SeveralOutputs, Node):
    """outs = self cut along ``dim`` into pieces of ``sizes`` (views of self); one node, whose
    output k is piece k (edges ``(node, k)``)

    Not an ``Op``: an op has one output. Backward gets one gradient per piece (zeros for a piece
    that got none) and puts them back together, ``∂/∂self = cat(g₀, g₁, ...)`` along ``dim``.
    """

    _several = True
    rules = {"∂out/∂self: the pieces' gradients put back together": None}

    @classmethod
    def apply(cls, t: Tensor, dim: int, sizes: tuple[int, ...]) -> tuple[Tensor, ...]:
        arrays = cls.cut(t._array, dim, sizes)
        node = None
        if _State.enabled and t.requires_grad:
            node = cls.__new__(cls)
            node._seq, node.dim, node.sizes = next(creation_order), dim, sizes
            node.next_functions = ((t.grad_fn or t._grad_accumulator(), t._output_nr or 0),)
            node._meta = [(t._array.shape, t._array.dtype)]
            node._outputs = (
                len(arrays),
                tuple(range(len(arrays))),
                {k: (a.shape, a.dtype) for k, a in enumerate(arrays)},
            )
        if t._vc is None:
            t._vc = [0]
        pieces = []
        for k, a in enumerate(arrays):  # views sharing t's memory and version counter, as torch's
            piece = Tensor._make(a, node)
            piece._output_nr, piece._vc, piece._base = k or None, t._vc, t._base if t._base is not None else t
            pieces.append(piece)
        return tuple(pieces)

    @staticmethod
    def cut(a: np.ndarray, dim: int, sizes: tuple[int, ...]) -> list[np.ndarray]:
        return np.split(a, np.cumsum(sizes)[:-1], axis=dim)

    def join(self, grads: list, on_arrays: bool) -> Any:
        if on_arrays:
            return np.concatenate(grads, axis=self.dim)
        return CatBackward0.apply(*grads, dim=self.dim, sizes=[g.shape[self.dim] for g in grads])

    def run_rules(self, grad: Any, needed: set | None, on_arrays: bool) -> tuple[list, list[bool]]:
        fn = self.next_functions[0][0]
        if needed is not None and fn not in needed:
            return [None], [False]
        metas = self._outputs[2]
        zero = np.zeros if on_arrays else lambda *meta: Tensor._make(np.zeros(*meta))  # a piece that got none
        return [self.join([zero(*metas[k]) if g is None else g for k, g in enumerate(grad)], on_arrays)], [on_arrays]


class SplitWithSizesBackward0(SplitBackward0):
    """outs = self cut along ``dim`` into pieces of the given ``sizes`` (views of self)"""


class UnbindBackward0(SplitBackward0):
    """outs = the slices of self along ``dim``, that dimension removed (views of self)"""

    rules = {"∂out/∂self: the slices' gradients stacked again": None}

    @staticmethod
    def cut(a: np.ndarray, dim: int, sizes: tuple[int, ...]) -> list[np.ndarray]:
        return [a[(slice(None),) * dim + (i,)] for i in range(a.shape[dim])]

    def join(self, grads: list, on_arrays: bool) -> Any:
        return np.stack(grads, axis=self.dim) if on_arrays else StackBackward0.apply(*grads, dim=self.dim)


# ================================================================ losses (gradbook.nn.functional)


class MseLossBackward0(Op):
    """out = mean((self - target)²) (or their sum, or each one)"""

    inputs = ("self", "target")
    saves = ("self", "target")

    @staticmethod
    def forward(a: np.ndarray, t: np.ndarray, reduction: str) -> np.ndarray:
        sq = np.square(a - t)
        if a.dtype != t.dtype:  # torch's promotion (NumPy's differs for integer targets)
            sq = sq.astype(promoted(a, t), copy=False)
        return (
            sq
            if reduction == "none"
            else np.add.reduce(sq, axis=None, dtype=sq.dtype)
            if reduction == "sum"
            else _mean(sq, None, False)
        )

    rules = {
        "∂out/∂self = 2(self - target)/N": lambda n, g, self, target: (self - target) * (g * (2 / _mse_count(n))),
        "∂out/∂target = -2(self - target)/N": (lambda n, g, self, target: (self - target) * (g * (-2 / _mse_count(n)))),
    }


class NllLossBackward0(Op):
    """out = -Σ w[target[i]] · self[i, target[i]] / Σ w[target[i]] (self holds log-probabilities;
    the class weights w are 1 unless given)

    ``self`` is (N, C) with N targets, or (C,) with one 0-d target (a single example).
    """

    saves = ("self", "target", "weight")

    @staticmethod
    def forward(a: np.ndarray, target: Tensor, reduction: str, ignore_index: int, weight: Any) -> np.ndarray:
        t = target._array.reshape(-1)  # class indices: a param, not a differentiable input
        keep = t != ignore_index
        w = np.where(keep, 1 if weight is None else weight._array[np.where(keep, t, 0)], 0).astype(a.dtype)
        picked = np.where(keep, -a.reshape(-1, a.shape[-1])[np.arange(t.size), np.where(keep, t, 0)] * w, 0).astype(
            a.dtype
        )
        if reduction == "none":
            return picked if a.ndim == 2 else picked.reshape(())
        if reduction == "sum":
            return np.add.reduce(picked, axis=None)
        total = np.add.reduce(w, axis=None)  # every target ignored: the mean of nothing is nan
        return np.add.reduce(picked, axis=None) / total if total else a.dtype.type(np.nan)

    rules = {
        "∂out/∂self = -1/N at each target, else 0": (
            lambda n, g, self: (_unsqueeze(g, 1) if g.ndim else g) * _constant(_nll_weights(n), g)
        ),
    }


# ================================================================ the helpers the rules are written in
# A rule gets NumPy arrays in a plain backward and Tensors under create_graph=True. Operators
# (+ - * / ** @ > ==), .T, .mT, .reshape, .squeeze and indexing mean the same on both; these
# helpers cover the rest.


def _in_float64(fn: Any, x: np.ndarray) -> np.ndarray:
    """``fn`` computed in float64 and rounded once, as the forward of exp, log, sin and cos is."""
    return fn(x) if x.dtype != np.float32 else fn(x.astype(np.float64)).astype(np.float32)


def _is_tensor(x: Any) -> bool:
    return isinstance(x, Tensor)  # else a NumPy array (or a NumPy scalar, for 0-d results)


def _array(x: Any) -> np.ndarray:
    return x._array if _is_tensor(x) else x


def _constant(array: np.ndarray, like: Any) -> Any:
    """A value backward does not differentiate (a mask, a sign), in the kind of ``like``."""
    return Tensor._make(array) if _is_tensor(like) else array


def _select(g: Any, factor: np.ndarray) -> Any:
    """g · factor where factor is not 0, and exactly 0 elsewhere (a bool mask is a factor of 1 or
    0): chosen, not multiplied, as torch does, so an inf or nan in g stays out of the places masked
    out (inf · 0 would be nan there)."""
    keep = factor if factor.dtype == bool else factor != 0
    if _is_tensor(g):
        return _where(Tensor._make(keep), g if factor.dtype == bool else g * Tensor._make(factor), 0.0)
    return np.where(keep, g if factor.dtype == bool else g * factor, g.dtype.type(0))


def _or(value: Any, default: Any) -> Any:
    return default if value is None else value


def _exp(x: Any) -> Any:
    return x.exp() if _is_tensor(x) else _in_float64(np.exp, x)


def _log(x: Any) -> Any:
    return x.log() if _is_tensor(x) else _in_float64(np.log, x)


def _cos(x: Any) -> Any:
    return x.cos() if _is_tensor(x) else _in_float64(np.cos, x)


def _sin(x: Any) -> Any:
    return x.sin() if _is_tensor(x) else _in_float64(np.sin, x)


def _where(condition: Any, a: Any, b: Any) -> Any:
    """condition ? a : b, where a or b may be a number."""
    if not _is_tensor(condition):
        return np.where(condition, a, b)
    like = b if _is_tensor(b) else a
    a, b = (v if _is_tensor(v) else Tensor._make(np.asarray(v, dtype=like._array.dtype)) for v in (a, b))
    return WhereBackward0.apply(a, b, condition=condition._array)


def _sum(x: Any, dim: int) -> Any:
    """Σ along ``dim``, keeping it as size 1."""
    if _is_tensor(x):
        return x.sum(dim, keepdim=True)
    return np.add.reduce(x, axis=dim if x.ndim else None, keepdims=True)


def _unsqueeze(x: Any, dim: int) -> Any:
    return x.unsqueeze(dim) if _is_tensor(x) else np.expand_dims(x, dim)


def _expand(x: Any, shape: tuple) -> Any:
    return x.expand(shape) if _is_tensor(x) else np.broadcast_to(x, shape)


def _swapaxes(x: Any, dim0: int, dim1: int) -> Any:
    return x.transpose(dim0, dim1) if _is_tensor(x) else np.swapaxes(x, dim0, dim1)


def _permute(x: Any, dims: tuple) -> Any:
    return x.permute(dims) if _is_tensor(x) else np.transpose(x, dims)


def _along(index: np.ndarray, dim: int) -> tuple:
    """gather's positions as a NumPy index: ``index`` along dim, each element's own place elsewhere."""
    return tuple(
        index if d == dim else np.arange(n).reshape([-1 if k == d else 1 for k in range(index.ndim)])
        for d, n in enumerate(index.shape)
    )


def _region(index: np.ndarray) -> tuple:
    """The part of src that scatter reads: index's shape, from the start."""
    return tuple(slice(0, n) for n in index.shape)


def _put_along(a: np.ndarray, dim: int, index: np.ndarray, values: Any) -> np.ndarray:
    out = a.copy()
    out[_along(index, dim)] = values
    return out


def _add_along(a: np.ndarray, dim: int, index: np.ndarray, values: Any) -> np.ndarray:
    out = a.copy()
    np.add.at(out, _along(index, dim), values)
    return out


def _src_grad(n: Op, g: Any) -> Any:
    """scatter's ∂/∂src: g gathered at index. It has index's shape, so torch refuses it where src
    is larger than index; gradbook refuses it with torch's message."""
    src_shape = n._meta[1][0]
    if tuple(n.index.shape) != tuple(src_shape):
        raise RuntimeError(
            f"Function {type(n).__name__} returned an invalid gradient at index 1 - got {list(n.index.shape)} "
            f"but expected shape compatible with {list(src_shape)}"
        )
    return g[_along(n.index, n.dim)]


def _unwritten(n: Op) -> np.ndarray:
    """1 where scatter kept self's value, 0 where it wrote."""
    mask = np.ones(*n._meta[0])
    mask[_along(n.index, n.dim)] = 0
    return mask


def _scatter(g: Any, shape: tuple, index: Any) -> Any:
    """Zeros of ``shape`` with g added at ``index``: the adjoint of indexing."""
    if _is_tensor(g):
        zeros = Tensor._make(np.zeros(shape, dtype=g._array.dtype))
        return IndexPutBackward0.apply(zeros, g, indices=index, accumulate=True)
    out = np.zeros(shape, dtype=g.dtype)
    np.add.at(out, index, g)
    return out


def _diagonal_index(shape: tuple, offset: int, dim1: int, dim2: int) -> tuple:
    """Where each element of ``np.diagonal(a, offset, dim1, dim2)`` sits in ``a`` (of ``shape``)."""
    others = [d for d in range(len(shape)) if d not in (dim1, dim2)]
    length = max(0, min(shape[dim1] - max(-offset, 0), shape[dim2] - max(offset, 0)))
    grid = np.indices([shape[d] for d in others] + [length])
    index = [None] * len(shape)
    for k, d in enumerate(others):
        index[d] = grid[k]
    index[dim1], index[dim2] = grid[-1] + max(-offset, 0), grid[-1] + max(offset, 0)
    return tuple(index)


def _mean(a: np.ndarray, dim: Any, keepdim: bool) -> np.ndarray:
    """np.mean in the input's dtype, without NumPy's Python-level wrapper (the same arithmetic)."""
    count = a.size if dim is None else math.prod(a.shape[d] for d in dim)
    total = np.add.reduce(a, axis=dim, keepdims=keepdim)
    if count == 0:
        return np.full_like(total, np.nan)  # the mean of nothing, silently as in torch
    return total / a.dtype.type(count)


def _zeros(g: Any) -> Any:
    """The gradient of a step function: zeros (not g · 0, which would keep g's infs as nans)."""
    return _constant(np.zeros_like(_array(g)), g)


def _reverse_cumsum(g: Any, dim: int) -> Any:
    """Σ_{i ≥ j} gᵢ along dim: the adjoint of cumsum."""
    if _is_tensor(g):
        return _sum(g, dim) - g.cumsum(dim) + g  # cumsum records again, so it can be differentiated
    return np.flip(np.cumsum(np.flip(g, dim), axis=dim), dim)


def _prod_others(x: Any, dim: int, result: Any) -> Any:
    """At each element, the product of the other elements along dim (exact where x has zeros)."""
    if not np.any(_array(x) == 0):
        return result / x
    if _is_tensor(x):  # for each element, its row of elements along dim with a 1 in its own place
        k = x._array.shape[dim]
        eye = np.eye(k, dtype=bool).reshape((k, k) + (1,) * (x.ndim - dim - 1))
        rows = _unsqueeze(x, dim).expand(x.shape[:dim] + (k,) + x.shape[dim:])
        return _where(_constant(eye, x), 1.0, rows).prod(dim + 1)
    ones = np.ones_like(np.take(x, [0], axis=dim))
    before = np.cumprod(np.concatenate([ones, np.take(x, range(x.shape[dim] - 1), axis=dim)], axis=dim), axis=dim)
    flipped = np.flip(x, dim)
    after = np.cumprod(np.concatenate([ones, np.take(flipped, range(x.shape[dim] - 1), axis=dim)], axis=dim), axis=dim)
    return before * np.flip(after, dim)


def _var(a: np.ndarray, dim: Any, correction: float, keepdim: bool) -> np.ndarray:
    """Σ (a - mean)² / max(N - correction, 0), as torch (nan or inf when N ≤ correction), computed
    in float64 and rounded once to a's dtype."""
    x = a.astype(np.float64)
    count = a.size if dim is None else math.prod(a.shape[d] for d in dim)
    mean = np.add.reduce(x, axis=dim, keepdims=True) / max(count, 1)
    total = np.add.reduce(np.square(x - mean), axis=dim, keepdims=keepdim)
    return (total / max(count - correction, 0)).astype(a.dtype)


def _dof(n: Op) -> float:
    """N - correction, for var and std."""
    shape = n._meta[0][0]
    return (math.prod(shape) if n.dim is None else math.prod(shape[d] for d in n.dim)) - n.correction


def _mean_of(x: Any, n: Op) -> Any:
    """The mean var and std subtract, shaped to broadcast against x."""
    if n.dim is None:
        return x.mean() if _is_tensor(x) else np.add.reduce(x, axis=None) / x.dtype.type(max(x.size, 1))
    return x.mean(n.dim, keepdim=True) if _is_tensor(x) else _mean(x, n.dim, True)


def _unreduce(g: Any, n: Op) -> Any:
    """Put back the dimensions a reduction without keepdim removed, as size 1."""
    if n.keepdim:
        return g
    shape = list(n._meta[0][0])
    for d in range(len(shape)) if n.dim is None else n.dim:
        shape[d] = 1
    return g.reshape(shape)


def _norm_grad(x: Any, norm: Any, n: Op) -> Any:
    """∂‖x‖ₚ/∂x (norm shaped to broadcast against x), with torch's 0 where the norm is 0."""
    p = n.ord
    if p == 2:
        return _where(_constant(_array(norm) == 0, x), 0.0, x / norm)
    sign = _constant(np.sign(_array(x)), x)
    if p == 1:
        return sign
    if p == math.inf:  # shared among the elements at the maximum, as torch
        at_max = (np.abs(_array(x)) == _array(norm)).astype(_array(x).dtype)
        dims = None if n.dim is None else n.dim
        return sign * _constant(at_max / np.add.reduce(at_max, axis=dims, keepdims=True), x)
    return _where(_constant(_array(norm) == 0, x), 0.0, x * abs(x) ** (p - 2) / norm ** (p - 1))


def _share(x: Any, out: Any, n: Op) -> np.ndarray:
    """1/k at each of the k elements equal to the result (the nans, if it is nan), as torch."""
    x, out = _array(x), _array(out)
    mask = np.isnan(x) if np.isnan(out) else x == out
    return (mask / np.add.reduce(mask, axis=None)).astype(n._meta[0][1])


def _picked(mine: Any, theirs: Any, n: Op) -> np.ndarray:
    """For maximum (minimum with the arguments swapped): ½ on ties, 0 where this input lost, else 1
    (torch's formula, so a nan on either side passes the gradient to both)."""
    a, b = _array(mine), _array(theirs)
    return np.where(a == b, 0.5, np.where(a < b, 0.0, 1.0)).astype(n._meta[0][1])


def _one_hot(n: Op) -> np.ndarray:
    shape = n._meta[0][0]
    positions = np.arange(shape[n.dim]).reshape([-1 if d == n.dim else 1 for d in range(len(shape))])
    return (positions == np.expand_dims(n.indices, n.dim)).astype(n._meta[0][1])


def _mse_count(n: Op) -> int:
    if n.reduction != "mean":
        return 1
    a, b = n._meta[0][0], n._meta[1][0]
    return math.prod(a if a == b else np.broadcast_shapes(a, b))


def _nll_weights(n: Op) -> np.ndarray:
    """∂out/∂self for a seed of 1: -w[target] at each kept target (divided by their total weight
    for the mean)."""
    shape, dtype = n._meta[0]
    t = n.target._array.reshape(-1)
    keep = t != n.ignore_index
    weight = np.ones(shape[-1], dtype=dtype) if n.weight is None else n.weight._array.astype(dtype)
    w = np.zeros((t.size, shape[-1]), dtype=dtype)
    w[np.arange(t.size)[keep], t[keep]] = -weight[t[keep]]
    total = np.add.reduce(weight[t[keep]], axis=None) if n.reduction == "mean" else 1
    return w.reshape(shape) / (total if total else 1)


def _unary(x: Any, method: str, fn: Any, *args: Any) -> Any:
    """``x.method(*args)`` on a Tensor (recorded), ``fn(x, *args)`` on an array."""
    return getattr(x, method)(*args) if _is_tensor(x) else fn(x, *args)


def _logsumexp(a: np.ndarray, dim: tuple, keepdim: bool) -> np.ndarray:
    top = np.max(a, axis=dim, keepdims=True)
    top = np.where(np.isfinite(top), top, 0)  # all -inf (or an inf): no shift
    out = np.log(np.sum(np.exp(a - top), axis=dim, keepdims=True)) + top
    return out if keepdim else np.squeeze(out, axis=dim)


def _ties(x: Any, out: Any, n: Op) -> np.ndarray:
    """1/k at each of the k elements equal to the reduced value (amax, amin), per reduction."""
    mask = _array(x) == _array(out)
    return (mask / np.sum(mask, axis=n.dim, keepdims=True)).astype(n._meta[0][1])


def _cumprod_grad(g: Any, x: Any, result: Any, dim: int) -> Any:
    """cumprod's adjoint: Σ_{i ≥ j} gᵢ outᵢ / xⱼ. Where x has zeros it cannot divide: for each j,
    the running products of x with xⱼ set to 1 (axis dim + 1 runs over i), kept for i ≥ j."""
    if not np.any(_array(x) == 0):
        return _reverse_cumsum(g * result, dim) / x
    shape = _array(x).shape
    k, tail = shape[dim], (1,) * (len(shape) - dim - 1)
    wide_shape = shape[:dim] + (k,) + shape[dim:]  # [..., j, i, ...]
    place = np.broadcast_to(np.eye(k, dtype=bool).reshape((k, k) + tail), wide_shape)
    later = np.broadcast_to(np.triu(np.ones((k, k), dtype=bool)).reshape((k, k) + tail), wide_shape)
    others = _where(_constant(place, x), 1.0, _expand(_unsqueeze(x, dim), wide_shape))
    running = others.cumprod(dim + 1) if _is_tensor(others) else np.cumprod(others, axis=dim + 1)
    return _sum(_unsqueeze(g, dim) * running * _constant(later, g), dim + 1).reshape(shape)


def _unsort(g: Any, n: Op) -> Any:
    """Each gradient back to the place ``n.indices`` says its value came from (0 elsewhere)."""
    shape, dtype = n._meta[0]
    if n.indices is None:  # a 0-d tensor sorted
        return g
    if _is_tensor(g):
        return Tensor._make(np.zeros(shape, dtype)).scatter(n.dim, Tensor._make(n.indices), g)
    out = np.zeros(shape, dtype)
    np.put_along_axis(out, n.indices, g, n.dim)
    return out


def _roll(g: Any, shifts: tuple, dims: tuple) -> Any:
    return g.roll(shifts, dims) if _is_tensor(g) else np.roll(g, shifts, dims or None)


def _untile(g: Any, n: Op) -> Any:
    """The sum over the copies np.tile made: g as (copies, size) pairs, summed over the copies."""
    shape = n._meta[0][0]
    reps = tuple(n.repeats)
    shape = (1,) * (len(reps) - len(shape)) + tuple(shape)
    reps = (1,) * (len(shape) - len(reps)) + reps
    paired = g.reshape(tuple(v for r, s in zip(reps, shape) for v in (r, s)))
    summed = _sum(paired, tuple(range(0, 2 * len(shape), 2)))
    return summed.reshape(n._meta[0][0])
