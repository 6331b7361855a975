#!/usr/bin/env python3
"""Print gradbook's size per layer (as tinygrad's sz.py does), so that growth is seen in every CI log.

Lines of code: non-blank lines that are not comments (docstrings count: they are read too). The
reading path is the five files docs/engine.md walks through.
"""

from __future__ import annotations

from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "gradbook"
READING_PATH = ["tensor.py", "ops/op.py", "ops/arithmetic.py", "autograd/graph.py", "autograd/engine.py"]
ABOVE = ["nn", "optim", "utils", "linalg.py", "viz", "widgets", "exercises", "grading", "language.py"]


def code_lines(path: Path) -> int:
    lines = (line.strip() for line in path.read_text(encoding="utf-8").splitlines())
    return sum(1 for line in lines if line and not line.startswith("#"))


def layer_of(path: Path) -> str:
    rel = path.relative_to(PACKAGE)
    if str(rel.as_posix()) in READING_PATH:
        return "engine: the reading path"
    top = rel.parts[0]
    if top in ABOVE:
        return f"above: {top.removesuffix('.py')}"
    if top == "lessons":
        return ""
    if top == "ops":
        return "engine: the op table's families"
    return "engine: beside the path"


def main() -> None:
    sizes: dict[str, list[int]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        layer = layer_of(path)
        if layer:
            files, lines = sizes.setdefault(layer, [0, 0])
            sizes[layer] = [files + 1, lines + code_lines(path)]
    print(f"{'layer':32} {'files':>5} {'lines':>7}")
    for layer in sorted(sizes):
        files, lines = sizes[layer]
        print(f"{layer:32} {files:5} {lines:7}")
    print(f"{'total':32} {sum(f for f, _ in sizes.values()):5} {sum(n for _, n in sizes.values()):7}")
    for name in READING_PATH:
        print(f"  {name:30} {len((PACKAGE / name).read_text(encoding='utf-8').splitlines()):7} lines in the file")


if __name__ == "__main__":
    main()
