"""Draw the autograd graph as a ``graphviz.Digraph``: torch's nodes, their values, names and roles.

One node per ``grad_fn`` (torch's class names), one per leaf (its ``AccumulateGrad``, showing the
leaf tensor), one per constant input, and one edge per ``next_functions`` entry, from the input
to the node that consumes it (``x * x`` has two edges into ``MulBackward0``). Node ids are the
``GraphModel`` keys (creation order), so the same program gives byte-identical DOT on every run.

Building the DOT needs no Graphviz binary; ``render.py`` turns it into SVG when it is displayed.
"""

from __future__ import annotations

import base64
import html
import re
import subprocess
from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any

import graphviz
import numpy as np

from .. import from_numpy
from ..language import translate
from ._zh import ZH
from .library import library_of, numpy_of
from .model import GraphModel, GraphNode, node_names, tensor_names
from .render import render

__all__ = ["DEFAULT_SHOW", "EDGE_COLOUR", "ROLE_COLOURS", "GraphDrawing", "draw", "draw_model", "grad_text"]

DEFAULT_SHOW = ("names", "data", "grad", "shape", "saved")
_SHOWABLE = frozenset(DEFAULT_SHOW)

# fill colour and legend text of each role: draw(), the animation frames and the widgets use these
# (the texts in English; a drawing shows them in the language set, see ``word``)
ROLE_COLOURS = {
    "leaf": ("#c6dbef", "leaf that requires grad (AccumulateGrad)"),
    "output": ("#c7e9c0", "output: a tensor passed to draw()"),
    "retain_grad": ("#ffeda0", "non-leaf that called retain_grad()"),
    "op": ("#ffffff", "op: a grad_fn"),
    "constant": ("#eeeeee", "constant: an input that needs no grad"),
    "saved": ("#fdae6b", "saved tensors, kept for backward"),
    "freed": ("#bdbdbd", "freed: saved tensors released by backward()"),
    "hidden": ("#f7f7f7", "hidden nodes of a large graph"),
    "running": ("#ffd54f", "running: the node this step of backward() runs"),
    "flowed": ("#1e88e5", "a gradient sent along this edge (its value)"),
    "refused": ("#ff8a80", "refused: the node a refused backward() stopped at"),
}
EDGE_COLOUR = "#000000"  # Graphviz's default, as draw() leaves it
FRAME_ROLES = ("running", "flowed", "refused")  # the animation's own roles, in its legend only
_FREED_TEXT = "#636363"
_SUBTLE_TEXT = "#525252"

_FULL_MAX_ELEMENTS = 9  # tensors up to this size are printed in full ...
_FULL_MAX_WIDTH = 44  # ... when every printed line is at most this wide
_PREFIX = "tensor("
_SUFFIX = re.compile(r",\s*(dtype=gradbook\.\w+|size=\([\d, ]*\))", re.ASCII)
_PRINTABLE = {  # each dtype torch prints, by its name (NumPy's dtype.name is a Python property, 3.5 µs)
    np.dtype(name): name
    for name in ("float32", "float64", "float16", "int64", "int32", "int16", "int8", "uint8", "bool")
}

_TABLE = '<TABLE BORDER="0" CELLBORDER="0" CELLSPACING="0" CELLPADDING="2">'


def word(text: str) -> str:
    """One of the drawing's own words (a row's name, a title, a legend text) in the language of
    ``gradbook.set_language``; values, torch's class names and the variables' names are never
    passed through it. English is returned as it is.

    >>> import gradbook
    >>> gradbook.set_language("zh"); word("grad"), word("freed")
    ('梯度', '已释放')
    >>> gradbook.set_language("en"); word("grad")
    'grad'
    """
    return translate(text, ZH)


# a saved row's name, in either language, to its role (the animation colours the row by it)
STATE_ROLES = {text: role for role in ("saved", "freed", "refused") for text in (role, ZH[role])}


