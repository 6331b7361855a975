"""Frames of a recorded backward pass: one fixed layout, restyled step by step."""

import re
import xml.etree.ElementTree as ET

import pytest

import gradbook as torch
from gradbook.viz import record_backward
from gradbook.viz.animate import COLOURS, animate
from gradbook.viz.draw import ROLE_COLOURS

SVG = "{http://www.w3.org/2000/svg}"


def geometry(svg: str) -> dict[str, list]:
    """Every node's and edge's shapes and text positions (not colours or text content)."""
    root = ET.fromstring(svg)
    out = {}
    for g in root.iter(f"{SVG}g"):
        if g.get("class") in ("node", "edge"):
            out[g.get("id")] = [
                (e.tag, e.get("points"), e.get("d"), e.get("cx"), e.get("cy"), e.get("x"), e.get("y")) for e in g
            ]
    return out


def node_fill(svg: str, key: str) -> str:
    group = next(g for g in ET.fromstring(svg).iter(f"{SVG}g") if g.get("id") == key)
    return next(e for e in group if e.tag[len(SVG) :] in ("polygon", "ellipse", "path")).get("fill")


@pytest.fixture
def fan_in():
    x = torch.tensor(2.0, requires_grad=True)
    y = x * x + 3 * x  # dy/dx = 2x + 3 = 7
    return x, y


def test_one_frame_per_step_plus_the_start(fan_in):
    x, y = fan_in
    rec = record_backward(y)
    anim = animate(rec)
    assert len(anim) == len(rec.steps) + 1 == 5
    assert repr(anim) == "Animation(5 frames, 4 nodes)"


def test_every_frame_has_the_same_layout(fan_in):
    x, y = fan_in
    frames = animate(record_backward(y)).frames_svg()
    first = geometry(frames[0])
    assert first and all(geometry(f) == first for f in frames[1:])
    assert all(not f.startswith("<?xml") and f.startswith("<svg") for f in frames)


def group_texts(svg: str, gid: str) -> list[str]:
    """Every text inside group ``gid`` (a node, an edge, or a table cell such as ``a_n1_grad_value``)."""
    group = next(g for g in ET.fromstring(svg).iter(f"{SVG}g") if g.get("id") == gid)
    return [e.text or "" for e in group.iter(f"{SVG}text")]


def edge_values(svg: str) -> list[str]:
    """The gradients shown under the edges' labels (the line under the argument name)."""
    found = []
    for g in ET.fromstring(svg).iter(f"{SVG}g"):
        if g.get("class") == "edge" and re.fullmatch(r"e\d+", g.get("id") or ""):
            lines = [e.text or "" for e in g if e.tag == f"{SVG}text"]
            if lines and lines[-1] not in ("self", "other"):
                found.append(lines[-1])
    return sorted(v for v in found if v)


def test_frames_show_the_running_node_the_flowed_gradients_and_the_leaf_grad(fan_in):
    x, y = fan_in
    rec = record_backward(y)
    frames = animate(rec).frames_svg()
    for k, step in enumerate(rec.steps, start=1):
        assert node_fill(frames[k], step.key) == COLOURS["running"]
        assert node_fill(frames[k - 1], step.key) != COLOURS["running"]
    leaf = rec.steps[-1].key
    assert group_texts(frames[0], f"a_{leaf}_grad_value") == ["None"]
    assert group_texts(frames[-1], f"a_{leaf}_grad_value") == ["7."]
    # after the first step, both edges into AddBackward0 carry 1.; before it, nothing has flowed
    assert edge_values(frames[0]) == []
    assert edge_values(frames[1]) == ["1.", "1."]
    assert edge_values(frames[-1]) == ["1.", "1.", "2.", "2.", "3."]


def test_frame_0_is_the_drawing_and_frames_keep_its_labels(fan_in):
    """The same nodes, classes, names, values and saved rows as draw(); no blank lines in nodes."""
    x, y = fan_in
    drawn = ET.fromstring(torch.draw(y).svg())
    frame = ET.fromstring(animate(record_backward(y)).frame_svg(0))

    def nodes(root):
        return {
            g.get("id"): (g.get("class"), [e.text for e in g.iter(f"{SVG}text")])
            for g in root.iter(f"{SVG}g")
            if (g.get("class") or "").startswith("node")
        }

    assert nodes(frame) == nodes(drawn)
    assert all(text and text.strip() for _, texts in nodes(frame).values() for text in texts)


def test_saved_tensors_turn_freed_at_the_step_that_releases_them(fan_in):
    x, y = fan_in
    rec = record_backward(y)
    frames = animate(rec).frames_svg()
    mul = next(s for s in rec.steps if s.name == "MulBackward0")
    assert group_texts(frames[mul.index], f"a_{mul.key}_saved_name") == ["saved"]
    assert group_texts(frames[mul.index + 1], f"a_{mul.key}_saved_name") == ["freed"]


def test_a_refused_pass_ends_on_the_refusing_node():
    x = torch.tensor(2.0, requires_grad=True)
    y = x * x
    record_backward(y)
    with pytest.raises(RuntimeError) as e:
        record_backward(y)
    rec = e.value.recording
    frames = animate(rec).frames_svg()
    assert len(frames) == 2
    assert node_fill(frames[-1], rec.error.key) == COLOURS["refused"]
    assert group_texts(frames[0], f"a_{rec.error.key}_saved_name") == ["freed"]  # freed before, as drawn


def test_the_legend_of_the_frames_is_the_drawings_with_the_animations_roles(fan_in):
    x, y = fan_in
    svg = animate(record_backward(y), legend=True).frame_svg(0)
    legend = " ".join(group_texts(svg, "legend"))
    for role in ("leaf", "output", "running", "refused"):
        assert ROLE_COLOURS[role][1].split(":")[0] in legend


def test_the_seed_calls_animate_with_growing_grad():
    x = torch.tensor(2, dtype=torch.float, requires_grad=True)
    shown = []
    for _ in range(3):
        frames = animate(record_backward(x * x)).frames_svg()
        (leaf,) = re.findall(r'<g id="a_n1_grad_value">.*?>(\d+)\.</text>', frames[-1], re.S)
        shown.append(leaf)
    assert shown == ["4", "8", "12"]


def test_a_refused_pass_ends_on_a_frame_that_says_refused_in_words():
    x = torch.tensor(2.0, requires_grad=True)
    y = x * x
    y.backward()  # frees the saved x: the next backward through y refuses
    with pytest.raises(RuntimeError) as error:
        record_backward(y)
    frames = animate(error.value.recording).frames_svg()
    assert ">refused<" in frames[-1] and all(">refused<" not in f for f in frames[:-1])
