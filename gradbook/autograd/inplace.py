"""In-place changes and views, as torch records them: a view shares its base's memory and version
counter, and a write through a view is recorded on its base (CopySlices). A changed tensor's version
counter moves on, so that a node that saved it refuses its backward, as in torch."""

from __future__ import annotations

from typing import Any

import numpy as np

from .._dtypes import rank, restore_numpy, scalar_name, silence_numpy
from .._messages import (
    INFERENCE_INPLACE_ERROR,
    LEAF_INPLACE_ERROR,
    OVERLAP_ERROR,
    VIEW_OF_LEAF_INPLACE_ERROR,
)
from ..ops.op import Op
from ..ops.rules import dtype_of, select, shape_of
from ..tensor import Tensor
from .grad_mode import InferenceVersion, _State, no_grad


def view_region(x: Any, views: tuple) -> Any:
    """The part of ``x`` (shaped as a view's base) that the view ``views`` sees: a NumPy view of
    an array, or, for a Tensor, the same view ops recorded."""
    for cls, params in views:
        x = cls.forward(x, **params) if isinstance(x, np.ndarray) else cls.apply(x, **params)
    return x


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
        "∂out/∂self = 1 outside the view, 0 inside": lambda n, g: select(g, _outside(n)),
        "∂out/∂src = 1 inside the view": lambda n, g: view_region(g, n.views),
    }

    def name(self) -> str:
        return "torch::autograd::CopySlices"


def _outside(n: Op) -> np.ndarray:
    mask = np.ones(shape_of(n), dtype_of(n))
    view_region(mask, n.views)[...] = 0
    return mask


def check_inplace(t: Tensor, other_requires: bool) -> None:
    """torch's refusals of an in-place change, before anything changes."""
    base = t._base
    if type(t._version_counter) is InferenceVersion and not _State.inference:
        raise RuntimeError(INFERENCE_INPLACE_ERROR)
    if t.grad_fn is not None and t.grad_fn._several_outputs and base is not None and _State.enabled:  # split's pieces
        raise RuntimeError(
            f"Output {t.output_nr} of {t.grad_fn.name().removesuffix('Backward0')} is a view and is being modified "
            "inplace. This view is the output of a function that returns multiple views. Such functions do not "
            "allow the output views to be modified inplace. You should replace the inplace operation by an "
            "out-of-place one."
        )
    if base is not None and _State.enabled and base.grad_fn is None and base.requires_grad:
        raise RuntimeError(VIEW_OF_LEAF_INPLACE_ERROR)
    if not t._array.flags.writeable:  # an expanded tensor: several elements share one place
        raise RuntimeError(OVERLAP_ERROR)


def update(t: Tensor, op: Any, other: Any, ufunc: Any = None) -> Tensor:
    """Run ``op(t, other)`` and write the result into t's memory (``add_``, ``-=``, ``zero_`` ...).

    Under ``no_grad`` this is a plain update, the way an optimizer changes weights. Otherwise a
    leaf that requires grad refuses, as in torch; any other tensor takes the op's grad_fn.
    """
    # an integer or bool tensor never requires grad: a float written into it records nothing
    other_requires = isinstance(other, Tensor) and other.requires_grad and t._array.dtype.kind == "f"
    if t._base is not None or type(t._version_counter) is InferenceVersion:  # a view (an expanded tensor is one too)
        check_inplace(t, other_requires)
    if ufunc is not None and not (_State.enabled and (t.requires_grad or other_requires)):
        try:  # the optimizer's path: one NumPy call writing into t's memory
            quiet = silence_numpy()
            try:
                ufunc(t._array, other._array if isinstance(other, Tensor) else other, out=t._array, casting="same_kind")
            finally:
                restore_numpy(quiet)
            if t._version_counter is None:  # t._version += 1, without the property: the optimizer's path
                t._version_counter = [1]
            else:
                t._version_counter[0] += 1
            return t
        except (ValueError, TypeError):
            pass  # the general path below gives torch's message
    saved_output = None  # the recorded node, if it saved its output (relu_, sigmoid_): that is t from now on
    if _State.enabled and (t.requires_grad or other_requires):
        if t.grad_fn is None and t.requires_grad:
            raise RuntimeError(LEAF_INPLACE_ERROR)
        before = old_value(t)
        out = op(before, other)
        if t._base is not None:  # a view: the change is recorded on its base
            check_write(t, out)
            write_through(t, out)
        else:
            write(t, out)
            take_node(t, out.grad_fn)
            refresh_views(t)
            if isinstance(out.grad_fn.__dict__.get("_result"), np.ndarray):
                saved_output = out.grad_fn
    else:
        with no_grad():
            write(t, op(t, other))
    t._version += 1
    if saved_output is not None:
        keep_result(t, saved_output)
    return t


