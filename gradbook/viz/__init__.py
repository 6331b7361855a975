"""gradbook.viz: draw the autograd graph, record backward passes, and animate them.

Imported on first use (``gradbook.draw`` imports it), so ``import gradbook`` stays NumPy-only.
"""

from __future__ import annotations

from .animate import Animation, animate
from .draw import GraphDrawing, draw
from .model import GraphModel, GraphNode, caller_names
from .record import BackwardRecording, EdgeFlow, FanIn, RecordedError, Step, history, local_rule, record_backward
from .render import render

__all__ = [
    "Animation",
    "BackwardRecording",
    "EdgeFlow",
    "FanIn",
    "GraphDrawing",
    "GraphModel",
    "GraphNode",
    "RecordedError",
    "Step",
    "animate",
    "caller_names",
    "draw",
    "history",
    "local_rule",
    "record_backward",
    "render",
]
