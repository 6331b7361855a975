#!/usr/bin/env python3
"""Make docs/backward_player_frames.png: the frames of one recorded backward pass, side by side.

A maintainer's script for the README picture, not part of the package or the tests. Each frame is
rasterised by ``gradbook.viz.raster`` (Pillow, as ``Animation.to_gif`` does).

    python3 docs/make_frame_strip.py
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from PIL import Image  # noqa: E402

import gradbook as torch  # noqa: E402
from gradbook.viz import animate, record_backward  # noqa: E402
from gradbook.viz.raster import svg_to_image  # noqa: E402


def main() -> None:
    x = torch.tensor(2.0, requires_grad=True)
    y = x * x + 3 * x  # dy/dx = 2x + 3 = 7
    frames = animate(record_backward(y)).frames_svg()
    images = [svg_to_image(svg, scale=1.2) for svg in frames]
    gap = 16
    width = sum(im.width for im in images) + gap * (len(images) - 1)
    strip = Image.new("RGB", (width, max(im.height for im in images)), "white")
    left = 0
    for im in images:
        strip.paste(im, (left, 0))
        left += im.width + gap
    out = ROOT / "docs" / "backward_player_frames.png"
    strip.save(out, optimize=True)
    print(out, strip.size)


if __name__ == "__main__":
    main()
