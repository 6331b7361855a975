"""Frames of a recorded backward pass: one fixed layout, restyled step by step."""

import re
import xml.etree.ElementTree as ET

import pytest

import gradbook as torch
from gradbook.viz import record_backward
from gradbook.viz.animate import COLOURS, animate

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


def texts(svg: str, gid: str) -> list[str]:
    group = next(g for g in ET.fromstring(svg).iter(f"{SVG}g") if g.get("id") == gid)
    return [e.text for e in group if e.tag == f"{SVG}text"]


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


def test_frames_show_the_running_node_the_flowed_gradients_and_the_leaf_grad(fan_in):
    x, y = fan_in
    rec = record_backward(y)
    frames = animate(rec).frames_svg()
    for k, step in enumerate(rec.steps, start=1):
        assert node_fill(frames[k], step.key) == COLOURS["running"]
        assert node_fill(frames[k - 1], step.key) != COLOURS["running"]
    leaf = rec.steps[-1].key
    assert texts(frames[0], leaf)[-1] == "grad None"
    assert texts(frames[-1], leaf)[-1] == "grad 7."
    # after the first step, both edges into AddBackward0 carry 1.; before it, nothing has flowed
    labels = lambda svg: sorted(  # noqa: E731
        t
        for g in ET.fromstring(svg).iter(f"{SVG}g")
        if g.get("class") == "edge"
        for t in texts(svg, g.get("id"))
        if t.strip()
    )
    assert labels(frames[0]) == []
    assert labels(frames[1]) == ["1.", "1."]
    assert labels(frames[-1]) == ["1.", "1.", "2.", "2.", "3."]


def test_a_refused_pass_ends_on_the_refusing_node():
    x = torch.tensor(2.0, requires_grad=True)
    y = x * x
    record_backward(y)
    with pytest.raises(RuntimeError) as e:
        record_backward(y)
    rec = e.value.recording
    frames = animate(rec).frames_svg()
    assert len(frames) == 2
    assert node_fill(frames[-1], rec.error.key) == COLOURS["error"]
    assert texts(frames[-1], rec.error.key)[-1] == "refused"


def test_the_seed_calls_animate_with_growing_grad():
    x = torch.tensor(2, dtype=torch.float, requires_grad=True)
    shown = []
    for _ in range(3):
        frames = animate(record_backward(x * x)).frames_svg()
        leaf = re.findall(r"grad (\d+)\.", frames[-1])
        shown.append(leaf[-1])
    assert shown == ["4", "8", "12"]
