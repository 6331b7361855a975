"""BackwardPlayer: one backward pass, step by step, with the chain-rule ledger beside the graph."""

from __future__ import annotations

import html
from typing import Any

import ipywidgets as w
import numpy as np

from .. import Tensor, draw
from ..language import translate
from ..viz import BackwardRecording, animate, record_backward
from ..viz.animate import COLOURS, short_value
from ..viz.model import tensor_names
from ._common import StaticFallback, collector_paused, drawing_svg, error_html
from ._frontend import AnimationView, picture_payload
from ._zh import ZH

# graphs this big are drawn once, collapsed (gradbook.draw's summary view), instead of animated:
# the browser plays any size, but Graphviz's layout of 1,000 nodes already takes about 2 s here
MAX_ANIMATED_NODES = 1000

_TD = 'style="padding:1px 6px;border-bottom:1px solid #eee;vertical-align:top"'


def _node_title(recording: BackwardRecording, key: str | None) -> str:
    if key is None:
        return translate("constant", ZH)
    node = recording.node(key)
    if node["kind"] == "leaf":
        return f"{node['name'] or key} (AccumulateGrad)"
    return f"{node['label']}" + (f" → {node['name']}" if node["name"] else "")


def _local_number(upstream: Any, contribution: Any) -> str:
    """`` = <value>`` of the local derivative where the recording shows it elementwise: the
    contribution divided by the upstream gradient, when the two have one shape and the upstream
    has no zero (a matrix rule, or a broadcast, keeps its rule text alone)."""
    if upstream is None or contribution is None:
        return ""
    up, out = np.asarray(upstream), np.asarray(contribution)
    if up.shape != out.shape or not np.all(up != 0):
        return ""
    return " = " + short_value(out / up)


def ledger_frames(recording: BackwardRecording) -> list[str]:
    """For each frame of ``animate(recording)``: the chain rule at the node that ran (upstream
    gradient, local rule and contribution per input, running sums at fan-in) as HTML."""
    frames = []
    seed = short_value(recording.steps[0].upstream) if recording.steps else "?"
    frames.append(
        _box(
            "before backward()",
            translate(
                f"<p>The output receives the gradient <code>{html.escape(seed)}</code> "
                "(<code>gradient=</code>, or 1 for a scalar). Each step runs one node: "
                "<b>upstream × local = contribution</b> for each of its inputs.</p>",
                ZH,
            ),
        )
    )
    local = translate("local", ZH)
    for step in recording.steps:
        rows = []
        upstream = html.escape(short_value(step.upstream))
        if step.kind == "leaf":
            before = "None" if step.grad_before is None else short_value(step.grad_before)
            rows.append(
                f"<tr><td {_TD}>.grad</td><td {_TD}><code>{html.escape(before)}</code> + "
                f"<code>{upstream}</code> = "
                f"<code>{html.escape(short_value(step.grad_after))}</code></td></tr>"
            )
        for flow in step.edges:
            if flow.contribution is None:  # a constant, or an input that needs no gradient
                sums = translate("no gradient sent", ZH)
            else:
                contribution = html.escape(short_value(flow.contribution))
                sums = f"<code>{upstream}</code> × {local} = <code>{contribution}</code>"
            rule = flow.rule + _local_number(step.upstream, flow.contribution)
            rows.append(
                f"<tr><td {_TD}>→ {html.escape(_node_title(recording, flow.target))}</td>"
                f"<td {_TD}>{local} <code>{html.escape(rule)}</code><br>{sums}</td></tr>"
            )
        for s in step.sums:
            rows.append(
                f"<tr><td {_TD}>{html.escape(translate(f'Σ at {_node_title(recording, s.target)}', ZH))}</td><td {_TD}>"
                f"<code>{html.escape(short_value(s.before))}</code> + <code>{html.escape(short_value(s.added))}</code>"
                f" = <code>{html.escape(short_value(s.total))}</code></td></tr>"
            )
        if step.freed:
            freed, saved = translate("freed", ZH), translate(f"saved {', '.join(step.freed)}", ZH)
            rows.append(f"<tr><td {_TD}>{freed}</td><td {_TD}>{html.escape(saved)}</td></tr>")
        body = (
            f"<p>{translate('upstream gradient', ZH)} <code>{upstream}</code></p>"
            f'<table style="border-collapse:collapse;font-size:12px">{"".join(rows)}</table>'
        )
        frames.append(_box(f"step {step.index + 1}: {_node_title(recording, step.key)}", body))
    if recording.error is not None and recording.error.key is not None:
        frames.append(
            _box(f"refused at {recording.error.name}", error_html(recording.error.message, kind=recording.error.type)),
        )
    return frames


def leaf_grads(recording: BackwardRecording) -> tuple[list[list[str]], list[list[Any]]]:
    """Every leaf's name and ``.grad`` before the pass, and per frame the leaves whose ``.grad``
    changed (a flat ``[leaf number, value, ...]`` list): the player's leaf panel."""
    leaves = [n for n in recording.nodes if n["kind"] == "leaf"]
    number = {n["key"]: i for i, n in enumerate(leaves)}
    diffs: list[list[Any]] = [[]]
    for step in recording.steps:
        changed = step.kind == "leaf" and step.key in number
        diffs.append([number[step.key], short_value(step.grad_after)] if changed else [])
    if recording.error is not None and recording.error.key is not None:
        diffs.append([])
    return [[n["name"] or n["key"], short_value(n["grad"])] for n in leaves], diffs


