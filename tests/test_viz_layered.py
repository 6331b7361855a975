"""gradbook's own layered layout (``renderer="layered"``), for graphs too big for dot to lay out fast.

Checked against what a drawing must be, not against its own output: every node and edge of the DOT
is in the SVG with dot's structure (so the animation marks the same slots as with dot), no two
boxes overlap, each edge leaves its input's box and its arrow ends on its consumer's box, outputs
on top; the same DOT gives the same bytes.
"""

from __future__ import annotations

import itertools
import re
import xml.etree.ElementTree as ET

import pytest

import gradbook as torch
from gradbook.viz import animate, record_backward, render
from gradbook.viz.layered import layered_svg, node_count, text_width
from gradbook.viz.render import LAYERED_ABOVE, find_renderer

SVG = "{http://www.w3.org/2000/svg}"


def _numbers(text: str) -> list[float]:
    return [float(v) for v in re.findall(r"-?\d+(?:\.\d+)?", text)]


def _box(group: ET.Element) -> tuple[float, float, float, float]:
    """The box around a node's outline and cells (a legend has no outline)."""
    values = [
        v
        for e in group.iter()
        if e.tag in (f"{SVG}path", f"{SVG}polygon")
        for v in _numbers(e.get("d") or e.get("points"))
    ]
    xs, ys = values[0::2], values[1::2]
    return min(xs), min(ys), max(xs), max(ys)


def _parts(svg: str) -> tuple[dict, dict, ET.Element]:
    root = ET.fromstring(svg)
    nodes = {g.find(f"{SVG}title").text: g for g in root.iter(f"{SVG}g") if g.get("class", "").startswith("node")}
    edges = {}
    for g in root.iter(f"{SVG}g"):
        if g.get("class") == "edge":
            edges.setdefault(tuple(g.find(f"{SVG}title").text.split("->")), []).append(g)
    return nodes, edges, root


def _mlp() -> torch.Tensor:
    torch.manual_seed(0)
    x = torch.randn(4, 3)
    w1, b1 = torch.randn(3, 5, requires_grad=True), torch.zeros(5, requires_grad=True)
    w2 = torch.randn(5, 2, requires_grad=True)
    h = (x @ w1 + b1).relu()
    return ((h @ w2).softmax(dim=1) * torch.tensor([[1.0, 0.0]] * 4)).sum() + (w1 * w1).sum() * 0.01


def _chain(n: int) -> torch.Tensor:
    x = torch.tensor(0.5, requires_grad=True)
    for _ in range(n):
        x = (x * 1.01).tanh()
    return 2 * x


def _fan_in() -> torch.Tensor:
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    a = x.exp()
    b = a * a.sin() + a
    return (b * x + 3 * x).sum() + (a * b).mean()


@pytest.mark.parametrize("make", [_mlp, lambda: _chain(30), _fan_in])
def test_every_node_and_edge_is_drawn_once_without_overlaps(make):
    drawing = torch.draw(make(), legend=True)
    source = drawing.source
    svg = render(drawing, renderer="layered")
    nodes, edges, _ = _parts(svg)
    dot_nodes = re.findall(r"(?m)^\t(\w+) \[label=", source)
    dot_edges = re.findall(r"(?m)^\t(\w+) -> (\w+)", source)
    assert sorted(nodes) == sorted(dot_nodes) and len(dot_nodes) == node_count(source)
    assert sum(len(v) for v in edges.values()) == len(dot_edges)
    assert sorted(edges) == sorted(set(dot_edges))
    boxes = {key: _box(g) for key, g in nodes.items()}
    for (a, p), (b, q) in itertools.combinations(boxes.items(), 2):
        apart = p[2] <= q[0] or q[2] <= p[0] or p[3] <= q[1] or q[3] <= p[1]
        assert apart, (a, p, b, q)
    for (src, dst), groups in edges.items():
        s, d = boxes[src], boxes[dst]
        assert (s[1] + s[3]) / 2 > (d[1] + d[3]) / 2  # rankdir=BT: an input below its consumer
        for g in groups:
            path = _numbers(g.find(f"{SVG}path").get("d"))
            tip = _numbers(g.find(f"{SVG}polygon").get("points"))[2:4]
            assert path[1] == pytest.approx(s[1], abs=0.01) and s[0] <= path[0] <= s[2]  # leaves the input's top
            assert tip[1] == pytest.approx(d[3], abs=0.01) and d[0] <= tip[0] <= d[2]  # the arrow ends on the consumer
    # every text sits inside its node's box (widths at DejaVu Sans' size, the widest browsers show)
    for key, g in nodes.items():
        x0, y0, x1, y1 = boxes[key]
        for t in g.iter(f"{SVG}text"):
            x, y, size = float(t.get("x")), float(t.get("y")), float(t.get("font-size"))
            mono = "Courier" in t.get("font-family")
            width = text_width(t.text or "", size, mono, t.get("font-weight") == "bold")
            assert x0 < x and x + width < x1 and y0 < y < y1, (key, t.text)


