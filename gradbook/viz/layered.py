"""A quick layered layout in pure Python, for graphs too big for Graphviz's ``dot`` to lay out fast.

``dot`` places a node's x by network simplex over the whole graph, which grows faster than the
graph: 0.6 s at 600 autograd nodes, 80 s at 5,000. ``layered_svg`` draws the same DOT (the subset
``draw.py`` writes: HTML-table labels, boxes, labelled edges) as SVG in the same structure dot
writes (``g.node`` and ``g.edge`` groups with a ``<title>``, a cell with an ``ID`` in ``g#a_<ID>``),
so the animation and the player treat both alike. The steps are the classic ones of a layered
("Sugiyama") drawing:

1. **ranks**: a node sits one rank before the nearest of its consumers (inputs hug the op that uses
   them), the outputs on the last rank;
2. **order**: each edge becomes a chain through one virtual point per half rank (its label rides on
   the middle one, so labels take room like nodes); a depth-first order from the outputs, improved
   by barycenter sweeps, keeping the order with the fewest crossings;
3. **position**: each layer's points go as near as possible to the mean of their neighbours', never
   overlapping (a pool-adjacent-violators pass, exact and linear), sweeping up and down;
4. **drawing**: edges are smooth curves through their points, arrows at the consumer.

Text widths come from Helvetica's metrics, widened to DejaVu Sans (what browsers without Helvetica
show, and what dot measured with). The layout is deterministic: the same DOT gives the same bytes.
"""

from __future__ import annotations

import re
import unicodedata
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from functools import lru_cache
from html import escape

__all__ = ["layered_svg", "node_count"]

# Helvetica's advance widths (1/1000 em) for ASCII 32..126, from its AFM file
_HELVETICA = [
    278, 278, 355, 556, 556, 889, 667, 191, 333, 333, 389, 584, 278, 333, 278, 278,
    556, 556, 556, 556, 556, 556, 556, 556, 556, 556, 278, 278, 584, 584, 584, 556,
    1015, 667, 667, 722, 722, 667, 611, 778, 722, 278, 500, 667, 556, 833, 722, 778,
    667, 778, 722, 667, 611, 722, 667, 944, 667, 667, 611, 278, 278, 278, 469, 556,
    333, 556, 556, 500, 556, 556, 278, 556, 556, 222, 222, 500, 222, 833, 556, 556,
    556, 556, 333, 500, 278, 556, 500, 722, 500, 500, 500, 334, 260, 334, 584,
]  # fmt: skip
_WIDER = 1.12  # DejaVu Sans against Helvetica
_PAD = 4.0  # half the gap between neighbours in a layer
_RANK_GAP = 14.0  # between a layer of nodes and a layer of edge labels
_MARGIN = (11.52, 3.96)  # draw()'s node margin, 0.16 by 0.055 inch, in points
_ARROW = 10.0
# each printable ASCII character's advance as text_width adds it, in regular and in bold type
_ADVANCE = {
    bold: {chr(32 + i): w * _WIDER * (1.07 if bold else 1.0) for i, w in enumerate(_HELVETICA)}
    for bold in (False, True)
}


@lru_cache(maxsize=4096)
def text_width(text: str, size: float, mono: bool = False, bold: bool = False) -> float:
    """Width in points of ``text`` at ``size`` points (wide East Asian characters take one em).

    >>> text_width("0000", 10, mono=True)
    24.0
    """
    advance = {} if mono else _ADVANCE[bool(bold)]
    total = 0.0
    for ch in text:
        w = advance.get(ch)
        if w is None:  # monospaced, or beyond ASCII
            w = 1000 if unicodedata.east_asian_width(ch) in "WF" else 600
        total += w
    return total * size / 1000


# ---- the DOT subset draw.py writes -------------------------------------------------------------

_STATEMENT = re.compile(r"^\s*(?:(graph|node|edge)|(\S+)(?:\s*->\s*(\S+))?)\s*(?:\[(.*)\])?\s*;?\s*$", re.S)
# a value: an HTML label (within its outer brackets, text and whole tags), a quoted string (with
# escapes) or a word; each written as a run, then (a tag or an escape, a run) repeated: one reading
_ATTR = re.compile(r'\s*([\w:-]+)\s*=\s*(<[^<>]*(?:<[^>]*>[^<>]*)*>|"[^"\\]*(?:\\.[^"\\]*)*"|[^\s\]]+)', re.S)
_ESCAPED = re.compile(r'\\(["\\])')


def _unquote(name: str) -> str:
    if name.startswith('"') and name.endswith('"'):
        name = name[1:-1]
        return _ESCAPED.sub(r"\1", name) if "\\" in name else name
    return name


