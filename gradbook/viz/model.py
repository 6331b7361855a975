"""The autograd graph as a torch user reads it, numbered the same way for drawing and recording.

Only the public graph is used: ``tensor.grad_fn``, ``node.next_functions``, ``node.name()``,
``AccumulateGrad.variable`` and the saved values. Nodes are keyed ``n0, n1, ...`` by creation
order within the graph (never by ``id()``), so the same program gives the same keys on every run,
and a recording of a backward pass can be matched to a drawing of the same graph.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .. import Tensor

_FREED = "Trying to backward through the graph a second time"  # how torch's error for a freed node starts


def is_leaf_node(node: Any) -> bool:
    """An ``AccumulateGrad``: the node of a leaf, holding it as ``.variable``."""
    return hasattr(node, "variable")


def saved_state(node: Any) -> tuple[tuple[str, ...], bool]:
    """The saved tensors of a node (the ``x`` of each ``_saved_x`` that holds a tensor or an array),
    and whether backward freed them: reading a freed one raises torch's error, as in torch."""
    names: list[str] = []
    freed = False
    seen: set[str] = set()
    for klass in type(node).__mro__:
        for attr in vars(klass):
            if not attr.startswith("_saved_") or attr in seen:
                continue
            seen.add(attr)
            try:
                value = getattr(node, attr)
            except RuntimeError as error:  # freed, or changed in place since it was saved
                freed = freed or str(error).startswith(_FREED)
                names.append(attr[len("_saved_") :])
                continue
            if hasattr(value, "grad_fn") or isinstance(value, np.ndarray):
                names.append(attr[len("_saved_") :])
    if hasattr(type(node), "saved_tensors"):  # the ctx of a custom autograd.Function
        names.append("saved_tensors")
        try:
            _ = node.saved_tensors
        except RuntimeError as error:
            freed = str(error).startswith(_FREED)
    return tuple(names), freed


@dataclass
class GraphNode:
    """One node of the drawing: an op's grad_fn, a leaf (its AccumulateGrad), or a root tensor
    that has no grad_fn (a leaf passed as a root, or a tensor that does not require grad)."""

    key: str
    node: Any
    kind: str  # "op", "leaf", or "tensor" (a root without a graph)
    tensor: Tensor | None = None  # the leaf tensor, or the output tensor of an op when known
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
    def from_roots(cls, *roots: Tensor, tensors: Any = ()) -> GraphModel:
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


def caller_names(depth: int = 2) -> dict[int, str]:
    """Names of the tensors in the caller's namespace (a notebook's globals, a function's locals):
    ``{id(tensor): name}``. Locals win over globals; names starting with ``_`` are skipped."""
    frame: Any = sys._getframe(depth)
    names: dict[int, str] = {}
    for scope in (frame.f_globals, frame.f_locals):
        for name, value in scope.items():
            if isinstance(value, Tensor) and not name.startswith("_"):
                names[id(value)] = name
    return names


def caller_tensors(depth: int = 2) -> dict[str, Tensor]:
    """The tensors in the caller's namespace by name: ``{name: tensor}``, locals before globals (a
    local hides a global of the same name), each in definition order; names starting with ``_``
    are skipped. The parameters of an ``nn.Module`` found there are included as ``model.0.weight``.

    ``depth`` counts frames as ``sys._getframe`` does: 1 is the function calling this one.

    >>> import gradbook as torch
    >>> w = torch.ones(2, requires_grad=True)
    >>> caller_tensors(1)["w"] is w
    True
    """
    from ..nn import Module

    frame: Any = sys._getframe(depth)
    found: dict[str, Tensor] = {}
    modules: list[tuple[str, Module]] = []
    seen: set[str] = set()
    for scope in (frame.f_locals, frame.f_globals):
        for name, value in scope.items():
            if name.startswith("_") or name in seen:
                continue
            seen.add(name)
            if isinstance(value, Tensor):
                found[name] = value
            elif isinstance(value, Module):
                modules.append((name, value))
    for name, module in modules:
        for pname, p in module.named_parameters(name):  # torch joins prefix and name with "."
            found.setdefault(pname, p)
    return found
