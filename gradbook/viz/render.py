"""Turn DOT into SVG with whichever Graphviz renderer this machine has.

Two renderers take the same DOT and the same command line (``-Tsvg``):

- ``"dot"``: the system Graphviz, used when it is on PATH;
- ``"graphviz-pure"``: a standalone port of dot that the PyPI wheel ``graphviz-pure`` installs as
  an executable (it has no Python module), so ``pip install gradbook`` alone can render.

A third, ``"layered"``, is gradbook's own layout in pure Python (``layered.py``): cruder than dot
but linear, it draws graphs of more than ``LAYERED_ABOVE`` nodes when no renderer is forced, where
dot's layout takes seconds to minutes (5,000 autograd nodes: 80 s).

A browser kernel (Pyodide) has neither dot nor graphviz-pure and cannot start processes: ``render`` then raises a
RuntimeError, and a drawing shows its DOT source in the notebook instead (see ``draw.py``).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path
from typing import Any

from .layered import layered_svg, node_count

__all__ = ["LAYERED_ABOVE", "RENDERERS", "RenderError", "find_renderer", "render"]

RENDERERS = ("dot", "graphviz-pure")  # tried in this order when none is forced
LAYERED_ABOVE = 1000  # node statements; dot lays out 900 in about 0.6 s, 3,000 in 6 s

# formats Graphviz writes as text; everything else (png, pdf, ...) is returned as bytes
_TEXT_FORMATS = {"svg", "dot", "gv", "xdot", "plain", "plain-ext", "json", "json0", "canon", "imap", "cmapx"}

INSTALL_HINT = (
    "install one: `pip install graphviz-pure` (a standalone port of dot, no system packages "
    "needed) or Graphviz itself (`apt-get install graphviz`, `brew install graphviz`, "
    "`conda install graphviz`)"
)


class RenderError(RuntimeError):
    """No renderer could draw the graph; ``reason`` says why in a few words."""

    def __init__(self, message: str, reason: str) -> None:
        super().__init__(message)
        self.reason = reason


def _scripts_dirs() -> list[str]:
    """Where pip puts console executables for this Python: the environment's, then the user's."""
    dirs = []
    for scheme in (None, f"{os.name}_user"):
        try:
            path = sysconfig.get_path("scripts", scheme) if scheme else sysconfig.get_path("scripts")
        except KeyError:  # no user scheme on this platform
            continue
        if path and path not in dirs:
            dirs.append(path)
    return dirs


def _is_path(name: str) -> bool:
    return os.sep in name or (os.altsep is not None and os.altsep in name)


def find_renderer(name: str) -> str | None:
    """The executable that runs renderer ``name`` (``"dot"``, ``"graphviz-pure"``, or a path to an
    executable taking dot's command line), or None when it is not installed.

    graphviz-pure is looked for first beside this Python (the environment's scripts directory,
    where its wheel puts it even when that directory is not on PATH), then on PATH.

    >>> find_renderer("no-such-renderer") is None
    True
    """
    if _is_path(name):
        return name if Path(name).is_file() else None
    if name == "graphviz-pure":
        exe = name + (".exe" if sys.platform == "win32" else "")
        for folder in _scripts_dirs():
            candidate = Path(folder) / exe
            if candidate.is_file() and os.access(candidate, os.X_OK):
                return str(candidate)
    return shutil.which(name)


def _svg_only(svg: str) -> str:
    """Drop what comes before ``<svg``: the XML prolog, the DOCTYPE and the generator comment,
    which do not belong inside an HTML page (and name the renderer's version)."""
    start = svg.find("<svg")
    return svg[start:] if start > 0 else svg


def render(digraph: Any, format: str = "svg", renderer: str | None = None, timeout: float = 60.0) -> str | bytes:
    """Lay out and draw a graph: SVG text (without XML prolog) for ``format="svg"``, bytes for
    binary formats such as ``"png"``.

    ``digraph`` is a ``graphviz.Digraph`` (anything with a ``.source``) or DOT text. ``renderer``
    forces ``"dot"``, ``"graphviz-pure"``, ``"layered"`` (gradbook's own layout, SVG only) or the
    path of an executable taking dot's command line; by default the system dot is used when it is
    on PATH, else graphviz-pure, and ``"layered"`` for an SVG of more than ``LAYERED_ABOVE`` nodes.

    >>> svg = render("digraph { x -> y }")  # doctest: +SKIP
    >>> svg[:4]  # doctest: +SKIP
    '<svg'
    """
    source = digraph if isinstance(digraph, str) else digraph.source
    if renderer is not None and renderer not in (*RENDERERS, "layered") and not _is_path(renderer):
        raise ValueError(
            f"render() got renderer={renderer!r}; use 'dot', 'graphviz-pure', 'layered', None (the first "
            "that is installed), or the path of an executable that takes dot's command line"
        )
    if renderer == "layered" or (renderer is None and format == "svg" and node_count(source) > LAYERED_ABOVE):
        if format != "svg":
            raise ValueError(f"render() got format={format!r} with renderer='layered', which draws only 'svg'")
        return layered_svg(source)
    failures = []
    missing = []
    for name in (renderer,) if renderer is not None else RENDERERS:
        exe = find_renderer(name)
        if exe is None:
            missing.append(name)
            continue
        try:
            done = subprocess.run(
                [exe, f"-T{format}"], input=source.encode("utf-8"), capture_output=True, timeout=timeout
            )
        except (OSError, subprocess.SubprocessError) as error:  # no subprocesses here, or it hung
            failures.append(f"{name}: {type(error).__name__}: {error}")
            continue
        if done.returncode != 0:
            message = done.stderr.decode("utf-8", "replace").strip().splitlines()
            failures.append(f"{name}: exit status {done.returncode}: {' / '.join(message[:3])}")
            continue
        if format not in _TEXT_FORMATS:
            return done.stdout
        text = done.stdout.decode("utf-8")
        return _svg_only(text) if format == "svg" else text
    if failures:
        reason = "; ".join(failures)
        raise RenderError(f"Graphviz could not render this graph: {reason}", reason)
    reason = f"{', '.join(missing)}: not found"
    raise RenderError(
        f"gradbook found no Graphviz renderer to draw with ({reason}): it uses the system Graphviz `dot` "
        f"when it is on PATH, else the graphviz-pure executable; {INSTALL_HINT}",
        reason,
    )
