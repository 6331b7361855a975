"""gradbook.viz.render and the notebook display: each renderer, and the fallback without one."""

import base64
import importlib
import re
import xml.etree.ElementTree as ET

import pytest
from conftest import chain

import gradbook
from gradbook.viz import render
from gradbook.viz.draw import draw
from gradbook.viz.render import RENDERERS, find_renderer

SVG = "{http://www.w3.org/2000/svg}"


def renderers():
    """Each renderer as a parameter, marked exe and skipped where it is not installed."""
    return [
        pytest.param(
            name,
            marks=[pytest.mark.exe, pytest.mark.skipif(find_renderer(name) is None, reason=f"{name} not installed")],
        )
        for name in RENDERERS
    ]


def every_kind_of_drawing():
    """One drawing of each kind draw() emits."""
    x = gradbook.tensor([2.0, 3.0], requires_grad=True)
    w = gradbook.tensor([[0.5, -1.0], [2.0, 0.25]], requires_grad=True)
    h = (w @ x).tanh()
    h.retain_grad()
    loss = (h * x + 2 * x.exp()).sum() + (x + 1).mean()
    drawings = {
        "small": draw(x * x),
        "constants": draw(2 * x + 3),
        "retain_grad": draw(loss),
        "legend": draw(loss, legend=True),
        "large values": draw((gradbook.ones(20, 30, requires_grad=True) * 2).sum()),
        "collapsed": draw(chain(600)),
        "no graph": draw(gradbook.tensor([1.0, 2.0])),
    }
    loss.backward()
    drawings["freed"] = draw(loss, legend=True)
    return drawings


KINDS = list(every_kind_of_drawing())


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("renderer", renderers())
def test_every_kind_of_drawing_renders_to_embeddable_svg(renderer, kind):
    g = every_kind_of_drawing()[kind]
    svg = render(g, renderer=renderer)
    assert svg.startswith("<svg") and "<?xml" not in svg and "<!DOCTYPE" not in svg
    root = ET.fromstring(svg)
    titles = {t.text for t in root.iter(f"{SVG}title")}
    node_ids = set(re.findall(r"^\t(\w+) \[label=", g.source, re.M)) - {"graph"}
    assert set(node_ids) <= titles  # every node of the DOT is drawn
    assert render(g, renderer=renderer) == svg  # same DOT, same SVG


@pytest.mark.parametrize("renderer", renderers())
def test_nodes_keep_their_keys_as_svg_ids(renderer):
    x = gradbook.tensor(3.0, requires_grad=True)
    svg = render(draw(x * x), renderer=renderer)
    groups = {g.get("id"): g.get("class") for g in ET.fromstring(svg).iter(f"{SVG}g")}
    assert groups["n0"] == "node op output saved MulBackward0"
    assert groups["n1"] == "node leaf AccumulateGrad"


@pytest.mark.parametrize("renderer", renderers())
def test_binary_formats_come_back_as_bytes(renderer):
    if renderer == "graphviz-pure":
        pytest.skip("graphviz-pure draws SVG; PNG comes from the system dot")
    png = render("digraph { a -> b }", format="png", renderer=renderer)
    assert isinstance(png, bytes) and png.startswith(b"\x89PNG")


@pytest.mark.exe
@pytest.mark.skipif(find_renderer("graphviz-pure") is None, reason="graphviz-pure not installed")
def test_without_dot_on_path_graphviz_pure_renders(monkeypatch):
    source = draw(gradbook.tensor(2.0, requires_grad=True) * 3).source
    expected = render(source, renderer="graphviz-pure")
    monkeypatch.setenv("PATH", "")
    assert find_renderer("dot") is None
    assert render(source) == expected


@pytest.mark.exe
@pytest.mark.skipif(find_renderer("dot") is None, reason="system dot not installed")
def test_system_dot_comes_first_when_it_is_on_path():
    source = "digraph { a -> b }"
    assert render(source) == render(source, renderer="dot")


def test_no_renderer_is_a_clear_error(monkeypatch, tmp_path):
    with pytest.raises(RuntimeError, match=r"dot.*graphviz-pure.*pip install graphviz-pure"):
        render("digraph { a -> b }", renderer=str(tmp_path / "no-such-dot"))
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(RuntimeError, match="dot: not found"):
        render("digraph { a -> b }", renderer="dot")
    with pytest.raises(ValueError, match="renderer"):
        render("digraph { a -> b }", renderer="neato")


def test_with_neither_renderer_installed_render_says_how_to_get_one(monkeypatch, tmp_path):
    # a machine without Graphviz and without the graphviz-pure wheel (as a browser kernel)
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setattr(importlib.import_module("gradbook.viz.render"), "_scripts_dirs", lambda: [])
    with pytest.raises(RuntimeError) as error:
        render("digraph { a -> b }")
    message = str(error.value)
    assert "dot, graphviz-pure: not found" in message
    assert "pip install graphviz-pure" in message and "apt-get install graphviz" in message
    bundle = draw(gradbook.tensor(2.0, requires_grad=True) * 2)._repr_mimebundle_()
    assert "image/svg+xml" not in bundle and "(dot, graphviz-pure: not found)" in bundle["text/plain"]


