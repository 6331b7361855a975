"""Frames that animate a recorded backward pass: ``draw()``'s picture, restyled step by step.

The recording holds the drawing of the graph as it was before the call (``draw_model(frames=True)``:
the same DOT, with the texts a step changes marked as slots). It is laid out once, with every
slot at the widest text it will ever show; a frame only restyles that SVG: the running node is
filled in the "running" colour, each edge that carried a gradient is drawn in the "flowed" colour
with that gradient under its label, each ``.grad`` row shows the value as of that step, and the
saved tensors a step released turn "freed". Node and edge positions are identical in every frame,
so nothing jumps while the animation plays, and the colours, labels and legend are draw()'s.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from html import escape

import numpy as np

from .draw import EDGE_COLOUR, ROLE_COLOURS, grad_text, legend_label, value_text
from .record import BackwardRecording

SVG_NS = "http://www.w3.org/2000/svg"
ET.register_namespace("", SVG_NS)
ET.register_namespace("xlink", "http://www.w3.org/1999/xlink")

# one vocabulary with the drawing: each role's colour (draw.ROLE_COLOURS), and the default edge
COLOURS = {role: colour for role, (colour, _) in ROLE_COLOURS.items()} | {"edge": EDGE_COLOUR}
_FLOWED_WIDTH = "2"
_SLOT = re.compile("⟦([^⟧]+)⟧")


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

    Frame 0 is the graph before the pass, as ``draw()`` shows it; frame k shows it after step k
    (the node that ran is highlighted); a refused pass ends with a frame showing the node that
    refused. ``legend=True`` adds draw()'s legend, with the animation's own roles.

    >>> import gradbook as torch
    >>> from gradbook.viz import record_backward, animate
    >>> x = torch.tensor(2.0, requires_grad=True)
    >>> anim = animate(record_backward(x * x))
    >>> len(anim)
    3
    """

    def __init__(self, recording: BackwardRecording, renderer: str | None = None, legend: bool = False) -> None:
        if recording.picture is None:
            raise ValueError("animate() needs a recording made by record_backward() (it holds the picture)")
        self.recording = recording
        self._states = _states(recording)
        widest = _widest(self._states)
        for state in self._states:  # an edge nothing flows along keeps draw()'s label alone
            for slot in [s for s, text in widest.items() if not text]:
                state.pop(slot)
        svg = _layout_svg(recording, widest, renderer, legend)
        self._chunks, self._slots = _template(svg, _line_slots(self._states[0]))

    def __len__(self) -> int:
        return len(self._states)

    def frame_svg(self, i: int) -> str:
        """Frame ``i`` as an SVG document (no XML prolog, ready to embed in HTML)."""
        state = _line_slots(self._states[i])
        parts = [self._chunks[0]]
        for slot, chunk in zip(self._slots, self._chunks[1:]):
            parts.append(escape(state.get(slot, ""), quote=True))
            parts.append(chunk)
        return "".join(parts)

    def frames_svg(self) -> list[str]:
        """Every frame, in order."""
        return [self.frame_svg(i) for i in range(len(self))]

    def to_html(self, path: str | None = None, title: str = "backward(), step by step") -> str:
        """One self-contained HTML page of the animation, for slides or a course site: every frame
        inline, buttons, a slider and Play in a few lines of JavaScript, nothing fetched (it works
        offline, from a file). Written to ``path`` if given; the page is returned.

        >>> import gradbook as torch
        >>> from gradbook.viz import record_backward, animate
        >>> page = animate(record_backward(torch.tensor(2.0, requires_grad=True) ** 2)).to_html()
        >>> page.startswith("<!DOCTYPE html>") and page.count("<svg") == 3
        True
        """
        captions = ["before backward()"] + [f"step {s.index + 1}: {s.name}" for s in self.recording.steps]
        if self.recording.error is not None:
            captions.append(f"refused: {self.recording.error.message}")
        parts = []
        for i, svg in enumerate(self.frames_svg()):
            text = escape(captions[min(i, len(captions) - 1)], quote=True)
            parts.append(f'<div class="frame"{"" if i == 0 else " hidden"} data-caption="{text}">{svg}</div>')
        frames = "".join(parts)
        page = _PAGE.format(title=escape(title), last=len(self) - 1, frames=frames, caption=escape(captions[0]))
        if path is not None:
            with open(path, "w", encoding="utf-8") as file:
                file.write(page)
        return page

    def __repr__(self) -> str:
        return f"Animation({len(self)} frames, {len(self.recording.nodes)} nodes)"


_PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{title}</title>
<style>
body {{ font-family: sans-serif; margin: 1em; }}
.controls {{ display: flex; gap: .5em; align-items: center; margin-bottom: .5em; }}
.frame svg {{ max-width: 100%; height: auto; }}
button {{ font-size: 1em; }}
</style></head>
<body>
<h3>{title}</h3>
<div class="controls">
<button id="first" title="first">|&#9664;</button><button id="back" title="back">&#9664;</button>
<button id="play" title="play">play</button><button id="next" title="forward">&#9654;</button>
<button id="end" title="last">&#9654;|</button>
<input id="step" type="range" min="0" max="{last}" value="0"><span id="caption">{caption}</span>
</div>
{frames}
<script>
const frames = document.querySelectorAll(".frame"), step = document.getElementById("step");
const caption = document.getElementById("caption");
let timer = null;
function show(i) {{
  i = Math.max(0, Math.min(frames.length - 1, i));
  frames.forEach((f, k) => {{ f.hidden = k !== i; }});
  step.value = i; caption.textContent = frames[i].dataset.caption;
}}
function stop() {{ clearInterval(timer); timer = null; document.getElementById("play").textContent = "play"; }}
document.getElementById("first").onclick = () => {{ stop(); show(0); }};
document.getElementById("back").onclick = () => {{ stop(); show(+step.value - 1); }};
document.getElementById("next").onclick = () => {{ stop(); show(+step.value + 1); }};
document.getElementById("end").onclick = () => {{ stop(); show(frames.length - 1); }};
step.oninput = () => {{ stop(); show(+step.value); }};
document.getElementById("play").onclick = () => {{
  if (timer) return stop();
  if (+step.value === frames.length - 1) show(0);
  document.getElementById("play").textContent = "pause";
  timer = setInterval(() => {{ if (+step.value >= frames.length - 1) stop(); else show(+step.value + 1); }}, 700);
}};
</script>
</body></html>
"""


def animate(recording: BackwardRecording, renderer: str | None = None, legend: bool = False) -> Animation:
    """The frames of a recorded backward pass (see :class:`Animation`)."""
    return Animation(recording, renderer, legend)


def _states(recording: BackwardRecording) -> list[dict[str, str]]:
    """For every frame, the value of every slot: ``key.fill``, ``eid.stroke``, ``eid.width``,
    ``key_saved.bg`` (colours), and the texts ``key_grad``, ``key_saved_name``, ``eid``."""
    picture = recording.picture
    assert picture is not None
    state: dict[str, str] = dict(picture.slots)
    for key, fill in picture.fills.items():
        state[f"{key}.fill"] = fill
    for slot, text in picture.slots.items():
        if slot.endswith("_saved_name"):
            state[f"{slot[: -len('_name')]}.bg"] = COLOURS[text]
    for eid in picture.edge_ids.values():
        state[f"{eid}.stroke"] = COLOURS["edge"]
        state[f"{eid}.width"] = "1"
    frames = [dict(state)]
    previous: str | None = None
    for step in recording.steps:
        if previous is not None:
            state[f"{previous}.fill"] = picture.fills[previous]
        state[f"{step.key}.fill"] = COLOURS["running"]
        previous = step.key
        if f"{step.key}_grad" in state and (step.kind == "leaf" or step.grad_after is not None):
            state[f"{step.key}_grad"] = grad_text(step.grad_after)
        for flow in step.edges:
            eid = picture.edge_ids.get((step.key, flow.slot))
            if eid is not None and flow.contribution is not None:
                state[eid] = short_value(flow.contribution)
                state[f"{eid}.stroke"] = COLOURS["flowed"]
                state[f"{eid}.width"] = _FLOWED_WIDTH
        if step.freed and f"{step.key}_saved_name" in state:
            state[f"{step.key}_saved_name"] = "freed"
            state[f"{step.key}_saved.bg"] = COLOURS["freed"]
        frames.append(dict(state))
    if recording.error is not None and recording.error.key is not None:
        if previous is not None:
            state[f"{previous}.fill"] = picture.fills[previous]
        key = recording.error.key
        state[f"{key}.fill"] = COLOURS["refused"]
        if f"{key}_saved_name" in state:  # in words too, not by colour only (a projector, colour blindness)
            state[f"{key}_saved_name"], state[f"{key}_saved.bg"] = "refused", COLOURS["refused"]
        frames.append(dict(state))
    return frames


def _is_text(slot: str) -> bool:
    return "." not in slot


def _widest(states: list[dict[str, str]]) -> dict[str, str]:
    """Each text slot at its widest: line by line, the longest line any frame shows there."""
    widest = {}
    for slot in (s for s in states[0] if _is_text(s)):
        lines: list[str] = []
        for state in states:
            for i, line in enumerate(state[slot].split("\n")):
                if i == len(lines):
                    lines.append(line)
                elif len(line) > len(lines[i]):
                    lines[i] = line
        widest[slot] = "\n".join(lines)
    return widest


def _line_slots(state: dict[str, str]) -> dict[str, str]:
    """A state with each text slot split into its lines (``slot#0``, ``slot#1`` ...)."""
    out = {}
    for slot, value in state.items():
        if _is_text(slot):
            for i, line in enumerate(value.split("\n")):
                out[f"{slot}#{i}"] = line
        else:
            out[slot] = value
    return out


def _layout_svg(recording: BackwardRecording, widest: dict[str, str], renderer: str | None, legend: bool) -> str:
    """Lay the picture out once, each slot at its widest text, and render it."""
    from .render import render

    def fill(match: re.Match) -> str:
        slot = match[1]
        text = widest.get(slot, "")
        if slot.startswith("e"):  # an edge label: a DOT string
            return text.replace("\\", "\\\\").replace('"', '\\"')
        return '<BR ALIGN="LEFT"/>'.join(escape(line, quote=False) for line in text.split("\n"))

    source = recording.picture.source
    source = re.sub(r"\\n⟦(e\d+)⟧", lambda m: "\\n" + fill(m) if widest.get(m[1]) else "", source)
    source = _SLOT.sub(fill, source)
    if legend:
        end = source.rstrip().rfind("}")
        source = source[:end] + f'\tlegend [label={legend_label(frames=True)} id=legend shape=plain style=""]\n}}\n'
    svg = render(source, format="svg", renderer=renderer)
    return svg.decode() if isinstance(svg, bytes) else svg


def _unwrap_links(root: ET.Element) -> None:
    """Graphviz wraps a table cell that has an ID in a link (``<a>``): keep what is inside."""
    for parent in root.iter():
        children = list(parent)
        if not any(c.tag == f"{{{SVG_NS}}}a" for c in children):
            continue
        for child in children:
            parent.remove(child)
        for child in children:
            if child.tag == f"{{{SVG_NS}}}a":
                parent.extend(list(child))
            else:
                parent.append(child)


def _template(svg: str, first: dict[str, str]) -> tuple[list[str], list[str]]:
    """Split the laid-out SVG into fixed chunks around the slots that change per frame."""
    root = ET.fromstring(svg)
    _unwrap_links(root)
    tokens: dict[str, str] = {}

    def mark(slot: str) -> str:
        token = f"\x00{len(tokens)}\x00"
        tokens[token] = slot
        return token

    def tag(e: ET.Element) -> str:
        return e.tag.split("}")[1]

    def mark_lines(elements: list[ET.Element], slot: str) -> None:
        for i, e in enumerate(elements):
            if f"{slot}#{i}" in first:
                e.text = mark(f"{slot}#{i}")

    for group in root.iter(f"{{{SVG_NS}}}g"):
        gid, cls = group.get("id") or "", (group.get("class") or "").partition(" ")[0]  # draw adds its roles
        texts = [e for e in group if tag(e) == "text"]
        if cls == "node" and f"{gid}.fill" in first:
            shape = next(e for e in group if tag(e) in ("polygon", "ellipse", "path"))
            shape.set("fill", mark(f"{gid}.fill"))
        elif cls == "edge" and f"{gid}.stroke" in first:
            for e in group:
                if tag(e) == "path":
                    e.set("stroke", mark(f"{gid}.stroke"))
                    e.set("stroke-width", mark(f"{gid}.width"))
                elif tag(e) == "polygon":
                    e.set("fill", mark(f"{gid}.stroke"))
                    e.set("stroke", mark(f"{gid}.stroke"))
            if f"{gid}#0" in first and texts:
                texts[-1].text = mark(f"{gid}#0")
        elif gid.startswith("a_") and gid.endswith("_grad_value"):
            mark_lines(texts, gid[2 : -len("_value")])
        elif gid.startswith("a_") and gid.endswith(("_saved_name", "_saved_value")):
            key = gid[2:].rsplit("_", 1)[0]  # n0_saved
            for e in group:
                if tag(e) == "polygon":
                    e.set("fill", mark(f"{key}.bg"))
            if gid.endswith("_name"):
                mark_lines(texts, gid[2:])
    text = ET.tostring(root, encoding="unicode")
    pieces = re.split("(\x00\\d+\x00)", text)
    return pieces[0::2], [tokens[p] for p in pieces[1::2]]