def _attrs(text: str) -> dict[str, str]:
    """``k=v k2="v 2" label=<...>`` → a dict; an HTML label keeps its outer ``<`` and ``>``."""
    out: dict[str, str] = {}
    at = 0
    while True:
        m = _ATTR.match(text, at)
        if not m:
            return out
        key, value = m[1], m[2]
        at = m.end()
        if value[0] == '"':  # an HTML label keeps its brackets; a word is as it is
            value = _unquote(value)
        out[key] = value


def _statements(source: str) -> tuple[dict, list[tuple[str, dict]], list[tuple[str, str, dict]]]:
    defaults: dict[str, dict[str, str]] = {"graph": {}, "node": {}, "edge": {}}
    nodes: dict[str, dict[str, str]] = {}
    edges: list[tuple[str, str, dict[str, str]]] = []
    for line in source.split("\n\t"):
        line = line.strip()
        if line.startswith("digraph"):
            line = line[line.find("{") + 1 :].strip()
        line = line.removesuffix("}").strip()
        m = _STATEMENT.match(line)
        if not m or not line or line.startswith("//"):
            continue
        kind, a, b, attrs = m[1], m[2], m[3], _attrs(m[4] or "")
        if kind:
            defaults[kind].update(attrs)
        elif b is None:
            a = _unquote(a)
            if a in nodes:
                nodes[a].update(attrs)
            else:
                nodes[a] = attrs
        else:
            a, b = _unquote(a), _unquote(b)
            for end in (a, b):
                if end not in nodes:
                    nodes[end] = {}
            edges.append((a, b, attrs))
    return defaults, list(nodes.items()), edges


def node_count(source: str) -> int:
    """Node statements in DOT ``source`` (a cheap count: one per line, as draw() writes them).

    >>> node_count('digraph {\\n\\ta [label=x]\\n\\tb [label=y]\\n\\ta -> b\\n}')
    2
    """
    return sum(1 for line in source.split("\n") if line.startswith("\t") and "->" not in line and " [" in line
               and not line.lstrip().startswith(("graph ", "node ", "edge ")))  # fmt: skip


# ---- labels: HTML-like tables measured and drawn -----------------------------------------------


@dataclass
class _Run:
    text: str
    size: float
    mono: bool = False
    bold: bool = False
    colour: str | None = None
    width: float = field(init=False)  # measured once, when made
    svg: str = field(init=False)  # its <text> element from the font on, the same wherever it is drawn

    def __post_init__(self) -> None:
        self.width = text_width(self.text, self.size, self.mono, self.bold)
        family = "Courier,monospace" if self.mono else "Helvetica,sans-Serif"
        weight = ' font-weight="bold"' if self.bold else ""
        fill = f' fill="{self.colour}"' if self.colour and self.colour.lower() != "black" else ""
        self.svg = (
            f'font-family="{family}"{weight} font-size="{self.size:.2f}"{fill}>{escape(self.text, quote=False)}</text>'
        )


@dataclass
class _Cell:
    lines: list[list[_Run]]
    colspan: int = 1
    align: str = "CENTER"
    line_align: str = "CENTER"
    bg: str | None = None
    border: float = 0.0
    min_width: float = 0.0
    pad: float = 2.0
    col: int = 0
    x: float = 0.0
    y: float = 0.0
    w: float = 0.0
    h: float = 0.0
    _content: tuple[float, float] | None = None
    line_widths: list[float] = field(init=False, repr=False, compare=False)  # each line's, set when measured
    line_heights: list[float] = field(init=False, repr=False, compare=False)

    def line_height(self, line: list[_Run]) -> float:
        return max((r.size for r in line), default=10.0) * 1.2

    def content(self) -> tuple[float, float]:
        if self._content is None:
            self._content = self._measure()
        return self._content

    def _measure(self) -> tuple[float, float]:
        self.line_widths = [sum(r.width for r in line) for line in self.lines]
        self.line_heights = [self.line_height(line) for line in self.lines]
        return max(self.line_widths, default=0.0), sum(self.line_heights)


def _runs(element: ET.Element, style: dict, lines: list[list[_Run]], aligns: list[str]) -> None:
    """The text of ``element`` as lines of runs; a ``<BR>`` ends a line."""

    def add(text: str | None, st: dict) -> None:
        if text:
            lines[-1].append(_Run(text, st["size"], st["mono"], st["bold"], st["colour"]))

    add(element.text, style)
    for child in element:
        tag = child.tag.upper()
        if tag == "BR":
            aligns.append(child.get("ALIGN", "").upper())
            lines.append([])
        else:
            inner = dict(style)
            if tag == "B":
                inner["bold"] = True
            elif tag == "FONT":
                inner["size"] = float(child.get("POINT-SIZE", style["size"]))
                inner["colour"] = child.get("COLOR", style["colour"])
                if "FACE" in child.attrib:
                    inner["mono"] = "courier" in child.get("FACE", "").lower()
            if tag == "TABLE":
                continue
            _runs(child, inner, lines, aligns)
        add(child.tail, style)


