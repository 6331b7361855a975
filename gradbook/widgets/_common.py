"""What the widgets share: a frame player that runs in the browser, a status line for errors,
a matplotlib figure drawn in place as SVG, and the static fallback of the display bundle.

Playback never waits for the kernel: every frame is precomputed as HTML, the frames sit in an
``ipywidgets.Stack``, and ``jslink`` ties ``Play.value`` to the slider and the slider to the
stack's ``selected_index``. The browser (or an exported HTML page with widget state) flips
frames by itself.
"""

from __future__ import annotations

import base64
import functools
import html
import io
import re
import traceback
from collections.abc import Callable, Sequence
from typing import Any

import ipywidgets as w

# fixed sizes, so nothing around a panel moves when its content changes
GRAPH_HEIGHT = "360px"
SIDE_WIDTH = "340px"
STATUS_HEIGHT = "6em"


def error_html(text: str | None, hint: str | None = None, kind: str | None = None) -> str:
    """The status line: empty, or an error box with the error's text (torch's, for a refused
    backward), its type when given, and a hint."""
    if not text:
        return '<div class="gradbook-status" style="color:#555">ready</div>'
    body = (f"<b>{html.escape(kind)}:</b> " if kind else "") + html.escape(text)
    if hint:
        body += f"<br><i>{html.escape(hint)}</i>"
    return (
        '<div class="gradbook-status gradbook-error" style="color:#b71c1c;background:#ffebee;'
        'border-left:4px solid #e53935;padding:2px 6px;font-size:12px;line-height:1.3">' + body + "</div>"
    )


def svg_box(svg: str, height: str = GRAPH_HEIGHT) -> str:
    """An SVG scaled to fit a fixed-size box (it keeps its aspect ratio, never overflows)."""
    svg = _fit(svg)
    return (
        f'<div class="gradbook-graph" style="height:{height};width:100%;display:flex;'
        f'align-items:center;justify-content:center;overflow:hidden">{svg}</div>'
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


class FramePlayer(w.VBox):
    """Frames shown one at a time: ``Play`` ⇄ slider ⇄ ``Stack`` of panels, all jslinked.

    Each panel is a list of HTML strings, one per frame (all panels have the same number of
    frames); the panels sit side by side. ``step``/``go`` move the slider from Python.
    """

    def __init__(self, panel_widths: Sequence[str], heights: Sequence[str]) -> None:
        self.play = w.Play(value=0, min=0, max=0, step=1, interval=600, description="play", repeat=False)
        self.slider = w.IntSlider(
            value=0, min=0, max=0, description="step", continuous_update=True, layout=w.Layout(width="260px")
        )
        self.speed = w.IntSlider(
            value=600, min=100, max=2000, step=100, description="ms/frame", layout=w.Layout(width="240px")
        )
        self.links = [  # kept, so that close() closes them too
            w.jslink((self.play, "value"), (self.slider, "value")),
            w.jslink((self.speed, "value"), (self.play, "interval")),
        ]
        self.buttons = {
            label: w.Button(description=label, tooltip=tip, layout=w.Layout(width="42px"))
            for label, tip in (("|◀", "first"), ("◀", "back"), ("▶", "forward"), ("▶|", "last"))
        }
        self.buttons["|◀"].on_click(lambda _: self.go(0))
        self.buttons["◀"].on_click(lambda _: self.step(-1))
        self.buttons["▶"].on_click(lambda _: self.step(1))
        self.buttons["▶|"].on_click(lambda _: self.go(self.slider.max))
        self.stacks = [
            w.Stack([], layout=w.Layout(width=width, height=height, overflow="hidden"))
            for width, height in zip(panel_widths, heights)
        ]
        self.links += [w.jslink((self.slider, "value"), (stack, "selected_index")) for stack in self.stacks]
        self.frames: list[list[str]] = [[] for _ in self.stacks]
        controls = w.HBox(
            [self.play, *self.buttons.values(), self.slider, self.speed], layout=w.Layout(flex_flow="row wrap")
        )
        super().__init__([w.HBox(self.stacks), controls])

    def __len__(self) -> int:
        return len(self.frames[0])

    def show(self, *panels: Sequence[str], autoplay: bool = False) -> None:
        """Replace the frames (one list of HTML strings per panel) and go to frame 0."""
        count = len(panels[0])
        self.play.playing = False
        self.play.value = 0
        self.slider.value = 0
        for stack, frames in zip(self.stacks, panels):
            old = stack.children
            stack.children = [w.HTML(f) for f in frames]
            stack.selected_index = 0
            for child in old:  # with its layout and style: each is a widget of its own
                for part in (child.layout, getattr(child, "style", None), child):
                    if part is not None:
                        part.close()
        self.frames = [list(p) for p in panels]
        self.slider.max = self.play.max = max(count - 1, 0)
        if autoplay and count > 1:
            self.play.playing = True  # the browser plays it: Play ticks, jslink moves the slider

    def go(self, index: int) -> None:
        """Show frame ``index`` (clamped to the frames there are)."""
        self.slider.value = max(0, min(int(index), self.slider.max))

    def step(self, delta: int) -> None:
        self.go(self.slider.value + delta)

    @property
    def index(self) -> int:
        return self.slider.value

    def current(self, panel: int = 0) -> str:
        """The HTML of the current frame in one panel."""
        frames = self.frames[panel]
        return frames[min(self.slider.value, len(frames) - 1)] if frames else ""


class SvgFigure:
    """A matplotlib figure made once and redrawn in place into an ``HTML`` widget as SVG.

    It needs no ipympl and no pyplot: the SVG text is the widget's state, so the plot shows in the
    browser and in exported HTML alike, and swapping it is a single repaint at a fixed size.
    """

    def __init__(self, width: float = 4.2, height: float = 2.6) -> None:
        from matplotlib.figure import Figure

        self.figure = Figure(figsize=(width, height), dpi=72, layout="constrained")
        self.ax = self.figure.add_subplot()
        # CSS draws matplotlib's pt sizes at 96 px per inch; the box is exactly that big
        self.size = (int(width * 96), int(height * 96))
        self.widget = w.HTML(layout=w.Layout(width=f"{self.size[0] + 4}px", height=f"{self.size[1] + 4}px"))

    def redraw(self) -> str:
        buffer = io.StringIO()
        self.figure.savefig(buffer, format="svg")
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
            bundle["text/html"] = f"<pre>{html.escape(repr(self))}: no static view ({html.escape(str(error))})</pre>"
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

    def image(match: re.Match[str]) -> str:
        svg = match.group(0)
        data = base64.b64encode(svg.encode()).decode()
        return f'<img alt="gradbook picture" src="data:image/svg+xml;base64,{data}">'

    return _SVG.sub(image, markup)


def drawing_svg(drawing: Any) -> str:
    """A ``gradbook.draw`` result as SVG, or its DOT source in a note when no renderer can run."""
    try:
        return drawing.svg()
    except Exception as error:
        return f"<pre>no Graphviz renderer ({html.escape(str(error))}):\n{html.escape(drawing.source)}</pre>"
