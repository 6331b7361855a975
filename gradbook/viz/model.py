"""The autograd graph as a torch user reads it, numbered the same way for drawing and recording.

Only the public graph is used: ``tensor.grad_fn``, ``node.next_functions``, ``node.name()``,
``AccumulateGrad.variable`` and the saved values. Nodes are keyed ``n0, n1, ...`` by creation
order within the graph (never by ``id()``), so the same program gives the same keys on every run,
and a recording of a backward pass can be matched to a drawing of the same graph.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .library import is_module, is_tensor, op_class

_FREED = "Trying to backward through the graph a second time"  # how torch's error for a freed node starts


def is_leaf_node(node: Any) -> bool:
    """An ``AccumulateGrad``: the node of a leaf, holding it as ``.variable``."""
    return hasattr(node, "variable")


@functools.cache
def _saved_attributes(klass: type) -> tuple[str, ...]:
    """The ``_saved_<name>`` attributes a node class defines (and its bases), each once."""
    return tuple(dict.fromkeys(a for k in klass.__mro__ for a in vars(k) if a.startswith("_saved_")))


def saved_state(node: Any) -> tuple[tuple[str, ...], bool]:
    """The saved tensors of a node (the ``x`` of each ``_saved_x`` that holds a tensor or an array),
    in the order of the op's arguments (then by name: gradbook and torch list them differently),
    and whether backward freed them: reading a freed one raises torch's error, as in torch."""
    names: list[str] = []
    freed = False
    for attr in _saved_attributes(type(node)):
        try:
            value = getattr(node, attr)
        except RuntimeError as error:  # freed, or changed in place since it was saved
            freed = freed or str(error).startswith(_FREED)
            names.append(attr[len("_saved_") :])
            continue
        if is_tensor(value) or isinstance(value, np.ndarray):
            names.append(attr[len("_saved_") :])
    order = getattr(op_class(node), "inputs", ())  # the op's argument order, then the rest by name
    names.sort(key=lambda name: (order.index(name) if name in order else len(order), name))
    if hasattr(type(node), "saved_tensors"):  # the ctx of a custom autograd.Function
        try:
            kept = len(node.saved_tensors) > 0  # nothing saved: nothing to draw
        except RuntimeError as error:  # torch raises once backward ran, even when nothing was saved
            freed = kept = str(error).startswith(_FREED)
        if kept:
            names.append("saved_tensors")
    return tuple(names), freed


@dataclass
class GraphNode:
    """One node of the drawing: an op's grad_fn, a leaf (its AccumulateGrad), or a root tensor
    that has no grad_fn (a leaf passed as a root, or a tensor that does not require grad)."""

    key: str
    node: Any
    kind: str  # "op", "leaf", or "tensor" (a root without a graph)
    tensor: Any = None  # the leaf tensor, or the output tensor of an op when known
    is_root: bool = False
    retains_grad: bool = False
    inputs: list[tuple[str | None, int]] = field(default_factory=list)  # (key or None for a constant, slot)
    saves: tuple[str, ...] = ()  # the names of its saved tensors
    freed: bool = False  # a backward without retain_graph released them

    @property
    def label(self) -> str:
        """torch's class name: ``MulBackward0``, ``AccumulateGrad``."""
        if self.node is None:
            return "AccumulateGrad" if self.kind == "leaf" else "Tensor"
        return type(self.node).__name__

    @property
    def arg_names(self) -> tuple[str, ...] | None:
        """torch's argument names for the inputs (``self``, ``other``), from gradbook's op table
        (looked up by ``name()`` for a torch node), when they line up with ``next_functions``."""
        op = op_class(self.node) if self.node is not None else None
        names = getattr(op, "inputs", None)
        if names is None or len(names) != len(self.inputs):
            return None
        return tuple(names)

    def saved_value(self, name: str) -> Any:
        """A saved tensor (``_saved_<name>``) while it is readable (not freed, not changed in place)."""
        try:
            value = getattr(self.node, f"_saved_{name}")
        except (RuntimeError, AttributeError):
            return None
        return value if is_tensor(value) else None

    def constants(self) -> list[tuple[int, Any]]:
        """The constant inputs: (slot, value), the value when the node saved it (``2 * x`` saves
        the 2 as ``_saved_other``) and it is still readable, else None."""
        arg_names = self.arg_names or ()
        found = []
        for src, slot in self.inputs:
            if src is None:
                saved = slot < len(arg_names) and arg_names[slot] in self.saves
                found.append((slot, self.saved_value(arg_names[slot]) if saved else None))
        return found