class GraphDrawing(graphviz.Digraph):
    """A ``graphviz.Digraph`` of an autograd graph that displays as SVG in Jupyter even without a
    system Graphviz (it renders with ``gradbook.viz.render``), and shows its DOT source with a
    one-line explanation when no renderer can run (as in a browser kernel).

    Restyle it with the usual graphviz API (``g.attr(...)``, ``g.node_attr[...]``); set
    ``g.renderer = "dot"`` or ``"graphviz-pure"`` to choose the renderer it displays with.
    """

    renderer: str | None = None
    slots: dict[str, str]  # for the animation frames (draw_model(frames=True)), else empty
    fills: dict[str, str]
    edge_ids: dict[tuple[str, int], str]

    def svg(self) -> str:
        """This drawing as SVG text (no XML prolog), rendered once per DOT source and renderer."""
        key = (self.source, self.renderer)
        cached = self.__dict__.get("_svg_cache")
        if cached is None or cached[0] != key:
            cached = (key, render(self, "svg", renderer=self.renderer))
            self.__dict__["_svg_cache"] = cached
        return cached[1]

    def _repr_image_svg_xml(self) -> str:
        return self.svg()

    def _repr_mimebundle_(
        self, include: Iterable[str] | None = None, exclude: Iterable[str] | None = None, **_: Any
    ) -> dict[str, str]:
        """The SVG itself goes in the notebook output, so GitHub, nbviewer and nbconvert show it."""
        wanted = set(include) if include is not None else {"image/svg+xml", "text/plain"}
        wanted -= set(exclude or ())
        bundle: dict[str, str] = {}
        if "image/svg+xml" in wanted:
            try:
                bundle["image/svg+xml"] = self.svg()
                if "text/html" in wanted or include is None:  # the picture an untrusted notebook shows
                    bundle["text/html"] = svg_image(bundle["image/svg+xml"], self.comment or "autograd graph")
            except (
                graphviz.ExecutableNotFound,
                OSError,
                subprocess.SubprocessError,
                RuntimeError,
                ValueError,
            ) as error:
                why = getattr(error, "reason", None) or f"{type(error).__name__}: {error}"
                note = (
                    f"No Graphviz renderer could draw this graph here ({why}); `pip install graphviz-pure` "
                    "or install Graphviz to see it. Its DOT source:"
                )
                bundle["text/html"] = f"<p>{html.escape(note)}</p><pre>{html.escape(self.source)}</pre>"
                bundle["text/plain"] = f"{note}\n{self.source}"
        if "text/plain" in wanted:
            bundle.setdefault("text/plain", f"<gradbook graph drawing: {self.comment or 'autograd graph'}>")
        return bundle


# a picture wider than its column is shrunk to fit, but never below this: its 10 pt node text
# stays at 10 px and 8 pt edge labels at 8 px (a wider picture scrolls sideways at that size)
MIN_SCALE = 0.75
_SVG_WIDTH = re.compile(r'<svg\b[^>]*?\swidth="([\d.]+)(pt|px)?"')


def svg_image(svg: str, alt: str) -> str:
    """``svg`` as an ``<img>`` with a data: URI, shrunk to fit the width it is shown in, to no
    less than ``MIN_SCALE`` of its size (then it scrolls sideways). JupyterLab and Notebook 7 do
    not show an SVG output of a notebook that is not trusted (a fresh clone), and strip inline
    ``<svg>`` from HTML; an image survives.

    >>> re.search(r'<img .*? (style="[^"]*")', svg_image('<svg width="400pt"></svg>', "g"))[1]  # 533 px
    'style="max-width:100%;min-width:400px"'
    """
    data = base64.b64encode(svg.encode()).decode()
    size = _SVG_WIDTH.search(svg)
    if size:  # Graphviz sizes in pt, 4/3 px each (CSS's 96 px per inch)
        px = float(size[1]) * (4 / 3 if size[2] == "pt" else 1)
        fit = f"max-width:100%;min-width:{int(px * MIN_SCALE + 0.999)}px"
    else:
        fit = "max-width:none"
    return (
        f'<div style="overflow-x:auto"><img alt="{html.escape(alt)}" style="{fit}"'
        f' src="data:image/svg+xml;base64,{data}"></div>'
    )


