"""Recording a backward pass as plain data, step by step, in the engine's real execution order.

``record_backward(y)`` does exactly what ``y.backward()`` does (same effects, same errors) and
returns a :class:`BackwardRecording`: which node ran, the gradient it received, what it sent
along each input edge (local derivative × upstream = contribution), where contributions met and
were summed, each leaf's ``.grad`` before and after, and which saved tensors were freed. It holds
only NumPy arrays, strings and numbers, so it can be replayed, compared and tested without the
engine.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from .._tensor import Tensor
from ..autograd import graph
from ..autograd.graph import AccumulateGrad, Function, Node
from .model import GraphModel, caller_names


@dataclass(frozen=True)
class EdgeFlow:
    """What a node sent along one input edge: ``local × upstream = contribution``."""

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
    grad_before: np.ndarray | None = None  # for a leaf: .grad before it accumulated
    grad_after: np.ndarray | None = None  # and after
    freed: tuple[str, ...] = ()  # saved values this step released (no retain_graph)


@dataclass(frozen=True)
class RecordedError:
    """A refused backward: the error, and the node it names (None if no node was reached)."""

    type: str
    message: str
    key: str | None
    name: str | None


@dataclass
class BackwardRecording:
    """One ``backward()`` call, as data. ``nodes`` is the graph as it was before the call."""

    nodes: list[dict[str, Any]]
    roots: list[str]
    steps: list[Step] = field(default_factory=list)
    error: RecordedError | None = None
    retain_graph: bool = False
    create_graph: bool = False

    def __len__(self) -> int:
        return len(self.steps)

    def node(self, key: str) -> dict[str, Any]:
        """The snapshot of one node: key, label, kind, name, inputs, shape, data, grad, freed..."""
        return next(n for n in self.nodes if n["key"] == key)

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


def local_rule(node: Node, slot: int) -> str:
    """The local derivative an op applies for input ``slot``, from its docstring's math.

    >>> import gradbook as torch
    >>> x = torch.tensor(2.0, requires_grad=True)
    >>> local_rule((x * 3).grad_fn, 0)
    '∂out/∂self = other'
    """
    cls = type(node)
    if isinstance(node, AccumulateGrad):
        return "grad += upstream"
    if not isinstance(node, Function):
        return f"{cls.__name__}: backward()"
    doc = " ".join((cls.__doc__ or "").split("\n\n")[0].split())
    inputs = cls.inputs
    name = inputs[slot] if slot < len(inputs) else None
    if name is not None:
        m = re.search(rf"(∂out/∂{name}\s*=\s*.+?)(?:,\s+∂|\.\s|\.$|$)", doc)
        if m:
            return m.group(1).strip()
    after = doc.split(";", 1)
    return after[1].strip().rstrip(".") if len(after) == 2 else doc


def _copy(value: Any) -> np.ndarray | None:
    if value is None:
        return None
    return np.array(value._array if isinstance(value, Tensor) else value, copy=True)


def _snapshot(model: GraphModel, names: dict[int, str]) -> list[dict[str, Any]]:
    nodes = []
    for n in model.nodes:
        t = n.tensor
        nodes.append(
            {
                "key": n.key,
                "label": n.label,
                "kind": n.kind,
                "name": names.get(id(t)) if t is not None else None,
                "inputs": list(n.inputs),
                "rules": [local_rule(n.node, i) if n.node is not None else "" for i in range(len(n.inputs))],
                "is_root": n.is_root,
                "retains_grad": n.retains_grad,
                "shape": tuple(t._array.shape) if t is not None else None,
                "data": _copy(t),
                "grad": _copy(t._grad) if t is not None else None,
                "freed": n.freed,
                "saves": n.saves,
            }
        )
    return nodes


class _Recorder:
    """The engine's observer during one call: turns its events into Steps."""

    def __init__(self, model: GraphModel) -> None:
        self.model = model
        self.steps: list[Step] = []
        self.before: np.ndarray | None = None  # a leaf's .grad when its AccumulateGrad starts
        self.error_node: str | None = None

    def __call__(self, event: str, node: Node, *data: Any) -> None:
        key = self.model.key_of(node)
        if event == "enter":
            variable = node.variable if isinstance(node, AccumulateGrad) else None
            self.before = _copy(variable._grad) if variable is not None else None
        elif event == "sum":  # sent while the last step hands out its contributions
            old, added, total = data
            last = self.steps[-1]
            self.steps[-1] = replace(last, sums=last.sums + (FanIn(key, _copy(old), _copy(added), _copy(total)),))
        elif event == "exit":
            grad, outs = data
            self._close(node, key, grad, outs)
        elif event == "error":
            self.error_node = key

    def _close(self, node: Node, key: str, grad: Any, outs: list) -> None:
        leaf = isinstance(node, AccumulateGrad)
        edges = tuple(
            EdgeFlow(
                slot=i,
                target=self.model.key_of(fn) if fn is not None else None,
                rule=local_rule(node, i),
                contribution=_copy(out) if fn is not None else None,
            )
            for i, ((fn, _), out) in enumerate(zip(node.next_functions, outs))
        )
        self.steps.append(
            Step(
                index=len(self.steps),
                key=key,
                name=type(node).__name__,
                kind="leaf" if leaf else "op",
                upstream=_copy(grad),
                edges=edges,
                grad_before=self.before if leaf else None,
                grad_after=_copy(node.variable._grad) if leaf else None,
                freed=tuple(node.saves) if getattr(node, "_freed", False) and not leaf else (),
            )
        )


def record_backward(
    y: Tensor | Sequence[Tensor],
    gradient: Tensor | None = None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    inputs: Any = None,
    names: dict[str, Tensor] | None = None,
) -> BackwardRecording:
    """Run ``y.backward(gradient, retain_graph, create_graph, inputs)`` and record it.

    If backward raises, the same exception propagates, with the recording (its ``error`` says
    which node refused) attached as ``exception.recording``. Leaves are named after the
    caller's variables; ``names={"w": w}`` adds or overrides names.

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
    outputs = [y] if isinstance(y, Tensor) else list(y)
    known = caller_names(2)
    known.update({id(t): name for name, t in (names or {}).items()})
    model = GraphModel.from_roots(*outputs)
    recording = BackwardRecording(
        nodes=_snapshot(model, known),
        roots=list(model.roots),
        retain_graph=create_graph if retain_graph is None else bool(retain_graph),
        create_graph=create_graph,
    )
    recorder = _Recorder(model)
    previous, graph._observer = graph._observer, recorder
    try:
        from ..autograd import backward

        backward(outputs, gradient, retain_graph, create_graph, inputs=inputs)
    except Exception as error:
        key = recorder.error_node
        recording.error = RecordedError(
            type=type(error).__name__, message=str(error), key=key, name=model[key].label if key else None
        )
        recording.steps = recorder.steps
        error.recording = recording  # type: ignore[attr-defined]
        raise
    finally:
        graph._observer = previous
    recording.steps = recorder.steps
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
