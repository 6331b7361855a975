"""``python -m gradbook lessons DIR``: copy the lesson notebooks out of the installed package.

The wheel ships the ten lessons in English and Chinese (``gradbook/lessons``, the repository's
``notebooks/``), so a user who installed gradbook from the registry gets them without a clone::

    python -m gradbook lessons my-lessons      # then: jupyter lab my-lessons
"""

from __future__ import annotations

import argparse
import shutil
import sys
from importlib import resources
from pathlib import Path

LESSON_FILES = ("[0-9][0-9]_*.ipynb", "[0-9][0-9]_*.md", "matplotlibrc")


def lesson_files(root: Path) -> list[Path]:
    """The lessons under ``root`` (relative paths): each notebook, its text, in both languages."""
    found = []
    for folder in (root, root / "zh"):
        for pattern in LESSON_FILES:
            found += [p.relative_to(root) for p in sorted(folder.glob(pattern)) if p.is_file()]
    return found


def copy_lessons(target: Path, force: bool = False) -> list[Path]:
    """Copy every lesson into ``target``; an existing lesson file is kept unless ``force``."""
    with resources.as_file(resources.files("gradbook") / "lessons") as root:
        files = lesson_files(Path(root))
        if not files:
            raise SystemExit("gradbook: this installation has no lessons (gradbook/lessons is empty)")
        clashes = [f for f in files if (target / f).exists()]
        if clashes and not force:
            raise SystemExit(
                f"gradbook: {target / clashes[0]} already exists ({len(clashes)} lesson files would be "
                "overwritten); copy into another directory, or pass --force to overwrite them"
            )
        for f in files:
            (target / f).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(Path(root) / f, target / f)
    return files


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m gradbook", description="gradbook's command line")
    commands = parser.add_subparsers(dest="command", required=True)
    lessons = commands.add_parser("lessons", help="copy the lesson notebooks (English and Chinese) into DIR")
    lessons.add_argument("directory", type=Path, metavar="DIR")
    lessons.add_argument("--force", action="store_true", help="overwrite lesson files that exist in DIR")
    args = parser.parse_args(argv)
    files = copy_lessons(args.directory, args.force)
    print(f"copied {len(files)} files into {args.directory}: open them with  jupyter lab {args.directory}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
