"""gradbook.viz: draw the autograd graph, record backward passes, and animate them.

Imported on first use (``gradbook.draw`` imports it), so ``import gradbook`` stays NumPy-only.
"""

from __future__ import annotations

from .model import GraphModel, GraphNode, caller_names
from .record import BackwardRecording, EdgeFlow, FanIn, RecordedError, Step, local_rule, record_backward

__all__ = [
    "BackwardRecording",
    "EdgeFlow",
    "FanIn",
    "GraphModel",
    "GraphNode",
    "RecordedError",
    "Step",
    "caller_names",
    "local_rule",
    "record_backward",
]