def keep_result(t: Tensor, node: Any) -> None:
    """A node that saved its output, now written into ``t`` (``relu_``, ``sigmoid_``): as in torch it reads ``t``
    itself, so a later in-place change of ``t`` (``.data`` too) is what it reads, and refuses its backward."""
    node._result, node._result_version, node._result_saved_at = t._array, t._version_counter, t._version


def old_value(t: Tensor) -> Tensor:
    """A copy of t's value before an in-place change, in t's place in the graph (what the op reads)."""
    before = Tensor._make(t._array.copy(), t.grad_fn)
    before.requires_grad, before._output_nr = t.requires_grad, t._output_nr
    return before


def write_through(region: Tensor, src: Tensor) -> None:
    """Write ``src`` into the part of a base tensor that the view ``region`` sees, recorded as torch
    does: the base's grad_fn becomes CopySlices (its old value, with src in that part), and its
    views are views of the new base again."""
    base = region._base
    before = old_value(base)
    out = CopySlices.apply(before, src, views=region._views)
    base._array[...] = out._array
    take_node(base, out.grad_fn)
    refresh_views(base)


def refresh_views(t: Tensor) -> None:
    """After a recorded in-place change of t's memory, every live view of it gets its grad_fn made
    again from its base's new one, as torch does for a view whose version moved on (the changed
    view, its siblings, views of the base)."""
    for ref in t._version_counter[1] if t._version_counter is not None and len(t._version_counter) > 1 else ():
        view = ref()
        if view is not None and view._views:
            again = view_region(view._base, view._views)
            take_node(view, again.grad_fn, view._output_nr, again.requires_grad)


def watch(result: Tensor, *tensors: Any) -> Tensor:
    """``result``'s node also keeps these tensors (an index, a mask, the indices it returned): a change to
    one of them in place refuses its backward with torch's version error, as for a saved input."""
    node = result.grad_fn
    if node is not None and not node._several_outputs:
        versions = node.__dict__.get("_versions") or []
        node.__dict__["_versions"] = versions + [(t, t._version) for t in tensors if isinstance(t, Tensor)]
    return result


def take_node(t: Tensor, node: Any, output_nr: int | None = None, requires_grad: bool = True) -> None:
    """After an in-place change, ``t``'s new grad_fn; a ``retain_grad()`` on ``t`` moves with it, as in
    torch (its ``.grad`` is then the gradient of the new value)."""
    old = t._hook_place() if t.grad_fn is not None else None
    t.grad_fn, t.requires_grad, t._output_nr = node, requires_grad, output_nr
    if old is not None and old._retains is not None and old._retains() is t:
        old._retains = None
        t.retain_grad()


def check_write(t: Tensor, out: Tensor) -> None:
    if out._array.shape != t._array.shape:
        raise RuntimeError(
            f"output with shape {list(t._array.shape)} doesn't match the broadcast shape {list(out._array.shape)}"
        )
    if rank(out._array.dtype) > rank(t._array.dtype):
        raise RuntimeError(
            f"result type {scalar_name(out._array.dtype)} can't be cast to the desired output type "
            f"{scalar_name(t._array.dtype)}"
        )


def write(t: Tensor, out: Tensor) -> None:
    check_write(t, out)
    t._array[...] = out._array
