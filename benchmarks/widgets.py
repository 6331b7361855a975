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
    runs = parser.parse_args().runs

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


if __name__ == "__main__":
    main()