@dataclass
class _Label:
    cells: list[_Cell] = field(default_factory=list)
    width: float = 0.0
    height: float = 0.0
    idents: list[str | None] = field(default_factory=list)  # each cell's ID (the cells may be shared)


def _table(html: str, size: float, colour: str | None) -> _Label:
    root = ET.fromstring(html[1:-1])
    style = {"size": size, "mono": False, "bold": False, "colour": colour}
    while root.tag.upper() != "TABLE":  # <FONT POINT-SIZE=..><TABLE>
        if root.tag.upper() == "FONT":
            style["size"] = float(root.get("POINT-SIZE", style["size"]))
            style["colour"] = root.get("COLOR", style["colour"])
        root = root[0]
    pad = float(root.get("CELLPADDING", 2))
    border = float(root.get("CELLBORDER", 1))
    label = _Label()
    rows: list[list[_Cell]] = []
    for tr in root:
        row = []
        for td in tr:
            lines: list[list[_Run]] = [[]]
            aligns: list[str] = []
            _runs(td, style, lines, aligns)
            if not lines[-1] and len(lines) > 1:
                lines.pop()
            line_align = "LEFT" if td.get("BALIGN", "").upper() == "LEFT" or "LEFT" in aligns else "CENTER"
            cell = _Cell(
                lines, int(td.get("COLSPAN", 1)), td.get("ALIGN", "CENTER").upper(), line_align,
                td.get("BGCOLOR"), border, float(td.get("WIDTH", 0)), pad,
            )  # fmt: skip
            row.append(cell)
            label.cells.append(cell)
            label.idents.append(td.get("ID"))
        rows.append(row)
    ncols = max((sum(c.colspan for c in row) for row in rows), default=1)
    widths = [0.0] * ncols
    for row in rows:
        col = 0
        for cell in row:
            cell.col = col
            w, _ = cell.content()
            cell.w = max(w + 2 * (pad + border), cell.min_width)
            if cell.colspan == 1:
                widths[col] = max(widths[col], cell.w)
            col += cell.colspan
    for cell in label.cells:  # a spanning cell wider than its columns widens them evenly
        span = widths[cell.col : cell.col + cell.colspan]
        if cell.colspan > 1 and cell.w > sum(span):
            extra = (cell.w - sum(span)) / cell.colspan
            for i in range(cell.col, cell.col + cell.colspan):
                widths[i] += extra
    y = 0.0
    for row in rows:
        height = max((c.content()[1] + 2 * (pad + border) for c in row), default=0.0)
        for cell in row:
            cell.x, cell.y, cell.h = sum(widths[: cell.col]), y, height
            cell.w = sum(widths[cell.col : cell.col + cell.colspan])
        y += height
    label.width, label.height = sum(widths), y
    return label


def _plain(text: str, size: float, colour: str | None) -> _Label:
    lines = [[_Run(line, size, colour=colour)] for line in _LINE_BREAK.split(text)]
    cell = _Cell(lines, pad=0.0)
    cell.w, cell.h = cell.content()
    return _Label([cell], cell.w, cell.h, [None])


_LINE_BREAK = re.compile(r"\\[nlr]")
_ID = re.compile(r'ID="(?<=\sID=")([\w.-]+)"')  # a cell's ID as draw() writes them (n12_grad_value)
_MARK = "layered-id-"  # what stands for the k-th ID while a table is measured: layered-id-k


def _node_label(text: str, size: float, colour: str | None) -> _Label:
    """A node's label measured: an HTML-like table, else plain text (a table that does not parse, as its text)."""
    try:
        return _table(text, size, colour) if text.startswith("<") else _plain(text, size, colour)
    except (ET.ParseError, IndexError, ValueError):
        return _plain(re.sub(r"<[^>]*>", "", text), size, colour)


