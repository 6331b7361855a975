"""What a node saved, as torch shows it: the ``_saved_<name>`` attributes (what drawings and
students read: ``y.grad_fn._saved_self``), and ``saved_tensors_hooks``, which keep ``pack(t)`` in
place of each saved tensor. Backward itself never needs this file: ``Op.run_rules`` reads the saved
values directly (see ``op.py``)."""

from __future__ import annotations

import inspect
from typing import TYPE_CHECKING, Any

import numpy as np

from .._messages import FREED_ERROR
from ..autograd.grad_mode import _State
from ..tensor import Tensor

if TYPE_CHECKING:
    from .op import Op


class WrappedNumber(Tensor):
    """A Python number an op lifted to a tensor (the 2 of ``x * 2``: torch's "wrapped number"), in the dtype the
    op computes in. A node saves it as it saves a tensor, but ``saved_tensors_hooks`` never see it, and
    ``_saved_other`` shows it as torch does: an int as int64, a float as float64, a bool as bool."""

    __slots__ = ()
    shown_as: Any = None

    @staticmethod
    def of(value: Any) -> type[WrappedNumber]:
        """The class for a number of ``value``'s Python type."""
        if isinstance(value, (bool, np.bool_)):
            return WrappedBool
        return WrappedInt if isinstance(value, (int, np.integer)) else WrappedFloat


class WrappedInt(WrappedNumber):
    __slots__ = ()
    shown_as = np.int64


class WrappedFloat(WrappedNumber):
    __slots__ = ()
    shown_as = np.float64


class WrappedBool(WrappedNumber):
    __slots__ = ()
    shown_as = np.bool_


def expose(cls: type[Op]) -> None:
    """Give an op class torch's ``_saved_<name>`` attributes: one per saved value (readable until a
    backward frees it) and one per param torch's node keeps (``_saved_dim``, ``_saved_alpha``)."""
    for name in cls.saves:
        setattr(cls, f"_saved_{name}", property(lambda node, name=name: read(node, name)))
    for name in params(cls):
        if name not in cls.saves and name not in cls.unexposed:
            setattr(cls, f"_saved_{name}", property(lambda node, name=name: param(node, name)))


def read(node: Op, name: str) -> Any:
    """``node._saved_<name>`` of a saved value: torch's errors once freed or changed in place."""
    attrs = node.__dict__
    if ("_result" if name == "result" else name) not in attrs:
        raise RuntimeError(FREED_ERROR)
    if attrs.get(name, True) is None:
        return None  # not saved: no gradient that reads it was needed
    if "_packed" in attrs:  # kept by saved_tensors_hooks: unpacked at each read, as in torch
        return node.result if name == "result" else unpacked(node)[name]
    if node.stale():
        raise node.version_error()
    return node.result if name == "result" else param(node, name)


def param(node: Op, name: str) -> Any:
    """A param (or a saved array) as torch's node shows it: an array (a condition, indices) as a tensor."""
    value = getattr(node, name, None)
    if isinstance(value, WrappedNumber) and value.shown_as is not None:  # x * 3's 3: tensor(3), an int64
        return Tensor._make(value._array.astype(value.shown_as))
    if type(value) is tuple:  # index's indices: each array a tensor
        return tuple(Tensor._make(v) if isinstance(v, np.ndarray) else v for v in value)
    return Tensor._make(value) if isinstance(value, np.ndarray) else value


def params(cls: type[Op]) -> list[str]:
    """The names of ``forward``'s non-tensor arguments (what ``_saved_<param>`` reads)."""
    if isinstance(cls.forward, np.ufunc):  # a NumPy ufunc: tensors only (its keywords are NumPy's)
        return []
    try:
        ps = list(inspect.signature(cls.forward).parameters.values())
    except (TypeError, ValueError):  # a NumPy ufunc: tensors only
        return []
    positional = [p for p in ps if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    return [p.name for p in positional[len(cls.inputs) :]] + [p.name for p in ps if p.kind == p.KEYWORD_ONLY]


def pack(node: Op, result: Tensor) -> Tensor:
    """Under ``autograd.graph.saved_tensors_hooks``: the node keeps ``pack(t)`` of each tensor it
    saved, not the tensor (nor its version: the hooks own the values now)."""
    pack, unpack = _State.saved_hooks[-1]
    attrs, packed = node.__dict__, {}
    for name, _, _ in type(node)._inputs_kept:
        if attrs[name] is not None and not isinstance(attrs[name], WrappedNumber):  # x * 2's 2 is not packed
            packed[name], attrs[name] = (pack(attrs[name]), unpack), PACKED
    if type(node)._saves_result:
        packed["_result"], attrs["_result"], attrs["_result_version"] = (pack(result), unpack), PACKED, None
    attrs["_versions"], attrs["_kept_at"], attrs["_packed"] = [], (), packed
    return result


PACKED = "packed by saved_tensors_hooks"  # what a node holds in place of a packed tensor


def unpacked(node: Op) -> dict:
    """The node's values, with what saved_tensors_hooks packed unpacked (the result as an array)."""
    attrs = dict(node.__dict__)
    for key, (packed, unpack) in node.__dict__["_packed"].items():
        t = unpack(packed)
        if not isinstance(t, Tensor):
            got = type(t).__name__
            raise TypeError(f"Output of saved tensor unpack_hook expected to be a Tensor but got result of type {got}")
        attrs[key] = t._array if key == "_result" else t
    return attrs