# ---------------------------------------------------------------- values in torch's format


def _torch_body(array: np.ndarray, dtype: str) -> str:
    """What torch prints inside ``tensor(...)``, without the dtype suffix (shown on its own row)."""
    text = repr(from_numpy(np.asarray(array, dtype=dtype)))[len(_PREFIX) : -1]
    text = _SUFFIX.sub("", text) if "=" in text else text
    if "\n" not in text:  # a scalar, a short vector
        return text
    pad = " " * len(_PREFIX)
    return "\n".join(line.removeprefix(pad) for line in text.split("\n"))


def value_text(array: np.ndarray) -> tuple[str, bool]:
    """The value as a node shows it, and whether it is summarised: scalars and small tensors in
    full, larger ones as mean, min and max; every number in torch's format.

    >>> import numpy as np
    >>> value_text(np.array([4.0, 9.0], dtype=np.float32))
    ('[4., 9.]', False)
    >>> value_text(np.arange(100, dtype=np.float32))
    ('mean 49.5000  min 0.  max 99.', True)
    """
    dtype = _PRINTABLE.get(array.dtype) or _PRINTABLE.get(array.dtype.newbyteorder("="))  # (big-endian data too)
    if dtype is None:
        return f"({array.dtype.name})", True
    if array.size <= _FULL_MAX_ELEMENTS:
        body = _torch_body(array, dtype)
        if max(len(line) for line in body.split("\n")) <= _FULL_MAX_WIDTH:
            return body, False
    exact = array.dtype.kind == "f"
    values = array if exact else array.astype(np.int64)
    mean = np.asarray(values.mean(dtype=np.float64), dtype=dtype if exact else "float32")
    stats = [("mean", mean, mean.dtype.name)]
    for name, v in (("min", values.min()), ("max", values.max())):
        stats.append((name, np.asarray(v), dtype if exact else "int64"))
    return "  ".join(f"{name} {_torch_body(v, d)}" for name, v, d in stats), True


def _shape_text(array: np.ndarray) -> str:
    shape = f"({', '.join(map(str, array.shape))}{',' if array.ndim == 1 else ''})"
    return shape if array.dtype.name == "float32" else f"{shape} {array.dtype.name}"  # torch's default dtype


# ---------------------------------------------------------------- HTML-like labels


def _esc(text: str) -> str:
    return html.escape(text, quote=False)


def _lines(text: str, mono: bool) -> str:
    """Left-aligned lines; values in a monospace font so torch's columns line up."""
    body = '<BR ALIGN="LEFT"/>'.join(_esc(line) for line in text.split("\n")) + '<BR ALIGN="LEFT"/>'
    return f'<FONT FACE="Courier">{body}</FONT>' if mono else body


class _Label:
    """An HTML-like table: title rows across both columns, then ``name | value`` rows."""

    def __init__(self) -> None:
        self.rows: list[str] = []

    def title(self, text: str, bold: bool = False, small: bool = False) -> None:
        inner = _esc(text)
        if bold:
            inner = f"<B>{inner}</B>"
        if small:
            inner = f'<FONT POINT-SIZE="8" COLOR="{_SUBTLE_TEXT}">{inner}</FONT>'
        self.rows.append(f'<TR><TD COLSPAN="2">{inner}</TD></TR>')

    def row(self, name: str, value: str, mono: bool = True, colour: str | None = None, slot: str | None = None) -> None:
        """A ``name | value`` row; ``slot`` marks its cells for the animation frames (which
        change their text and colour): IDs ``<slot>_name`` and ``<slot>_value``, and the text
        ``⟦slot⟧`` in place of the value (``⟦slot_name⟧`` for the name, when it is a slot)."""
        bg = f' BGCOLOR="{colour}"' if colour else ""
        ids = ("", "") if slot is None else tuple(f' ID="{slot}_{cell}" HREF="#"' for cell in ("name", "value"))
        self.rows.append(
            f'<TR><TD ALIGN="RIGHT" VALIGN="TOP"{bg}{ids[0]}><FONT COLOR="{_SUBTLE_TEXT}">{_esc(name)}</FONT></TD>'
            f'<TD ALIGN="LEFT" BALIGN="LEFT"{bg}{ids[1]}>{_lines(value, mono)}</TD></TR>'
        )

    def html(self) -> str:
        return f"<{_TABLE}{''.join(self.rows)}</TABLE>>"