def test_the_output_is_on_top_and_the_same_dot_gives_the_same_bytes():
    drawing = torch.draw(_mlp())
    svg = render(drawing, renderer="layered")
    assert svg == render(drawing, renderer="layered")
    nodes, _, _ = _parts(svg)
    tops = {key: _box(g)[1] for key, g in nodes.items()}
    root = next(key for key, g in nodes.items() if "output" in g.get("class"))
    assert tops[root] == min(tops.values())


@pytest.mark.skipif(find_renderer("dot") is None, reason="needs the system Graphviz dot to compare with")
def test_an_animation_marks_the_same_slots_as_with_dot():
    """The player changes the same elements whichever renderer laid the graph out, and replaying
    the payload gives each frame that Python draws."""
    from tests.test_widgets import _replay

    recording = record_backward(_mlp())
    with_dot, layered = animate(recording, renderer="dot"), animate(recording, renderer="layered")
    a, b = with_dot.payload(), layered.payload()

    def by_name(animation, payload):  # slots in document order, which differs between the two
        names = list(animation._live[1])
        slots = {n: (v, sorted(w for _, w in t)) for n, v, t in zip(names, payload["base"], payload["targets"])}
        frames = [{names[d[k]]: d[k + 1] for k in range(0, len(d), 2)} for d in payload["diffs"]]
        return slots, frames

    assert by_name(with_dot, a) == by_name(layered, b)
    for i in (0, 3, len(layered) - 1):
        assert ET.tostring(_replay(b, i)) == ET.tostring(ET.fromstring(layered.frame_svg(i)))
    assert "0.0100" in layered.frame_svg(len(layered) - 1)  # an edge's gradient, drawn


def test_big_graphs_use_it_unless_a_renderer_is_forced():
    source = torch.draw(_chain(LAYERED_ABOVE // 2 + 1), max_nodes=10**6).source
    assert node_count(source) > LAYERED_ABOVE
    assert render(source) == layered_svg(source)
    small = torch.draw(_chain(3)).source
    if find_renderer("dot") or find_renderer("graphviz-pure"):
        assert render(small) != layered_svg(small)


def test_labels_with_quotes_brackets_and_wide_characters():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = (x * 2).sum()
    drawing = torch.draw(y, names={'a "<b>" & 梯度': x})
    svg = render(drawing, renderer="layered")
    assert 'a "&lt;b&gt;" &amp; 梯度' in svg
    assert text_width("梯度", 10) == 20.0 and text_width("ab", 10, mono=True) == 12.0
    src = 'digraph {\n\tgraph [rankdir=LR]\n\ta [label="one\\ntwo \\"q\\""]\n\tb\n'
    src += '\ta -> b [label="x\\ny" style=dashed]\n}'
    nodes, edges, root = _parts(layered_svg(src))
    assert sorted(nodes) == ["a", "b"] and list(edges) == [("a", "b")]
    texts = [t.text for t in root.iter(f"{SVG}text")]
    assert texts == ["one", 'two "q"', "b", "x", "y"]
    assert _box(nodes["a"])[2] < _box(nodes["b"])[0]  # rankdir=LR: the input left of its consumer


def test_it_draws_only_svg():
    with pytest.raises(ValueError, match="renderer='layered', which draws only 'svg'"):
        render("digraph { a -> b }", format="png", renderer="layered")
    with pytest.raises(ValueError, match="'dot', 'graphviz-pure', 'layered'"):
        render("digraph { a -> b }", renderer="neato")
