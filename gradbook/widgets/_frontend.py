"""AnimationView: the browser's player of a recorded backward pass, as an anywidget.

The kernel sends one payload (``Animation.payload()``: the SVG laid out once and, per frame, only
what changes), gzipped, as the widget's binary ``data``; ``gradbook/viz/static/player.js`` plays
it with no kernel round trip: steps, Play, pan, zoom and focus all run in the browser. ``frame``
is synced both ways, so Python can drive the player and always knows what it shows; nothing
"playing" is ever saved (Play is browser state only; ``autoplay`` is a counter that asks for it).

The same script also runs outside a kernel: :meth:`AnimationView.static_html` is the saved view
of a notebook (the current frame as an image, which survives an untrusted notebook, and a
script that replaces it with a working player where scripts run: a trusted notebook, an
``nbconvert --to html`` page, offline).
"""

from __future__ import annotations

import base64
import gzip
import html
import json
from collections.abc import Callable
from typing import Any

import anywidget
import traitlets

from ..language import get_language, translate
from ..viz.animate import PLAYER_JS, graph_height, player_script
from ._zh import ZH

# past this many gzipped bytes a saved notebook keeps the picture alone (no embedded player)
MAX_EMBEDDED = 2_000_000


# the player's own words, as player.js has them by default (its LABELS); in another language the
# payload carries them translated, as "labels" (an English payload stays byte for byte as it was)
PLAYER_LABELS = {
    "hint": "drag: pan · ctrl+wheel or pinch: zoom · click a node: focus",
    "first": "first frame",
    "back": "one step back",
    "play": "play",
    "pause": "pause",
    "next": "one step forward",
    "last": "last frame",
    "step": "step",
    "fit": "fit",
    "fitTitle": "fit the graph to the box (text kept readable)",
    "all": "all",
    "allTitle": "the whole graph",
    "zoomIn": "zoom in",
    "zoomOut": "zoom out",
    "unfocus": "✕ focus",
    "unfocusTitle": "show the whole graph again",
}


def localized(payload: dict[str, Any]) -> dict[str, Any]:
    """``payload`` in the language of ``gradbook.set_language``: the player's labels translated
    (its captions come translated from ``Animation.captions``)."""
    if get_language() == "en":
        return payload
    labels = {key: translate(text, ZH) for key, text in PLAYER_LABELS.items()}
    return payload | {"labels": labels}


def pack(payload: dict[str, Any]) -> bytes:
    """The payload as gzipped JSON, the same bytes for the same payload (no time stamp)."""
    text = json.dumps(payload, separators=(",", ":"), ensure_ascii=False)
    return gzip.compress(text.encode("utf-8"), compresslevel=6, mtime=0)


def picture_payload(svg: str, height: int | None = None, **panels: Any) -> dict[str, Any]:
    """A payload of one still picture (a drawing that is not animated)."""
    payload = {"svg": svg, "targets": [], "base": [], "diffs": [[]], "captions": [""], "running": None}
    payload["height"] = height or graph_height(svg)
    payload.update(panels)
    return payload


class AnimationView(anywidget.AnyWidget):
    """A recorded backward pass (or one picture) played in the browser: the graph with its
    running node, steps, Play, a slider, pan/zoom/fit and focus on a clicked node, and optional
    side panels (the chain-rule ledger, each leaf's ``.grad``)."""

    _esm = PLAYER_JS + "\nexport default { render({ model, el }) { return gradbookPlayer(model, el); } };\n"
    data = traitlets.Bytes(b"").tag(sync=True)
    frame = traitlets.Int(0).tag(sync=True)
    autoplay = traitlets.Int(0).tag(sync=True)
    interval = traitlets.Int(600).tag(sync=True)

    def __init__(self) -> None:
        super().__init__()
        self.payload: dict[str, Any] = picture_payload("", 180)
        self._frame_svg: Callable[[int], str] = lambda i: ""

    def show(
        self,
        payload: dict[str, Any],
        frame_svg: Callable[[int], str],
        autoplay: bool = False,
        frame: int = 0,
    ) -> None:
        """Replace what is played: ``payload`` for the browser, ``frame_svg(i)`` for Python's view
        of frame i; start at ``frame`` (negative counts from the end), or play from 0."""
        payload = localized(payload)
        self.payload = payload
        self._frame_svg = frame_svg
        count = len(payload["diffs"])
        with self.hold_sync():
            self.data = pack(payload)
            self.frame = 0 if autoplay else max(0, min(count - 1, frame % count if frame < 0 else frame))
            if autoplay and count > 1:
                self.autoplay += 1  # the browser plays it from frame 0

    def show_picture(self, svg: str, **panels: Any) -> None:
        """One still picture (no steps)."""
        self.show(picture_payload(svg, **panels), lambda i: svg)

    def __len__(self) -> int:
        return len(self.payload["diffs"])

    def go(self, index: int) -> None:
        """Show frame ``index`` (clamped to the frames there are)."""
        self.frame = max(0, min(int(index), len(self) - 1))

    def step(self, delta: int) -> None:
        self.go(self.frame + delta)

    def frame_svg(self, i: int) -> str:
        """Frame ``i``'s graph as an SVG document, as Python draws it."""
        return self._frame_svg(i)

    @property
    def current_svg(self) -> str:
        """The current frame's graph: the picture the browser shows now."""
        return self._frame_svg(self.frame)

    def panel(self, name: str) -> str:
        """The current frame's side panel ``"ledger"`` or ``"leaves"`` as HTML."""
        p, i = self.payload, self.frame
        if name == "ledger":
            ledger = p.get("ledger") or [""]
            return ledger[min(i, len(ledger) - 1)]
        values = [value for _, value in p.get("leaves", [])]
        for diff in p.get("leaf_diffs", [])[1 : i + 1]:
            for k in range(0, len(diff), 2):
                values[diff[k]] = diff[k + 1]
        rows = "".join(
            f'<tr><td style="padding:1px 6px"><b>{html.escape(name)}</b>.grad</td>'
            f'<td style="padding:1px 6px"><code>{html.escape(value)}</code></td></tr>'
            for (name, _), value in zip(p.get("leaves", []), values)
        )
        return f'<table class="gradbook-leaf-grads" style="font-size:12px">{rows}</table>' if rows else ""

    def static_html(self) -> str:
        """The saved view: the current frame (graph, ledger, leaf grads) as plain HTML, then a
        script that turns it into the working player where scripts run (never fetching anything)."""
        caption = (
            self.payload["captions"][min(self.frame, len(self.payload["captions"]) - 1)]
            if self.payload["captions"]
            else ""
        )
        picture = (
            f'<div class="gradbook-still" style="display:flex;flex-wrap:wrap;gap:12px;font-size:12px">'
            f"<div>{f'<b>{html.escape(caption)}</b><br>' if caption else ''}{self.current_svg}</div>"
            f"<div>{self.panel('ledger')}{self.panel('leaves')}</div></div>"
        )
        data = self.data
        if not data or len(data) > MAX_EMBEDDED:
            return picture
        encoded = base64.b64encode(data).decode()
        bytes_ = f'Uint8Array.from(atob("{encoded}"), (c) => c.charCodeAt(0))'
        script = player_script(bytes_, self.frame, self.interval)
        return f'<div class="gradbook-saved">{picture}<script>{script}</script></div>'