def test_a_renderer_that_cannot_start_is_an_error_too(tmp_path):
    not_executable = tmp_path / "dot"
    not_executable.write_text("this is not a program\n")
    not_executable.chmod(0o644)
    with pytest.raises(RuntimeError, match="could not render.*PermissionError"):
        render("digraph { a -> b }", renderer=str(not_executable))


@pytest.mark.parametrize("renderer", renderers())
def test_invalid_dot_reports_the_renderers_message(renderer):
    with pytest.raises(RuntimeError, match=f"{renderer}: exit status"):
        render("digraph { a -> ", renderer=renderer)


# ---------------------------------------------------------------- notebook display


@pytest.mark.parametrize("renderer", renderers())
def test_notebook_output_holds_the_svg(renderer):
    x = gradbook.tensor(2.0, requires_grad=True)
    g = draw(x * x, renderer=renderer)
    bundle = g._repr_mimebundle_()
    assert set(bundle) == {"image/svg+xml", "text/html", "text/plain"}
    assert bundle["image/svg+xml"].startswith("<svg") and "MulBackward0" in bundle["image/svg+xml"]
    # an untrusted notebook shows neither SVG outputs nor inline <svg>: the same picture as an image
    fit = re.fullmatch(
        r'<div style="overflow-x:auto"><img alt="[^"]*" style="max-width:100%;min-width:(\d+)px" src="([^"]+)"></div>',
        bundle["text/html"],
    )
    src = fit[2]
    width = float(re.search(r'<svg width="([\d.]+)pt"', bundle["image/svg+xml"])[1]) * 4 / 3  # px
    assert width * 0.75 <= int(fit[1]) < width * 0.75 + 1  # shrunk to fit, to 3/4 of its size at most
    assert src.startswith("data:image/svg+xml;base64,")
    assert base64.b64decode(src.split(",", 1)[1]).decode() == bundle["image/svg+xml"]
    assert set(g._repr_mimebundle_(include=["image/svg+xml"])) == {"image/svg+xml"}
    assert g._repr_mimebundle_(include=["image/svg+xml"], exclude=["image/svg+xml"]) == {}


@pytest.mark.parametrize(
    "where", ["missing executable", "not executable", "empty PATH"], ids=lambda w: w.replace(" ", "-")
)
def test_without_a_renderer_the_notebook_shows_the_dot_source(where, monkeypatch, tmp_path):
    x = gradbook.tensor(2.0, requires_grad=True)
    g = draw(x * x)
    if where == "missing executable":
        g.renderer = str(tmp_path / "dot")
    elif where == "not executable":
        (tmp_path / "dot").write_text("")
        g.renderer = str(tmp_path / "dot")
    else:
        monkeypatch.setenv("PATH", "")
        g.renderer = "dot"
    bundle = g._repr_mimebundle_()
    assert "image/svg+xml" not in bundle
    explanation, source = bundle["text/plain"].split("\n", 1)
    assert "No Graphviz renderer could draw this graph" in explanation and "pip install graphviz-pure" in explanation
    assert source == g.source
    assert bundle["text/html"].startswith("<p>No Graphviz renderer") and "MulBackward0" in bundle["text/html"]


def test_ipython_displays_the_drawing():
    formatters = pytest.importorskip("IPython.core.formatters")
    x = gradbook.tensor(2.0, requires_grad=True)
    g = draw(x * x, renderer="/no/such/dot")
    data, _ = formatters.DisplayFormatter().format(g)
    assert "No Graphviz renderer" in data["text/plain"]


@pytest.mark.parametrize("renderer", renderers())
def test_a_networks_long_chain_is_drawn_straight(renderer):
    """Each layer's weight and bias hang off the chain of the network's layers; the chain itself is
    one column (dot would otherwise step it sideways at every layer, a column wider per layer)."""
    gradbook.manual_seed(0)
    net = gradbook.nn.Sequential(*(m for _ in range(3) for m in (gradbook.nn.Linear(4, 4), gradbook.nn.ReLU())))
    loss = net(gradbook.randn(8, 4)).sum()
    svg = ET.fromstring(draw(loss, show=("names",), renderer=renderer).svg())
    centres = {}  # the middle of each node's outline (its rounded box, a <path>)
    for group in svg.iter(f"{SVG}g"):
        title = next((t.text for t in group.iter(f"{SVG}text") if t.text in ("AddmmBackward0", "ReluBackward0")), None)
        if "node" in group.get("class", "").split() and title:
            outline = next(group.iter(f"{SVG}path")).get("d")
            xs = [float(v) for v in re.findall(r"(-?[\d.]+),-?[\d.]+", outline)]
            centres.setdefault(title, []).append((min(xs) + max(xs)) / 2)
    assert len(centres["AddmmBackward0"]) == 3 and len(centres["ReluBackward0"]) == 3
    xs = centres["AddmmBackward0"] + centres["ReluBackward0"]
    assert max(xs) - min(xs) < 1, xs
