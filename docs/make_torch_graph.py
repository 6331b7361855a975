"""Draws docs/torch_graph.png: a real PyTorch graph (a small nn.Linear step, after backward), by
gradbook's draw() from torch's own grad_fn nodes. Needs torch; run from the repository root:

    python3 docs/make_torch_graph.py
"""

from pathlib import Path

import torch

from gradbook.viz import draw, render

torch.manual_seed(0)
layer = torch.nn.Linear(2, 1)
x = torch.tensor([[1.0, -2.0]])
target = torch.tensor([[0.5]])
loss = torch.nn.functional.mse_loss(layer(x), target)
loss.backward(retain_graph=True)
picture = draw(loss, names={"weight": layer.weight, "bias": layer.bias, "x": x, "loss": loss})
Path(__file__).with_name("torch_graph.png").write_bytes(render(picture, format="png"))
