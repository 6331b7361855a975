"""Rasterise gradbook's SVG drawings with Pillow, for ``Animation.to_gif``.

The drawings use a small part of SVG, the part Graphviz's SVG output and ``layered.py`` write:
``polygon``, ``polyline``, ``path`` (``M L C Q Z``), ``ellipse`` and ``text``, with fill, stroke and
stroke-width, inside one group's ``translate``. That much is drawn here with Pillow's ImageDraw
(Pillow comes with matplotlib), text in matplotlib's own DejaVu fonts (a system font for
characters DejaVu lacks, such as Chinese), so a GIF needs no browser,
no cairo and no network. Dashes are drawn solid; the rest is as the browser shows it.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from functools import cache
from pathlib import Path
from typing import Any

__all__ = ["image_size", "svg_to_image"]

SVG_NS = "{http://www.w3.org/2000/svg}"
_NUMBER = re.compile(r"-?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")
_PATH = re.compile(r"([MLCQZmlcqz])([^MLCQZmlcqz]*)")
_PT = 96 / 72  # CSS pixels per point


@cache
def _dejavu(family: str, bold: bool) -> str:
    import matplotlib

    mono = "courier" in family.lower() or "mono" in family.lower()
    name = ("DejaVuSansMono" if mono else "DejaVuSans") + ("-Bold" if bold else "") + ".ttf"
    return str(Path(matplotlib.get_data_path()) / "fonts" / "ttf" / name)


@cache
def _characters(path: str) -> frozenset[int]:
    from matplotlib.ft2font import FT2Font

    try:
        return frozenset(FT2Font(path).get_charmap())
    except (OSError, RuntimeError, ValueError):
        return frozenset()


# File names of fonts that carry Chinese, Japanese or Korean characters, tried before the rest.
_CJK_FILES = re.compile(r"cjk|wqy|sourcehan|hei|song|ming|kai|droidsansfallback|pingfang|yahei|msyh|simsun", re.I)


@cache
def _fallback(missing: frozenset[int]) -> str | None:
    """A font file on this machine with every one of ``missing``'s characters, or None."""
    from matplotlib import font_manager

    for path in sorted(font_manager.findSystemFonts(), key=lambda f: (not _CJK_FILES.search(Path(f).name), f)):
        if missing <= _characters(path):
            return path
    return None


def _font(family: str, bold: bool, px: int, text: str = "") -> Any:
    """DejaVu (matplotlib's own font), or for text it lacks (Chinese) a system font that has it."""
    path = _dejavu(family, bold)
    missing = frozenset(ord(c) for c in text if not c.isspace()) - _characters(path)
    if missing:
        found = _fallback(missing)
        if found is None:
            _warn_missing(text)
        else:
            path = found
    return _truetype(path, max(px, 1))


@cache
def _truetype(path: str, px: int) -> Any:  # each font file read once per size, not once per text
    from PIL import ImageFont

    return ImageFont.truetype(path, px)


@cache
def _warn_missing(text: str) -> None:
    import warnings

    warnings.warn(
        f"to_gif(): no font on this machine has every character of {text!r}, so some are drawn as "
        "boxes; install one that has them (for Chinese on Debian or Ubuntu: apt-get install fonts-noto-cjk)",
        stacklevel=2,
    )


def _colour(value: str | None) -> str | None:
    if value is None or value in ("none", "transparent"):
        return None
    return value


def _bezier(p0, p1, p2, p3, steps: int = 10) -> list[tuple[float, float]]:
    out = []
    for i in range(1, steps + 1):
        t = i / steps
        u = 1 - t
        out.append(
            (
                u**3 * p0[0] + 3 * u * u * t * p1[0] + 3 * u * t * t * p2[0] + t**3 * p3[0],
                u**3 * p0[1] + 3 * u * u * t * p1[1] + 3 * u * t * t * p2[1] + t**3 * p3[1],
            )
        )
    return out


