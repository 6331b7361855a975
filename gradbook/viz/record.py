"""Recording a backward pass as plain data, step by step, in the engine's real execution order.

``record_backward(y)`` does exactly what ``y.backward()`` does (same effects, same errors) and
returns a :class:`BackwardRecording`: which node ran, the gradient it received, what it sent
along each input edge (local derivative × upstream = contribution), where contributions met and
were summed, each leaf's ``.grad`` before and after, and which saved tensors were freed. It holds
only NumPy arrays, strings and numbers, so it can be replayed, compared and tested without the
engine.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from .library import is_tensor, library_of, numpy_of, op_class
from .model import GraphModel, is_leaf_node, node_names, saved_state, tensor_names


@dataclass(frozen=True)
class EdgeFlow:
    """What a node sent along one input edge: ``upstream × local = contribution``."""

    slot: int  # the position in next_functions
    target: str | None  # the key of the input's node; None for a constant
    rule: str  # the local derivative, e.g. "∂out/∂self = other"
    contribution: np.ndarray | None  # None for a constant, or an input that needs no gradient


@dataclass(frozen=True)
class FanIn:
    """Two paths met at ``target``: its gradient so far plus a new contribution."""

    target: str
    before: np.ndarray
    added: np.ndarray
    total: np.ndarray


@dataclass(frozen=True)
class Step:
    """One node running during backward."""

    index: int
    key: str
    name: str  # torch's class name, e.g. "MulBackward0" or "AccumulateGrad"
    kind: str  # "op" or "leaf"
    upstream: np.ndarray  # the gradient the node received (after any hooks)
    edges: tuple[EdgeFlow, ...] = ()
    sums: tuple[FanIn, ...] = ()  # fan-in sums that this step's contributions caused
    grad_before: np.ndarray | None = None  # for a leaf (or a node that retains grad): .grad before
    grad_after: np.ndarray | None = None  # and after
    freed: tuple[str, ...] = ()  # saved values this step released (no retain_graph)


@dataclass(frozen=True)
class RecordedError:
    """A refused backward: the error, and the node it names (None if no node was reached)."""

    type: str
    message: str
    key: str | None
    name: str | None


@dataclass(frozen=True)
class Picture:
    """``draw()``'s picture of the graph before the call, as the animation's template: its DOT
    source with ``⟦slot⟧`` where a step changes a text (see ``draw_model(frames=True)``)."""

    source: str
    slots: dict[str, str]  # each slot's text before the call
    fills: dict[str, str]  # each node's fill colour
    edge_ids: dict[tuple[str, int], str]  # (consumer key, input slot) -> edge id


@dataclass
class BackwardRecording:
    """One ``backward()`` call, as data. ``nodes`` is the graph as it was before the call, and
    ``picture`` the drawing of it that the animation frames restyle."""

    nodes: list[dict[str, Any]]
    roots: list[str]
    steps: list[Step] = field(default_factory=list)
    error: RecordedError | None = None
    retain_graph: bool = False
    create_graph: bool = False
    picture: Picture | None = None

    def __len__(self) -> int:
        return len(self.steps)

    def node(self, key: str) -> dict[str, Any]:
        """The snapshot of one node: key, label, kind, name, inputs, shape, data, grad, freed..."""
        index = self.__dict__.get("_index")
        if index is None or len(index) != len(self.nodes):  # built once: players ask for every node
            index = self.__dict__["_index"] = {n["key"]: n for n in self.nodes}
        return index[key]

    def leaf_grads(self) -> dict[str, tuple[np.ndarray | None, np.ndarray | None]]:
        """``{leaf name or key: (.grad before, .grad after)}`` for the leaves this call reached."""
        out = {}
        for s in self.steps:
            if s.kind == "leaf":
                node = self.node(s.key)
                out[node["name"] or s.key] = (s.grad_before, s.grad_after)
        return out

    def __repr__(self) -> str:
        status = f", error={self.error.type}" if self.error else ""
        return f"BackwardRecording({len(self.steps)} steps, {len(self.nodes)} nodes{status})"


def local_rule(node: Any, slot: int) -> str:
    """The local derivative an op applies for input ``slot``: the text its rule carries.

    >>> import gradbook as torch
    >>> x = torch.tensor(2.0, requires_grad=True)
    >>> local_rule((x * 3).grad_fn, 0)
    '∂out/∂self = other'
    >>> local_rule((x - 3 * x).grad_fn, 1)  # with the node's alpha (its _saved_alpha), not the word alone
    '∂out/∂other = -alpha = -1'
    """
    if is_leaf_node(node):
        return "grad += upstream"
    texts = list(getattr(op_class(node), "rules", None) or ())  # a torch node: gradbook's op of its name
    if not texts:  # a custom autograd.Function
        return f"{type(node).__name__}: backward()"
    text = texts[slot] if slot < len(texts) else texts[-1]  # a variadic op (cat): one rule for each input
    alpha = getattr(node, "_saved_alpha", None)
    if text.endswith("alpha") and isinstance(alpha, (int, float)):
        text += f" = {-alpha if text.endswith('-alpha') else alpha:g}"
    beta = getattr(node, "_saved_beta", None)
    if "= beta," in text and isinstance(beta, (int, float)):  # addmm's ∂out/∂self = beta = 1, ...
        text = text.replace("= beta,", f"= beta = {beta:g},")
    return text


def _copy(value: Any) -> np.ndarray | None:
    if value is None:
        return None
    return np.array(numpy_of(value) if is_tensor(value) else value, copy=True)


def _grad_of(t: Any) -> Any:
    """``t.grad`` where backward fills it (a leaf, or a tensor that called retain_grad)."""
    return t.grad if t.is_leaf or t.retains_grad else None


def _snapshot(model: GraphModel, names: dict[str, str], outputs: dict[str, Any]) -> list[dict[str, Any]]:
    nodes = []
    for n in model.nodes:
        t = n.tensor if n.tensor is not None else outputs.get(n.key)
        nodes.append(
            {
                "key": n.key,
                "label": n.label,
                "kind": n.kind,
                "name": names.get(n.key),
                "inputs": list(n.inputs),
                "rules": [local_rule(n.node, i) if n.node is not None else "" for i in range(len(n.inputs))],
                "is_root": n.is_root,
                "retains_grad": n.retains_grad,
                "shape": tuple(t.shape) if t is not None else None,
                "data": _copy(t),
                "grad": _copy(_grad_of(t)) if t is not None else None,
                "freed": n.freed,
                "saves": n.saves,
            }
        )
    return nodes


def _picture(model: GraphModel, names: dict[str, str], outputs: dict[str, Any]) -> Picture:
    from .draw import draw_model

    g = draw_model(model, names=names, outputs=outputs, max_nodes=len(model.nodes) + 1, frames=True)
    return Picture(source=g.source, slots=g.slots, fills=g.fills, edge_ids=g.edge_ids)


class _Recorder:
    """Node hooks on every node of the graph (torch's ``register_prehook`` / ``register_hook``):
    each node's post-hook becomes a Step; fan-in sums are tracked from the contributions."""

    def __init__(self, model: GraphModel) -> None:
        self.model = model
        self.steps: list[Step] = []
        self.before: np.ndarray | None = None  # a leaf's .grad when its AccumulateGrad starts
        self.upstream: Any = None
        self.running: str | None = None  # the node whose pre-hook ran last, until its post-hook
        self.pending: dict[tuple[str, int], np.ndarray] = {}  # the gradient summed so far, per (node, output)
        self.handles: list[Any] = []
        # a retained .grad is set before the node's pre-hook runs (torch's retains_grad hook): read it now
        self.retained = {n.key: _copy(n.tensor.grad) for n in model.nodes if n.retains_grad}
        for n in model.nodes:
            if n.node is not None:
                self.handles.append(n.node.register_prehook(lambda go, n=n: self._enter(n, go)))
                self.handles.append(n.node.register_hook(lambda gi, go, n=n: self._exit(n, gi)))
            elif n.kind == "leaf":  # a leaf passed as a root: its AccumulateGrad is the engine's own
                self.handles.append(n.tensor.register_hook(lambda g, n=n: self._enter(n, (g,))))

    def remove(self) -> None:
        for handle in self.handles:
            handle.remove()

    def _enter(self, n: Any, grad_outputs: tuple) -> None:
        self.running = n.key
        for place in [p for p in self.pending if p[0] == n.key]:  # each of its outputs' sums
            del self.pending[place]
        self.upstream = _copy(grad_outputs[0])
        self.before = _copy(n.tensor.grad) if n.kind == "leaf" else None

    def _exit(self, n: Any, grad_inputs: tuple) -> None:
        leaf = n.kind == "leaf"
        edges, sums = [], []
        for (target, slot), out in zip(n.inputs, grad_inputs if not leaf else ()):
            contribution = _copy(out) if target is not None else None
            edges.append(EdgeFlow(slot=slot, target=target, rule=local_rule(n.node, slot), contribution=contribution))
            if target is None or contribution is None:
                continue
            place = (target, n.node.next_functions[slot][1])  # the engine sums per output of the target
            if place in self.pending:  # two paths meet here: the engine adds them
                before = self.pending[place]
                total = before + contribution
                sums.append(FanIn(target, before, contribution, total))
                self.pending[place] = total
            else:
                self.pending[place] = contribution
        self.steps.append(
            Step(
                index=len(self.steps),
                key=n.key,
                name=n.label,
                kind="leaf" if leaf else "op",
                upstream=self.upstream,
                edges=tuple(edges),
                sums=tuple(sums),
                grad_before=self.before if leaf else self.retained.get(n.key),
                grad_after=_copy(n.tensor.grad) if leaf or n.retains_grad else None,
            )
        )
        self.running = None

    def finish(self, snapshot: list[dict[str, Any]]) -> list[Step]:
        """Close a leaf root's step, and mark the saved tensors each step released."""
        for n in self.model.nodes:
            if n.node is None and n.kind == "leaf" and self.running == n.key:
                self._exit(n, ())
        was_freed = {node["key"]: node["freed"] for node in snapshot}
        steps = []
        for step in self.steps:
            node = self.model[step.key]
            if step.kind == "op" and not was_freed[step.key]:
                saves, freed = saved_state(node.node)
                if freed:
                    step = replace(step, freed=saves)
            steps.append(step)
        return steps


def record_backward(
    y: Any,
    gradient: Any = None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    inputs: Any = None,
    names: dict[str, Any] | None = None,
    stacklevel: int = 1,
) -> BackwardRecording:
    """Run ``y.backward(gradient, retain_graph, create_graph, inputs)`` and record it.

    If backward raises, the same exception propagates, with the recording (its ``error`` says
    which node refused) attached as ``exception.recording``. Tensors are named as ``draw()``
    names them (see ``gradbook.viz.model.tensor_names``): ``names={"w": w}`` first, then the
    caller's variables (``stacklevel=2`` looks one caller further up, 0 nowhere).

    ``y`` may be a torch tensor: the recording is then made through torch's own node hooks,
    with the rule texts of gradbook's op of the same name.

    >>> import gradbook as torch
    >>> from gradbook.viz import record_backward
    >>> x = torch.tensor(2.0, requires_grad=True)
    >>> y = x * x
    >>> rec = record_backward(y)
    >>> [s.name for s in rec.steps]
    ['MulBackward0', 'AccumulateGrad']
    >>> rec.steps[0].edges[0].rule, rec.steps[0].edges[0].contribution
    ('∂out/∂self = other', array(2., dtype=float32))
    >>> rec.leaf_grads()["x"]
    (None, array(4., dtype=float32))
    """
    outputs = [y] if is_tensor(y) else list(y)
    autograd = library_of(outputs, "record_backward").autograd
    known = tensor_names(names, stacklevel + 1 if stacklevel > 0 else 0, "record_backward")
    model = GraphModel.from_roots(*outputs, tensors=known.values())
    names_by_key, outputs_by_key = node_names(model, known)
    recording = BackwardRecording(
        nodes=_snapshot(model, names_by_key, outputs_by_key),
        picture=_picture(model, names_by_key, outputs_by_key),
        roots=list(model.roots),
        retain_graph=create_graph if retain_graph is None else bool(retain_graph),
        create_graph=create_graph,
    )
    recorder = _Recorder(model)
    try:
        autograd.backward(outputs, gradient, retain_graph, create_graph, inputs=inputs)
    except Exception as error:
        node = getattr(error, "node", None)  # gradbook names the node it refused at, before running any
        key = model.key_of(node) if node is not None else recorder.running
        recording.error = RecordedError(
            type=type(error).__name__, message=str(error), key=key, name=model[key].label if key else None
        )
        recording.steps = recorder.finish(recording.nodes)
        error.recording = recording  # type: ignore[attr-defined]
        raise
    finally:
        recorder.remove()
    recording.steps = recorder.finish(recording.nodes)
    return recording


def history(recordings: Sequence[BackwardRecording]) -> list[dict[str, Any]]:
    """Repeated ``backward()`` calls on the same leaves, as rows: one per call and leaf, with
    ``call`` (1, 2, ...), ``leaf`` (its name, or key), ``before`` and ``after`` (``.grad``),
    ``added`` (after - before) and ``error`` (None, or the refused call's message).

    >>> import gradbook as torch
    >>> from gradbook.viz import history, record_backward
    >>> x = torch.tensor(2.0, requires_grad=True)
    >>> [row["after"] for row in history([record_backward(x * x) for _ in range(3)])]
    [4.0, 8.0, 12.0]
    """
    rows = []
    for call, rec in enumerate(recordings, start=1):
        if rec.error is not None:
            rows.append(
                {"call": call, "leaf": None, "before": None, "after": None, "added": None, "error": rec.error.message}
            )
        for leaf, (before, after) in rec.leaf_grads().items():
            b = None if before is None else before.tolist()
            a = None if after is None else after.tolist()
            added = None if after is None else (after - (0 if before is None else before)).tolist()
            rows.append({"call": call, "leaf": leaf, "before": b, "after": a, "added": added, "error": None})
    return rows
