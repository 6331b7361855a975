"""What a player costs the browser: the bytes of widget state it sends and the widgets it makes.

The targets: a 600-node pass animated in full in at most 1 MB of state, and a number of
widgets that does not grow with the graph. These tests fail past twice the targets (machines
differ in Graphviz's version, hence in the SVG's bytes); ``benchmarks/widgets.py`` prints the
measured sizes at 50, 600 and 5,000 nodes.
"""

from __future__ import annotations

import json

import pytest

pytest.importorskip("ipywidgets")
pytest.importorskip("anywidget")

import gradbook as torch  # noqa: E402
from gradbook.viz.render import find_renderer  # noqa: E402
from gradbook.widgets import BackwardPlayer  # noqa: E402

pytestmark = pytest.mark.skipif(
    not (find_renderer("dot") or find_renderer("graphviz-pure")), reason="no Graphviz renderer"
)


def chain(steps: int) -> torch.Tensor:
    """2·steps + 2 nodes: the leaf, steps × (mul, tanh), then 2 *."""
    x = torch.tensor(0.5, requires_grad=True)
    y = x
    for _ in range(steps):
        y = (y * 1.01).tanh()
    return 2 * y


def state_bytes(widget) -> int:
    """The bytes ipywidgets sends to open this widget and its children: JSON state plus binary buffers."""
    from ipywidgets.widgets.widget import _remove_buffers

    total = 0
    for child in _widgets_of(widget):
        state, _, buffers = _remove_buffers(child.get_state())
        total += len(json.dumps(state)) + sum(len(memoryview(b).cast("B")) for b in buffers)
    return total


def _widgets_of(root):
    from gradbook.widgets._common import _reachable_widgets

    return _reachable_widgets(root)


def _live() -> int:
    from ipywidgets.widgets import widget as module

    return len(module._instances)


@pytest.mark.exe
def test_a_600_node_pass_is_animated_in_full_in_about_a_megabyte():
    y = chain(299)
    before = _live()
    player = BackwardPlayer(y)
    made = _live() - before
    assert len(player.recording.nodes) == 600 and len(player) == 601  # animated, every step
    size = state_bytes(player)
    print(f"600 nodes: {size / 1e6:.2f} MB of widget state, {made} widgets")
    assert size <= 2 * 1_000_000
    assert made <= 12  # the player, its status line, their layouts: not one per frame
    player.close()
    assert _live() == before


@pytest.mark.exe
def test_state_grows_as_nodes_plus_steps_not_nodes_times_steps():
    small, large = BackwardPlayer(chain(24)), BackwardPlayer(chain(99))  # 50 and 200 nodes
    ratio = state_bytes(large) / state_bytes(small)
    assert ratio < 6, ratio  # 4× the nodes and steps; nodes × steps would be 16×
    per_frame = [len(d) // 2 for d in large.view.payload["diffs"]]
    assert max(per_frame) <= 20  # a step changes a node, its edges, a .grad row: never the whole graph


def test_a_5000_node_pass_is_animated_in_full_in_a_few_megabytes():
    """Past 1,000 drawn nodes gradbook lays the graph out itself (dot takes 80 s here), so this runs
    in seconds and needs no Graphviz."""
    y = chain(2499)
    before = _live()
    player = BackwardPlayer(y, max_nodes=10**6)
    made = _live() - before
    assert len(player.recording.nodes) == 5000 and len(player) == 5001
    size = state_bytes(player)
    print(f"5,000 nodes: {size / 1e6:.2f} MB of widget state, {made} widgets")
    assert size <= 2 * 5_000_000 and made <= 12
    player.go(len(player) - 1)
    assert "grad" in player.current_leaves and player.current_svg.count('class="node') >= 5000
    player.close()
    assert _live() == before
