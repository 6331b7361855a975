"""``python -m gradbook lessons DIR``: copy the lesson notebooks out of the installed package.

The wheel ships the seventeen lessons in English and Chinese (``gradbook/lessons``, the repository's
``notebooks/``), so a user who installed gradbook from the registry gets them without a clone::

    python -m gradbook lessons my-lessons      # then: jupyter lab my-lessons
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from importlib import resources
from pathlib import Path

LESSON_FILES = ("[0-9][0-9]_*.ipynb", "matplotlibrc")


def lesson_files(root: Path) -> list[Path]:
    """The lessons under ``root`` (relative paths): each notebook, in both languages."""
    found = []
    for folder in (root, root / "zh"):
        for pattern in LESSON_FILES:
            found += [p.relative_to(root) for p in sorted(folder.glob(pattern)) if p.is_file()]
    return found


def _refusal(target: Path, files: list[Path], force: bool) -> str | None:
    """Why the lessons cannot go into ``target``, or None: nothing is ever written through a link."""
    for folder in [target, *[target / p for p in sorted({f.parent for f in files} - {Path(".")})]]:
        if folder.is_symlink():
            return (
                f"{folder} is a symbolic link; gradbook writes only into real folders: remove it or choose another DIR"
            )
        if folder.exists() and not folder.is_dir():
            return f"{folder} is a file, not a folder; choose another DIR"
    clashes = [target / f for f in files if os.path.lexists(target / f)]
    for path in clashes:
        if path.is_symlink():
            return f"{path} is a symbolic link; gradbook never writes through one: remove it, or choose another DIR"
        if not path.is_file():
            return f"{path} is in the way (not a regular file); remove it or choose another DIR"
    if clashes and not force:
        return (
            f"{clashes[0]} already exists ({len(clashes)} lesson files would be overwritten); "
            "copy into another directory, or pass --force to overwrite them"
        )
    return None


def copy_lessons(target: Path, force: bool = False) -> list[Path]:
    """Copy every lesson into ``target``, all or nothing: the files are copied into a temporary
    folder there first, then moved into place; an existing lesson file is kept unless ``force``.
    Raises SystemExit with one line when it cannot (nothing is changed then)."""
    # beside this file, not resources.files("gradbook"): a folder named gradbook in the current
    # directory (a clone, seen from its parent) would be that name's namespace package instead
    with resources.as_file(Path(__file__).resolve().parent / "lessons") as root:
        files = lesson_files(Path(root))
        if not files:
            raise SystemExit("gradbook: this installation has no lessons (gradbook/lessons is empty)")
        problem = _refusal(target, files, force)
        if problem:
            raise SystemExit(f"gradbook: {problem}")
        made = not target.exists()
        moved: list[tuple[Path, Path | None]] = []
        folders: list[Path] = []  # made here (zh/): removed again on failure
        stage = None
        try:
            target.mkdir(parents=True, exist_ok=True)
            stage = Path(tempfile.mkdtemp(prefix=".gradbook-lessons-", dir=target))
            for f in files:
                (stage / "new" / f).parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(Path(root) / f, stage / "new" / f)
            for f in files:
                dest = target / f
                if not dest.parent.exists():
                    dest.parent.mkdir()
                    folders.append(dest.parent)
                backup = None
                if os.path.lexists(dest):  # kept until every file is in place, to put back on failure
                    backup = stage / "old" / f
                    backup.parent.mkdir(parents=True, exist_ok=True)
                    os.replace(dest, backup)
                moved.append((dest, backup))
                os.replace(stage / "new" / f, dest)  # a rename: never follows a link at dest
        except OSError as err:
            for dest, backup in reversed(moved):
                if backup is not None and backup.exists():
                    os.replace(backup, dest)
                elif dest.exists():
                    dest.unlink()
            for folder in reversed(folders):
                shutil.rmtree(folder, ignore_errors=True)
            if stage is not None:
                shutil.rmtree(stage, ignore_errors=True)
                stage = None
            if made:
                shutil.rmtree(target, ignore_errors=True)
            reason = err.strerror or str(err)
            message = f"gradbook: cannot write the lessons into {target}: {reason}; nothing was changed"
            raise SystemExit(message) from None
        finally:
            if stage is not None:
                shutil.rmtree(stage, ignore_errors=True)
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
