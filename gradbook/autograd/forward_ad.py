"""gradbook.autograd.forward_ad: forward-mode AD with dual tensors, as ``torch.autograd.forward_ad``.

>>> import gradbook as torch
>>> import gradbook.autograd.forward_ad as fwAD
>>> x = torch.tensor([1.0, 2.0, 3.0])
>>> with fwAD.dual_level():
...     d = fwAD.make_dual(x, torch.tensor([1.0, 0.0, 0.0]))  # x, and a direction v
...     y = (d * d.sin()).sum()
...     fwAD.unpack_dual(y).tangent                           # ∂y/∂x₀ = sin 1 + cos 1
tensor(1.3818)

Inside ``dual_level()`` a tensor may carry a *tangent* ``v`` (``make_dual``), and every op carries
its inputs' tangents to its output: the output's tangent is ``J·v = Σᵢ ∂out/∂inputᵢ · vᵢ``, the
derivative of the output in the direction ``v``, computed along with the value, with no backward
pass (one column of the Jacobian per pass, where backward gives one row).

torch writes a forward formula for each op (``derivatives.yaml``'s ``result:`` lines). gradbook
derives it from the op's one backward rule, so that each op's calculus stays in one place: the
rule computes ``u ↦ Jᵀu``, which is linear in ``u``, so ``J·v = ∂/∂u ⟨Jᵀu, v⟩``, one backward of the
op recorded and one backward of that (the double-backward trick). The values are the same as
torch's formulas give; it costs more per op.

While a level is open, this module puts its own versions in the few places where a tensor is made
from tensors (``Op.apply``, a split's pieces, a custom Function, an in-place change, ``t[i] = v``) and
in ``repr`` (``tangent=...``); leaving the level puts the originals back, so a program that never
opens one runs exactly the code it ran before, at the same speed.
"""

from __future__ import annotations

import contextlib
import weakref
from collections.abc import Callable, Iterator
from typing import Any, NamedTuple

from .. import _arguments
from .._printing import format_tensor
from ..ops import shape
from ..ops.op import Op
from ..ops.rules import zeros_like
from ..tensor import Tensor
from . import function, inplace
from .engine import grad
from .grad_mode import _State, enable_grad

__all__ = ["UnpackedDualTensor", "dual_level", "enter_dual_level", "exit_dual_level", "make_dual", "unpack_dual"]

NO_LEVEL = "Trying to create a dual Tensor for forward AD but no level exists, make sure to enter_dual_level() first."
INVALID_LEVEL = (
    "Trying to access a forward AD level with an invalid index. This index was either not created or is already "
    "deleted."
)
NO_CUSTOM_JVP = "You must implement the jvp function for custom autograd.Function to use it with forward mode AD."
SHARED_MEMORY = (
    "gradbook: an in-place change inside forward_ad.dual_level() of a piece of split, chunk or unbind, or of a "
    "tensor such a piece shares memory with: gradbook cannot tell which part of the tangents it is. Change a "
    "clone instead."
)

_level: int | None = None  # the open level (torch has one: 0), None outside
_paused = False  # True while this module computes a tangent: its own ops carry none
_transforms = False  # True inside func.jvp/jacfwd, which inference_mode leaves on (as torch.func's own levels)
_tangents: dict[int, tuple[weakref.ref, Tensor]] = {}  # id(tensor) → (the tensor, weakly; its tangent)
_duals: weakref.WeakValueDictionary = weakref.WeakValueDictionary()  # id → a tensor make_dual made
_originals: list[tuple[Any, str, Any]] = []  # (owner, name, original) of what an open level replaced


class UnpackedDualTensor(NamedTuple):
    """What ``unpack_dual`` returns: the primal (a view of the tensor) and its tangent (None if it has none)."""

    primal: Tensor
    tangent: Tensor | None


def tangent_of(t: Any) -> Tensor | None:
    """t's tangent at the open level (None: it has none, or no level is open)."""
    entry = _tangents.get(id(t))
    return entry[1] if entry is not None and entry[0]() is t else None


def _set_tangent(t: Tensor, tangent: Tensor | None) -> None:
    key = id(t)
    if tangent is None:
        _tangents.pop(key, None)
    else:
        _tangents[key] = (weakref.ref(t, lambda ref: _forget(key, ref)), tangent)


def _forget(key: int, ref: weakref.ref) -> None:
    if key in _tangents and _tangents[key][0] is ref:
        del _tangents[key]


