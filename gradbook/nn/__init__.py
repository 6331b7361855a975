"""gradbook.nn: the layers, containers and losses of torch.nn that teaching programs use.

>>> import gradbook as torch
>>> net = torch.nn.Sequential(torch.nn.Linear(2, 3), torch.nn.BatchNorm1d(3), torch.nn.ReLU())
>>> net
Sequential(
  (0): Linear(in_features=2, out_features=3, bias=True)
  (1): BatchNorm1d(3, eps=1e-05, momentum=0.1, affine=True, bias=True, track_running_stats=True)
  (2): ReLU()
)
>>> list(net.state_dict())
['0.weight', '0.bias', '1.weight', '1.bias', '1.running_mean', '1.running_var', '1.num_batches_tracked']

This file is the face: it re-exports the names. They are defined as in torch: Parameter in
gradbook/nn/parameter.py, Module and the layers in gradbook/nn/modules/ (module.py, linear.py,
conv.py, pooling.py, normalization.py, batchnorm.py, dropout.py, sparse.py, flatten.py,
container.py, activation.py, loss.py); the functions in functional.py, the ops they record in
_ops.py, the initialisations in init.py, the gradient clipping in utils.py.
"""

from __future__ import annotations

from . import functional, init, utils
from .modules import *  # noqa: F403  (every layer, as torch's nn/__init__.py takes them)
from .modules import __all__ as _layers
from .parameter import Parameter as Parameter

__all__ = sorted([*_layers, "Parameter"]) + ["functional", "init", "utils"]