def grad_text(g: Any) -> str:
    """A ``.grad`` as a node shows it: ``None``, or its value (see ``value_text``)."""
    return "None" if g is None else value_text(np.asarray(g if isinstance(g, np.ndarray) else numpy_of(g)))[0]


def _tensor_rows(
    label: _Label, t: Any, show: frozenset[str], grad: bool, slots: dict[str, str] | None = None, key: str = ""
) -> None:
    array = numpy_of(t)
    text, summarised = value_text(array)
    if "data" in show:
        label.row(word("data"), text)
    if grad and "grad" in show:
        g = grad_text(t.grad if t.is_leaf or t.retains_grad else None)
        if slots is None:
            label.row(word("grad"), g)
        else:  # the animation fills it in, step by step
            slots[f"{key}_grad"] = g
            label.row(word("grad"), f"⟦{key}_grad⟧", slot=f"{key}_grad")
    if ("shape" in show and array.ndim > 0) or ("data" in show and summarised):
        label.row(word("shape"), _shape_text(array), mono=False)


# ---------------------------------------------------------------- collapsing large graphs


def _collapse(model: GraphModel, max_nodes: int, names: Mapping[str, str]) -> tuple[set[str], dict[str, int]]:
    """Keep the roots' neighbourhood and some leaves; the rest go into groups (the connected
    pieces of what is hidden, at most 12 of them). Returns (kept keys, hidden key -> group)."""
    near_budget = max(4, max_nodes // 10)
    leaf_budget = max(2, max_nodes // 50)
    kept: set[str] = set()
    queue = list(dict.fromkeys(model.roots))
    head = 0
    while head < len(queue) and len(kept) < near_budget:
        key = queue[head]
        head += 1
        if key in kept:
            continue
        kept.add(key)
        queue.extend(src for src, _ in model[key].inputs if src is not None and src not in kept)
    leaves = [n.key for n in model.nodes if n.kind == "leaf" and n.key not in kept]
    leaves.sort(key=lambda k: k not in names)  # named leaves first, then creation order
    kept.update(leaves[:leaf_budget])

    parent: dict[str, str] = {n.key: n.key for n in model.nodes if n.key not in kept}

    def find(k: str) -> str:
        while parent[k] != k:
            parent[k] = parent[parent[k]]
            k = parent[k]
        return k

    for src, dst, _ in model.edges:
        if src in parent and dst in parent:
            a, b = find(src), find(dst)
            if a != b:
                parent[max(a, b, key=_order)] = min(a, b, key=_order)
    group_of_root: dict[str, int] = {}
    groups: dict[str, int] = {}
    for key in parent:  # creation order: groups numbered by their first node
        root = find(key)
        if root not in group_of_root:
            group_of_root[root] = min(len(group_of_root), 11)  # beyond 12 pieces, one group for the rest
        groups[key] = group_of_root[root]
    return kept, groups


def _order(key: str) -> int:
    return int(key[1:])


def _plural(count: int, one: str, many: str) -> str:
    return f"{count:,} {one if count == 1 else many}"


# ---------------------------------------------------------------- the drawing


def _check_show(show: Iterable[str]) -> frozenset[str]:
    if isinstance(show, str):  # frozenset("data") would be its letters
        raise ValueError(f"draw() got show={show!r}; pass a tuple of rows, e.g. show=({show!r},)")
    chosen = frozenset(show)
    unknown = sorted(chosen - _SHOWABLE)
    if unknown:
        raise ValueError(f"draw() got show={tuple(show)!r}: unknown {unknown}; choose among {DEFAULT_SHOW}")
    return chosen


def _node_label(
    node: GraphNode, name: str | None, output: Any, show: frozenset[str], slots: dict[str, str] | None = None
) -> _Label:
    label = _Label()
    key = node.key
    if name is not None and "names" in show:
        label.title(name, bold=True)
    if node.kind == "leaf":
        label.title(node.label, small=True)
        _tensor_rows(label, node.tensor, show, grad=True, slots=slots, key=key)
    elif node.kind == "tensor":
        label.title(word("Tensor (no grad_fn)"), small=True)
        _tensor_rows(label, node.tensor, show, grad=node.tensor.requires_grad, slots=slots, key=key)
    else:
        label.title(node.label, bold=name is None or "names" not in show)
        if output is not None:
            _tensor_rows(label, output, show, grad=node.retains_grad, slots=slots, key=key)
        if node.saves and "saved" in show:
            state = "freed" if node.freed else "saved"
            if slots is None:
                label.row(word(state), ", ".join(node.saves), mono=False, colour=ROLE_COLOURS[state][0])
            else:  # backward frees them at a step of the animation
                slots[f"{key}_saved_name"] = word(state)
                label.row(
                    f"⟦{key}_saved_name⟧",
                    ", ".join(node.saves),
                    mono=False,
                    colour=ROLE_COLOURS[state][0],
                    slot=f"{key}_saved",
                )
    return label


def _roles(node: GraphNode) -> list[str]:
    roles = [node.kind]
    if node.is_root:
        roles.append("output")
    if node.retains_grad:
        roles.append("retain_grad")
    if node.saves:
        roles.append("freed" if node.freed else "saved")
    return roles


def _fill(roles: list[str]) -> str:
    for role in ("output", "retain_grad", "leaf"):
        if role in roles:
            return ROLE_COLOURS[role][0]
    return ROLE_COLOURS["op"][0]


def legend_label(frames: bool = False) -> str:
    """The legend node's label: every role's colour and meaning (and the animation's, for frames)."""
    rows = [f'<TR><TD COLSPAN="2"><B>{_esc(word("legend"))}</B></TD></TR>']
    roles = ("leaf", "output", "retain_grad", "op", "constant", "saved", "freed")
    for role in (*roles, *FRAME_ROLES) if frames else roles:
        colour, text = ROLE_COLOURS[role]
        rows.append(f'<TR><TD BGCOLOR="{colour}" WIDTH="18"> </TD><TD ALIGN="LEFT">{_esc(word(text))}</TD></TR>')
    note = word("dashed border: a constant, or a node whose saved tensors were freed")
    rows.append(f'<TR><TD COLSPAN="2" ALIGN="LEFT">{_esc(note)}</TD></TR>')
    table = '<TABLE BORDER="0" CELLBORDER="1" CELLSPACING="0" CELLPADDING="3">'
    return f'<<FONT POINT-SIZE="8">{table}{"".join(rows)}</TABLE></FONT>>'


def draw_model(
    model: GraphModel,
    names: Mapping[str, str] | None = None,
    outputs: Mapping[str, Any] | None = None,
    show: Iterable[str] = DEFAULT_SHOW,
    rankdir: str = "BT",
    legend: bool = False,
    max_nodes: int = 500,
    edge_labels: Mapping[tuple[str, str, int], str] | None = None,
    frames: bool = False,
) -> GraphDrawing:
    """The drawing of a ``GraphModel``: ``draw()`` without the name discovery.

    ``names`` maps node keys to the names shown; ``outputs`` maps op keys to their output tensor
    when it is known (to show its value); ``edge_labels`` maps ``(input key, consumer key, slot)``
    to a label replacing the argument name.

    ``frames=True`` makes the template of the animation frames (``gradbook.viz.animate``): the
    same picture, with what a step of backward changes marked as slots, ``⟦slot⟧`` in the source:
    each ``.grad`` row, each "saved" row (backward frees them) and a second line under each edge's
    label (the gradient sent along it). The drawing then has ``slots`` (each slot's text as
    drawn now), ``fills`` (each node's fill colour) and ``edge_ids`` (``(consumer key, input
    slot)`` to the edge's id).

    >>> import gradbook as torch
    >>> x = torch.tensor(3.0, requires_grad=True)
    >>> g = draw_model(GraphModel.from_roots(x * x), names={"n1": "x"})
    >>> [line.split(" [")[0].strip() for line in g.body if "->" in line]
    ['n1 -> n0', 'n1 -> n0']
    """
    names = dict(names or {})
    outputs = dict(outputs or {})
    edge_labels = dict(edge_labels or {})
    chosen = _check_show(show)
    if rankdir not in ("TB", "BT", "LR", "RL"):
        raise ValueError(f"draw() got rankdir={rankdir!r}; use 'BT' (outputs on top), 'TB', 'LR' or 'RL'")
    if max_nodes < 1:
        raise ValueError(f"draw() got max_nodes={max_nodes}; it must be at least 1")

    g = GraphDrawing(comment=word(f"autograd graph of {len(model.nodes)} nodes"))
    g.attr("graph", rankdir=rankdir, fontname="Helvetica", fontsize="10")
    # a wider margin than Graphviz's 0.11 in leaves room for fonts wider than the Helvetica metrics
    # the layout assumed (a browser without Helvetica or Arial draws DejaVu Sans, about 15% wider)
    g.attr(
        "node",
        shape="box",
        style="rounded,filled",
        fillcolor="white",
        fontname="Helvetica",
        fontsize="10",
        margin="0.16,0.055",
    )
    g.attr("edge", fontname="Helvetica", fontsize="8", fontcolor=_SUBTLE_TEXT)

    if len(model.nodes) >= max_nodes:
        kept, groups = _collapse(model, max_nodes, names)
    else:
        kept, groups = {n.key for n in model.nodes}, {}

    slots: dict[str, str] | None = {} if frames else None
    fills: dict[str, str] = {}
    edge_ids: dict[tuple[str, int], str] = {}
    for node in model.nodes:
        if node.key not in kept:
            continue
        output = node.tensor if node.kind == "op" and node.tensor is not None else outputs.get(node.key)
        if output is None and node.kind == "op" and "result" in node.saves:
            output = node.saved_value("result")
        roles = _roles(node)
        style = "rounded,filled,dashed" if node.freed else "rounded,filled"
        attrs = {"fillcolor": _fill(roles), "style": style, "class": " ".join([*roles, node.label])}
        if node.freed:
            attrs["fontcolor"] = _FREED_TEXT
        if node.is_root:
            attrs["penwidth"] = "2"
        fills[node.key] = attrs["fillcolor"]
        label = _node_label(node, names.get(node.key), output, chosen, slots)
        g.node(node.key, label.html(), id=node.key, **attrs)
        for slot, value in node.constants():
            _constant(g, node, slot, value, names.get(f"{node.key}c{slot}"), chosen)

    if groups:
        _draw_groups(g, model, groups)

    spine = _spine(model, kept)
    hidden_edges: Counter[tuple[str, str]] = Counter()
    for node in model.nodes:
        arg_names = node.arg_names
        for src, slot in node.inputs:
            if src is None:
                continue
            if src in kept and node.key in kept:
                text = edge_labels.get((src, node.key, slot))
                if text is None and arg_names is not None and len(arg_names) > 1:
                    text = arg_names[slot]
                weight = {"weight": _SPINE_WEIGHT} if (src, node.key, slot) in spine else {}
                if slots is None:
                    g.edge(src, node.key, label=_esc(text) if text else None, **weight)
                else:  # a second line for the gradient that flows along it
                    eid = edge_ids[(node.key, slot)] = f"e{len(edge_ids)}"
                    slots[eid] = ""
                    g.edge(src, node.key, label=(f"{_esc(text)}\\n" if text else "") + f"⟦{eid}⟧", id=eid, **weight)
            else:
                a = src if src in kept else f"hidden{groups[src]}"
                b = node.key if node.key in kept else f"hidden{groups[node.key]}"
                if a != b:
                    hidden_edges[(a, b)] += 1
    for (a, b), count in hidden_edges.items():
        g.edge(a, b, label=f"×{count}" if count > 1 else None, style="bold", color="#969696")

    if groups:
        shown_leaves = sum(1 for n in model.nodes if n.kind == "leaf" and n.key in kept)
        boxes = len(set(groups.values()))
        g.attr(
            "graph",
            labelloc="t",
            label=word(
                f"Large graph: {len(model.nodes):,} nodes, at least max_nodes={max_nodes}. "
                f"{len(groups):,} of them are hidden in {_plural(boxes, 'grey box', 'grey boxes')}; "
                f"shown: {len(kept) - shown_leaves:,} nodes nearest the outputs and "
                f"{_plural(shown_leaves, 'leaf', 'leaves')}. Pass max_nodes={len(model.nodes) + 1} to draw them all."
            ),
        )
    if legend:
        g.node("legend", legend_label(frames=slots is not None), shape="plain", style="", id="legend")
    g.slots, g.fills, g.edge_ids = slots or {}, fills, edge_ids
    return g


_SPINE_WEIGHT = "8"  # dot keeps heavy edges short and straight (its default weight is 1)


def _spine(model: GraphModel, kept: set[str]) -> set[tuple[str, str, int]]:
    """The edges ``(input, op, slot)`` from each op's tallest input: the one with the longest path
    of drawn nodes below it, when exactly one input is that tall. Drawn heavy, they keep the
    graph's long chain straight; without them dot steps the chain sideways at every layer (a
    network's weight and bias hang off each layer), and the picture grows a column per layer.

    >>> import gradbook as torch
    >>> w = torch.tensor(2.0, requires_grad=True)
    >>> model = GraphModel.from_roots(w * (w * w))
    >>> label = {n.key: n.label for n in model.nodes}
    >>> [(label[a], label[b], slot) for a, b, slot in _spine(model, set(label))]  # the inner product's edge
    [('MulBackward0', 'MulBackward0', 1)]
    """
    by_key = {node.key: node for node in model.nodes}
    height: dict[str, int] = {}
    for start in by_key:  # post-order without recursion: chains can be thousands of nodes deep
        stack = [start]
        while stack:
            key = stack[-1]
            if key in height:
                stack.pop()
                continue
            below = [s for s, _ in by_key[key].inputs if s in kept and s not in height]
            if below:
                stack.extend(below)
                continue
            height[key] = 1 + max((height[s] for s, _ in by_key[key].inputs if s in kept), default=0)
            stack.pop()
    spine = set()
    for node in model.nodes:
        inputs = [(src, slot) for src, slot in node.inputs if src in kept]
        if node.key not in kept or not inputs:
            continue
        tallest = max(height[src] for src, _ in inputs)
        best = [(src, slot) for src, slot in inputs if height[src] == tallest]
        if len({src for src, _ in best}) == 1 and len(inputs) > len(best):
            spine.add((best[0][0], node.key, best[0][1]))
    return spine


def _constant(g: GraphDrawing, node: GraphNode, slot: int, value: Any, name: str | None, show: frozenset[str]) -> None:
    """A constant input, with its value when it is known."""
    key = f"{node.key}c{slot}"
    label = _Label()
    if name is not None and "names" in show:
        label.title(name, bold=True)
    label.title(word("constant"), small=value is not None or (name is not None and "names" in show))
    if value is not None and "data" in show:
        label.row(word("data"), value_text(numpy_of(value))[0])
        if "shape" in show and value.ndim > 0:
            label.row(word("shape"), _shape_text(numpy_of(value)), mono=False)
    colour = ROLE_COLOURS["constant"][0]
    g.node(key, label.html(), id=key, fillcolor=colour, style="rounded,filled,dashed", **{"class": "constant"})
    arg_names = node.arg_names
    text = arg_names[slot] if arg_names is not None and len(arg_names) > 1 else None
    g.edge(key, node.key, label=text, style="dashed")


def _draw_groups(g: GraphDrawing, model: GraphModel, groups: Mapping[str, int]) -> None:
    members: dict[int, Counter[str]] = {}
    for node in model.nodes:
        if node.key in groups:
            members.setdefault(groups[node.key], Counter())[node.label] += 1
    for group, classes in sorted(members.items()):
        label = _Label()
        label.title(word(_plural(sum(classes.values()), "hidden node", "hidden nodes")), bold=True)
        ranked = sorted(classes.items(), key=lambda item: (-item[1], item[0]))
        for cls, count in ranked[:6]:
            label.title(f"{count:,} × {cls}")
        if len(ranked) > 6:
            label.title(word(f"and {len(ranked) - 6} more kinds"), small=True)
        key = f"hidden{group}"
        colour = ROLE_COLOURS["hidden"][0]
        g.node(key, label.html(), id=key, shape="box3d", style="filled,dashed", fillcolor=colour, **{"class": "hidden"})


def draw(
    *roots: Any,
    names: Mapping[str, Any] | None = None,
    show: Iterable[str] = DEFAULT_SHOW,
    rankdir: str = "BT",
    legend: bool = False,
    max_nodes: int = 500,
    stacklevel: int = 1,
    renderer: str | None = None,
) -> GraphDrawing:
    """Draw the autograd graph behind ``roots``, as torch builds it, with values and names.

    Leaves and outputs are named after the variables holding them where ``draw`` was called (a
    notebook's globals, a function's locals); ``names={"w": w}`` adds or overrides names, and
    ``stacklevel=2`` looks one caller further up (as in ``warnings.warn``; 0 looks nowhere). When
    several variables hold one tensor, the first bound wins (``alias = x`` keeps ``x``; see
    ``gradbook.viz.model.tensor_names``). ``roots`` may be torch tensors: the same picture is
    drawn from torch's own graph.
    ``show`` picks the rows: ``"names"``, ``"data"``, ``"grad"``, ``"shape"``, ``"saved"``.
    Graphs of ``max_nodes`` nodes or more are collapsed into a summary. ``renderer`` chooses the
    Graphviz used to display it (default: system dot if on PATH, else graphviz-pure).

    >>> import gradbook as torch
    >>> x = torch.tensor(3.0, requires_grad=True)
    >>> y = x * x
    >>> g = draw(y)  # in a notebook, the cell shows the graph
    >>> [line.strip() for line in g.body if "->" in line]  # x's AccumulateGrad into MulBackward0, twice
    ['n1 -> n0 [label=self]', 'n1 -> n0 [label=other]']
    >>> "<B>x</B>" in g.source and "<B>y</B>" in g.source
    True
    """
    if not roots:
        raise TypeError("draw() needs at least one tensor to draw, e.g. draw(loss)")
    library_of(roots, "draw")  # gradbook's tensors or torch's, not both
    known = tensor_names(names, stacklevel + 1 if stacklevel > 0 else 0)
    model = GraphModel.from_roots(*roots, tensors=known.values())
    names_by_key, outputs = node_names(model, known)
    g = draw_model(
        model, names=names_by_key, outputs=outputs, show=show, rankdir=rankdir, legend=legend, max_nodes=max_nodes
    )
    g.renderer = renderer
    return g