def enter_dual_level() -> int:
    """Open the level that dual tensors live in, and return it (0; torch has one level)."""
    global _level
    if _level is not None:
        raise RuntimeError("Nested forward mode AD is not supported at the moment")
    _level, _State.dual = 0, True
    for owner, name, carrying in _CARRIERS():
        _originals.append((owner, name, owner.__dict__[name]))
        setattr(owner, name, carrying)
    return _level


def exit_dual_level(*, level: int | None = None) -> None:
    """Close the level: every tangent is forgotten, and ops carry none again."""
    global _level, _transforms
    if _level is None:
        raise RuntimeError("Dual level must be a positive number.")
    if level is not None and level != _level:
        raise RuntimeError(
            "Trying to exit a forward AD level that was not the last one that was created. This is not supported."
        )
    while _originals:
        owner, name, original = _originals.pop()
        setattr(owner, name, original)
    _tangents.clear()
    _duals.clear()
    _level, _State.dual, _transforms = None, False, False


class dual_level(contextlib.ContextDecorator):
    """``with dual_level():`` (or as a decorator): dual tensors can be made and unpacked inside."""

    def __enter__(self) -> int:
        return enter_dual_level()

    def __exit__(self, *exc: Any) -> None:
        exit_dual_level()


def make_dual(tensor: Tensor, tangent: Tensor, *, level: int | None = None) -> Tensor:
    """A view of ``tensor`` whose tangent is ``tangent`` (the direction to differentiate in)."""
    if _level is None:
        raise RuntimeError(NO_LEVEL if level is None else INVALID_LEVEL)
    if level is not None and level != _level:
        raise RuntimeError("Invalid level given to _make_dual")
    for what, t in (("primal", tensor), ("tangent", tangent)):
        if not t.is_floating_point():
            raise ValueError(f"Expected {what} to be floating point or complex, but got: {t.dtype}")
    if tangent.shape != tensor.shape:
        raise RuntimeError(
            "Trying to set a forward gradient that has a different size than that of the original Tensor, this is "
            f"not supported. Tensor is of size {list(tensor.shape)} while the given forward gradient is of size "
            f"{list(tangent.shape)}."
        )
    if tangent_of(tangent) is not None:
        raise RuntimeError(
            f"Setting a forward grad that itself has a forward gradient at the same level{_level} is not supported."
        )
    if tangent_of(tensor) is not None:
        raise RuntimeError(
            f"Making a dual Tensor based on a Tensor that already has a forward gradient at the same level {_level} "
            "is not supported."
        )
    dual = tensor.view_as(tensor)  # a view of the primal, as torch's (ViewBackward0 when it requires grad)
    if _State.inference and not _transforms:
        return dual  # no tangent inside inference_mode, as in torch
    _set_tangent(dual, tangent)
    _duals[id(dual)] = dual
    return dual


def unpack_dual(tensor: Tensor, *, level: int | None = None) -> UnpackedDualTensor:
    """The primal (a view of ``tensor``, without the tangent) and the tangent (None if it has none)."""
    if not isinstance(tensor, Tensor):
        raise TypeError(f"_unpack_dual(): argument 'dual' (position 1) must be Tensor, not {type(tensor).__name__}")
    if _level is None:
        return UnpackedDualTensor(tensor, None)
    if level is not None and level != _level:
        raise RuntimeError("Invalid level given to _unpack_dual")
    with _pause():
        primal = shape.Identity.apply(tensor)
    return UnpackedDualTensor(primal, tangent_of(tensor))


@contextlib.contextmanager
def _pause() -> Iterator[None]:
    """The ops run inside carry no tangents (this module's own computations)."""
    global _paused
    was, _paused = _paused, True
    try:
        yield
    finally:
        _paused = was


