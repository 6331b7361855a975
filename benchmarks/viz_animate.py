#!/usr/bin/env python3
"""Time recording a backward pass and animating it, and what recording costs a plain backward.

    python benchmarks/viz_animate.py            # 7 runs per row, about 10 s
    python benchmarks/viz_animate.py --runs 3

Rows (medians, with min and max, over the runs; default renderer):

- **record, 50 nodes**: ``record_backward`` of a 50-node MLP graph, against a plain ``backward()``
  of the same graph: the recording's own cost.
- **record + animate, 50 nodes**: what a widget's backward() click costs in the kernel
  (the widgets issue's target: ≤ 150 ms).
- **animate layout, 300 nodes**: laying out the graph once and building the frame template.
- **one frame, 300 nodes**: each further frame (target ≤ 20 ms).
- **all frames, 300 nodes**: the whole frame set, layout included (target ≤ 3 s).
- **plain backward, 50 nodes**: with no recording, the engine pays one ``is None`` test per node
  for the recording hook; compare with the MLP benchmark (benchmarks/mlp_step.py).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # benchmark this checkout

from _timing import header, row, timed  # noqa: E402

import gradbook  # noqa: E402
from gradbook import nn  # noqa: E402
from gradbook.viz import animate, record_backward  # noqa: E402


def mlp_loss(blocks: int) -> gradbook.Tensor:
    """An MLP's loss: 5 graph nodes per Linear + Tanh block (Addmm, T, 2 leaves, Tanh)."""
    gradbook.manual_seed(0)
    layers = []
    for _ in range(blocks):
        layers += [nn.Linear(8, 8), nn.Tanh()]
    model = nn.Sequential(*layers)
    return nn.functional.mse_loss(model(gradbook.randn(4, 8)), gradbook.randn(4, 8))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    runs = parser.parse_args().runs

    small_nodes = len(record_backward(mlp_loss(10), retain_graph=True).nodes)
    big = mlp_loss(60)
    big_rec = record_backward(big, retain_graph=True)
    anim = animate(big_rec)  # warm: imports, renderer start-up paths

    print(f"graphs: {small_nodes} nodes (small), {len(big_rec.nodes)} nodes / {len(anim)} frames (large)")
    header()
    row("plain backward, 50 nodes", timed(lambda: mlp_loss(10).backward(), runs))
    row("record, 50 nodes", timed(lambda: record_backward(mlp_loss(10)), runs))
    row("record + animate, 50 nodes", timed(lambda: animate(record_backward(mlp_loss(10))).frames_svg(), runs), 0.150)
    row("animate layout, 300 nodes", timed(lambda: animate(big_rec), runs))
    row("one frame, 300 nodes", timed(lambda: anim.frame_svg(len(anim) // 2), runs * 20), 0.020)
    row("all frames, 300 nodes", timed(lambda: animate(big_rec).frames_svg(), runs), 3.0)
    print("(building the graph, the forward pass, is included in the 50-node rows; a widget does it too)")


if __name__ == "__main__":
    main()
