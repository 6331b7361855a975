"""``Animation.to_gif``: a GIF for slides, rasterised by ``gradbook.viz.raster`` (Pillow).

The pixels are checked against the SVG's own geometry and colours: in each frame, the node that
step ran is filled with the "running" colour at the place the SVG puts it, and its text is drawn.
"""

from __future__ import annotations

import io
import re
import xml.etree.ElementTree as ET

import pytest

import gradbook as torch
from gradbook.viz import animate, record_backward
from gradbook.viz.animate import COLOURS
from gradbook.viz.raster import svg_to_image

Image = pytest.importorskip("PIL.Image")
SVG = "{http://www.w3.org/2000/svg}"
PT = 96 / 72


def _rgb(colour: str) -> tuple[int, int, int]:
    return tuple(int(colour[i : i + 2], 16) for i in (1, 3, 5))


def _node_box(svg: str, key: str, scale: float, band: int) -> tuple[float, float, float, float]:
    """The node's outline in GIF pixels: the SVG's points, through its translate, at 4/3 px per pt."""
    root = ET.fromstring(svg)
    graph = root.find(f"{SVG}g")
    dx, dy = (float(v) for v in re.search(r"translate\(([-\d.]+)[ ,]+([-\d.]+)", graph.get("transform")).groups())
    group = next(g for g in root.iter(f"{SVG}g") if g.get("id") == key)
    shape = next(e for e in group if e.tag in (f"{SVG}path", f"{SVG}polygon"))
    values = [float(v) for v in re.findall(r"-?\d+(?:\.\d+)?", shape.get("d") or shape.get("points"))]
    xs, ys = [(x + dx) * scale * PT for x in values[0::2]], [(y + dy) * scale * PT + band for y in values[1::2]]
    return min(xs), min(ys), max(xs), max(ys)


def _close(a, b, tolerance=24) -> bool:
    return all(abs(p - q) <= tolerance for p, q in zip(a, b))


@pytest.mark.exe
@pytest.mark.parametrize("renderer", [None, "layered"])
def test_each_frame_shows_the_running_node_where_the_svg_puts_it(tmp_path, renderer):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = (x * x + 3 * x).sum()
    animation = animate(record_backward(y), renderer=renderer)
    path = tmp_path / "backward.gif"
    data = animation.to_gif(str(path), scale=1.5, interval=500)
    assert path.read_bytes() == data and data[:6] == b"GIF89a"
    gif = Image.open(io.BytesIO(data))
    assert gif.n_frames == len(animation) and gif.info["loop"] == 0
    band = round(22 * 1.5)
    durations = []
    for i in range(len(animation)):
        gif.seek(i)
        durations.append(gif.info["duration"])
        frame = gif.convert("RGB")
        svg = animation.frame_svg(i)
        for step in animation.recording.steps:
            x0, y0, x1, y1 = _node_box(svg, step.key, 1.5, band)
            inside = frame.getpixel((round(x0 + 4), round((y0 + y1) / 2)))  # in the fill, left of the text
            running = i > 0 and animation.recording.steps[i - 1].key == step.key
            assert _close(inside, _rgb(COLOURS["running"])) == running, (i, step.key, inside)
            dark = sum(
                1
                for px in range(round(x0) + 2, round(x1) - 2)
                for py in range(round(y0) + 2, round(y1) - 2)
                if sum(frame.getpixel((px, py))) < 250
            )
            assert dark > 20  # the node's text is drawn
    assert durations == [500] * (len(animation) - 1) + [1500]  # the last frame is held


def test_the_rasteriser_draws_what_the_svg_says():
    svg = (
        '<svg xmlns="http://www.w3.org/2000/svg" width="60pt" height="30pt" viewBox="0.00 0.00 60.00 30.00">'
        '<g transform="translate(4 26)"><polygon fill="#ff0000" stroke="transparent" points="-4,4 -4,-26 26,-26 26,4"/>'
        '<path fill="none" stroke="#0000ff" stroke-width="3" d="M30,-10C35,-10 40,-10 50,-10"/>'
        '<text text-anchor="start" x="30" y="0" font-family="Courier,monospace" font-size="10.00">ab</text></g></svg>'
    )
    image = svg_to_image(svg, scale=2.0)
    assert image.size == (160, 80)
    assert image.getpixel((20, 20)) == (255, 0, 0)  # the polygon, through the translate
    assert _close(image.getpixel((120, 43)), (0, 0, 255), 60)  # the curve's stroke at y = 16 pt
    assert image.getpixel((150, 10)) == (255, 255, 255)
    text = [image.getpixel((px, py)) for px in range(90, 120) for py in range(60, 80)]
    assert sum(1 for p in text if sum(p) < 300) > 10


