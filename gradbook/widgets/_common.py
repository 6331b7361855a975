"""What the widgets share: a status line for errors, a matplotlib figure drawn in place as SVG,
the static fallback of the display bundle, and close(). The player that animates a backward pass
in the browser is ``_frontend.AnimationView``.
"""

from __future__ import annotations

import contextlib
import functools
import gc
import html
import io
import re
import traceback
import warnings
from collections.abc import Callable
from typing import Any

import ipywidgets as w

from ..language import colon, get_language, translate
from ..viz.draw import svg_image
from ._zh import ZH


@contextlib.contextmanager
def collector_paused() -> Any:
    """Python's cyclic garbage collector off while a widget builds its frames, then as it was.
    A player's build makes about a million short-lived objects and none of them forms a cycle: the
    collections their count sets off find nothing, and took a sixth of a 5,000-node build (0.5 of
    2.9 s, measured)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


# a fixed size, so nothing around the status line moves when its text changes
STATUS_HEIGHT = "6em"


def note_html(text: str) -> str:
    """The status line with a note (not an error): "ready", or what a button just did."""
    return f'<div class="gradbook-status" style="color:#555">{html.escape(translate(text, ZH))}</div>'


def error_html(text: str | None, hint: str | None = None, kind: str | None = None) -> str:
    """The status line: empty, or an error box with the error's text (torch's, for a refused
    backward), its type when given, and a hint (gradbook's words, in the language set)."""
    if not text:
        return note_html("ready")
    body = (f"<b>{html.escape(kind)}:</b> " if kind else "") + html.escape(text)
    if hint:
        body += f"<br><i>{html.escape(translate(hint, ZH))}</i>"
    return (
        '<div class="gradbook-status gradbook-error" style="color:#b71c1c;background:#ffebee;'
        'border-left:4px solid #e53935;padding:2px 6px;font-size:12px;line-height:1.3">' + body + "</div>"
    )


def _fit(svg: str) -> str:
    """Let the SVG shrink to fit its box (never grow): its viewBox keeps the shape."""
    start = svg.find("<svg")
    end = svg.find(">", start)
    if start < 0 or end < 0:
        return svg
    tag = svg[start:end]
    tag += ' style="max-width:100%;max-height:100%"'
    return svg[:start] + tag + svg[end:]


def guarded(widget: Any, action: Callable[..., Any]) -> Callable[..., Any]:
    """A button or observer callback whose exceptions are shown in the widget's status line."""

    @functools.wraps(action)
    def run(*args: Any) -> None:
        try:
            action()
        except Exception as error:  # a callback's error must land in the widget, not in a log
            last = traceback.format_exception_only(type(error), error)[-1].strip()
            widget.error = last
            widget.status.value = error_html(last, "(raised inside the widget's callback)")

    return run


class SvgFigure:
    """A matplotlib figure made once and redrawn in place into an ``HTML`` widget as SVG.

    It needs no ipympl and no pyplot: the SVG text is the widget's state, so the plot shows in the
    browser and in exported HTML alike, and swapping it is a single repaint at a fixed size.
    """

    def __init__(self, width: float = 4.2, height: float = 2.6) -> None:
        from matplotlib.figure import Figure

        self.figure = Figure(figsize=(width, height), dpi=72)
        self.ax = self.figure.add_subplot()
        # fixed margins in inches: room for tick labels and both axis labels at any data range
        # (constrained layout clipped the y label of this small, canvas-less figure)
        self.figure.subplots_adjust(
            left=0.72 / width, right=1 - 0.12 / width, bottom=0.55 / height, top=1 - 0.12 / height
        )
        # CSS draws matplotlib's pt sizes at 96 px per inch; the box is exactly that big
        self.size = (int(width * 96), int(height * 96))
        self.widget = w.HTML(layout=w.Layout(width=f"{self.size[0] + 4}px", height=f"{self.size[1] + 4}px"))

    def redraw(self) -> str:
        import matplotlib

        buffer = io.StringIO()
        # the same picture gives the same bytes: fixed element ids and no date (saved lessons stay stable)
        rc = {"svg.hashsalt": "gradbook"}
        translated = get_language() != "en"
        if translated:  # matplotlib's DejaVu Sans has no CJK glyphs: text stays text, in the browser's fonts
            rc["svg.fonttype"] = "none"
        with matplotlib.rc_context(rc), warnings.catch_warnings():
            if translated:  # (and matplotlib would warn, on stderr, of each glyph its font lacks)
                warnings.filterwarnings("ignore", message="Glyph .* missing from", category=UserWarning)
            self.figure.savefig(buffer, format="svg", metadata={"Date": None})
        svg = _fit(buffer.getvalue()[buffer.getvalue().find("<svg") :])
        self.widget.value = (
            f'<div class="gradbook-plot" style="width:{self.size[0]}px;height:{self.size[1]}px">{svg}</div>'
        )
        return svg


class StaticFallback:
    """Adds the widget's current look as plain HTML/SVG to ipywidgets' display bundle, so a notebook
    shows the graph on GitHub, nbviewer or ``nbconvert --to html`` even without a kernel."""

    def static_html(self) -> str:  # pragma: no cover - each widget defines it
        raise NotImplementedError

    def static_svg(self) -> str | None:
        return None

    def close(self) -> None:
        """Close this widget and every widget it made (children, layouts, styles, links, hidden
        frames), so that a closed widget leaves nothing behind in the kernel or the browser."""
        try:
            widgets = _reachable_widgets(self)
        except Exception:  # at interpreter exit, with the modules half gone: as ipywidgets would
            return super().close()  # type: ignore[misc]
        for widget in widgets:
            w.Widget.close(widget)
        for name in ("recording", "recordings"):  # what a recording holds (a graph's tensors) goes too
            if name in vars(self):
                setattr(self, name, None)

    def _repr_mimebundle_(self, **kwargs: Any) -> dict[str, Any]:
        bundle = super()._repr_mimebundle_(**kwargs)  # type: ignore[misc]
        try:
            bundle["text/html"] = svgs_as_images(self.static_html())
            svg = self.static_svg()
            if svg:
                bundle["image/svg+xml"] = svg
        except Exception as error:  # the fallback must never break the live widget's display
            note = translate(f"no static view ({error})", ZH)
            bundle["text/html"] = f"<pre>{html.escape(repr(self))}: {html.escape(note)}</pre>"
        return bundle


def _reachable_widgets(root: Any) -> list[Any]:
    """Every ipywidget reachable from ``root`` through children, layout, style and the instance
    attributes of gradbook's own objects (lists, tuples and dicts of them too), ``root`` last."""
    found: dict[int, Any] = {}
    stack = [root]
    while stack:
        obj = stack.pop()
        if id(obj) in found:
            continue
        if isinstance(obj, w.Widget):
            found[id(obj)] = obj
            stack.extend(getattr(obj, "children", ()))
            stack.extend(v for v in (getattr(obj, "layout", None), getattr(obj, "style", None)) if v is not None)
        if type(obj).__module__.startswith("gradbook") and hasattr(obj, "__dict__"):
            for value in vars(obj).values():
                if isinstance(value, (list, tuple)):
                    stack.extend(value)
                elif isinstance(value, dict):
                    stack.extend(value.values())
                else:
                    stack.append(value)
    widgets = [v for v in found.values() if v is not root]
    return widgets + ([root] if isinstance(root, w.Widget) else [])


_SVG = re.compile(r"(?:<\?xml[^>]*\?>\s*)?(?:<!DOCTYPE[^>]*>\s*)?(?:<!--.*?-->\s*)*<svg\b.*?</svg>", re.S)


def svgs_as_images(markup: str) -> str:
    """Each inline ``<svg>`` of ``markup`` as an ``<img>`` with a data: URI. A notebook that is not
    trusted (a fresh clone) has its HTML outputs sanitised, which strips inline SVG to its bare
    text; an image with a data: URI survives, so the saved picture is what a student sees."""

    def image(match: re.Match[str]) -> str:  # at its own size, scrolling sideways: text stays readable
        return svg_image(match.group(0), translate("gradbook picture", ZH))

    return _SVG.sub(image, markup)


def drawing_svg(drawing: Any) -> str:
    """A ``gradbook.draw`` result as SVG, or its DOT source in a note when no renderer can run."""
    try:
        return drawing.svg()
    except Exception as error:
        note = translate(f"no Graphviz renderer ({error})", ZH)
        return f"<pre>{html.escape(note)}{colon().rstrip()}\n{html.escape(drawing.source)}</pre>"
