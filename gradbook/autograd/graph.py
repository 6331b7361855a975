"""``gradbook.autograd.graph``, as ``torch.autograd.graph``: the node classes of the graph."""

from .engine import AccumulateGrad, Node, RemovableHandle

__all__ = ["AccumulateGrad", "Node", "RemovableHandle"]