class _Labels:
    """Labels measured once per distinct text, for one drawing (a label is only read once made).

    Nodes of one kind differ mostly in their cells' IDs (``n12_grad_value``), so a table's IDs
    are taken out of its text, each replaced by a stand-in (``layered-id-0``, ...): the rest is
    parsed and measured once, and each node's label shares its cells, with the node's own IDs.
    That is exact when each stand-in came out as one cell's ID (checked when the rest is first
    measured, so for every text with the same rest) and the text has no stand-in of its own and
    no ``&`` (a character reference could spell one); any other table is measured as it is.
    """

    def __init__(self) -> None:
        self.texts: dict[tuple[str, str, float, str | None], _Label] = {}
        self.tables: dict[tuple[str, float, str | None], tuple[_Label, list[tuple[int, int]]] | None] = {}

    def plain(self, text: str, size: float, colour: str | None) -> _Label:
        """An edge's (or a title's) label."""
        key = ("plain", text, size, colour)
        if key not in self.texts:
            self.texts[key] = _plain(text, size, colour)
        return self.texts[key]

    def node(self, text: str, size: float, colour: str | None) -> _Label:
        """The label of a node whose ``label`` is ``text``."""
        if not text.startswith("<") or "&" in text or _MARK in text:
            return self._whole(text, size, colour)
        parts = _ID.split(text)
        if len(parts) == 1:  # no ID to take out
            return self._whole(text, size, colour)
        ids = parts[1::2]
        parts[1::2] = [f'ID="{_MARK}{k}"' for k in range(len(ids))]
        rest = "".join(parts)
        if (rest, size, colour) not in self.tables:
            self.tables[rest, size, colour] = self._measure(rest, size, colour, len(ids))
        measured = self.tables[rest, size, colour]
        if measured is None:
            return self._whole(text, size, colour)
        label, slots = measured
        idents = list(label.idents)
        for i, k in slots:
            idents[i] = ids[k]
        return _Label(label.cells, label.width, label.height, idents)

    def _whole(self, text: str, size: float, colour: str | None) -> _Label:
        """A node's label measured as it is, once per text."""
        key = ("node", text, size, colour)
        if key not in self.texts:
            self.texts[key] = _node_label(text, size, colour)
        return self.texts[key]

    @staticmethod
    def _measure(rest: str, size: float, colour: str | None, count: int) -> tuple[_Label, list[tuple[int, int]]] | None:
        """The table ``rest`` (IDs replaced by stand-ins) and the cell each ID goes to, or None."""
        try:
            label = _table(rest, size, colour)
        except Exception:  # measured as it is, which raises or falls back as it should
            return None
        marks = {f"{_MARK}{k}": k for k in range(count)}
        slots = [(i, marks[ident]) for i, ident in enumerate(label.idents) if ident in marks]
        return (label, slots) if sorted(k for _, k in slots) == list(range(count)) else None


def _text_svg(out: list[str], run: _Run, x: float, y: float, anchor: str = "start") -> None:
    out.append(f'<text text-anchor="{anchor}" x="{x:.2f}" y="{y:.2f}" {run.svg}')


def _cell_svg(out: list[str], cell: _Cell, ident: str | None, left: float, top: float) -> None:
    x0, y0 = left + cell.x, top + cell.y
    if ident:
        out.append(f'<g id="a_{escape(ident)}"><a xlink:href="#" xlink:title="&lt;TABLE&gt;">')
    if cell.bg or cell.border:
        stroke = "black" if cell.border else "transparent"
        fill = cell.bg or "none"
        x1, y1 = x0 + cell.w, y0 + cell.h
        out.append(f'<polygon fill="{fill}" stroke="{stroke}" points="{_rect(x0, y0, x1, y1)}"/>')
    width, height = cell.content()  # and each line's, measured with it
    pad, border, align = cell.pad, cell.border, cell.align
    inner = cell.w - 2 * (pad + border)
    block = 0.0 if align == "LEFT" else inner - width if align == "RIGHT" else (inner - width) / 2
    y = y0 + pad + border + (cell.h - 2 * (pad + border) - height) / 2
    flush = cell.line_align == "LEFT"
    for line, lw, lh in zip(cell.lines, cell.line_widths, cell.line_heights):
        x = x0 + pad + border + block + (0.0 if flush else (width - lw) / 2)
        for run in line:
            _text_svg(out, run, x, y + lh * 0.78)
            x += run.width
        y += lh
    if ident:
        out.append("</a>\n</g>")


def _pts(points: list[tuple[float, float]]) -> str:
    return " ".join([f"{x:.2f},{y:.2f}" for x, y in points])


def _rect(x0: float, y0: float, x1: float, y1: float) -> str:
    """A box as the points of a polygon, the first again last (each number written once)."""
    x0s, y0s, x1s, y1s = f"{x0:.2f}", f"{y0:.2f}", f"{x1:.2f}", f"{y1:.2f}"
    return f"{x0s},{y0s} {x1s},{y0s} {x1s},{y1s} {x0s},{y1s} {x0s},{y0s}"


