"""GraphView: the autograd graph with toggles for what each node shows, redrawn on demand."""

from __future__ import annotations

from collections.abc import Iterable

import ipywidgets as w

from .. import Tensor, draw
from ..language import translate
from ..viz.model import tensor_names
from ._common import STATUS_HEIGHT, StaticFallback, drawing_svg, error_html, guarded
from ._frontend import AnimationView
from ._zh import ZH

TOGGLES = ("data", "grad", "shape", "names")


class GraphView(StaticFallback, w.VBox):
    """``gradbook.draw(y)`` in a widget, with checkboxes for data, grad, shape, names and the legend.

    Call :meth:`refresh` after further computation (another backward(), an in-place change) to
    redraw it. Names are those of the caller's variables when the view was made (and ``names=``).
    ``show=`` picks the boxes ticked at the start (``show=("shape", "names")`` draws a network
    narrow enough for a projector; saved tensors are always drawn). Large graphs are drawn
    collapsed, as ``draw`` does.

    >>> import gradbook as torch
    >>> from gradbook.widgets import GraphView
    >>> x = torch.tensor(3.0, requires_grad=True)
    >>> view = GraphView(x * x)
    >>> view.show["grad"].value = False; "grad" in view.shown
    False
    >>> view
    GraphView(2 nodes, show=data,shape,names)
    """

    def __init__(
        self,
        y: Tensor,
        names: dict[str, Tensor] | None = None,
        max_nodes: int = 500,
        show: Iterable[str] = TOGGLES,
    ) -> None:
        if isinstance(show, str):  # its letters are not rows
            raise ValueError(f"GraphView() got show={show!r}; pass a tuple of rows, e.g. show=({show!r},)")
        unknown = sorted(set(show) - {*TOGGLES, "saved"})
        if unknown:
            raise ValueError(
                f"GraphView() got show={show!r}: unknown {unknown}; pass a tuple of rows among {TOGGLES}, "
                "e.g. show=('shape', 'names') (saved tensors are always drawn)"
            )
        self.y = y
        self.names = tensor_names(names, 2, "GraphView")  # names= first, then the caller's
        self.max_nodes = max_nodes
        self.error: str | None = None
        self.status = w.HTML(error_html(None), layout=w.Layout(height=STATUS_HEIGHT, overflow="auto"))
        small = {"indent": False, "layout": w.Layout(width="auto")}  # a row of toggles, not 300 px each
        # keyed by draw()'s names for the rows (show=), labelled in the language set
        self.show = {name: w.Checkbox(value=name in show, description=translate(name, ZH), **small) for name in TOGGLES}
        self.legend = w.Checkbox(value=False, description=translate("legend", ZH), **small)
        fixed = w.Layout(width="auto", flex="0 0 auto")  # never shrunk below its text
        tip = translate("redraw after further computation", ZH)
        self.refresh_button = w.Button(description=translate("refresh", ZH), tooltip=tip, layout=fixed)
        self.graph = AnimationView()  # pan, zoom, fit and focus in the browser
        for box in (*self.show.values(), self.legend):
            box.observe(guarded(self, self.refresh), names="value")
        self.refresh_button.on_click(guarded(self, self.refresh))
        wrap = w.Layout(flex_flow="row wrap")
        controls = w.HBox([*self.show.values(), self.legend, self.refresh_button], layout=wrap)
        super().__init__([controls, self.graph, self.status])
        self.add_class("gradbook-graph-view")  # for styling, and for the browser test to find it
        self.svg = ""
        self.refresh()

    @property
    def shown(self) -> tuple[str, ...]:
        """The rows drawn now (``draw``'s ``show=``); saved tensors are always drawn."""
        return (*(name for name in TOGGLES if self.show[name].value), "saved")

    def refresh(self) -> None:
        """Redraw the graph as it is now (values, grads, freed saved tensors)."""
        drawing = draw(
            self.y, names=self.names, show=self.shown, legend=self.legend.value, max_nodes=self.max_nodes, stacklevel=0
        )
        self.svg = drawing_svg(drawing)
        self.graph.show_picture(self.svg)
        self.error = None
        self.status.value = error_html(None)

    def static_html(self) -> str:
        return self.graph.static_html()

    def static_svg(self) -> str:
        return self.svg

    def __repr__(self) -> str:
        shown = ",".join(n for n in TOGGLES if self.show[n].value)
        return f"GraphView({self._node_count()} nodes, show={shown})"

    def _node_count(self) -> int:
        from ..viz import GraphModel

        return len(GraphModel.from_roots(self.y).nodes)
