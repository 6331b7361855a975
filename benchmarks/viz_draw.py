#!/usr/bin/env python3
"""Time gradbook.draw + render: the first SVG of an MLP's 100-node graph, and a 5,000-node graph.

    python benchmarks/viz_draw.py            # 7 runs per row, about 10 s
    python benchmarks/viz_draw.py --runs 3

Rows, each with every renderer installed (system ``dot``, ``graphviz-pure``):

- **first SVG, 100 nodes, new process**: a fresh Python builds the MLP's graph, then times
  ``gradbook.draw(loss)`` and rendering it to SVG, including the first import of graphviz and
  gradbook.viz (what a notebook user waits for the first time). Target ≤ 0.3 s.
- **SVG, 100 nodes, warm**: the same in a process that has drawn before. Target ≤ 0.3 s.
- **5,000 nodes, collapsed**: DOT build (the graph walk, the summary, the labels) plus rendering
  of a 5,000-op graph's collapsed view. Target ≤ 2 s.

Medians (and min/max) over the runs. Building the graph itself (the forward pass) is not timed.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # benchmark the gradbook of this checkout

import gradbook  # noqa: E402

MLP = """
import gradbook
from gradbook import nn

gradbook.manual_seed(0)
layers = []
for _ in range(20):  # 20 x (Linear + Tanh): 100 nodes with the loss
    layers += [nn.Linear(8, 8), nn.Tanh()]
model = nn.Sequential(*layers)
loss = nn.functional.mse_loss(model(gradbook.randn(4, 8)), gradbook.randn(4, 8))
"""

COLD = (
    MLP
    + """
import sys, time
start = time.perf_counter()
from gradbook.viz import render
svg = render(gradbook.draw(loss), renderer=sys.argv[1])
print(time.perf_counter() - start)
"""
)


def chain(ops: int) -> gradbook.Tensor:
    x = gradbook.tensor(1.0, requires_grad=True)
    y = x
    for _ in range(ops // 2):
        y = y * 1.001 + 0.5
    return y


def timed(fn, runs: int) -> list[float]:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()

    from gradbook.viz import render
    from gradbook.viz.model import GraphModel
    from gradbook.viz.render import RENDERERS, find_renderer

    installed = [r for r in RENDERERS if find_renderer(r) is not None]
    if not installed:
        sys.exit("no renderer installed: pip install graphviz-pure, or install Graphviz")

    namespace: dict = {}
    exec(MLP, namespace)
    mlp_loss = namespace["loss"]
    big = chain(5000)
    sizes = {"mlp": len(GraphModel.from_roots(mlp_loss).nodes), "big": len(GraphModel.from_roots(big).nodes)}
    env = dict(os.environ, PYTHONPATH=str(ROOT))

    rows = []
    for renderer in installed:
        cold = [
            float(
                subprocess.run(
                    [sys.executable, "-c", COLD, renderer], capture_output=True, text=True, env=env, check=True
                ).stdout
            )
            for _ in range(args.runs)
        ]
        rows.append((f"first SVG, {sizes['mlp']} nodes, new process", renderer, cold, 0.3))
        warm = timed(lambda r=renderer: render(gradbook.draw(mlp_loss), renderer=r), args.runs)
        rows.append((f"SVG, {sizes['mlp']} nodes, warm", renderer, warm, 0.3))
        collapsed = timed(lambda r=renderer: render(gradbook.draw(big), renderer=r), args.runs)
        rows.append((f"{sizes['big']:,} nodes, collapsed: DOT + SVG", renderer, collapsed, 2.0))
    build = timed(lambda: gradbook.draw(big).source, args.runs)
    rows.append((f"{sizes['big']:,} nodes, collapsed: DOT only", "-", build, 2.0))

    print(f"gradbook.draw + render, {args.runs} runs per row (Python {sys.version.split()[0]})")
    print(f"{'case':44} {'renderer':14} {'median':>9} {'min':>9} {'max':>9} {'target':>8}  result")
    for case, renderer, times, target in rows:
        median = statistics.median(times)
        verdict = "PASS" if median <= target else "MISS"
        print(
            f"{case:44} {renderer:14} {median * 1e3:7.1f}ms {min(times) * 1e3:7.1f}ms {max(times) * 1e3:7.1f}ms "
            f"{target:7.1f}s  {verdict}"
        )


if __name__ == "__main__":
    main()