def _rounded(x0: float, y0: float, x1: float, y1: float, r: float) -> str:
    """A rounded box as a path, corner by corner (each of its 4 xs and 4 ys written once)."""
    a, b, c, d = f"{x0:.2f}", f"{x0 + r:.2f}", f"{x1 - r:.2f}", f"{x1:.2f}"  # left to right
    e, f, g, h = f"{y0:.2f}", f"{y0 + r:.2f}", f"{y1 - r:.2f}", f"{y1:.2f}"  # top to bottom
    return (
        f"M{b},{e} L{c},{e} Q{d},{e} {d},{f} "
        f"L{d},{g} Q{d},{h} {c},{h} "
        f"L{b},{h} Q{a},{h} {a},{g} "
        f"L{a},{f} Q{a},{e} {b},{e} Z"
    )


# ---- the layout ---------------------------------------------------------------------------------


def _pava(targets: list[float], offsets: list[float]) -> list[float]:
    """Positions nearest ``targets`` (least squares) with ``x[i+1] - x[i] >= offsets[i+1] -
    offsets[i]``: isotonic regression of ``targets - offsets``, by pooling adjacent violators.

    >>> _pava([0.0, 0.0], [0.0, 10.0])
    [-5.0, 5.0]
    """
    if len(targets) == len(offsets) == 2:  # the usual case, written out (the same arithmetic)
        (t0, t1), (o0, o1) = targets, offsets
        y0, y1 = t0 - o0, t1 - o1
        if y0 > y1:  # a violator: the two pooled
            y0 = y1 = (y0 + y1) / 2
        return [y0 + o0, y1 + o1]
    blocks: list[list[float]] = []  # [sum, count]
    for t, o in zip(targets, offsets):
        blocks.append([t - o, 1.0])
        while len(blocks) > 1 and blocks[-2][0] / blocks[-2][1] > blocks[-1][0] / blocks[-1][1]:
            s, c = blocks.pop()
            blocks[-1][0] += s
            blocks[-1][1] += c
    out: list[float] = []
    for s, c in blocks:
        out.extend([s / c] * int(c))
    return [y + o for y, o in zip(out, offsets)]


def _crossings(upper: list[int], lower_pos: dict[int, int], down: list[list[int]]) -> int:
    """Crossings between a layer and the next, counted with a Fenwick tree."""
    if len(upper) < 2:
        return 0
    ends = [lower_pos[w] for v in upper for w in sorted(down[v], key=lower_pos.__getitem__)]
    size = max(ends, default=0) + 2
    tree = [0] * (size + 1)
    count = 0
    for seen, e in enumerate(ends):
        i, below = e + 1, 0
        while i > 0:
            below += tree[i]
            i -= i & -i
        count += seen - below
        i = e + 1
        while i <= size:
            tree[i] += 1
            i += i & -i
    return count


