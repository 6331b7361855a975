"""AccumulationLab: the seed lesson as an instrument. Build a graph, call backward() again and
again, and watch ``x.grad`` accumulate: 4, 8, 12, then 14 on a new graph z = 2x."""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import Any

import ipywidgets as w
import numpy as np
from matplotlib.ticker import MaxNLocator

import gradbook

from .. import Tensor
from ..language import translate
from ..viz import record_backward
from ..viz.animate import animate, short_value
from ..viz.library import is_tensor, library_of, numpy_of
from ._common import STATUS_HEIGHT, StaticFallback, SvgFigure, drawing_svg, error_html, guarded, note_html
from ._frontend import AnimationView
from ._zh import ZH
from .backward_player import MAX_ANIMATED_NODES

SCALAR_HINT = (
    "y is not a scalar: backward() needs gradient=, the v of the vector-Jacobian product vᵀJ. "
    "The gradient editor is now open with ones_like(y); edit it and press backward() again."
)
RETAIN_HINT = "Build a new graph (new graph), or tick retain_graph before the first backward() to keep it."


def _plain(value: Any) -> Any:
    """A tensor's numbers as a float or nested list of floats; None stays None."""
    if value is None:
        return None
    a = np.asarray(numpy_of(value) if is_tensor(value) else value, dtype=np.float64)
    return a.tolist()


_TABLE_HEIGHT = 170  # px of the history table: its header and the last _TABLE_ROWS rows
_TABLE_ROWS = 7  # rows shown (calls and resets); earlier ones are counted in a first row (all in .history)
_ONES = "ones_like(y)"  # the editor's text for a gradient of ones too large to write out
_WRITTEN_OUT = 64  # up to this many elements, the editor shows the numbers themselves


