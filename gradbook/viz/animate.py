"""Frames that animate a recorded backward pass, all on one fixed layout.

The graph is laid out once, with every label at the widest text it will ever show; a frame only
restyles that SVG: the running node is highlighted, edges that have carried a gradient show it,
and each leaf shows its ``.grad`` as of that step. Node and edge positions are therefore identical
in every frame, and nothing jumps while the animation plays.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from html import escape
from typing import Any

import numpy as np

from .draw import ROLE_COLOURS, value_text
from .record import BackwardRecording

SVG_NS = "http://www.w3.org/2000/svg"
ET.register_namespace("", SVG_NS)
ET.register_namespace("xlink", "http://www.w3.org/1999/xlink")

# the drawing's colours for the roles (see draw.ROLE_COLOURS), and the animation's own states
COLOURS = {
    "leaf": ROLE_COLOURS["leaf"][0],
    "op": ROLE_COLOURS["op"][0],
    "root": ROLE_COLOURS["output"][0],
    "retains": ROLE_COLOURS["retain_grad"][0],
    "freed": ROLE_COLOURS["freed"][0],
    "tensor": ROLE_COLOURS["constant"][0],
    "running": "#ffd54f",  # the node this frame's step ran
    "error": "#ff8a80",  # the node a refused backward stopped at
    "edge": "#9e9e9e",
    "flowed": "#1e88e5",  # an edge that has carried a gradient
}


def short_value(value: np.ndarray | None) -> str:
    """A value on one line, in torch's number format: ``4.``, ``[4., 6.]``, or the shape and mean
    for a tensor too big to show in full (``value_text`` of the drawing, made short for edges).

    >>> short_value(np.array(4.0, dtype=np.float32)), short_value(np.array([4, 6], dtype=np.float32))
    ('4.', '[4., 6.]')
    >>> short_value(np.arange(100, dtype=np.float32))
    '[100] mean 49.5000'
    """
    if value is None:
        return "None"
    a = np.asarray(value)
    text, summarised = value_text(a)
    if summarised:
        return f"{list(a.shape)} {text.split('  ')[0]}"
    return " ".join(line.strip() for line in text.split("\n"))


class Animation:
    """The frames of one recorded backward pass.

    Frame 0 is the graph before the pass; frame k shows it after step k (the node that ran is
    highlighted); a refused pass ends with a frame showing the node that refused.

    >>> import gradbook as torch
    >>> from gradbook.viz import record_backward, animate
    >>> x = torch.tensor(2.0, requires_grad=True)
    >>> anim = animate(record_backward(x * x))
    >>> len(anim)
    3
    """

    def __init__(self, recording: BackwardRecording, renderer: str | None = None) -> None:
        self.recording = recording
        self._states = _states(recording)
        texts = {
            slot: max((s[slot] for s in self._states), key=len) for slot in self._states[0] if slot.endswith(".text")
        }
        svg = _layout_svg(recording, texts, renderer)
        self._chunks, self._slots = _template(svg, self._states[0])

    def __len__(self) -> int:
        return len(self._states)

    def frame_svg(self, i: int) -> str:
        """Frame ``i`` as an SVG document (no XML prolog, ready to embed in HTML)."""
        state = self._states[i]
        parts = [self._chunks[0]]
        for slot, chunk in zip(self._slots, self._chunks[1:]):
            parts.append(escape(state[slot], quote=True))
            parts.append(chunk)
        return "".join(parts)

    def frames_svg(self) -> list[str]:
        """Every frame, in order."""
        return [self.frame_svg(i) for i in range(len(self))]

    def __repr__(self) -> str:
        return f"Animation({len(self)} frames, {len(self.recording.nodes)} nodes)"


def animate(recording: BackwardRecording, renderer: str | None = None) -> Animation:
    """The frames of a recorded backward pass (see :class:`Animation`)."""
    return Animation(recording, renderer)


def _role(node: dict[str, Any]) -> str:
    if node["kind"] in ("leaf", "tensor"):
        return node["kind"]
    if node["freed"]:
        return "freed"
    if node["is_root"]:
        return "root"
    return "retains" if node["retains_grad"] else "op"


def _edges(recording: BackwardRecording) -> list[tuple[str, str, str, int]]:
    """(edge id, input key, consumer key, slot) in a fixed order."""
    edges = []
    for node in recording.nodes:
        for src, slot in node["inputs"]:
            if src is not None:
                edges.append((f"e{len(edges)}", src, node["key"], slot))
    return edges


def _states(recording: BackwardRecording) -> list[dict[str, str]]:
    """For every frame, the value of every slot."""
    edges = _edges(recording)
    edge_of = {(consumer, slot): eid for eid, _, consumer, slot in edges}
    state: dict[str, str] = {}
    for node in recording.nodes:
        key = node["key"]
        state[f"{key}.fill"] = COLOURS[_role(node)]
        state[f"{key}.text"] = f"grad {short_value(node['grad'])}" if node["kind"] == "leaf" else " "
    for eid, *_ in edges:
        state[f"{eid}.stroke"] = COLOURS["edge"]
        state[f"{eid}.text"] = " "
    frames = [dict(state)]
    for step in recording.steps:
        previous = step.index and recording.steps[step.index - 1].key
        if previous:
            state[f"{previous}.fill"] = COLOURS[_role(recording.node(previous))]
        state[f"{step.key}.fill"] = COLOURS["running"]
        if step.kind == "leaf":
            state[f"{step.key}.text"] = f"grad {short_value(step.grad_after)}"
        else:
            state[f"{step.key}.text"] = f"in {short_value(step.upstream)}"
        for flow in step.edges:
            eid = edge_of.get((step.key, flow.slot))
            if eid is not None and flow.contribution is not None:
                state[f"{eid}.stroke"] = COLOURS["flowed"]
                state[f"{eid}.text"] = short_value(flow.contribution)
        frames.append(dict(state))
    if recording.error is not None and recording.error.key is not None:
        if recording.steps:
            last = recording.steps[-1].key
            state[f"{last}.fill"] = COLOURS[_role(recording.node(last))]
        state[f"{recording.error.key}.fill"] = COLOURS["error"]
        state[f"{recording.error.key}.text"] = "refused"
        frames.append(dict(state))
    return frames


def _dot_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _layout_svg(recording: BackwardRecording, texts: dict[str, str], renderer: str | None) -> str:
    """Lay the graph out once, with each changing line at its widest text, and render it."""
    import graphviz

    from .render import render

    dot = graphviz.Digraph(
        "backward", graph_attr={"rankdir": "BT"}, node_attr={"fontname": "Helvetica", "fontsize": "11"}
    )
    for node in recording.nodes:
        key = node["key"]
        title = node["label"] if node["kind"] != "leaf" else "AccumulateGrad"
        name = node["name"]
        first = f"{name} = {short_value(node['data'])}" if name and node["kind"] != "op" else title
        second = title if first != title else (f"{name} = {short_value(node['data'])}" if name else " ")
        label = "\\n".join(_dot_string(t)[1:-1] for t in (first, second, texts[f"{key}.text"]))
        shape = "ellipse" if node["kind"] == "leaf" else "box"
        dot.node(
            key,
            label=label,
            id=key,
            shape=shape,
            style="filled,rounded" if shape == "box" else "filled",
            fillcolor=COLOURS[_role(node)],
        )
    for eid, src, consumer, _slot in _edges(recording):
        dot.edge(src, consumer, id=eid, label=texts[f"{eid}.text"], color=COLOURS["edge"], fontsize="10")
    svg = render(dot, format="svg", renderer=renderer)
    return svg.decode() if isinstance(svg, bytes) else svg


def _template(svg: str, first: dict[str, str]) -> tuple[list[str], list[str]]:
    """Split the laid-out SVG into fixed chunks around the slots that change per frame."""
    root = ET.fromstring(svg)
    tokens: dict[str, str] = {}

    def mark(slot: str) -> str:
        token = f"\x00{len(tokens)}\x00"
        tokens[token] = slot
        return token

    for group in root.iter(f"{{{SVG_NS}}}g"):
        gid, cls = group.get("id"), group.get("class")
        if cls == "node" and f"{gid}.fill" in first:
            shape = next(e for e in group if e.tag.split("}")[1] in ("polygon", "ellipse", "path"))
            shape.set("fill", mark(f"{gid}.fill"))
            texts = [e for e in group if e.tag.endswith("text")]
            if len(texts) >= 3:
                texts[2].text = mark(f"{gid}.text")
        elif cls == "edge" and f"{gid}.stroke" in first:
            for e in group:
                tag = e.tag.split("}")[1]
                if tag == "path":
                    e.set("stroke", mark(f"{gid}.stroke"))
                elif tag == "polygon":
                    token = mark(f"{gid}.stroke")
                    e.set("fill", token)
                    e.set("stroke", mark(f"{gid}.stroke"))
                elif tag == "text":
                    e.text = mark(f"{gid}.text")
    text = ET.tostring(root, encoding="unicode")
    pieces = re.split("(\x00\\d+\x00)", text)
    return pieces[0::2], [tokens[p] for p in pieces[1::2]]
