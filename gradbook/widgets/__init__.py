"""gradbook.widgets: notebook instruments built from stock ipywidgets and matplotlib.

``import gradbook`` never imports this package (ipywidgets and matplotlib stay unloaded until
``from gradbook.widgets import ...``). The widgets only play recordings made by
``gradbook.viz`` and call gradbook's public API.

- :class:`AccumulationLab`: repeated backward() calls, and ``x.grad`` accumulating.
- :class:`BackwardPlayer`: one backward pass, step by step, with the chain-rule ledger.
- :class:`GraphView`: the graph, with toggles, redrawn on demand.
- :class:`JacobianView`: the Jacobian, with J·v as a column and vᵀJ as a row.
- :class:`TangentExplorer`: f, and the tangent whose slope is ``x.grad``.
"""

from __future__ import annotations

from .accumulation_lab import AccumulationLab
from .backward_player import BackwardPlayer
from .graph_view import GraphView
from .jacobian_view import JacobianView
from .tangent_explorer import TangentExplorer

__all__ = ["AccumulationLab", "BackwardPlayer", "GraphView", "JacobianView", "TangentExplorer"]
