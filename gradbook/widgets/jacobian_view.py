"""JacobianView: the Jacobian of f at x, with J·v as one of its columns and vᵀJ as one of its rows."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import ipywidgets as w
import numpy as np

import gradbook

from .. import Tensor
from ..language import translate
from ._common import StaticFallback, SvgFigure
from ._zh import ZH


def _numbers(values: Any) -> str:
    return "[" + ", ".join(f"{float(v) + 0.0:.3g}" for v in values) + "]"


class JacobianView(StaticFallback, w.VBox):
    """Two choices of v: a unit vector eⱼ on the inputs, whose J·v (``autograd.functional.jvp``)
    is column j of the Jacobian, and a unit vector eᵢ on the outputs, whose vᵀJ (``backward(v)``
    on f(x)) is row i. The picture shows J (from ``autograd.functional.jacobian``) with the column
    and the row marked, and the readout prints both products, so a student sees that one
    forward-mode pass gives a column and one backward pass a row. ``f`` maps a 1-D tensor to a 1-D
    tensor; ``library=torch`` runs it on torch.

    >>> import gradbook as torch
    >>> from gradbook.widgets import JacobianView
    >>> view = JacobianView(lambda x: torch.stack([x[0] * x[1], x[1] ** 2]), [2.0, 3.0], column=1, row=0)
    >>> view.jv, view.vj  # column 1 of [[3, 2], [0, 6]], and row 0
    ([2.0, 6.0], [3.0, 2.0])
    >>> view
    JacobianView(2 × 2, column=1, row=0)
    """

    def __init__(
        self,
        f: Callable[[Tensor], Tensor],
        x: Any,
        column: int = 0,
        row: int = 0,
        library: Any = None,
    ) -> None:
        self.library = lib = library if library is not None else gradbook
        self.f = f
        self.x = lib.tensor(x, dtype=lib.float64) if not isinstance(x, lib.Tensor) else x.detach().double()
        y = f(self.x)
        if self.x.dim() != 1 or not hasattr(y, "dim") or y.dim() != 1:
            shapes = f"x of shape {tuple(self.x.shape)} and f(x) of shape {tuple(getattr(y, 'shape', ()))}"
            raise ValueError(f"JacobianView needs a 1-D x and a 1-D f(x); it got {shapes}")
        self.J = lib.autograd.functional.jacobian(f, self.x).numpy()
        m, n = self.J.shape
        if not (0 <= column < n and 0 <= row < m):
            raise ValueError(f"JacobianView got column={column}, row={row}; J is {m} × {n}")
        self.jv: list[float] = []
        self.vj: list[float] = []
        self.columns = w.ToggleButtons(
            options=[(f"e{j}", j) for j in range(n)], value=column, description=translate("J·v, v =", ZH)
        )
        self.rows = w.ToggleButtons(
            options=[(f"e{i}", i) for i in range(m)], value=row, description=translate("vᵀJ, v =", ZH)
        )
        for buttons in (self.columns, self.rows):
            buttons.style.button_width = "3.2em"
        self.readout = w.HTML()
        self.plot = SvgFigure(min(1.2 + 0.75 * n, 6.0), min(1.2 + 0.6 * m, 4.5))
        ax = self.plot.ax
        top = float(np.abs(self.J).max()) or 1.0
        ax.imshow(self.J, cmap="RdBu", vmin=-top, vmax=top)
        for (i, j), value in np.ndenumerate(self.J):
            color = "white" if abs(value) > 0.6 * top else "black"
            ax.text(j, i, f"{value + 0.0:.3g}", ha="center", va="center", color=color, fontsize=9)
        ax.set_xticks(range(n), [f"x{j}" for j in range(n)])
        ax.set_yticks(range(m), [f"f{i}" for i in range(m)])
        from matplotlib.patches import Rectangle

        self._column = ax.add_patch(Rectangle((0, 0), 1, m, fill=False, edgecolor="#e65100", linewidth=3))
        self._row = ax.add_patch(Rectangle((0, 0), n, 1, fill=False, edgecolor="#2e7d32", linewidth=3, ls="--"))
        self.columns.observe(lambda _: self.update(), names="value")
        self.rows.observe(lambda _: self.update(), names="value")
        super().__init__([self.columns, self.rows, self.plot.widget, self.readout])
        self.add_class("gradbook-jacobian-view")
        self.update()

    def update(self) -> None:
        """J·v for v = e_column by a forward-mode product, vᵀJ for v = e_row by a backward pass."""
        lib, (m, n) = self.library, self.J.shape
        j, i = self.columns.value, self.rows.value
        _, jv = lib.autograd.functional.jvp(self.f, self.x, lib.eye(n, dtype=lib.float64)[j])
        x = self.x.clone().requires_grad_()
        self.f(x).backward(lib.eye(m, dtype=lib.float64)[i])
        self.jv, self.vj = [float(v) for v in jv.tolist()], [float(v) for v in x.grad.tolist()]
        self._column.set_xy((j - 0.5, -0.5))
        self._row.set_xy((-0.5, i - 0.5))
        self.plot.redraw()
        column, row = translate(f"column {j}", ZH), translate(f"row {i}", ZH)
        self.readout.value = (
            f'<div style="font-size:13px"><span style="color:#e65100"><code>J·e{j} = {_numbers(self.jv)}</code> '
            f'({column})</span><br><span style="color:#2e7d32"><code>e{i}ᵀJ = {_numbers(self.vj)}</code> '
            f"({row})</span></div>"
        )

    def static_html(self) -> str:
        return self.plot.widget.value + self.readout.value

    def __repr__(self) -> str:
        m, n = self.J.shape
        return f"JacobianView({m} × {n}, column={self.columns.value}, row={self.rows.value})"