def _linearize(f: Callable[..., Any], args: tuple, tangents: list, out: Any) -> None:
    """Give each float output of ``f(*args)`` (already computed: ``out``) its tangent ``J·v``.

    ``f`` runs again on inputs that require grad, recorded; its backward with an upstream gradient
    ``u`` that requires grad gives ``Jᵀu`` as a graph, and the gradient of ``⟨Jᵀu, v⟩`` by ``u`` is
    ``J·v``. The result is differentiable (a graph) when the inputs or tangents require grad."""
    outs = out if isinstance(out, tuple) else (out,)
    kept = [k for k, o in enumerate(outs) if isinstance(o, Tensor) and o.is_floating_point()]
    if not kept:
        return  # integer or bool results carry no tangent (x > 0, x.argmax())
    record = _State.enabled and any(
        isinstance(a, Tensor) and (a.requires_grad or (v is not None and v.requires_grad))
        for a, v in zip(args, tangents)
    )
    with _pause(), enable_grad():
        # each input with a tangent once (x * x: one input, one tangent), through a new node: the gradient
        # by it is the partial derivative (y * f(y): not also through f), still recorded on the input's graph
        lifted: dict[int, Tensor] = {}
        ins = [
            a
            if v is None
            else lifted.setdefault(id(a), a.view_as(a) if a.requires_grad else a.detach().requires_grad_())
            for a, v in zip(args, tangents)
        ]
        wrt = list({id(a): (a, v) for a, v in zip(ins, tangents) if v is not None}.values())
        again = f(*ins)
        again = again if isinstance(again, tuple) else (again,)
        ys = [again[k] for k in kept if again[k].requires_grad]
        us = [zeros_like(y).requires_grad_() for y in ys]  # any value: Jᵀu is linear in u
        jtu = grad(ys, [a for a, _ in wrt], us, create_graph=True, allow_unused=True) if ys else ()
        terms = [(g * v).sum() for g, (_, v) in zip(jtu, wrt) if g is not None and g.requires_grad]
        jv = iter(grad(sum(terms), us, create_graph=record, allow_unused=True) if terms else [None] * len(us))
        for k in kept:
            j = next(jv) if again[k].requires_grad else None
            _set_tangent(outs[k], j if j is not None else zeros_like(outs[k]))


def _apply_carrying(original: Any) -> classmethod:
    """An ``apply`` (Op's, or a split's) that also gives its result(s) their tangents."""
    plain = original.__func__

    def apply(cls: Any, *args: Any, **params: Any) -> Any:
        out = plain(cls, *args, **params)
        if not _paused and (not _State.inference or _transforms):  # inference_mode turns forward_ad off
            tangents = [tangent_of(a) if isinstance(a, Tensor) else None for a in args]
            if any(v is not None for v in tangents):
                _linearize(lambda *ts: plain(cls, *ts, **params), args, tangents, out)
                node = out.grad_fn if isinstance(out, Tensor) else None
                if node is not None and "_result" in node.__dict__:  # its saved output is out, tangent too
                    _set_tangent(node, tangent_of(out))
        return out

    return classmethod(apply)


def _custom_carrying(original: Callable) -> Callable:
    def apply_custom(cls: Any, args: tuple, kwargs: dict) -> Any:
        if not _paused and any(tangent_of(a) is not None for a in (*args, *kwargs.values())):
            if "jvp" not in vars(cls):
                raise NotImplementedError(NO_CUSTOM_JVP)
            raise NotImplementedError("gradbook: a custom Function's own jvp is not supported; write it with ops")
        return original(cls, args, kwargs)

    return apply_custom


def _members(t: Tensor) -> list[Tensor]:
    """Every live tensor sharing t's memory: its base and the base's views."""
    base = t._base if t._base is not None else t
    vc = t._version_counter
    views = [ref() for ref in (vc[1] if vc is not None and len(vc) > 1 else ())]
    return [base, *(w for w in views if w is not None and w is not base)]


def _root(t: Tensor, members: list[Tensor]) -> tuple[Tensor, tuple | None]:
    """Whose tangent t's is a part of, and the view ops from there (None: not known, a piece of split).
    A tensor made by ``make_dual`` is a root of its own (its primal keeps no tangent, as in torch); else the
    nearest such tensor t is a view of, or t's base."""
    if id(t) in _duals or t._base is None:
        return t, ()
    if t._views is None:
        return t._base, None
    best = None
    for w in members:
        if id(w) in _duals and w._views is not None and len(w._views) <= len(t._views):
            if all(x is y for x, y in zip(w._views, t._views)) and (best is None or len(w._views) > len(best._views)):
                best = w
    return (best, t._views[len(best._views) :]) if best is not None else (t._base, t._views)


def _group(t: Tensor) -> tuple[Tensor, tuple | None, list[tuple[Tensor, tuple | None]]]:
    """t's root, t's view ops from it, and the other tensors whose tangent is part of the root's."""
    members = _members(t)
    root, ops = _root(t, members)
    others = [(w, r[1]) for w in members if w is not t and w is not root for r in [_root(w, members)] if r[0] is root]
    return root, ops, others