@dataclass
class GraphModel:
    """Every node reachable from the roots, in creation order, with its inputs."""

    nodes: list[GraphNode]
    roots: list[str]

    def __getitem__(self, key: str) -> GraphNode:
        return self._by_key[key]

    def __post_init__(self) -> None:
        self._by_key = {n.key: n for n in self.nodes}
        self._by_node = {id(n.node): n for n in self.nodes if n.node is not None}

    def key_of(self, node: Any) -> str | None:
        """The key of a grad_fn or AccumulateGrad in this graph."""
        found = self._by_node.get(id(node))
        return found.key if found is not None else None

    @property
    def edges(self) -> list[tuple[str, str, int]]:
        """(input key, consumer key, slot) for every non-constant input, duplicates kept."""
        return [(src, n.key, slot) for n in self.nodes for src, slot in n.inputs if src is not None]

    @classmethod
    def from_roots(cls, *roots: Any, tensors: Any = ()) -> GraphModel:
        """Walk ``next_functions`` from the roots' grad_fns (iteratively, any depth).

        Keys follow creation order: ops by ``_sequence_nr()``, each leaf right after the first op
        that uses it. ``tensors`` (e.g. the caller's variables) attach their values to the op
        nodes that made them when they called ``retain_grad()``.
        """
        found: dict[int, Any] = {}
        stack = [t.grad_fn for t in roots if t.grad_fn is not None]
        for node in stack:
            found[id(node)] = node
        while stack:
            node = stack.pop()
            for fn, _ in node.next_functions:
                if fn is not None and id(fn) not in found:
                    found[id(fn)] = fn
                    stack.append(fn)
        ordered: list[Any] = []
        placed: set[int] = set()
        for op in sorted((n for n in found.values() if not is_leaf_node(n)), key=lambda n: n._sequence_nr()):
            ordered.append(op)
            for fn, _ in op.next_functions:
                if fn is not None and is_leaf_node(fn) and id(fn) not in placed:
                    placed.add(id(fn))
                    ordered.append(fn)
        keys = {id(n): f"n{i}" for i, n in enumerate(ordered)}
        retained = {id(t.grad_fn): t for t in [*tensors, *roots] if t.grad_fn is not None and t.retains_grad}
        nodes = []
        for n in ordered:
            leaf = is_leaf_node(n)
            out = None if leaf else retained.get(id(n))
            saves, freed = ((), False) if leaf else saved_state(n)
            nodes.append(
                GraphNode(
                    key=keys[id(n)],
                    node=n,
                    kind="leaf" if leaf else "op",
                    tensor=n.variable if leaf else out,
                    retains_grad=out is not None,
                    inputs=[(keys[id(fn)] if fn else None, i) for i, (fn, _) in enumerate(n.next_functions)],
                    saves=saves,
                    freed=freed,
                )
            )
        by_node = {id(n.node): n for n in nodes}
        by_leaf = {id(n.tensor): n for n in nodes if n.kind == "leaf"}
        root_keys = []
        for t in roots:
            if t.grad_fn is not None:
                root = by_node[id(t.grad_fn)]
                root.tensor = t
            elif id(t) in by_leaf:
                root = by_leaf[id(t)]
            else:  # a tensor outside any graph, drawn alone: a leaf if it requires grad
                root = GraphNode(
                    key=f"n{len(nodes)}", node=None, kind="leaf" if t.requires_grad else "tensor", tensor=t
                )
                nodes.append(root)
                by_leaf[id(t)] = root
            root.is_root = True
            root_keys.append(root.key)
        return cls(nodes=nodes, roots=root_keys)


def caller_tensors(depth: int = 2) -> dict[str, Any]:
    """The tensors in the caller's namespace by name: ``{name: tensor}``, locals before globals (a
    local hides a global of the same name), each in definition order; names starting with ``_``
    are skipped. The parameters of an ``nn.Module`` found there are included as ``model.0.weight``.
    gradbook's tensors and modules, and torch's, are found alike.

    ``depth`` counts frames as ``sys._getframe`` does: 1 is the function calling this one.

    >>> import gradbook as torch
    >>> w = torch.ones(2, requires_grad=True)
    >>> caller_tensors(1)["w"] is w
    True
    """
    frame: Any = sys._getframe(depth)
    found: dict[str, Any] = {}
    modules: list[tuple[str, Any]] = []
    seen: set[str] = set()
    for scope in (frame.f_locals, frame.f_globals):
        for name, value in scope.items():
            if name.startswith("_") or name in seen:
                continue
            seen.add(name)
            if is_tensor(value):
                found[name] = value
            elif is_module(value):
                modules.append((name, value))
    for name, module in modules:
        for pname, p in module.named_parameters(name):  # torch joins prefix and name with "."
            found.setdefault(pname, p)
    return found


