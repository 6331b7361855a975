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

import io
import json
import re
import xml.etree.ElementTree as ET
from collections.abc import Iterable
from html import escape, unescape
from importlib import resources

import numpy as np

from .draw import EDGE_COLOUR, ROLE_COLOURS, STATE_ROLES, grad_text, legend_label, value_text, word
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
        base, self._changes = _changes(recording)  # frame 0's slots; per frame, the slots it sets
        widest = _widest(base, self._changes)
        for slot in [s for s, text in widest.items() if not text]:  # an edge nothing flows along
            base.pop(slot)  # keeps draw()'s label alone
            for change in self._changes:
                change.pop(slot, None)
        self._lines = {slot: text.count("\n") + 1 for slot, text in widest.items() if text}
        self._base = self._split(base)
        self._cache = (0, dict(self._base))  # the last frame asked for, and its state
        svg = _layout_svg(recording, widest, renderer, legend)
        self._chunks, self._slots, self._live = _template(svg, self._base)

    def _split(self, state: dict[str, str]) -> dict[str, str]:
        """Slots as the SVG has them: each text slot as its lines ``slot#0``, ``slot#1``... (as
        many as its widest text, the missing ones empty), colours as they are."""
        out = {}
        for slot, value in state.items():
            if _is_text(slot):
                lines = value.split("\n")
                for i in range(self._lines.get(slot, len(lines))):
                    out[f"{slot}#{i}"] = lines[i] if i < len(lines) else ""
            else:
                out[slot] = value
        return out

    def _state(self, i: int) -> dict[str, str]:
        """Every slot's value in frame ``i``: frame 0's, with frames 1..i's changes applied."""
        at, state = self._cache
        if i < at:
            at, state = 0, dict(self._base)
        for k in range(at + 1, i + 1):
            state.update(self._split(self._changes[k]))
        self._cache = (i, state)
        return dict(state)

    def __len__(self) -> int:
        return len(self._changes)

    def frame_svg(self, i: int) -> str:
        """Frame ``i`` as an SVG document (no XML prolog, ready to embed in HTML)."""
        state = self._state(i)
        parts = [self._chunks[0]]
        for slot, chunk in zip(self._slots, self._chunks[1:]):
            parts.append(escape(state.get(slot, ""), quote=True))
            parts.append(chunk)
        return "".join(parts)

    def frames_svg(self) -> list[str]:
        """Every frame, in order."""
        return [self.frame_svg(i) for i in range(len(self))]

    def captions(self) -> list[str]:
        """One line per frame: what it shows, in the language of ``gradbook.set_language``."""
        captions = ["before backward()"] + [f"step {s.index + 1}: {s.name}" for s in self.recording.steps]
        if self.recording.error is not None and self.recording.error.key is not None:
            captions.append(f"refused at {self.recording.error.name}: {self.recording.error.message}")
        return [word(c) for c in captions[: len(self)]]

    def payload(self) -> dict:
        """What the browser's player needs (``gradbook/viz/static/player.js``): the SVG laid out
        once, with every element a frame changes marked ``data-gb="k"``; per slot, the elements
        and attributes (or ``"text"``) it sets and its value in frame 0; per frame, only the slots
        that change, as a flat ``[slot, value, ...]`` list. Its size grows as nodes + steps ×
        changes, not nodes × steps.

        >>> import gradbook as torch
        >>> from gradbook.viz import record_backward, animate
        >>> x = torch.tensor(2.0, requires_grad=True)
        >>> p = animate(record_backward(x * x)).payload()
        >>> len(p["diffs"]), p["diffs"][0], p["running"]
        (3, [], [None, 'n0', 'n1'])
        """
        svg, targets = self._live
        index = {name: i for i, name in enumerate(targets)}
        diffs: list[list] = [[]]
        for change in self._changes[1:]:
            split = self._split(change)
            diffs.append([x for name, value in split.items() if name in index for x in (index[name], value)])
        running = [None] + [step.key for step in self.recording.steps]
        if len(running) < len(self):
            running.append(self.recording.error.key if self.recording.error is not None else None)
        return {
            "svg": svg,
            "targets": list(targets.values()),
            "base": [self._base.get(name, "") for name in targets],
            "diffs": diffs,
            "captions": self.captions(),
            "running": running,
            "height": graph_height(svg),
        }

    def to_html(self, path: str | None = None, title: str = "backward(), step by step") -> str:
        """One self-contained HTML page of the animation, for slides or a course site: the graph
        once, each step's changes, and the notebook widget's own player (steps, Play, slider, pan,
        zoom, focus) inline; nothing is fetched, so it works offline, from a file. Written to
        ``path`` if given; the page is returned.

        >>> import gradbook as torch
        >>> from gradbook.viz import record_backward, animate
        >>> page = animate(record_backward(torch.tensor(2.0, requires_grad=True) ** 2)).to_html()
        >>> page.startswith("<!DOCTYPE html>") and page.count("<svg") == 1
        True
        """
        data = json.dumps(self.payload(), separators=(",", ":"), ensure_ascii=False).replace("</", "<\\/")
        page = _PAGE.format(
            title=escape(title),
            data=data,
            script=player_script("JSON.parse(document.getElementById('gradbook-data').textContent)", 0, 700),
        )
        if path is not None:
            with open(path, "w", encoding="utf-8") as file:
                file.write(page)
        return page

    def to_gif(
        self,
        path: str | None = None,
        scale: float = 1.0,
        interval: int = 800,
        frames: Iterable[int] | None = None,
        caption: bool = True,
    ) -> bytes:
        """An animated GIF of the pass, for slides that take no HTML: each frame rasterised by
        ``gradbook.viz.raster`` (Pillow, no browser), its caption above it, ``interval`` ms per
        frame and the last held three times as long, looping. ``scale`` is pixels per CSS pixel
        (2 for a sharp projector), ``frames`` a selection (e.g. ``range(0, len(a), 5)``). Written
        to ``path`` if given; the GIF's bytes are returned.

        >>> import gradbook as torch
        >>> from gradbook.viz import record_backward, animate
        >>> gif = animate(record_backward(torch.tensor(2.0, requires_grad=True) ** 2)).to_gif()
        >>> gif[:6]
        b'GIF89a'
        """
        from PIL import Image, ImageDraw

        from .raster import _font, image_size, svg_to_image

        if not isinstance(scale, (int, float)) or isinstance(scale, bool) or not 0 < scale <= 8:
            raise ValueError(f"to_gif() got scale={scale!r}; use a number of pixels per CSS pixel, above 0, up to 8")
        if not isinstance(interval, int) or isinstance(interval, bool) or interval < 20:
            raise ValueError(
                f"to_gif() got interval={interval!r}; use the milliseconds per frame, an int of 20 or more"
            )
        chosen = list(range(len(self))) if frames is None else list(frames)
        bad = [i for i in chosen if not isinstance(i, int) or isinstance(i, bool) or not 0 <= i < len(self)]
        if bad or not chosen:
            got = repr(bad[0]) if bad else "[] (none)"
            raise ValueError(f"to_gif() got frame {got}; this animation has frames 0 to {len(self) - 1}")
        first = self.frame_svg(chosen[0])
        width, height = image_size(first, scale)
        if width * height * len(chosen) > 4e8:
            raise ValueError(
                f"to_gif() would rasterise {len(chosen)} frames of {width}×{height} pixels; "
                "pass frames=range(0, len(animation), k) or a smaller scale, or use to_html() for a graph this big"
            )
        band = round(22 * scale) if caption else 0
        font = _font("Helvetica", False, round(13 * scale))
        texts = self.captions()
        images = []
        for i in chosen:
            graph = svg_to_image(self.frame_svg(i), scale)
            image = Image.new("RGB", (graph.size[0], graph.size[1] + band), "white")
            image.paste(graph, (0, band))
            if caption:
                ImageDraw.Draw(image).text(
                    (round(6 * scale), band // 2), texts[i], fill="#252525", font=font, anchor="lm"
                )
            images.append(image.quantize(colors=96, method=Image.Quantize.FASTOCTREE))
        durations = [interval] * (len(images) - 1) + [interval * 3]
        buffer = io.BytesIO()
        images[0].save(buffer, format="GIF", save_all=True, append_images=images[1:], duration=durations, loop=0)
        data = buffer.getvalue()
        if path is not None:
            with open(path, "wb") as file:
                file.write(data)
        return data

    def __repr__(self) -> str:
        return f"Animation({len(self)} frames, {len(self.recording.nodes)} nodes)"


def graph_height(svg: str) -> int:
    """The player's graph box height in px: the drawing at about its natural size, 180 to 520 px."""
    found = re.search(r'viewBox="[\d.\-]+[ ,]+[\d.\-]+[ ,]+([\d.]+)[ ,]+([\d.]+)"', svg[:2000])
    natural = float(found[2]) if found else 360.0
    return int(min(520, max(180, natural + 12)))


PLAYER_JS = (resources.files("gradbook.viz") / "static" / "player.js").read_text(encoding="utf-8")


def player_script(data: str, frame: int, interval: int) -> str:
    """JavaScript that runs the player in the element holding the script, without a kernel:
    ``data`` is an expression giving the payload (an object, or its gzipped bytes); where the
    browser cannot run it, the element keeps what it shows (a still picture)."""
    return (
        "(function () {\n" + PLAYER_JS + "\n"
        "const here = document.currentScript && document.currentScript.parentElement;\n"
        "if (!here || typeof DecompressionStream === 'undefined') return;\n"
        f"const values = {{ data: {data}, frame: {int(frame)}, interval: {int(interval)}, autoplay: 0 }};\n"
        "const model = { get: (k) => values[k], set: (k, v) => { values[k] = v; }, save_changes() {}, on() {} };\n"
        "const el = document.createElement('div');\n"
        "here.appendChild(el);\n"
        "const still = here.querySelector('.gradbook-still');\n"
        "if (still) still.style.display = 'none';\n"
        "gradbookPlayer(model, el);\n"
        "})();"
    )


_PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{title}</title>
<style>body {{ font-family: sans-serif; margin: 1em; }}</style></head>
<body>
<h3>{title}</h3>
<script type="application/json" id="gradbook-data">{data}</script>
<div id="gradbook-animation"><script>{script}</script></div>
</body></html>
"""


def animate(recording: BackwardRecording, renderer: str | None = None, legend: bool = False) -> Animation:
    """The frames of a recorded backward pass (see :class:`Animation`)."""
    return Animation(recording, renderer, legend)


def _changes(recording: BackwardRecording) -> tuple[dict[str, str], list[dict[str, str]]]:
    """Frame 0's value of every slot: ``key.fill``, ``eid.stroke``, ``eid.width``, ``key_saved.bg``
    (colours), and the texts ``key_grad``, ``key_saved_name``, ``eid``; then, for every frame,
    only the slots that frame sets (frame 0's is empty). Nodes + steps × changes, never nodes × steps."""
    picture = recording.picture
    assert picture is not None
    base: dict[str, str] = dict(picture.slots)
    for key, fill in picture.fills.items():
        base[f"{key}.fill"] = fill
    for slot, text in picture.slots.items():
        if slot.endswith("_saved_name"):
            base[f"{slot[: -len('_name')]}.bg"] = COLOURS[STATE_ROLES.get(text, text)]  # its name in either language
    for eid in picture.edge_ids.values():
        base[f"{eid}.stroke"] = COLOURS["edge"]
        base[f"{eid}.width"] = "1"
    changes: list[dict[str, str]] = [{}]
    previous: str | None = None
    for step in recording.steps:
        change: dict[str, str] = {}
        if previous is not None:
            change[f"{previous}.fill"] = picture.fills[previous]
        change[f"{step.key}.fill"] = COLOURS["running"]
        previous = step.key
        if f"{step.key}_grad" in base and (step.kind == "leaf" or step.grad_after is not None):
            change[f"{step.key}_grad"] = grad_text(step.grad_after)
        for flow in step.edges:
            eid = picture.edge_ids.get((step.key, flow.slot))
            if eid is not None and flow.contribution is not None:
                change[eid] = short_value(flow.contribution)
                change[f"{eid}.stroke"] = COLOURS["flowed"]
                change[f"{eid}.width"] = _FLOWED_WIDTH
        if step.freed and f"{step.key}_saved_name" in base:
            change[f"{step.key}_saved_name"] = word("freed")
            change[f"{step.key}_saved.bg"] = COLOURS["freed"]
        changes.append(change)
    if recording.error is not None and recording.error.key is not None:
        change = {}
        if previous is not None:
            change[f"{previous}.fill"] = picture.fills[previous]
        key = recording.error.key
        change[f"{key}.fill"] = COLOURS["refused"]
        if f"{key}_saved_name" in base:  # in words too, not by colour only (a projector, colour blindness)
            change[f"{key}_saved_name"], change[f"{key}_saved.bg"] = word("refused"), COLOURS["refused"]
        changes.append(change)
    return base, changes


def _is_text(slot: str) -> bool:
    return "." not in slot


def _widest(base: dict[str, str], changes: list[dict[str, str]]) -> dict[str, str]:
    """Each text slot at its widest: line by line, the longest line any frame shows there."""
    widest: dict[str, list[str]] = {slot: [] for slot in base if _is_text(slot)}
    for state in (base, *changes):
        for slot, value in state.items():
            if slot not in widest:
                continue
            lines = widest[slot]
            for i, line in enumerate(value.split("\n")):
                if i == len(lines):
                    lines.append(line)
                elif len(line) > len(lines[i]):
                    lines[i] = line
    return {slot: "\n".join(lines) for slot, lines in widest.items()}


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


# The frames are cut from the text ``ET.tostring`` writes for the laid-out SVG read by
# ElementTree, its links unwrapped. Reading 13 MB (5,000 nodes) into a tree and writing it back
# took most of a second, so for SVG as the renderers write it _written makes that text with a few
# string edits and _groups finds the elements the frames change in one pass over its tags, checking
# that each is written as ElementTree writes tags. ElementTree stays the reference: any other SVG
# is read into a tree as before.

_SVG, _XLINK = {("", SVG_NS)}, {("xlink", "http://www.w3.org/1999/xlink")}  # namespace declarations
_ROOT = re.compile(r"""<svg(?:\s+[^\s=>]+\s*=\s*(?:"[^"]*"|'[^']*'))*\s*>""")
_DECLARATION = re.compile(r'\sxmlns(?::([\w.-]+))?="([^"]*)"')
_REFERENCE = re.compile("&(?:#([0-9]+)|#x([0-9a-fA-F]+)|(quot|apos));")
_OTHER_REFERENCE = re.compile("&(?!(?:amp|lt|gt);)")  # one ElementTree does not write back as it is
_UNDEFINED = re.compile("&(?!(?:amp|lt|gt|quot);)")
# a character as ElementTree writes it: in an attribute (its _escape_attrib), in text (_escape_cdata)
_IN_ATTRIBUTE = {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "\r": "&#13;", "\n": "&#10;", "\t": "&#09;"}
_IN_TEXT = {"&": "&amp;", "<": "&lt;", ">": "&gt;"}

# a tag as ElementTree writes it (name="value" attributes, one space before each, " />" or ">"),
# in the SVG namespace: a group's start tag (groups 1 to 4: its id and class when first and without
# "&", its other attributes, " />"); an end tag (5: its name); another start tag then " />" (6, 7),
# then its text and end tag (6, 9), or then neither (6); else "<x></x>" (written "<x />", 8), a
# character XML does not allow, or a "<" or ">" outside a tag (10)
_NOT_XML = "\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff"
_ATTRIBUTES = rf'(?: [^ \t\n=/>{_NOT_XML}]+="[^"<>\t\n{_NOT_XML}]*")*'
_ITEM = re.compile(
    rf'<(?:g(?=[ />])(?: id="([^&"<>\t\n{_NOT_XML}]*)")?(?: class="([^&"<>\t\n{_NOT_XML}]*)")?({_ATTRIBUTES})'
    rf"(?:( />)|>(?!</))|/([^ \t\n/>]+)>|([^ \t\n/>!?:{_NOT_XML}][^ \t\n/>:{_NOT_XML}]*){_ATTRIBUTES}"
    rf"(?:( />)|>(?:(?=(</))|[^<>{_NOT_XML}]+(</)\6>)?))|([<>{_NOT_XML}])"
)
_ATTRIBUTE = re.compile(r' ([^\s=]+)="([^"]*)"')
_CHANGED = ("polygon", "ellipse", "path", "text")  # the elements the frames change
_COMMENT = f"!--[^-{_NOT_XML}]*(?:-[^-{_NOT_XML}]+)*-->"  # (after its "<")
# a comment; or a link's tag, and the text after it (the link's text, or its tail: to the next tag)
_CUT = re.compile(f"<(?:{_COMMENT}|/?a{_ATTRIBUTES}>(?:[^<{_NOT_XML}]+|<{_COMMENT})*)")
_LINK_TAG = re.compile(f"<(?:{_COMMENT}|(/?a)(?=[ />]))")  # "a", "/a" for each link's tag outside comments


def _character(reference: re.Match) -> str:
    """A character reference (``&#45;``, ``&#160;``, ``&quot;``...) as ElementTree writes its
    character back: ``-``, a no-break space, ``"`` in text but ``&quot;`` in an attribute. One
    that XML does not allow stays, for ElementTree to refuse."""
    number, hexadecimal, name = reference.groups()
    if name:
        char = '"' if name == "quot" else "'"
    else:
        code = int(number) if number else int(hexadecimal, 16)
        allowed = code in (0x9, 0xA, 0xD) or 0x20 <= code <= 0x10FFFF  # XML's Char, less the below
        if not allowed or 0xD800 <= code <= 0xDFFF or code in (0xFFFE, 0xFFFF):
            return reference[0]
        char = chr(code)
    svg, end = reference.string, reference.end()
    in_tag = svg.find(">", end) < svg.find("<", end)  # (a ">" outside a tag sends the SVG to ElementTree)
    return (_IN_ATTRIBUTE if in_tag else _IN_TEXT).get(char, char)


def _written(svg: str) -> str | None:
    """What ``ET.tostring`` writes for ``svg`` read by ElementTree and unwrapped by
    ``_unwrap_links``, made by string edits; None for an SVG they do not cover.

    The edits are ElementTree's own: the root tag as it writes it (namespaces first), comments
    dropped, a character reference written as its character (``&#45;`` as ``-``), escaped as it
    escapes it, ``/>`` written ``" />"``, and each link cut out with the text inside it and after
    it. They cover SVG as dot, graphviz-pure and layered_svg write it: in the SVG namespace (the
    links' attributes in xlink's), no link in a link, and every other tag written as ElementTree
    writes tags, which _groups checks (with the rest: one root, no DOCTYPE, CDATA or processing
    instruction, no character XML does not allow). What the edits drop is not checked further."""
    root = _ROOT.match(svg)
    if root is None or "\r" in svg:  # the parser reads "\r\n" as "\n"
        return None
    declared = set(_DECLARATION.findall(root[0]))
    if root[0].count("xmlns") != len(declared) or not _SVG <= declared <= _SVG | _XLINK:
        return None  # not the SVG namespace by default, or other namespaces than the links' (xlink)
    head = ET.tostring(ET.fromstring(root[0] + "</svg>"), encoding="unicode")  # <svg xmlns="..." ... />
    end = len(svg)
    while svg[end - 1] in " \t\n":  # white space after the root
        end -= 1
    rest = svg[root.end() : end]
    links = "".join(_LINK_TAG.findall(rest))
    if links != "a/a" * (len(links) // len("a/a")):
        return None  # a link in a link (_unwrap_links keeps the inner one), or an empty "<a/>"
    rest = _CUT.sub("", rest)
    if not rest.endswith("</svg>") or rest == "</svg>" or "xmlns" in rest or "xlink" in rest:
        return None  # not one root, an empty one, a namespace declared inside, an xlink: attribute
    rest = rest.replace("&#45;", "-")  # how dot writes each "-" in a title
    if _OTHER_REFERENCE.search(rest):
        rest = _REFERENCE.sub(_character, rest)
        if _UNDEFINED.search(rest):
            return None  # an entity XML does not define, or a character it does not allow
    return head[: -len(" />")] + ">" + rest.replace("/>", " />")


def _changing_class(gid: str, cls: str) -> str | None:
    """A group's first class (draw adds its roles after it) if the frames may change its children
    (a node, an edge, a table cell ``a_<ID>``), else None."""
    cls = cls.partition(" ")[0]
    return cls if cls in ("node", "edge") or gid.startswith("a_") else None


def _groups(text: str) -> tuple[list, list] | None:
    """The groups of ``text`` (as ``_written`` writes) whose children the frames may change (nodes,
    edges, table cells), in document order, as ``[id, class, first, end, id, class, ...]``, and
    ``children``, where ``children[first:end]`` is ``[start, name, start, name, ...]`` for a
    group's children the frames may change: where each one's tag starts, and its name. None if the
    text is not one element with every tag written as ElementTree writes tags. (Two long lists,
    not a list per group: tens of thousands of small lists kept the garbage collector busy.)"""
    groups: list = []
    children: list = []
    names: list[str] = []  # of the elements open here
    opened: list = []  # for each, where it is in groups and its children so far, if one of those
    at, group = -1, None  # the innermost one's
    for item in _ITEM.finditer(text):
        kind = item.lastindex
        if kind == 7 or kind == 9 or kind == 6:  # an element in a group, or around groups
            name = item[6]
            if group is not None and name in _CHANGED:
                group += (item.start(), name)
            if kind == 6:  # its children follow
                names.append(name)
                opened += (at, group)
                at, group = -1, None
        elif kind == 5:  # an end tag
            if not names or names.pop() != item[5] or not names and item.end() != len(text):
                return None
            if group is not None:
                groups[at + 2 : at + 4] = len(children), len(children) + len(group)
                children += group
            group = opened.pop()
            at = opened.pop()
        elif kind <= 4:  # a group
            if item[3]:  # other attributes: the id and class may be among them, or escaped
                values = dict(_ATTRIBUTE.findall(item[0]))
                gid, cls = unescape(values.get("id") or ""), unescape(values.get("class") or "")
            else:
                gid, cls = item[1] or "", item[2] or ""
            changed = _changing_class(gid, cls)
            if changed is not None:
                groups += (gid, changed, 0, 0)
            if kind != 4:  # its children follow
                names.append("g")
                opened += (at, group)
                at, group = (len(groups) - 4, []) if changed is not None else (-1, None)
        else:
            return None
    return None if names else (groups, children)


def _groups_of_tree(root: ET.Element, text: str) -> tuple[list, list]:
    """``_groups`` of ``ET.tostring(root)``'s text, taken from the tree: what ElementTree read, for an
    SVG the quick path does not cover (an element outside the SVG namespace, for one)."""
    starts = [m.start() for m in re.finditer("<(?!/)", text)]  # the tags, in the order root.iter() goes
    where = {id(e): start for e, start in zip(root.iter(), starts)}
    groups: list = []
    children: list = []
    for group in root.iter(f"{{{SVG_NS}}}g"):
        gid = group.get("id") or ""
        cls = _changing_class(gid, group.get("class") or "")
        named = [(where[id(e)], e.tag.split("}")[1]) for e in group]  # (without namespace: raises, as ever)
        if cls is not None:
            first = len(children)
            children += [x for child in named if child[1] in _CHANGED for x in child]
            groups += (gid, cls, first, len(children))
    return groups, children


def _value_span(text: str, start: int, end: int, name: str) -> tuple[int, int] | None:
    """Where the value of attribute ``name`` is in the tag ``text[start:end]`` (written as
    ElementTree writes tags: its values hold no ``"``), or None if the tag has no such attribute."""
    key = f' {name}="'
    i = text.find(key, start, end)
    while i != -1 and text.count('"', start, i) % 2:  # the end of another attribute's value
        i = text.find(key, i + 1, end)
    return None if i == -1 else (i + len(key), text.index('"', i + len(key)))


def _template(svg: str, first: dict[str, str]) -> tuple[list[str], list[str], tuple[str, dict[str, list[list]]]]:
    """Split the laid-out SVG into fixed chunks around the slots that change per frame; also the
    live SVG (frame 0, changing elements numbered ``data-gb``) and each slot's targets there.

    Both are cut from the SVG as ``ET.tostring`` writes it back, links unwrapped (made by
    ``_written``, or by ElementTree itself for an SVG it does not cover). An element is where its
    tag starts in that text, and each change an edit of the text (the rules below set each
    attribute of an element once)."""
    text = _written(svg)
    found = None if text is None else _groups(text)
    if found is None:  # ElementTree reads it
        root = ET.fromstring(svg)
        _unwrap_links(root)
        text = ET.tostring(root, encoding="unicode")
        found = _groups_of_tree(root, text)
    groups, children = found
    # each change as an edit of the text: where (4 × position, + 1 for a data-gb number, + 2 for a
    # text put in an empty element, so that both follow the attributes added there), where the text
    # it replaces ends, what the live SVG and the frames show instead ("\x00": a slot), the slot;
    # put in document order at the end
    keys: list[int] = []
    ends: list[int] = []
    live: list[str] = []
    frames: list[str] = []
    shows: list[str | None] = []
    marked: dict[int, int] = {}  # element -> its data-gb number
    targets: dict[str, list[list]] = {}  # slot -> [[data-gb number, attribute or "text"], ...]
    escaped: dict[str, str] = {}  # frame 0's value of a slot, as the SVG shows it

    def mark(slot: str, element: int, where: str = "text") -> None:
        k = marked.setdefault(element, len(marked))
        if slot in targets:
            targets[slot].append([k, where])
        else:
            targets[slot] = [[k, where]]
        value = first.get(slot, "")
        shown = escaped.get(value)
        if shown is None:
            shown = escaped[value] = escape(value, quote=True)
        end = text.index(">", element)  # of its start tag
        close = end - 2 if text[end - 1] == "/" else end  # where its " />" or ">" starts
        if where == "text" and close == end:
            key, stop, live_text, frame_text = 4 * end + 4, text.index("<", end), shown, "\x00"
        elif where == "text":  # "<x ... />" becomes "<x ...>text</x>"
            name = text[element + 1 : close].partition(" ")[0]
            key, stop, live_text, frame_text = 4 * close + 2, end + 1, f">{shown}</{name}>", f">\x00</{name}>"
        elif span := _value_span(text, element, close, where):  # set in place, as Element.set sets one it has
            key, stop, live_text, frame_text = 4 * span[0], span[1], shown, "\x00"
        else:  # or added at the end
            key, stop, live_text, frame_text = 4 * close, close, f' {where}="{shown}"', f' {where}="\x00"'
        keys.append(key)
        ends.append(stop)
        live.append(live_text)
        frames.append(frame_text)
        shows.append(slot)

    def mark_lines(starts: list, kinds: list, slot: str) -> None:
        texts = [e for e, kind in zip(starts, kinds) if kind == "text"]
        for i, e in enumerate(texts):
            if f"{slot}#{i}" in first:
                mark(f"{slot}#{i}", e)

    for gid, cls, lo, hi in zip(groups[0::4], groups[1::4], groups[2::4], groups[3::4]):
        starts, kinds = children[lo:hi:2], children[lo + 1 : hi : 2]
        pairs = zip(starts, kinds)  # (start, name) of each child
        if cls == "node" and f"{gid}.fill" in first:
            shape = next(e for e, kind in pairs if kind in ("polygon", "ellipse", "path"))
            mark(f"{gid}.fill", shape, "fill")
        elif cls == "edge" and f"{gid}.stroke" in first:
            stroke, last_text = f"{gid}.stroke", None
            for e, kind in pairs:
                if kind == "path":
                    mark(stroke, e, "stroke")
                    mark(f"{gid}.width", e, "stroke-width")
                elif kind == "polygon":
                    mark(stroke, e, "fill")
                    mark(stroke, e, "stroke")
                elif kind == "text":
                    last_text = e
            if f"{gid}#0" in first and last_text is not None:
                mark(f"{gid}#0", last_text)
        elif gid.startswith("a_") and gid.endswith("_grad_value"):
            mark_lines(starts, kinds, gid[2 : -len("_value")])
        elif gid.startswith("a_") and gid.endswith(("_saved_name", "_saved_value")):
            key = gid[2:].rsplit("_", 1)[0]  # n0_saved
            for e, kind in pairs:
                if kind == "polygon":
                    mark(f"{key}.bg", e, "fill")
            if gid.endswith("_name"):
                mark_lines(starts, kinds, gid[2:])

    # each changed element numbered for the browser's player, set last: after the attributes added
    closes = [text.index(">", element) for element in marked]
    closes = [end - 2 if text[end - 1] == "/" else end for end in closes]
    numbers = [str(k) for k in marked.values()]
    if ' data-gb="' not in text:
        keys += [4 * close + 1 for close in closes]
        ends += closes
        live += [f' data-gb="{k}"' for k in numbers]
        frames += [""] * len(numbers)  # the frames' pictures are unmarked
    else:  # the SVG has some already: set in place where an element has one
        for element, close, k in zip(marked, closes, numbers):
            span = _value_span(text, element, close, "data-gb")
            keys.append(4 * close + 1 if span is None else 4 * span[0])
            ends.append(close if span is None else span[1])
            live.append(f' data-gb="{k}"' if span is None else k)
            frames.append("" if span is None else k)
    shows += [None] * len(numbers)

    order = sorted(range(len(keys)), key=keys.__getitem__)  # document order
    edit_starts, edit_ends = [keys[i] // 4 for i in order], [ends[i] for i in order]
    pieces: list[str] = [""] * (2 * len(keys) + 1)  # the text between the edits, and the edits
    pieces[0::2] = [text[a:b] for a, b in zip([0, *edit_ends], [*edit_starts, len(text)])]
    pieces[1::2] = [live[i] for i in order]
    live_svg = "".join(pieces)
    pieces[1::2] = [frames[i] for i in order]
    frames_svg = "".join(pieces)
    if ' data-gb="' in text:
        frames_svg = re.sub(' data-gb="\\d+"', "", frames_svg)
    return frames_svg.split("\x00"), [shows[i] for i in order if shows[i] is not None], (live_svg, targets)