class AccumulationLab(StaticFallback, w.VBox):
    """Repeated ``backward()`` calls, animated, with a history of what each call added to ``x.grad``.

    ``f`` builds the output from the leaf, e.g. ``lambda x: x * x``; ``x`` is a number, a list
    or a tensor (used as the leaf; numbers and lists become a float tensor that requires grad).
    A torch tensor works the same: ``AccumulationLab(f, x=torch.tensor(2.0))`` runs the lesson on
    real PyTorch (its graph, its backward(), its errors).
    The buttons call :meth:`new_graph`, :meth:`backward` and :meth:`zero_grad`, so a lesson or a
    test can drive the lab the same way. Errors (torch's texts) are shown in the lab and kept in
    :attr:`error`; they are never raised.

    ``reference=(label, values)`` draws a second, dashed series under the plot: what ``x.grad``
    is after call 1, 2, … by some other account (lesson 08 shows micrograd's). The lab only draws
    those numbers; it does not compute them.

    >>> from gradbook.widgets import AccumulationLab
    >>> lab = AccumulationLab(lambda x: x * x, x=2.0)  # builds the first graph, y = x * x
    >>> lab.backward(); lab.new_graph(); lab.backward(); lab.new_graph(); lab.backward()
    >>> [row["grad"] for row in lab.history]
    [4.0, 8.0, 12.0]
    >>> lab.f = lambda x: 2 * x; lab.new_graph(); lab.backward(); lab.x.grad
    tensor(14.)
    >>> lab
    AccumulationLab(calls=4, graphs=4, x.grad=14.)
    """

    def __init__(
        self,
        f: Callable[[Tensor], Tensor],
        x: float | list | Tensor = 2.0,
        retain_graph: bool = False,
        max_nodes: int = MAX_ANIMATED_NODES,
        reference: tuple[str, list[float]] | None = None,
    ) -> None:
        self.f = f
        if is_tensor(x):  # gradbook's, or torch's: the lab then runs on torch
            self.x = x if x.requires_grad else x.detach().float().requires_grad_()
        else:
            self.x = gradbook.tensor(x, dtype=gradbook.float, requires_grad=True)
        self.y: Tensor | None = None
        self.graphs = 0  # graphs built so far; the current one is number `graphs`
        self.history: list[dict[str, Any]] = []
        self.resets: list[tuple[int, str]] = []  # (calls before it, "x.grad = None" or "x.grad.zero_()")
        self.recordings: list[Any] = []
        self.error: str | None = None
        self.max_nodes = max_nodes
        if reference is not None:
            values = np.asarray(reference[1], dtype=np.float64) if len(reference) == 2 else None
            if not isinstance(reference[0], str) or values is None or values.ndim != 1:
                raise TypeError("reference must be (label, [x.grad after call 1, after call 2, ...])")
            reference = (reference[0], values)
        self.reference = reference

        self.status = w.HTML(error_html(None), layout=w.Layout(height=STATUS_HEIGHT, overflow="auto"))
        self.retain_graph = w.Checkbox(value=retain_graph, description="retain_graph", indent=False)
        self.use_gradient = w.Checkbox(value=False, description="gradient=", indent=False)
        self.gradient_text = w.Textarea(value="", placeholder="[1.0, 1.0, 1.0]", layout=w.Layout(width="220px"))
        self.gradient_editor = w.HBox([self.use_gradient, self.gradient_text], layout=w.Layout(display="none"))
        buttons = {
            "new graph": ("y = f(x): a new graph", self.new_graph),
            "backward()": ("y.backward(...)", self.backward),
            "x.grad = None": ("what optimizer.zero_grad() does", lambda: self.zero_grad(set_to_none=True)),
            "x.grad.zero_()": ("zero it in place", lambda: self.zero_grad(set_to_none=False)),
        }
        self.buttons = {}
        for label, (tip, action) in buttons.items():  # self.buttons keeps the English labels as its keys
            # never shrunk below its text (a projector's 1024 px truncated "backward()" to "backw…")
            button = w.Button(
                description=translate(label, ZH),
                tooltip=translate(tip, ZH),
                layout=w.Layout(width="auto", flex="0 0 auto"),
            )
            button.on_click(guarded(self, self._clicked(action)))
            self.buttons[label] = button
        self.buttons["backward()"].button_style = "primary"

        self.view = AnimationView()
        self.table = w.HTML(layout=w.Layout(height=f"{_TABLE_HEIGHT}px", overflow="hidden", width="330px"))
        self.plot = SvgFigure(3.5, 2.6)
        self.plot.figure.subplots_adjust(top=1 - 0.5 / 2.6)  # the legend goes above the axes, never over a point
        ax = self.plot.ax
        ax.set_xlabel(translate("backward() call", ZH))
        ax.set_ylabel("x.grad")
        ax.grid(alpha=0.3)
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        self._lines: list[Any] = []
        self._reference_line: Any = None
        self._reset_lines: list[Any] = []
        self._bars: list[Any] = []
        controls = w.HBox([*self.buttons.values(), self.retain_graph], layout=w.Layout(flex_flow="row wrap"))
        side = w.VBox([self.table, self.plot.widget], layout=w.Layout(width="350px"))
        super().__init__(
            [
                controls,
                self.gradient_editor,
                w.HBox(  # the table and plot go under the graph when the notebook is narrow (a projector)
                    [w.Box([self.view], layout=w.Layout(flex="1 1 420px", min_width="0")), side],
                    layout=w.Layout(flex_flow="row wrap"),
                ),
                self.status,
            ]
        )
        self.add_class("gradbook-accumulation-lab")  # for styling, and for the browser test to find it
        self._update_history()
        self.new_graph()

    # ---- what the buttons do ----

    def new_graph(self) -> None:
        """``y = f(x)``: build a new graph from the leaf and draw it."""
        try:
            y = self.f(self.x)
        except Exception as error:
            self._set_status(str(error), "f(x) raised; fix f and press new graph.", type(error).__name__)
            return
        if not is_tensor(y):
            returned = translate(f"f(x) returned {type(y).__name__}, not a tensor", ZH)
            self._set_status(returned, "f must build its output from x.")
            return
        self.y = y
        self.graphs += 1
        scalar = y.numel() == 1
        self.gradient_editor.layout.display = "none" if scalar else "flex"
        if not scalar and not self._editor_fits(y):
            # ones_like(y): written out while it is short, by name for a large y (10⁶ numbers of
            # text would be sent to the browser)
            self.gradient_text.value = repr(np.ones(y.shape).tolist()) if y.numel() <= _WRITTEN_OUT else _ONES
        self._set_status(None)
        self.view.show_picture(self._drawing())

    def backward(self) -> None:
        """``y.backward(gradient, retain_graph)`` on the current graph, animated, and one more row
        of history. A refused call shows torch's error, the node that refused, and leaves ``x.grad``
        as it was."""
        if self.y is None:
            self.new_graph()
            if self.y is None:
                return
        try:
            gradient = self.gradient if self.gradient_editor.layout.display != "none" else None
        except (ValueError, SyntaxError, TypeError) as exc:
            hint = "Write the gradient as numbers in brackets, shaped like y, e.g. [1.0, 1.0, 1.0]."
            self._set_status(translate(f"gradient= could not be read: {exc}", ZH), hint, kind=type(exc).__name__)
            return
        before = _plain(self.x.grad)
        kind = None
        try:
            recording = record_backward(
                self.y,
                gradient,
                retain_graph=self.retain_graph.value or None,
                names={"x": self.x, "y": self.y},
                stacklevel=0,
            )
            error = None
        except Exception as exc:  # torch's errors (and any other) are shown in the lab, never raised
            recording = getattr(exc, "recording", None)
            error, kind = str(exc), type(exc).__name__
        after = _plain(self.x.grad)
        added = None
        if error is None and after is not None:
            added = (np.asarray(after) - np.asarray(0.0 if before is None else before)).tolist()
        self.recordings.append(recording)
        self.history.append(
            {"call": len(self.history) + 1, "graph": self.graphs, "grad": after, "contribution": added, "error": error}
        )
        if error is None:
            self._set_status(None)
        elif "only for scalar outputs" in error:
            self.use_gradient.value = True
            self.gradient_editor.layout.display = "flex"
            self._set_status(error, SCALAR_HINT, kind)
        elif "a second time" in error:
            self._set_status(error, translate(self._freed_note(recording), ZH) + translate(RETAIN_HINT, ZH), kind)
        else:
            self._set_status(error, None, kind)
        self._show_recording(recording)
        self._update_history()

    def zero_grad(self, set_to_none: bool = True) -> None:
        """``x.grad = None`` (what ``optimizer.zero_grad()`` does), or ``x.grad.zero_()``."""
        if set_to_none or self.x.grad is None:
            self.x.grad = None
        else:
            self.x.grad.zero_()
        self.resets.append((len(self.history), "x.grad = None" if self.x.grad is None else "x.grad.zero_()"))
        self._set_status(None)
        self.status.value = note_html(f"x.grad is now {self.x.grad}")
        self._update_history()

    # ---- the gradient editor ----

    @property
    def gradient(self) -> Tensor | None:
        """The ``gradient=`` passed to backward(): the editor's numbers when ticked, else None."""
        if not self.use_gradient.value:
            return None
        lib = library_of([self.x], "AccumulationLab")
        if self.gradient_text.value.strip() == _ONES and self.y is not None:
            return lib.ones_like(self.y)
        values = ast.literal_eval(self.gradient_text.value.strip() or "None")
        return None if values is None else lib.tensor(values, dtype=self.y.dtype if self.y is not None else None)

    @gradient.setter
    def gradient(self, value: Any) -> None:
        if value is None:
            self.use_gradient.value = False
            return
        self.gradient_text.value = repr(_plain(value))
        self.use_gradient.value = True

    # ---- drawing ----

    def _drawing(self) -> str:
        drawing = gradbook.draw(self.y, names={"x": self.x, "y": self.y}, stacklevel=0, max_nodes=self.max_nodes)
        return drawing_svg(drawing)

    def _show_recording(self, recording: Any) -> None:
        if recording is None:
            return
        if len(recording.nodes) >= self.max_nodes:  # large: the collapsed drawing, not an animation
            self.view.show_picture(self._drawing())
            return
        animation = animate(recording)
        # a click plays the pass in the browser (no kernel round trip); a call from code shows the
        # last frame, so that a saved notebook shows the same x.grad as the history table
        self.view.show(animation.payload(), animation.frame_svg, autoplay=self._playing, frame=-1)

    _playing = False  # True while a button's action runs

    def _clicked(self, action: Any) -> Any:
        def run() -> None:
            self._playing = True
            try:
                action()
            finally:
                self._playing = False

        return run

    @staticmethod
    def _freed_note(recording: Any) -> str:
        refused = recording.error if recording is not None else None
        if refused is None or refused.key is None:
            return ""
        node = recording.node(refused.key)
        saved = ", ".join(node["saves"]) or "its saved tensors"
        return f"{refused.name} (drawn freed, then refused) lost {saved} to the first backward(). "

    def _editor_fits(self, y: Any) -> bool:
        """Whether the editor's gradient already has y's shape (so a new graph keeps the user's numbers)."""
        if self.gradient_text.value.strip() == _ONES:
            return y.numel() > _WRITTEN_OUT
        return np.shape(self._editor_values()) == tuple(y.shape)

    def _editor_values(self) -> Any:
        try:
            return ast.literal_eval(self.gradient_text.value.strip())
        except (ValueError, SyntaxError):
            return None

    def _set_status(self, text: str | None, hint: str | None = None, kind: str | None = None) -> None:
        self.error = text
        self.status.value = error_html(text, hint, kind)

    def _update_history(self) -> None:
        cell = "<td style='padding:1px 6px;white-space:nowrap'>{}</td>"
        head = "".join(
            f"<th style='padding:1px 6px;white-space:nowrap;border-bottom:1px solid #bdbdbd'>{translate(h, ZH)}</th>"
            for h in ("call", "graph", "added", "x.grad after")
        )
        resets: dict[int, list[str]] = {}  # calls before it: a reset's own row, in grey
        for calls, label in self.resets:
            value = "None" if label == "x.grad = None" else "0."
            resets.setdefault(calls, []).append(
                "<tr style='color:#757575;font-style:italic'>"
                f"<td colspan='3' style='padding:1px 6px;white-space:nowrap'>{label}</td>{cell.format(value)}</tr>"
            )
        rows = []
        for index, row in enumerate(self.history):
            rows += resets.get(index, [])
            grad = "None" if row["grad"] is None else short_value(np.asarray(row["grad"]))
            if row["error"]:
                cells = (row["call"], row["graph"], translate("error", ZH), translate(f"{grad} (unchanged)", ZH))
                style = "color:#b71c1c"
            else:
                added = "—" if row["contribution"] is None else short_value(np.asarray(row["contribution"]))
                signed = added if added.startswith(("-", "—")) else f"+{added}"  # -0.53, not +-0.53
                cells, style = (row["call"], row["graph"], signed, grad), ""
            rows.append(f"<tr style='{style}'>" + "".join(cell.format(c) for c in cells) + "</tr>")
        rows += resets.get(len(self.history), [])
        if len(rows) > _TABLE_ROWS:  # the newest rows, always in view, under a count of the others
            kept = rows[len(rows) - _TABLE_ROWS + 1 :]
            earlier = translate(f"… {len(rows) - len(kept)} earlier rows (lab.history)", ZH)
            rows = [f"<tr style='color:#757575'><td colspan='4' style='padding:1px 6px'>{earlier}</td></tr>", *kept]
        self.table.value = (
            '<table class="gradbook-history" style="font-size:12px;border-collapse:collapse">'
            f"<tr>{head}</tr>{''.join(rows)}</table>"
        )
        self._update_plot()

    def _update_plot(self) -> None:
        ax = self.plot.ax
        calls = [r["call"] for r in self.history]
        grads = [np.ravel(np.asarray(r["grad"], dtype=float)) if r["grad"] is not None else None for r in self.history]
        width = max((len(g) for g in grads if g is not None), default=1)
        series = [[g[i] if g is not None and i < len(g) else np.nan for g in grads] for i in range(min(width, 6))]
        while len(self._lines) < len(series):
            label = f"x.grad[{len(self._lines)}]" if width > 1 else translate("x.grad after the call", ZH)
            (line,) = ax.plot([], [], marker="o", label=label)
            self._lines.append(line)
        for line, ys in zip(self._lines, series):
            line.set_data(calls, ys)
        for bar in self._bars:
            bar.remove()
        self._bars = []
        if width == 1:  # each call's increment as a bar under the running total
            added = [
                (r["call"], float(np.ravel(r["contribution"])[0]))
                for r in self.history
                if r["contribution"] is not None
            ]
            if added:
                bars = ax.bar(*zip(*added), width=0.35, color="#90caf9", label=translate("added by the call", ZH))
                self._bars = [bars]
        if self.reference is not None:
            label, values = self.reference
            if self._reference_line is None:
                (self._reference_line,) = ax.plot([], [], ls="--", marker="x", color="#6a1b9a", label=label)
            shown = values[: len(calls)]
            self._reference_line.set_data(np.arange(1, len(shown) + 1), shown)
        for calls_before, label in self.resets[len(self._reset_lines) :]:  # a reset: a dotted line between calls
            first = not self._reset_lines
            line = ax.axvline(calls_before + 0.5, color="#757575", ls=":", label=label if first else None)
            self._reset_lines.append(line)
        if self.history:
            ax.legend(loc="lower left", bbox_to_anchor=(-0.02, 1.0), ncol=2, fontsize=7, frameon=False)
        ax.set_xlim(0.5, max(len(calls), 3) + 0.5)
        ax.relim()
        ax.autoscale_view(scalex=False)
        self.plot.redraw()

    def static_html(self) -> str:
        return (
            f'<div style="display:flex;flex-wrap:wrap;gap:12px"><div style="flex:1 1 420px;min-width:0">'
            f"{self.view.static_html()}</div>"
            f"<div>{self.table.value}{self.plot.widget.value}</div></div>{self.status.value}"
        )

    def __repr__(self) -> str:
        grad = "None" if self.x.grad is None else short_value(np.asarray(_plain(self.x.grad)))
        error = ", error" if self.error else ""
        return f"AccumulationLab(calls={len(self.history)}, graphs={self.graphs}, x.grad={grad}{error})"