def _box(title: str, body: str) -> str:
    """One frame of the ledger: its title (in the language set) above ``body``."""
    return f'<div class="gradbook-ledger" style="font-size:12px"><b>{html.escape(translate(title, ZH))}</b>{body}</div>'


class BackwardPlayer(StaticFallback, w.VBox):
    """One backward pass, step by step: the graph with the running node highlighted, the
    chain-rule ledger, and each leaf's ``.grad``. Frames are precomputed, so ``Play`` runs in the
    browser without the kernel (and in exported HTML).

    ``BackwardPlayer(y)`` runs ``y.backward(gradient, retain_graph)`` once and records it;
    ``BackwardPlayer(recording)`` plays a ``gradbook.viz.record_backward`` result. A refused
    backward is played up to the node that refused, and its error is shown in the widget.

    >>> import gradbook as torch
    >>> from gradbook.widgets import BackwardPlayer
    >>> x = torch.tensor(2.0, requires_grad=True)
    >>> player = BackwardPlayer(x * x)
    >>> player
    BackwardPlayer(3 frames, frame 0)
    >>> player.step(1); player.current_step.name
    'MulBackward0'
    """

    def __init__(
        self,
        y_or_recording: Tensor | BackwardRecording,
        gradient: Tensor | None = None,
        retain_graph: bool | None = None,
        max_nodes: int = MAX_ANIMATED_NODES,
    ) -> None:
        with collector_paused():
            self._build(y_or_recording, gradient, retain_graph, max_nodes)
        super().__init__([self.view, self.status])
        self.add_class("gradbook-backward-player")  # for styling, and for the browser test to find it

    def _build(self, y_or_recording: Any, gradient: Any, retain_graph: bool | None, max_nodes: int) -> None:
        """Record the pass (from a tensor), and make the frames, the ledger and the leaf panels."""
        self.error: str | None = None
        self.status = w.HTML(error_html(None))
        collapsed: str | None = None
        if isinstance(y_or_recording, BackwardRecording):
            recording = y_or_recording
        elif not hasattr(y_or_recording, "grad_fn"):
            raise TypeError(
                "BackwardPlayer takes the tensor to run backward() from (gradbook's or torch's), or a "
                f"BackwardRecording; got {type(y_or_recording).__name__}"
            )
        else:
            names = tensor_names(None, 3)  # the variables of __init__'s caller, named by draw()'s rule
            try:
                recording = record_backward(y_or_recording, gradient, retain_graph, names=names, stacklevel=0)
            except Exception as error:
                recording = getattr(error, "recording", None)
                if recording is None:
                    raise
            if len(recording.nodes) >= max_nodes:
                collapsed = drawing_svg(draw(y_or_recording, names=names, stacklevel=0, max_nodes=max_nodes))
        self.recording = recording
        if recording.error is not None:
            self.error = recording.error.message
            self.status.value = error_html(self.error, kind=recording.error.type)
        if collapsed is None and len(recording.nodes) >= max_nodes:
            too_many = translate(f"{len(recording.nodes)} nodes: too many to animate here (see gradbook.draw)", ZH)
            collapsed = f"<p>{too_many}</p>"
        ledger = ledger_frames(recording)
        leaves, leaf_diffs = leaf_grads(recording)
        panels = {"ledger": ledger, "leaves": leaves, "leaf_diffs": leaf_diffs}
        self.view = AnimationView()
        if collapsed is not None:  # one drawing of the large graph (collapsed), and the steps beside it
            payload = picture_payload(collapsed, **panels)
            payload["diffs"] = [[] for _ in ledger]
            payload["captions"] = [""] * len(ledger)
            self.view.show(payload, lambda i: collapsed)
        else:
            animation = animate(recording)
            self.view.show(animation.payload() | panels, animation.frame_svg)

    # ---- driving it from Python (the step buttons call these) ----

    def step(self, delta: int = 1) -> None:
        """Move ``delta`` frames forward (or back, when negative)."""
        self.view.step(delta)

    def go(self, index: int) -> None:
        """Show frame ``index``: 0 is before backward, k is after step k."""
        self.view.go(index)

    def __len__(self) -> int:
        return len(self.view)

    @property
    def frame(self) -> int:
        return self.view.frame

    @property
    def current_svg(self) -> str:
        """The current frame's graph (an SVG), as the browser shows it."""
        return self.view.current_svg

    @property
    def current_ledger(self) -> str:
        return self.view.panel("ledger")

    @property
    def current_leaves(self) -> str:
        """Every leaf's ``.grad`` as of the current frame (an HTML table)."""
        return self.view.panel("leaves")

    @property
    def current_step(self) -> Any:
        """The recorded ``Step`` shown in the current frame (None for frame 0 or the error frame)."""
        i = self.frame - 1
        return self.recording.steps[i] if 0 <= i < len(self.recording.steps) else None

    @property
    def highlighted(self) -> str | None:
        """The key of the node drawn as running in the current frame."""
        step = self.current_step
        return step.key if step is not None else None

    def static_html(self) -> str:
        return self.view.static_html() + self.status.value

    def __repr__(self) -> str:
        error = ", refused" if self.error else ""
        return f"BackwardPlayer({len(self)} frames, frame {self.frame}{error})"


RUNNING_FILL = COLOURS["running"]
