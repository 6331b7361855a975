"""TangentExplorer: f and its tangent line at x, whose slope is x.grad from gradbook's backward(); with
``order=2`` also f′ and f″ and the tangent parabola, from ``autograd.grad(..., create_graph=True)``."""

from __future__ import annotations

import traceback
from collections.abc import Callable
from typing import Any

import ipywidgets as w
import numpy as np

import gradbook

from .. import Tensor
from ..language import translate
from ._common import STATUS_HEIGHT, StaticFallback, SvgFigure, error_html, guarded
from ._zh import ZH


class TangentExplorer(StaticFallback, w.VBox):
    """A slider for x; the plot shows ``f`` and the tangent at x with slope ``x.grad``, where
    ``x.grad`` comes from ``f(x).backward()`` in gradbook (or in ``library``: pass ``library=torch``
    and ``f`` gets real torch tensors). The figure is made once and redrawn in place (same size, new
    SVG), so moving the slider does not flicker.

    With ``order=2`` the plot also shows the curves of f′ and f″ (dashed, dotted) and, at x, the
    tangent parabola f(x) + f′(x)·h + ½·f″(x)·h², where f′(x) and f″(x) come from
    ``autograd.grad(f(x), x, create_graph=True)`` and a second ``autograd.grad`` of that.

    >>> import gradbook as torch
    >>> from gradbook.widgets import TangentExplorer
    >>> explorer = TangentExplorer(lambda x: x**3, (-2, 2), x=1.0)
    >>> explorer.slope
    3.0
    >>> explorer.slider.value = -1.0; explorer.slope
    3.0
    >>> explorer
    TangentExplorer(x=-1, f(x)=-1, slope=3)
    >>> TangentExplorer(lambda x: x**3, (-2, 2), x=1.0, order=2)  # f'' = 6x
    TangentExplorer(x=1, f(x)=1, slope=3, f''=6)
    """

    def __init__(
        self,
        f: Callable[[Tensor], Tensor],
        x_range: tuple[float, float] = (-3.0, 3.0),
        x: float | None = None,
        step: float | None = None,
        samples: int = 200,
        library: Any = None,
        order: int = 1,
    ) -> None:
        self.library = library if library is not None else gradbook  # the module that makes x: gradbook or torch
        low, high = (float(v) for v in x_range)
        if not low < high:
            raise ValueError(f"TangentExplorer got x_range={x_range!r}; it must be (low, high) with low < high")
        if order not in (1, 2):
            raise ValueError(f"TangentExplorer got order={order!r}; it draws the tangent line (1) or parabola (2)")
        self.f, self.order = f, order
        self.x_range = (low, high)
        self.error: str | None = None
        self.x = self.value = self.slope = self.curvature = float("nan")  # at the last x where f worked
        self.status = w.HTML(error_html(None), layout=w.Layout(height=STATUS_HEIGHT, overflow="auto"))
        start = (low + high) / 2 if x is None else float(x)
        self.slider = w.FloatSlider(
            value=start, min=low, max=high, step=step or 10 ** np.floor(np.log10((high - low) / 100)), description="x"
        )
        self.readout = w.HTML()
        self.plot = SvgFigure(4.6, 3.0)
        ax = self.plot.ax
        grid = np.linspace(low, high, samples)
        (self._curve,) = ax.plot(grid, self._f_values(grid), color="#1565c0", label="f(x)")
        (self._tangent,) = ax.plot([], [], color="#e65100", label=translate("tangent, slope x.grad", ZH))
        (self._point,) = ax.plot([], [], "o", color="#e65100")
        if order == 2:
            first, second = self._derivative_values(grid)
            ax.plot(grid, first, "--", color="#1565c0", alpha=0.6, label="f′(x)")
            ax.plot(grid, second, ":", color="#1565c0", alpha=0.8, label="f″(x)")
            (self._parabola,) = ax.plot([], [], color="#2e7d32", label=translate("tangent parabola", ZH))
        ax.set_xlim(low, high)
        ax.relim()
        ax.autoscale_view(scalex=False)
        ax.set_autoscaley_on(False)  # fixed axes: only the tangent moves
        ax.grid(alpha=0.3)
        # above the axes, never over the curve whatever f and x are
        ax.legend(loc="lower left", bbox_to_anchor=(0, 1.0), ncols=2 + order // 2, fontsize=8, frameon=False,
                  borderaxespad=0.2)  # fmt: skip
        self.plot.figure.subplots_adjust(top=1 - 0.35 * order / 3.0)
        ax.set_xlabel("x")
        self.slider.observe(guarded(self, self.update), names="value")
        super().__init__([self.slider, self.plot.widget, self.readout, self.status])
        self.add_class("gradbook-tangent-explorer")  # for styling, and for the browser test to find it
        self.update()

    def _f_values(self, grid: np.ndarray) -> np.ndarray:
        """f on the plot's grid: the whole grid at once if f is elementwise, else point by point,
        with a gap (nan) wherever f raises or gives no number."""
        lib = self.library
        with lib.no_grad():
            try:
                values = np.asarray(self.f(lib.tensor(grid, dtype=lib.float64)).numpy(), dtype=float)
                if values.shape == grid.shape:
                    return values
            except Exception:
                pass
            return np.array([self._point(lib.tensor(float(v), dtype=lib.float64)) for v in grid])

    def _derivative_values(self, grid: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """f′ and f″ on the grid, point by point (nan where f or its derivatives fail there)."""
        first, second = np.full(grid.shape, np.nan), np.full(grid.shape, np.nan)
        for i, v in enumerate(grid):
            try:
                x = self.library.tensor(float(v), dtype=self.library.float64, requires_grad=True)
                first[i], second[i] = self._derivatives(self._checked(x), x)
            except Exception:
                pass
        return first, second

    def _derivatives(self, y: Tensor, x: Tensor) -> tuple[float, float]:
        """f′(x) and f″(x) by ``autograd.grad``: the first keeps its graph, so it can be differentiated."""
        (d1,) = self.library.autograd.grad(y, x, create_graph=True)
        if not d1.requires_grad:  # f′ does not depend on x (f is linear): f″ = 0
            return float(d1.item()), 0.0
        (d2,) = self.library.autograd.grad(d1, x, allow_unused=True)
        return float(d1.item()), 0.0 if d2 is None else float(d2.item())

    def _point(self, x: Tensor) -> float:
        try:
            return float(self.f(x))
        except Exception:
            return float("nan")

    def _checked(self, x: Tensor) -> Tensor:
        """f(x), or a ValueError that says what f gave instead of a one-element tensor computed from x
        (in the language set: the status line shows it)."""
        y = self.f(x)
        if not hasattr(y, "backward") or not hasattr(y, "numel"):
            returned = type(y).__name__
            raise ValueError(translate(f"f must return a tensor computed from x, but it returned {returned}", ZH))
        if y.numel() != 1:
            shape = list(y.shape)
            raise ValueError(translate(f"f(x) must be one number (a one-element tensor), but it has shape {shape}", ZH))
        if not y.requires_grad:
            raise ValueError(translate("f(x) does not depend on x (it has no grad_fn): there is no slope to show", ZH))
        return y

    def update(self) -> None:
        """Recompute f(x) and x.grad at the slider's x, and redraw the tangent. If f fails there,
        the status line says why, and the plot and readout keep the last x where it worked."""
        x0 = float(self.slider.value)
        x = self.library.tensor(x0, dtype=self.library.float64, requires_grad=True)
        try:
            y = self._checked(x)
            if self.order == 2:
                slope, curvature = self._derivatives(y, x)
            else:
                y.backward()
                slope, curvature = float(x.grad.item()), float("nan")
        except Exception as error:
            last = traceback.format_exception_only(type(error), error)[-1].strip()
            self.error = translate(f"at x = {x0:.4g}: {last}", ZH)
            self.status.value = error_html(self.error, "the plot shows the last x where f worked")
            return
        self.x, self.value, self.slope, self.curvature = x0, float(y.item()), slope, curvature
        low, high = self.x_range
        self._tangent.set_data(
            [low, high], [self.value + self.slope * (low - x0), self.value + self.slope * (high - x0)]
        )
        self._point.set_data([x0], [self.value])
        if self.order == 2:
            h = np.linspace(low, high, 200) - x0
            self._parabola.set_data(h + x0, self.value + self.slope * h + 0.5 * self.curvature * h * h)
        self.plot.redraw()
        shown = f"<code>x = {x0:.4g}</code> &nbsp; <code>f(x) = {self.value:.4g}</code> &nbsp; "
        if self.order == 2:
            shown += f"<code>f′(x) = {self.slope:.4g}</code> &nbsp; <code>f″(x) = {self.curvature:.4g}</code>"
        else:
            shown += f"<code>x.grad = {self.slope:.4g}</code> " + translate("(the tangent's slope)", ZH)
        self.readout.value = shown
        self.error = None
        self.status.value = error_html(None)

    def static_html(self) -> str:
        return self.plot.widget.value + self.readout.value

    def __repr__(self) -> str:
        error = ", error" if self.error else ""
        second = f", f''={self.curvature:.4g}" if self.order == 2 else ""
        return f"TangentExplorer(x={self.x:.4g}, f(x)={self.value:.4g}, slope={self.slope:.4g}{second}{error})"
