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

from .._tensor import Tensor
from ..autograd.graph import AccumulateGrad, Node


@dataclass
class GraphNode:
    """One node of the drawing: an op's grad_fn, a leaf (its AccumulateGrad), or a root tensor
    that has no grad_fn (a leaf passed as a root, or a tensor that does not require grad)."""

    key: str
    node: Node | None
    kind: str  # "op", "leaf", or "tensor" (a root without a graph)
    tensor: Tensor | None = None  # the leaf tensor, or the root output tensor of an op
    is_root: bool = False
    retains_grad: bool = False
    inputs: list[tuple[str | None, int]] = field(default_factory=list)  # (key or None for a constant, slot)

    @property
    def label(self) -> str:
        """torch's class name: ``MulBackward0``, ``AccumulateGrad``."""
        if self.node is None:
            return "Tensor"
        return type(self.node).__name__

    @property
    def freed(self) -> bool:
        """A backward without retain_graph released what this node saved."""
        return bool(getattr(self.node, "_freed", False))

    @property
    def saves(self) -> tuple[str, ...]:
        return tuple(getattr(self.node, "saves", ()))


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

    def key_of(self, node: Node) -> str | None:
        """The key of a grad_fn or AccumulateGrad in this graph."""
        found = self._by_node.get(id(node))
        return found.key if found is not None else None

    @property
    def edges(self) -> list[tuple[str, str, int]]:
        """(input key, consumer key, slot) for every non-constant input, duplicates kept."""
        return [(src, n.key, slot) for n in self.nodes for src, slot in n.inputs if src is not None]

    @classmethod
    def from_roots(cls, *roots: Tensor) -> GraphModel:
        """Walk ``next_functions`` from the roots' grad_fns (iteratively, any depth)."""
        found: dict[int, Node] = {}
        stack: list[Node] = []
        for t in roots:
            start = t.grad_fn if t.grad_fn is not None else (t._grad_accumulator() if t.requires_grad else None)
            if start is not None and id(start) not in found:
                found[id(start)] = start
                stack.append(start)
        while stack:
            node = stack.pop()
            for fn, _ in node.next_functions:
                if fn is not None and id(fn) not in found:
                    found[id(fn)] = fn
                    stack.append(fn)
        ordered = sorted(found.values(), key=lambda n: n._seq)
        keys = {id(n): f"n{i}" for i, n in enumerate(ordered)}
        nodes = []
        for n in ordered:
            leaf = isinstance(n, AccumulateGrad)
            out = n._retains() if getattr(n, "_retains", None) is not None else None
            nodes.append(
                GraphNode(
                    key=keys[id(n)],
                    node=n,
                    kind="leaf" if leaf else "op",
                    tensor=n.variable if leaf else out,
                    retains_grad=out is not None,
                    inputs=[(keys[id(fn)] if fn else None, i) for i, (fn, _) in enumerate(n.next_functions)],
                )
            )
        by_key = {n.key: n for n in nodes}
        root_keys = []
        for t in roots:
            start = t.grad_fn if t.grad_fn is not None else (t._grad_accumulator() if t.requires_grad else None)
            if start is None:  # a tensor outside any graph: drawn alone
                root = GraphNode(key=f"n{len(nodes)}", node=None, kind="tensor", tensor=t)
                nodes.append(root)
            else:
                root = by_key[keys[id(start)]]
                if root.kind == "op":
                    root.tensor = t
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
        for pname, p in module.named_parameters(name + "."):
            found.setdefault(pname, p)
    return found
