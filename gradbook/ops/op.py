"""The base of every op: ``Op.apply`` runs an op's NumPy ``forward`` and, when an input requires grad,
records a node for it (its inputs' nodes and what its backward rules read); ``run_rules`` is the
backward step the engine calls. The ops themselves are in this package's family files."""

from __future__ import annotations

import operator
import weakref
from collections.abc import Callable
from typing import Any, ClassVar

import numpy as np

from .._dtypes import DTYPES, restore_numpy, silence_numpy
from ..autograd.grad_mode import InferenceVersion, _State, check_saving
from ..autograd.graph import Node, creation_order
from ..tensor import Tensor
from . import saved
from .rules import unbroadcast

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
    unexposed: ClassVar[tuple[str, ...]] = ()  # params torch's node keeps no _saved_<param> of

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
                    return result if not cls.view else as_view(result, tensors[0], cls, params)
        return Tensor._make(out) if not cls.view else as_view(Tensor._make(out), tensors[0], cls, params)

    @classmethod
    def _record(cls, tensors: tuple[Tensor, ...], params: dict, out: np.ndarray) -> Tensor:
        """The result, with a new node as its grad_fn: the inputs' nodes, and what backward needs."""
        node = cls.__new__(cls)
        attrs = node.__dict__
        if params:
            attrs.update(params)
        attrs["_seq"] = next(creation_order)
        edges, meta, needs = [], [], 0  # each input's node (None: it needs no grad), shape and dtype
        for i, t in enumerate(tensors):
            if t.requires_grad:
                edges.append((t.grad_fn or t._grad_accumulator(), t._output_nr or 0))
                needs |= 1 << i  # bit i: input i needs a gradient
            else:
                edges.append((None, 0))
            meta.append((t._array.shape, t._array.dtype))  # the shape and dtype its gradient must have
        attrs["next_functions"], attrs["_input_metadata"] = tuple(edges), tuple(meta)
        if cls._inputs_kept:
            kept = []  # each saved input's version (0: not saved), to tell later if it changed
            for name, i, readers in cls._inputs_kept:
                t = attrs[name] = tensors[i] if needs & readers else None  # kept if a needed gradient reads it
                if t is not None and type(t._version_counter) is InferenceVersion:  # (None: not saved, as torch)
                    check_saving(t)
                kept.append(t._version if t is not None else 0)
            attrs["_kept_at"] = tuple(kept)  # numbers: nothing the garbage collector follows
        result = Tensor._make(out, node)
        if cls._saves_result:  # the output, and its version counter: watched for in-place changes
            attrs["_result"] = out
            result._version_counter = attrs["_result_version"] = [0]
        return result if not _State.saved_hooks else saved.pack(node, result)  # saved_tensors_hooks

    def run_rules(self, grad: Any, needed: set | None, on_arrays: bool) -> tuple[list, list[bool]]:
        """The gradient for each input (None where none is needed), summed back to the input's
        shape and dtype, and whether each is a new array that nothing else holds (``on_arrays``: the
        values are NumPy arrays; else Tensors, and the rules record a graph of their own)."""
        attrs = self.__dict__ if "_packed" not in self.__dict__ else saved.unpacked(self)
        grads, owned = [], []
        for rule, reads, (fn, _), (shape, dtype) in zip(
            self._vjps, self._reads, self.next_functions, self._input_metadata
        ):
            if fn is None or (needed is not None and fn not in needed):
                grads.append(None)
                owned.append(False)
                continue
            if on_arrays:  # the rule reads the saved arrays
                args = [attrs["_result"] if name == "result" else attrs[name]._array for name in reads]
            else:  # the saved tensors, so that the rule is recorded in turn (create_graph)
                args = [self.result if name == "result" else attrs[name] for name in reads]
            g = rule(self, grad, *args)
            a = g if on_arrays else g._array
            if a.shape != shape:
                g = unbroadcast(g, shape)
            if a.dtype != dtype:
                g = g.astype(dtype) if on_arrays else g.to(DTYPES[dtype])
            grads.append(g)
            owned.append(on_arrays and g.base is None and g is not grad and id(g) not in map(id, args))  # a new array
        return grads, owned

    @property
    def result(self) -> Tensor:
        """The saved output, as a tensor whose grad_fn is this node (so it can be differentiated)."""
        t = Tensor._make(self._result if "_packed" not in self.__dict__ else saved.unpacked(self)["_result"], self)
        t._version_counter = self._result_version  # the output's own version counter (None when packed: version 0)
        return t

    def release(self) -> None:
        """Free the saved tensors (a backward without retain_graph)."""
        attrs = self.__dict__
        for name in self.saves:
            if attrs.get(name, True) is not None:  # an input never saved stays None
                attrs.pop("_result" if name == "result" else name, None)
        attrs.pop("_versions", None), attrs.pop("_kept_at", None), attrs.pop("_packed", None)
        attrs["_freed"] = True

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
        saved.expose(cls)  # torch's _saved_<name> attributes, for what reads the graph (viz)


def _reads(cls: type[Op], rule: Callable) -> tuple[str, ...]:
    """The saved values a rule reads: the names of its parameters after ``(node, g)``."""
    code = rule.__code__
    names = code.co_varnames[2 : code.co_argcount]
    unknown = [name for name in names if name not in cls.saves or (name not in cls.inputs and name != "result")]
    if unknown:
        raise TypeError(f"{cls.__name__}: a rule reads {unknown}, which are not saved inputs or the result")
    return names


def as_view(result: Tensor, t: Tensor, cls: type[Op], params: dict) -> Tensor:
    """A view op's result shares its input's memory (when NumPy gave a view) and so its version
    counter, and remembers the tensor it is a view of (``._base``) and the view ops from there
    (``_views``, to write through it: ``CopySlices``), as in torch."""
    if np.may_share_memory(result._array, t._array):
        vc = t._version_counter  # [version, the live views of this memory (weakly)], shared by base and views
        if vc is None:
            vc = t._version_counter = [0, []]
        elif len(vc) == 1:
            vc.append([])
        views = vc[1]
        if len(views) >= 16 and not len(views) & (len(views) - 1):  # at 16, 32, 64 ...: drop the dead
            views[:] = [ref for ref in views if ref() is not None]
        views.append(weakref.ref(result))
        result._version_counter = vc
        result._base = t._base if t._base is not None else t
        result._views = (t._views or ()) + ((cls, params),)
    return result