def _path_points(d: str) -> tuple[list[tuple[float, float]], bool]:
    """A path's outline as points (curves flattened), and whether it is closed."""
    points: list[tuple[float, float]] = []
    closed = False
    for command, args in _PATH.findall(d):
        values = [float(v) for v in _NUMBER.findall(args)]
        pairs = list(zip(values[0::2], values[1::2]))
        if command in "MmLl":
            points.extend(pairs)
        elif command in "Cc":
            for i in range(0, len(pairs) - 2, 3):
                points.extend(_bezier(points[-1], pairs[i], pairs[i + 1], pairs[i + 2]))
        elif command in "Qq":
            for i in range(0, len(pairs) - 1, 2):
                start, control, end = points[-1], pairs[i], pairs[i + 1]
                c1 = (start[0] + 2 / 3 * (control[0] - start[0]), start[1] + 2 / 3 * (control[1] - start[1]))
                c2 = (end[0] + 2 / 3 * (control[0] - end[0]), end[1] + 2 / 3 * (control[1] - end[1]))
                points.extend(_bezier(start, c1, c2, end, 4))
        else:
            closed = True
    if len(points) > 2 and points[0] == points[-1]:
        closed = True
    return points, closed


def image_size(svg: str, scale: float = 1.0) -> tuple[int, int]:
    """The pixel size ``svg_to_image`` gives ``svg`` at ``scale``, read from its viewBox alone."""
    found = re.search(r'viewBox="([^"]*)"', svg[:2000])
    box = [float(v) for v in _NUMBER.findall(found[1] if found else "0 0 100 100")]
    return max(1, round(box[2] * scale * _PT)), max(1, round(box[3] * scale * _PT))


def svg_to_image(svg: str, scale: float = 1.0, background: str = "white") -> Any:
    """A Pillow RGB image of one gradbook SVG drawing, ``scale`` CSS pixels per CSS pixel of the
    drawing (a point is 4/3 px, as in a browser).

    >>> image = svg_to_image('<svg xmlns="http://www.w3.org/2000/svg" width="30pt" height="15pt" '
    ...                      'viewBox="0 0 30 15"><polygon fill="red" points="0,0 30,0 30,15 0,15"/></svg>')
    >>> image.size, image.getpixel((20, 10))
    ((40, 20), (255, 0, 0))
    """
    from PIL import Image, ImageDraw

    root = ET.fromstring(svg)
    box = [float(v) for v in _NUMBER.findall(root.get("viewBox", "0 0 100 100"))]
    k = scale * _PT  # image pixels per drawing unit (points)
    image = Image.new("RGB", image_size(svg, scale), background)
    draw = ImageDraw.Draw(image)

    def walk(element: ET.Element, dx: float, dy: float) -> None:
        found = re.search(r"translate\(\s*([-\d.]+)[ ,]+([-\d.]+)", element.get("transform", ""))
        if found:
            dx, dy = dx + float(found[1]), dy + float(found[2])
        for child in element:
            tag = child.tag.replace(SVG_NS, "")
            if tag in ("g", "a"):
                walk(child, dx, dy)
                continue
            fill, stroke = _colour(child.get("fill", "black")), _colour(child.get("stroke"))
            width = max(1, round(float(child.get("stroke-width", 1)) * k))

            def px(points):
                return [((x + dx - box[0]) * k, (y + dy - box[1]) * k) for x, y in points]

            if tag in ("polygon", "polyline", "path"):
                if tag == "path":
                    points, closed = _path_points(child.get("d", ""))
                else:
                    values = [float(v) for v in _NUMBER.findall(child.get("points", ""))]
                    points, closed = list(zip(values[0::2], values[1::2])), tag == "polygon"
                if len(points) < 2:
                    continue
                points = px(points)
                if fill and closed:
                    draw.polygon(points, fill=fill)
                if stroke:
                    draw.line(points + ([points[0]] if closed else []), fill=stroke, width=width, joint="curve")
            elif tag == "ellipse":
                cx, cy = float(child.get("cx", 0)), float(child.get("cy", 0))
                rx, ry = float(child.get("rx", 0)), float(child.get("ry", 0))
                (x0, y0), (x1, y1) = px([(cx - rx, cy - ry), (cx + rx, cy + ry)])
                draw.ellipse([x0, y0, x1, y1], fill=fill, outline=stroke, width=width)
            elif tag == "text" and child.text:
                font = _font(child.get("font-family", ""), child.get("font-weight") == "bold",
                             round(float(child.get("font-size", 14)) * k), child.text)  # fmt: skip
                anchor = {"start": "ls", "middle": "ms", "end": "rs"}.get(child.get("text-anchor", "start"), "ls")
                (x, y), = px([(float(child.get("x", 0)), float(child.get("y", 0)))])  # fmt: skip
                draw.text((x, y), child.text, fill=fill or "black", font=font, anchor=anchor)

    walk(root, 0.0, 0.0)
    return image
