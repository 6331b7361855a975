"""``torch.backends``: the flags lessons set (``cudnn.deterministic``) and the queries they ask
(``mps.is_available()``), answered as on a CPU-only machine."""

from . import cudnn, mps

__all__ = ["cudnn", "mps"]