def caller_names(depth: int = 2) -> dict[int, str]:
    """``{id(tensor): name}`` for the caller's tensors, by the naming rule of :func:`tensor_names`
    (the first name bound to a tensor wins).

    >>> import gradbook as torch
    >>> x = torch.ones(2, requires_grad=True)
    >>> alias = x
    >>> caller_names(1)[id(x)]
    'x'
    """
    names: dict[int, str] = {}
    for name, t in caller_tensors(depth + 1).items():
        names.setdefault(id(t), name)
    return names


def tensors_named(names: Mapping[str, Any], caller: str = "draw") -> dict[str, Any]:
    """``names=`` as given to draw() or record_backward(): ``{name: tensor or nn.Module}``, with
    each module's parameters named after it (``net.0.weight``)."""
    found: dict[str, Any] = {}
    for name, value in names.items():
        if is_tensor(value):
            found[name] = value
        elif is_module(value):
            found.update(value.named_parameters(name))  # torch joins prefix and name with "."
        else:
            raise TypeError(
                f"{caller}() got names={{{name!r}: {type(value).__name__}}}; names maps each name to a tensor "
                "(or to an nn.Module, whose parameters are named after it)"
            )
    return found


def tensor_names(names: Mapping[str, Any] | None, depth: int, caller: str = "draw") -> dict[str, Any]:
    """The tensors a graph's nodes may be named after, ``{name: tensor}``, in order of precedence.

    The naming rule, the same for ``draw``, ``record_backward``, ``animate`` and the widgets:

    1. ``names=`` wins (an ``nn.Module`` there names its parameters ``net.0.weight``);
    2. then the variables of the calling function (its locals), then the module's (or notebook's)
       globals; a name given in ``names=`` is not taken again from the caller;
    3. when several variables hold the same tensor (``alias = x``), the one bound first wins
       (``x``): variables are read in definition order.

    An op's output is named after the variable holding it (``y = x * x`` names ``MulBackward0``
    ``y``). ``depth`` counts frames as ``sys._getframe`` does (1: the function calling this one;
    0: look at no caller).

    >>> import gradbook as torch
    >>> x = torch.ones(2, requires_grad=True)
    >>> alias = x
    >>> w = torch.ones(2, requires_grad=True)
    >>> found = tensor_names({"weights": w}, 1)
    >>> list(found)[:3], found["x"] is found["alias"]
    (['weights', 'x', 'alias'], True)
    """
    found = tensors_named(names or {}, caller)
    if depth > 0:
        for name, t in caller_tensors(depth + 1).items():
            found.setdefault(name, t)
    return found


def node_names(model: GraphModel, tensors: Mapping[str, Any]) -> tuple[dict[str, str], dict[str, Any]]:
    """Node key -> name, and op key -> its output tensor, from ``{name: tensor}`` in order of
    precedence (see :func:`tensor_names`): the first name of a tensor wins. A leaf is matched by
    identity, an op by its output's grad_fn, a constant by its saved value (key ``n3c1`` for
    slot 1 of ``n3``)."""
    by_id: dict[int, str] = {}
    by_fn: dict[int, tuple[str, Any]] = {}
    for name, t in tensors.items():
        by_id.setdefault(id(t), name)
        if t.grad_fn is not None:
            by_fn.setdefault(id(t.grad_fn), (name, t))
    names: dict[str, str] = {}
    outputs: dict[str, Any] = {}
    for node in model.nodes:
        if node.tensor is not None and id(node.tensor) in by_id:
            names[node.key] = by_id[id(node.tensor)]
        elif node.kind == "op" and id(node.node) in by_fn:
            names[node.key], outputs[node.key] = by_fn[id(node.node)]
        for slot, value in node.constants():
            if value is not None and id(value) in by_id:
                names[f"{node.key}c{slot}"] = by_id[id(value)]
    return names, outputs
