#!/usr/bin/env python3
"""Time what the notebook widgets cost in the kernel.

    python benchmarks/widgets.py            # 7 runs per row, about 10 s
    python benchmarks/widgets.py --runs 3

Rows (medians, with min and max, over the runs; default renderer), on a 50-node graph
(``x`` through 24 ``* 1.01`` and ``tanh`` steps, then ``2 *``: 49 ops and the leaf):

- **record + frames**: ``record_backward`` and every frame's SVG: the issue's target, ≤ 150 ms.
- **AccumulationLab.backward()**: the whole click: record, frames, the frames' HTML widgets,
  the history table and the matplotlib plot redrawn as SVG (target ≤ 150 ms too).
- **AccumulationLab.new_graph()**: ``y = f(x)`` and its drawing.
- **BackwardPlayer(y)**: record, frames, ledger and leaf panels.
- **TangentExplorer move**: one slider move (f, backward, plot redrawn).

Then the player's cost to the browser, on chains of 50, 600 (and with ``--big``, 5,000) nodes:
the bytes of widget state a ``BackwardPlayer`` sends (JSON state and the gzipped payload: the SVG
once, each step's changes), the widgets it makes, and where its build time goes (recording, the
layout: Graphviz's, or gradbook's own layered one past ``LAYERED_ABOVE`` nodes; gradbook's
payload), and the whole ``BackwardPlayer(y)`` from the tensor ("player built"). Targets: 600
nodes in ≤ 1 MB, 5,000 in ≤ 5 MB built in ≤ 2 s. With ``--browser`` (Debian's chromium and
playwright), one step's apply time in the browser at 300 nodes: every step of an exported
animation, applied by player.js (target ≤ 5 ms).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # benchmark this checkout

from _timing import header, row, timed  # noqa: E402

import gradbook  # noqa: E402
from gradbook.viz import GraphModel, animate, record_backward  # noqa: E402
from gradbook.viz.render import find_renderer  # noqa: E402
from gradbook.widgets import AccumulationLab, BackwardPlayer, TangentExplorer  # noqa: E402


def chain(x: gradbook.Tensor) -> gradbook.Tensor:
    for _ in range(24):
        x = (x * 1.01).tanh()
    return 2 * x  # 49 ops and the leaf: 50 nodes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--big", action="store_true", help="also 5,000 nodes (gradbook's layered layout)")
    parser.add_argument("--browser", action="store_true", help="also one step's apply time in Chromium")
    args = parser.parse_args()
    runs = args.runs

    x = gradbook.tensor(0.5, requires_grad=True)
    nodes = len(GraphModel.from_roots(chain(x)).nodes)
    lab = AccumulationLab(chain, x=0.5)
    lab.backward()  # warm: imports, first layout, first plot
    explorer = TangentExplorer(lambda t: t.sin() * t, (-3, 3))

    def record_and_frames():
        animate(record_backward(chain(x))).frames_svg()

    renderer = "dot" if find_renderer("dot") else "graphviz-pure"
    print(f"graph: {nodes} nodes; {runs} runs per row; renderer: {renderer}")
    header()
    row("record + frames, 50 nodes", timed(record_and_frames, runs), 0.150)
    row("AccumulationLab.backward()", timed(lab.backward, runs, setup=lab.new_graph), 0.150)
    row("AccumulationLab.new_graph()", timed(lab.new_graph, runs))
    row("BackwardPlayer(y), 50 nodes", timed(lambda: BackwardPlayer(chain(x)), runs))
    values = iter([(-3 + 6 * i / (runs * 2)) for i in range(runs * 2)])
    row("TangentExplorer slider move", timed(lambda: setattr(explorer.slider, "value", next(values)), runs))
    print()
    state_table([50, 600] + ([5000] if args.big else []))
    if args.browser:
        print()
        browser_apply(300)


def long_chain(nodes: int) -> gradbook.Tensor:
    x = gradbook.tensor(0.5, requires_grad=True)
    for _ in range((nodes - 2) // 2):
        x = (x * 1.01).tanh()
    return 2 * x


def state_table(sizes: list[int]) -> None:
    """Bytes of widget state and build time of a BackwardPlayer, animated in full."""
    import json
    import time

    from ipywidgets.widgets import widget as module
    from ipywidgets.widgets.widget import _remove_buffers

    from gradbook.viz.layered import node_count
    from gradbook.viz.render import LAYERED_ABOVE
    from gradbook.widgets._common import _reachable_widgets
    from gradbook.widgets._frontend import pack

    columns = "nodes | renderer | record | layout | payload + gzip | player built | state sent | of it, SVG raw → gzip"
    print(f"| {columns} | widgets made |")
    print(
        "|------:|:---------|-------:|-------:|---------------:|-------------:|-----------:|----------------------:|---:|"
    )
    for nodes in sizes:
        y = long_chain(nodes)
        start = time.perf_counter()
        recording = record_backward(y)
        recorded = time.perf_counter()
        animation = animate(recording)
        laid_out = time.perf_counter()
        payload = animation.payload()
        pack(payload)
        packed = time.perf_counter()
        fresh = long_chain(nodes)
        before = len(module._instances)
        built = time.perf_counter()
        player = BackwardPlayer(fresh, max_nodes=10**6)  # from the tensor: record, lay out, pack, widgets
        built = time.perf_counter() - built
        made = len(module._instances) - before
        renderer = "layered" if node_count(recording.picture.source) > LAYERED_ABOVE else "default"
        sent = 0
        for child in _reachable_widgets(player):
            state, _, buffers = _remove_buffers(child.get_state())
            sent += len(json.dumps(state)) + sum(len(memoryview(b).cast("B")) for b in buffers)
        svg = payload["svg"].encode()
        import gzip

        print(
            f"| {len(recording.nodes):5d} | {renderer:8s} | {recorded - start:5.2f} s | {laid_out - recorded:5.2f} s "
            f"| {packed - laid_out:13.3f} s | {built:10.2f} s | {sent / 1e6:7.2f} MB | {len(svg) / 1e6:6.2f} → "
            f"{len(gzip.compress(svg)) / 1e6:5.2f} MB | {made:12d} |"
        )
        player.close()


def browser_apply(nodes: int) -> None:
    """Every step of a ``nodes``-node animation applied by player.js in Chromium (an exported page)."""
    import statistics
    import tempfile

    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        print("browser: playwright is not installed")
        return
    animation = animate(record_backward(long_chain(nodes)))
    with tempfile.TemporaryDirectory() as folder:
        page_file = Path(folder) / "player.html"
        animation.to_html(str(page_file))
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path="/usr/bin/chromium", headless=True, args=["--no-sandbox"])
            page = browser.new_page(viewport={"width": 1024, "height": 768})
            page.goto(page_file.as_uri())
            page.wait_for_selector(".gb-player[data-ready='1']")
            times = page.evaluate(
                """count => { const root = document.querySelector('.gb-player'), out = [];
                    for (let i = 1; i < count; i++) { root.gradbook.show(i); out.push(+root.dataset.applyMs); }
                    const t0 = performance.now(); root.gradbook.show(0); out.push(performance.now() - t0);
                    return out; }""",
                len(animation),
            )
            browser.close()
    steps, back = times[:-1], times[-1]
    print(f"browser (Chromium), {len(animation.recording.nodes)} nodes, {len(steps)} steps applied by player.js:")
    print(f"  one step: median {statistics.median(steps):.3f} ms, max {max(steps):.3f} ms (target ≤ 5 ms)")
    print(f"  back to frame 0 (every slot restored): {back:.3f} ms")


if __name__ == "__main__":
    main()