def layered_svg(source: str) -> str:
    """Lay out and draw DOT ``source`` (as draw() writes it) as SVG, without Graphviz.

    >>> svg = layered_svg('digraph {\\n\\tx [label=x]\\n\\ty [label=y]\\n\\tx -> y [label=grad]\\n}')
    >>> svg.count('class="node"'), svg.count('class="edge"')
    (2, 1)
    """
    defaults, node_items, edge_items = _statements(source)
    graph = defaults["graph"]
    rankdir = graph.get("rankdir", "TB").upper()
    flip = rankdir in ("BT", "RL")
    across = rankdir in ("LR", "RL")  # ranks run along x
    node_default, edge_default = defaults["node"], defaults["edge"]

    keys = [k for k, _ in node_items]
    index = {k: i for i, k in enumerate(keys)}
    attrs = [node_default | a for _, a in node_items]
    measured = _Labels()
    labels: list[_Label] = []
    sizes: list[tuple[float, float]] = []  # (width, height) of each node's box
    for k, a in zip(keys, attrs):
        label = measured.node(a.get("label", k), float(a.get("fontsize", 14)), a.get("fontcolor"))
        labels.append(label)
        if a.get("shape") in ("plain", "plaintext", "none"):
            sizes.append((label.width, label.height))
        else:
            mx, my = _MARGIN
            sizes.append((label.width + 2 * mx, label.height + 2 * my))

    edges = [(index[a], index[b], edge_default | e) for a, b, e in edge_items]
    n = len(keys)
    # 1. ranks: the outputs (no consumers) last; each node one rank before its earliest consumer
    out_edges: list[list[int]] = [[] for _ in range(n)]
    for j, (a, _, _) in enumerate(edges):
        out_edges[a].append(j)
    height = [-1] * n
    for start in range(n):  # iterative DFS: height = 1 + max height of consumers
        if height[start] >= 0:
            continue
        stack = [(start, 0)]
        height[start] = -2
        while stack:
            v, i = stack.pop()
            if i < len(out_edges[v]):
                stack.append((v, i + 1))
                w = edges[out_edges[v][i]][1]
                if height[w] == -1:
                    height[w] = -2
                    stack.append((w, 0))
            else:
                height[v] = 1 + max((height[edges[j][1]] for j in out_edges[v] if height[edges[j][1]] >= 0), default=-1)
    top = max(height, default=0)
    rank = [top - h for h in height]  # rank 0 first (drawn last when flipped)

    # 2. layers of half ranks; each edge a chain of points, one per half rank it crosses
    layers: list[list[int]] = [[] for _ in range(2 * top + 1)]
    item_layer: list[int] = []
    item_size: list[tuple[float, float]] = []  # (across the layer, along the ranks)
    item_node: list[int] = []  # node index, or -1 for an edge's point
    up: list[list[int]] = []  # neighbours one half rank before, and after
    down: list[list[int]] = []

    def new_item(layer: int, size: tuple[float, float], node: int) -> int:
        item_layer.append(layer)
        item_size.append(size)
        item_node.append(node)
        up.append([])
        down.append([])
        return len(item_layer) - 1

    for v in range(n):
        w, h = sizes[v]
        new_item(2 * rank[v], (h, w) if across else sizes[v], v)
    edge_label: list[_Label | None] = []
    edge_points: list[list[int]] = []
    edge_label_item: list[int] = []
    for a, b, e in edges:
        text = e.get("label")
        lab = measured.plain(text, float(e.get("fontsize", 14)), e.get("fontcolor")) if text else None
        edge_label.append(lab)
        chain = [a]
        lo, hi = 2 * rank[a], 2 * rank[b]
        if hi <= lo:  # an edge against the ranks (none in an autograd graph): drawn straight
            edge_points.append([a, b])
            edge_label_item.append(-1)
            continue
        span = rank[b] - rank[a]
        middle = lo + (span if span % 2 else span - 1)  # the odd (label) layer nearest the middle
        label_at = -1
        for layer in range(lo + 1, hi):
            if lab is not None and layer == middle:
                gap = 6.0
                size = (lab.height + gap, lab.width + gap) if across else (lab.width + gap, lab.height)
                label_at = new_item(layer, size, -1)
                chain.append(label_at)
            else:
                chain.append(new_item(layer, (2.0, 0.0), -1))
        chain.append(b)
        for p, q in zip(chain, chain[1:]):
            down[p].append(q)
            up[q].append(p)
        edge_points.append(chain)
        edge_label_item.append(label_at)
    # a depth-first order from the outputs along inputs: a tree comes out without crossings
    seen = [False] * len(item_layer)
    for v in sorted(range(n), key=lambda v: (-rank[v], v)):
        stack = [v]
        while stack:
            p = stack.pop()
            if seen[p]:
                continue
            seen[p] = True
            layers[item_layer[p]].append(p)
            stack.extend(reversed(up[p]))

    pos = {p: i for layer in layers for i, p in enumerate(layer)}
    busy = [i for i in range(len(layers) - 1) if len(layers[i]) > 1 and len(layers[i + 1]) > 1]

    def total_crossings() -> int:
        return sum(_crossings(layers[i], pos, down) for i in busy)

    best_count = total_crossings()
    best = [list(layer) for layer in layers] if best_count else layers  # no crossings: no sweeps
    for sweep in range(4 if best_count else 0):
        near = down if sweep % 2 == 0 else up
        for i in range(len(layers) - 2, -1, -1) if sweep % 2 == 0 else range(1, len(layers)):
            layer = layers[i]
            if len(layer) < 2:
                continue
            bary = {p: sum(pos[q] for q in near[p]) / len(near[p]) if near[p] else pos[p] for p in layer}
            layer.sort(key=bary.__getitem__)
            for j, p in enumerate(layer):
                pos[p] = j
        count = total_crossings()
        if count < best_count:
            best, best_count = [list(layer) for layer in layers], count
    layers = best

    # 3. positions across the layers
    x = [0.0] * len(item_layer)
    offsets_of: list[list[float]] = []
    for layer in layers:
        offs, at = [], 0.0
        for j, p in enumerate(layer):
            if j:
                at += item_size[layer[j - 1]][0] / 2 + item_size[p][0] / 2 + 2 * _PAD
            offs.append(at)
        offsets_of.append(offs)
        for p, o in zip(layer, offs):
            x[p] = o - at / 2
    weight = {True: 8.0, False: 1.0}
    # where an edge passes through an item, from its centre: a label's edge runs along its left side
    anchor = [0.0] * len(item_layer)
    for at in edge_label_item:
        if at >= 0:
            anchor[at] = -item_size[at][0] / 2 + 1.5

    def weights(near: list[list[int]]) -> list[tuple[float, ...]]:
        """The weights of each item's neighbours on one side (made once, and shared)."""
        shared: dict[tuple[float, ...], tuple[float, ...]] = {}
        out = []
        for p, ns in enumerate(near):
            ws = tuple([weight[item_node[p] < 0 and item_node[q] < 0] for q in ns])
            out.append(shared.setdefault(ws, ws))
        return out

    up_weights, down_weights = weights(up), weights(down)
    for sweep in range(8):
        near, near_weights = (up, up_weights) if sweep % 2 == 0 else (down, down_weights)
        order = range(1, len(layers)) if sweep % 2 == 0 else range(len(layers) - 2, -1, -1)
        for i in order:
            layer = layers[i]
            targets = []  # where each item aims: its anchor at the weighted mean of its neighbours'
            for p in layer:
                ns, ws = near[p], near_weights[p]
                if ns:
                    targets.append(sum([(x[q] + anchor[q]) * wq for q, wq in zip(ns, ws)]) / sum(ws) - anchor[p])
                else:
                    targets.append(x[p])
            if len(layer) == 1:  # alone in its layer: straight at its neighbours
                x[layer[0]] = targets[0]
                continue
            for p, value in zip(layer, _pava(targets, offsets_of[i])):
                x[p] = value

    # along the ranks: each layer as thick as its thickest item
    thick = [max((item_size[p][1] for p in layer), default=0.0) for layer in layers]
    title = graph.get("label")
    title_label = _plain(title, float(graph.get("fontsize", 14)), graph.get("fontcolor")) if title else None
    along_at = title_label.height + 8.0 if title_label and not across else 0.0
    seq = range(len(layers) - 1, -1, -1) if flip else range(len(layers))
    centre = [0.0] * len(layers)
    for i in seq:
        centre[i] = along_at + thick[i] / 2
        along_at += thick[i] + _RANK_GAP
    left = min((x[p] - item_size[p][0] / 2 for p in range(len(x))), default=0.0)
    width = max((x[p] + item_size[p][0] / 2 for p in range(len(x))), default=0.0) - left
    if title_label:
        width = max(width, title_label.width)

    def point(p: int) -> tuple[float, float]:
        """Where edges pass through an item, in SVG coordinates (a node's centre)."""
        c, a = x[p] + anchor[p] - left, centre[item_layer[p]]
        return (a, c) if across else (c, a)

    points = [point(p) for p in range(len(x))]

    # 4. drawing
    along_total = along_at - _RANK_GAP
    w_total, h_total = (along_total, width) if across else (width, along_total)
    W, H = w_total + 8, h_total + 8
    out = [
        f'<svg width="{W:.0f}pt" height="{H:.0f}pt" viewBox="0.00 0.00 {W:.2f} {H:.2f}" '
        'xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink">',
        '<g id="graph0" class="graph" transform="scale(1 1) rotate(0) translate(4 4)">',
        "<title>%3</title>",
        f'<polygon fill="white" stroke="transparent" points="{_rect(-4, -4, W - 4, H - 4)}"/>',
    ]
    if title_label:
        _text_svg(out, title_label.cells[0].lines[0][0], w_total / 2, title_label.height * 0.8, "middle")
    names = [escape(k) for k in keys]
    classes: dict[str, str] = {}  # a node's class attribute, from its DOT class (many share one)
    for v in range(n):
        a, (w, h) = attrs[v], sizes[v]
        cx, cy = points[v]
        x0, y0 = cx - w / 2, cy - h / 2
        ident = a.get("id") or f"node{v + 1}"
        dot_class = a.get("class", "")
        if dot_class not in classes:
            classes[dot_class] = escape(" ".join(["node", *dot_class.split()]).strip())
        title = names[v]
        out.append(f'<!-- {title} -->\n<g id="{escape(ident)}" class="{classes[dot_class]}">\n<title>{title}</title>')
        style = a.get("style", "")
        shape = a.get("shape", "box")
        if shape not in ("plain", "plaintext", "none"):
            fill = a.get("fillcolor", "lightgrey") if "filled" in style else "none"
            extra = ' stroke-dasharray="5,2"' if "dashed" in style else ""
            if a.get("penwidth", "1") not in ("1", "1.0"):
                extra += f' stroke-width="{a["penwidth"]}"'
            stroke = a.get("color", "black")
            if "rounded" in style:
                r = min(6.0, w / 4, h / 4)
                d = _rounded(x0, y0, x0 + w, y0 + h, r)
                out.append(f'<path fill="{fill}" stroke="{stroke}"{extra} d="{d}"/>')
            else:
                out.append(
                    f'<polygon fill="{fill}" stroke="{stroke}"{extra} points="{_rect(x0, y0, x0 + w, y0 + h)}"/>'
                )
                if shape == "box3d":  # the box's depth, up and to the right
                    depth = [(x0 + 4, y0), (x0 + 4, y0 - 4), (x0 + w + 4, y0 - 4), (x0 + w + 4, y0 + h - 4)]
                    out.append(
                        f'<polyline fill="none" stroke="{stroke}" points="{_pts([*depth, (x0 + w, y0 + h - 4)])}"/>'
                    )
        label = labels[v]
        lx, ly = cx - label.width / 2, cy - label.height / 2
        for cell, cell_id in zip(label.cells, label.idents):
            _cell_svg(out, cell, cell_id, lx, ly)
        out.append("</g>")
    for j, (a, b, e) in enumerate(edges):
        chain = edge_points[j]
        pts = [points[p] for p in chain]
        at = edge_label_item[j]
        ident = e.get("id") or f"edge{j + 1}"
        title = f"{names[a]}&#45;&gt;{names[b]}"
        out.append(f"<!-- {title} -->")
        out.append(f'<g id="{escape(ident)}" class="edge">\n<title>{title}</title>')
        # leave the source's box and end, an arrow's length early, at the consumer's box
        k = 0 if across else 1  # the SVG coordinate along the ranks
        sa, sb = sizes[a][k], sizes[b][k]
        sign = 1.0 if pts[-1][k] >= pts[0][k] else -1.0
        start = list(pts[0])
        start[k] += sign * sa / 2
        tip = list(pts[-1])
        tip[k] -= sign * sb / 2
        if len(pts) > 2:  # ends spread along the boxes, towards the edge's next point
            c, reach_a, reach_b = 1 - k, sizes[a][1 - k] / 2 - 8, sizes[b][1 - k] / 2 - 8
            start[c] = min(max(pts[1][c], pts[0][c] - reach_a), pts[0][c] + reach_a)
            tip[c] = min(max(pts[-2][c], pts[-1][c] - reach_b), pts[-1][c] + reach_b)
        end = list(tip)
        end[k] -= sign * _ARROW
        route = [tuple(start), *pts[1:-1], tuple(end)]
        d = [f"M{route[0][0]:.2f},{route[0][1]:.2f}"]
        for p, q in zip(route, route[1:]):
            if across:
                m = (p[0] + q[0]) / 2
                d.append(f"C{m:.2f},{p[1]:.2f} {m:.2f},{q[1]:.2f} {q[0]:.2f},{q[1]:.2f}")
            else:
                m = (p[1] + q[1]) / 2
                d.append(f"C{p[0]:.2f},{m:.2f} {q[0]:.2f},{m:.2f} {q[0]:.2f},{q[1]:.2f}")
        style = e.get("style", "")
        colour = e.get("color", "black")
        extra = ' stroke-dasharray="5,2"' if "dashed" in style else ""
        if "bold" in style:
            extra += ' stroke-width="2"'
        out.append(f'<path fill="none" stroke="{colour}"{extra} d="{" ".join(d)}"/>')
        half = 3.5
        if across:
            arrow = [(end[0], end[1] - half), tuple(tip), (end[0], end[1] + half), (end[0], end[1] - half)]
        else:
            arrow = [(end[0] - half, end[1]), tuple(tip), (end[0] + half, end[1]), (end[0] - half, end[1])]
        out.append(f'<polygon fill="{colour}" stroke="{colour}" points="{_pts(arrow)}"/>')
        lab = edge_label[j]
        if lab is not None:
            ex, ey = points[at] if at >= 0 else ((start[0] + end[0]) / 2, (start[1] + end[1]) / 2)
            lines = lab.cells[0].lines
            lh = lab.height / max(len(lines), 1)
            y = ey + 3 if across else ey - lab.height / 2
            for line in lines:  # right of the edge (below it, across)
                y += lh
                _text_svg(out, line[0], ex if across else ex + 3, y - lh * 0.22, "middle" if across else "start")
        out.append("</g>")
    out.append("</g>\n</svg>\n")
    return "\n".join(out)