def test_bad_arguments_say_what_to_pass():
    animation = animate(record_backward(torch.tensor(2.0, requires_grad=True) ** 2))
    with pytest.raises(ValueError, match=r"scale=0; use a number of pixels per CSS pixel"):
        animation.to_gif(scale=0)
    with pytest.raises(ValueError, match=r"interval=5; use the milliseconds per frame"):
        animation.to_gif(interval=5)
    with pytest.raises(ValueError, match=r"got frame 7; this animation has frames 0 to 2"):
        animation.to_gif(frames=[0, 7])
    with pytest.raises(ValueError, match=r"got frame \[\] \(none\)"):
        animation.to_gif(frames=[])
    x = torch.tensor(0.5, requires_grad=True)
    y = x
    for _ in range(60):
        y = (y * 1.01).tanh()
    with pytest.raises(ValueError, match=r"would rasterise \d+ frames of \d+×\d+ pixels; pass frames=range"):
        animate(record_backward(y)).to_gif(scale=8)
    assert getattr(Image.open(io.BytesIO(animation.to_gif(frames=[2]))), "n_frames", 1) == 1


def _text_image(text: str):
    svg = (
        '<svg xmlns="http://www.w3.org/2000/svg" width="80pt" height="30pt" viewBox="0.00 0.00 80.00 30.00">'
        f'<g transform="translate(4 26)"><text x="0" y="-6" font-family="Times,serif" font-size="16.00">{text}</text>'
        "</g></svg>"
    )
    return svg_to_image(svg, scale=2.0).convert("L")


def _drawn(image) -> list[tuple[int, int]]:
    return [(x, y) for x in range(image.width) for y in range(image.height) if image.getpixel((x, y)) < 128]


def test_chinese_text_is_drawn_as_its_characters_not_as_boxes():
    """A Chinese lesson's GIF (node names like 梯度): each character drawn from a font that has it.

    A missing glyph is drawn as the same box for every character, so two different words would give
    the same pixels; with a font that has them they differ, and neither is the box's outline.
    """
    from gradbook.viz.raster import _characters, _fallback

    if _fallback(frozenset(map(ord, "梯度反向"))) is None:
        pytest.skip("no font with Chinese characters on this machine (.ci/run installs fonts-wqy-microhei)")
    assert not {ord("梯")} <= _characters(_font_path())  # DejaVu itself has no Chinese
    one, other = _drawn(_text_image("梯度")), _drawn(_text_image("反向"))
    assert len(one) > 40 and len(other) > 40 and one != other


def _font_path() -> str:
    from gradbook.viz.raster import _dejavu

    return _dejavu("Times,serif", False)


def test_a_character_no_font_has_is_drawn_as_a_box_with_one_warning_naming_it():
    missing = "\U0010fffd"  # a private-use character: no font has it
    with pytest.warns(UserWarning, match=r"no font on this machine has every character of '.*'.*fonts-noto-cjk"):
        image = _text_image(f"a{missing}")
    assert len(_drawn(image)) > 10


def test_a_chinese_lessons_gif_draws_its_chinese_words(recwarn):
    from gradbook.viz.raster import _fallback

    if _fallback(frozenset(map(ord, "梯度"))) is None:
        pytest.skip("no font with Chinese characters on this machine (.ci/run installs fonts-wqy-microhei)")
    torch.set_language("zh")
    try:
        x = torch.tensor(2.0, requires_grad=True)
        data = animate(record_backward(x * x), legend=True).to_gif()
    finally:
        torch.set_language("en")
    assert data[:6] == b"GIF89a"
    assert not [w for w in recwarn if "no font" in str(w.message)]  # every Chinese word found its glyphs