def _involved(t: Tensor, other: Any) -> bool:
    """Whether an in-place change of t (by other) changes a tangent: t's, other's, or one sharing t's."""
    if tangent_of(t) is not None or tangent_of(other) is not None:
        return True
    root, _, others = _group(t)
    return tangent_of(root) is not None or any(tangent_of(w) is not None for w, _ in others)


def _refresh(t: Tensor) -> None:
    """A view that has no tangent of its own sees its part of its root's (taken before the root had one)."""
    root, ops = _group(t)[:2]
    if root is not t and ops is not None and tangent_of(t) is None and tangent_of(root) is not None:
        with _pause():
            _set_tangent(t, inplace.view_region(tangent_of(root), ops))


def _spread(t: Tensor, tangent: Tensor | None) -> None:
    """t changed in place and its tangent is now ``tangent``; as in torch, where a view's tangent is a view of
    its base's, the root's tangent takes ``tangent`` in the part t sees, and every view of the root sees its
    own part of that. (A piece of split or unbind, whose place in its base is not kept, refuses.)"""
    root, ops, others = _group(t)
    if root is t and not others:
        _set_tangent(t, tangent)
        return
    if ops is None or any(w_ops is None for _, w_ops in others):
        raise NotImplementedError(SHARED_MEMORY)
    with _pause():
        if root is t:
            whole = tangent if tangent is not None else zeros_like(t)
        else:
            whole = tangent_of(root)
            whole = whole.clone() if whole is not None else zeros_like(root)
            inplace.view_region(whole, ops)[...] = tangent if tangent is not None else 0.0
        _set_tangent(root, whole)
        for w, w_ops in [(t, ops), *others]:
            if w is not root:
                _set_tangent(w, inplace.view_region(whole, w_ops))


def _update_carrying(original: Callable) -> Callable:
    def update(t: Tensor, op: Any, other: Any, ufunc: Any = None) -> Tensor:
        if _paused or not _involved(t, other):
            return original(t, op, other, ufunc)
        if t._base is not None:  # torch's own refusals first
            inplace.check_inplace(t, isinstance(other, Tensor) and other.requires_grad)
        _refresh(t)
        new = op(t, other)  # the new value, with its tangent (from t's value before the change)
        with _pause():
            original(t, op, other, ufunc)
        _spread(t, tangent_of(new) if t.is_floating_point() else None)
        return t

    return update


def _setitem_carrying(original: Callable) -> Callable:
    def setitem(t: Tensor, index: Any, value: Any) -> None:
        if _paused or not _involved(t, value):
            return original(t, index, value)
        _refresh(t)
        before, given = tangent_of(t), tangent_of(value)
        with _pause():
            original(t, index, value)
            if not t.is_floating_point():
                return
            new = before.clone() if before is not None else zeros_like(t)
            original(new, index, given if given is not None else 0.0)  # t's tangent there: value's
        _spread(t, new)

    return setitem


def _repr_carrying(original: Callable) -> Callable:
    def repr_with_tangent(self: Tensor) -> str:
        tangent = tangent_of(self)
        if tangent is None or _paused:
            return original(self)
        extra = [f"grad_fn=<{type(self.grad_fn).__name__}>"] if self.grad_fn is not None else []
        if not extra and self.requires_grad:
            extra = ["requires_grad=True"]
        return format_tensor(self._array, self._array.dtype, [*extra, f"tangent={tangent}"])

    return repr_with_tangent


def _result_carrying(original: property) -> property:
    """``node.result`` (the saved output, for a backward that records: forward over reverse) with its tangent."""

    def result(node: Any) -> Tensor:
        t = original.fget(node)
        _set_tangent(t, tangent_of(node))
        return t

    return property(result)


def _CARRIERS() -> list[tuple[Any, str, Any]]:  # noqa: N802 (what an open level replaces)
    return [
        (Op, "apply", _apply_carrying(Op.__dict__["apply"])),
        (Op, "result", _result_carrying(Op.__dict__["result"])),
        (shape.SplitBackward0, "apply", _apply_carrying(shape.SplitBackward0.__dict__["apply"])),
        (function, "apply_custom", _custom_carrying(function.apply_custom)),
        (inplace, "update", _update_carrying(inplace.update)),
        (_arguments, "setitem", _setitem_carrying(_arguments.setitem)),
        (_arguments.indexing, "setitem", _setitem_carrying(_arguments.indexing.setitem)),
        (Tensor, "__repr__", _repr_carrying(Tensor.__repr__)),
    ]
