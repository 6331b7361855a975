"""A static scan of a submitted notebook for code that games the grading instead of answering.

It reads each code cell (without running anything) and flags:

- **imports** beyond what the exercises need (gradbook, NumPy, math and a few standard modules):
  ``os``, ``sys``, ``subprocess``, ``ctypes``, ``gc``, ``inspect``, ``importlib``, ``builtins``,
  ``pathlib``, ``sqlite3``, ``socket``, ``IPython``... anything not on the list;
- **calls** that run or read other code or files: ``exec``, ``eval``, ``compile``, ``open``,
  ``__import__``, ``globals``, ``vars``, ``setattr``, ``get_ipython``...;
- **patches**: an assignment to (or ``del`` of) an attribute of an imported module or class
  (``np.allclose = ...``, ``torch.Tensor.backward = ...``) or of an object the notebook did not
  create, of any dunder (``__class__``, ``__name__``), or a rebinding of a builtin or of a check
  (``abs = ...``, ``def check_vjp``);
- **the checks' own code**: a private name (``_three_calls``, ``lesson01._descend``) imported from
  or read on ``gradbook.exercises``;
- **the back doors of allowed modules**: a private name read on an imported module or class
  (``np._core``, ``torch._typing``), or a module reached as one's attribute (``np.ctypeslib.ctypes``,
  ``x.sys.modules``);
- **introspection**: dunder attributes that reach other objects' code or namespaces
  (``__globals__``, ``__builtins__``, ``__subclasses__``, ``__dict__``, ``__code__``...);
- **shell and magics**: ``!command``, ``%magic`` and ``%%magic`` lines;
- **edited nbgrader cells**: a graded or locked cell whose source, metadata, points or id differ from
  the released notebook, a cell that claims nbgrader metadata the release does not have, or a
  graded cell that is missing.

What it cannot catch: code that reaches the same ends through names it does not know (an allowed
module's less obvious functions, string tricks on attribute names it cannot see statically). The
sandbox (``sandbox.py``) is the other half: even unflagged code cannot read hidden tests from disk,
write the gradebook or reach the network.
"""

from __future__ import annotations

import ast
import builtins
from dataclasses import dataclass
from typing import Any

__all__ = ["Finding", "scan_notebook", "scan_source"]

ALLOWED_IMPORTS = {
    "gradbook", "numpy", "math", "cmath", "fractions", "decimal", "functools", "itertools", "collections",
    "statistics", "random", "typing", "dataclasses", "operator", "matplotlib", "string", "re", "copy",
}  # fmt: skip
CALLS = {
    "exec", "eval", "compile", "open", "__import__", "globals", "locals", "vars", "setattr", "delattr",
    "getattr", "get_ipython", "breakpoint", "input", "exit", "quit", "memoryview", "help",
}  # fmt: skip
DUNDERS = {
    "__builtins__", "__globals__", "__code__", "__subclasses__", "__dict__", "__class__", "__bases__", "__mro__",
    "__getattribute__", "__setattr__", "__delattr__", "__import__", "__loader__", "__spec__", "__closure__",
    "__func__", "__self__", "__defaults__", "__kwdefaults__", "__reduce__", "__reduce_ex__", "__init_subclass__",
}  # fmt: skip
BUILTIN_NAMES = set(dir(builtins))
MODULES_BEHIND = {  # modules an allowed module holds as an attribute (np.ctypeslib.ctypes, a module's .sys)
    "os", "sys", "ctypes", "subprocess", "builtins", "importlib", "socket", "shutil", "pathlib", "gc", "inspect",
    "sqlite3", "pickle", "marshal", "types", "threading", "multiprocessing", "signal", "posix", "io", "modules",
}  # fmt: skip


@dataclass(frozen=True)
class Finding:
    """One flagged piece of a notebook: which cell (0-based index), which line, what and why."""

    cell: int
    line: int
    code: str
    reason: str

    def __str__(self) -> str:
        return f"cell {self.cell}, line {self.line}: {self.reason}: {self.code}"


def _root(node: ast.AST) -> ast.AST:
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        node = node.value
    return node


def _private(name: str) -> bool:
    return name.startswith("_") and not name.endswith("__")


def _from_exercises(node: ast.AST, checks: set[str]) -> bool:
    """Whether an attribute's object is gradbook.exercises or something imported from it."""
    while isinstance(node, ast.Attribute):
        if node.attr == "exercises" or node.attr.startswith("lesson"):
            return True
        node = node.value
    return isinstance(node, ast.Name) and node.id in checks


class _Visitor(ast.NodeVisitor):
    def __init__(self, cell: int, lines: list[str], imported: set[str], checks: set[str]) -> None:
        self.cell, self.lines, self.imported, self.checks = cell, lines, imported, checks
        self.own: set[str] = set()  # names the notebook bound to its own values: their attributes are its own
        self.found: list[Finding] = []

    def flag(self, node: ast.AST, reason: str) -> None:
        line = getattr(node, "lineno", 1)
        code = self.lines[line - 1].strip() if 0 < line <= len(self.lines) else ""
        self.found.append(Finding(self.cell, line, code[:120], reason))

    # imports: only the allowed modules; names they bring in are "imported" (patching them is flagged)
    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            top = alias.name.split(".")[0]
            if top not in ALLOWED_IMPORTS:
                self.flag(node, f"imports {alias.name}")
            self.imported.add(alias.asname or top)
            if alias.asname and alias.name.startswith("gradbook.exercises"):
                self.checks.add(alias.asname)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        top = (node.module or "").split(".")[0]
        if node.level or top not in ALLOWED_IMPORTS:
            self.flag(node, f"imports from {'.' * node.level}{node.module or ''}")
        for alias in node.names:
            name = alias.asname or alias.name
            if alias.name == "*":
                self.flag(node, f"imports * from {node.module}")
            self.imported.add(name)
            if (
                alias.name.startswith("check_")
                or (node.module or "").startswith("gradbook.exercises")
                or (node.module == "gradbook" and alias.name == "exercises")
            ):
                self.checks.add(name)
            if _private(alias.name) and (node.module or "").startswith("gradbook"):
                self.flag(node, f"imports the private name {alias.name} from {node.module}")

    def visit_Call(self, node: ast.Call) -> None:
        if isinstance(node.func, ast.Name) and node.func.id in CALLS:
            self.flag(node, f"calls {node.func.id}()")
        self.generic_visit(node)

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if node.attr in DUNDERS:
            self.flag(node, f"uses {node.attr}")
        root = _root(node.value)
        if _private(node.attr) and _from_exercises(node.value, self.checks):
            self.flag(node, f"uses the private name {node.attr} of gradbook.exercises (the checks' own code)")
        elif isinstance(root, ast.Name) and root.id in self.imported:  # np._core.records.os, np.ctypeslib.ctypes
            if _private(node.attr):
                self.flag(node, f"uses the private name {node.attr} of the imported {root.id}")
            elif node.attr in MODULES_BEHIND:
                self.flag(node, f"reaches the module {node.attr} through the imported {root.id}")
        self.generic_visit(node)

    def visit_Name(self, node: ast.Name) -> None:
        if node.id in ("__builtins__", "__import__", "__loader__", "__spec__"):
            self.flag(node, f"uses {node.id}")

    def _target(self, target: ast.AST, verb: str) -> None:
        if isinstance(target, (ast.Tuple, ast.List)):
            for element in target.elts:
                self._target(element, verb)
            return
        if isinstance(target, ast.Starred):
            self._target(target.value, verb)
            return
        if isinstance(target, ast.Name):
            if verb == "binds" and target.id not in self.imported:
                self.own.add(target.id)
            if target.id in BUILTIN_NAMES:
                self.flag(target, f"{verb} the builtin {target.id}")
            elif target.id in self.checks or target.id.startswith("check_"):
                self.flag(target, f"{verb} the check {target.id}")
            elif target.id in self.imported:
                self.flag(target, f"{'rebinds' if verb == 'binds' else verb} the imported name {target.id}")
            return
        if isinstance(target, ast.Attribute) and target.attr.startswith("__") and target.attr.endswith("__"):
            self.flag(target, f"{verb} {target.attr}")
            return
        if isinstance(target, (ast.Attribute, ast.Subscript)):
            root = _root(target)
            name = root.id if isinstance(root, ast.Name) else None
            if name is not None and name in self.imported:
                self.flag(target, f"{verb} an attribute of the imported {name}")
            elif name is None:
                self.flag(target, f"{verb} an attribute of a computed object")
            elif name not in self.own:
                self.flag(target, f"{verb} an attribute of {name}, which this notebook did not create")

    def visit_Assign(self, node: ast.Assign) -> None:
        root = _root(node.value)
        if isinstance(root, ast.Name) and (root.id in self.imported or root.id in BUILTIN_NAMES):
            for target in node.targets:  # another name for a module, a class or a builtin
                if isinstance(target, ast.Name) and not isinstance(node.value, ast.Subscript):
                    self.imported.add(target.id)
        for target in node.targets:
            self._target(target, "binds")
        self.generic_visit(node)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        self._target(node.target, "binds")
        self.generic_visit(node)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        self._target(node.target, "binds")
        self.generic_visit(node)

    def visit_Delete(self, node: ast.Delete) -> None:
        for target in node.targets:
            self._target(target, "deletes")
            if isinstance(target, ast.Name):
                self.flag(target, f"deletes {target.id}")

    def visit_For(self, node: ast.For) -> None:
        self._target(node.target, "binds")
        self.generic_visit(node)

    def visit_With(self, node: ast.With) -> None:
        for item in node.items:
            if item.optional_vars is not None:
                self._target(item.optional_vars, "binds")
        self.generic_visit(node)

    def visit_NamedExpr(self, node: ast.NamedExpr) -> None:
        self._target(node.target, "binds")
        self.generic_visit(node)

    def _defines(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> None:
        if node.name in BUILTIN_NAMES:
            self.flag(node, f"defines the builtin {node.name}")
        elif node.name in self.checks or node.name.startswith("check_"):
            self.flag(node, f"defines the check {node.name}")
        elif node.name in self.imported:
            self.flag(node, f"redefines the imported {node.name}")

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        self._defines(node)
        self._parameters(node.args, node)
        self.own.add(node.name)
        self.generic_visit(node)

    def visit_AsyncFunctionDef(self, node: ast.AsyncFunctionDef) -> None:
        self.visit_FunctionDef(node)  # type: ignore[arg-type]

    def visit_Lambda(self, node: ast.Lambda) -> None:
        self._parameters(node.args, node)
        self.generic_visit(node)

    def visit_comprehension(self, node: ast.comprehension) -> None:
        self._target(node.target, "binds")
        self.generic_visit(node)

    def _parameters(self, args: ast.arguments, node: ast.AST) -> None:
        every = [*args.posonlyargs, *args.args, *args.kwonlyargs, *filter(None, [args.vararg, args.kwarg])]
        for arg in every:
            if arg.arg in BUILTIN_NAMES or arg.arg.startswith("check_"):
                self.flag(node, f"a parameter shadows {arg.arg}")
            self.own.add(arg.arg)

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self._defines(node)
        self.own.add(node.name)
        self.generic_visit(node)

    def visit_Global(self, node: ast.Global) -> None:
        self.flag(node, "declares global " + ", ".join(node.names))

    def visit_Nonlocal(self, node: ast.Nonlocal) -> None:
        self.flag(node, "declares nonlocal " + ", ".join(node.names))


def _split_magics(source: str) -> tuple[str, list[tuple[int, str]]]:
    """The cell's Python, with shell and magic lines blanked out (and listed)."""
    lines, magics = source.split("\n"), []
    for i, line in enumerate(lines):
        stripped = line.lstrip()
        if stripped.startswith(("!", "%")) or (stripped.endswith("?") and not stripped.startswith("#")):
            magics.append((i + 1, line.strip()))
            lines[i] = ""
    return "\n".join(lines), magics


def scan_source(
    source: str, cell: int = 0, imported: set[str] | None = None, checks: set[str] | None = None
) -> list[Finding]:
    """The findings in one cell of Python (IPython magics and shell lines are findings too).

    >>> [f.reason for f in scan_source("import numpy as np\\nnp.allclose = lambda *a: True")]
    ['binds an attribute of the imported np']
    >>> scan_source("def step(w, x, y, lr):\\n    w.grad = None")
    []
    """
    imported = set() if imported is None else imported
    checks = set() if checks is None else checks
    text, magics = _split_magics(source)
    lines = source.split("\n")
    found = [Finding(cell, line, code[:120], "runs a shell command or an IPython magic") for line, code in magics]
    try:
        tree = ast.parse(text)
    except SyntaxError as err:
        found.append(Finding(cell, err.lineno or 1, (err.text or "").strip()[:120], "is not valid Python"))
        return found
    visitor = _Visitor(cell, lines, imported, checks)
    visitor.visit(tree)
    return found + visitor.found


_NBGRADER_KEYS = ("grade", "solution", "locked", "task", "points", "grade_id", "checksum")


def scan_notebook(submitted: Any, released: Any | None = None) -> list[Finding]:
    """Every finding of a submitted notebook (an ``nbformat`` notebook), cell by cell; with the
    released student version, also every graded or locked cell that was edited, added or removed.

    Code in locked cells of the release (the tests, the imports) is the course's own and is not
    scanned for imports and calls; an edit of it is a finding.
    """
    found: list[Finding] = []
    imported: set[str] = set()
    checks: set[str] = set()
    released_cells = {}
    if released is not None:
        for cell in released.cells:
            meta = cell.get("metadata", {}).get("nbgrader")
            if meta and meta.get("grade_id"):
                released_cells[meta["grade_id"]] = cell
    seen = set()
    for i, cell in enumerate(submitted.cells):
        meta = cell.get("metadata", {}).get("nbgrader") or {}
        grade_id = meta.get("grade_id")
        ours = released_cells.get(grade_id) if grade_id else None
        if released is not None and meta and ours is None:
            found.append(Finding(i, 1, f"grade_id={grade_id!r}", "has nbgrader metadata the release does not have"))
        if ours is not None:
            seen.add(grade_id)
            theirs_meta = {k: meta.get(k) for k in _NBGRADER_KEYS if k != "checksum"}
            ours_meta = {k: ours["metadata"]["nbgrader"].get(k) for k in _NBGRADER_KEYS if k != "checksum"}
            if theirs_meta != ours_meta or cell.cell_type != ours.cell_type:
                found.append(Finding(i, 1, f"grade_id={grade_id!r}", "edits nbgrader's cell metadata"))
            theirs_meta_released = ours["metadata"]["nbgrader"]
            is_test = theirs_meta_released.get("grade") and not theirs_meta_released.get("solution")
            if (theirs_meta_released.get("locked") or is_test) and cell.source != ours.source:
                found.append(Finding(i, 1, f"grade_id={grade_id!r}", "edits a locked or test cell"))
        if cell.cell_type != "code":
            continue
        course_code = (
            ours is not None and cell.source == ours.source and not ours["metadata"]["nbgrader"].get("solution")
        )
        cell_found = scan_source(cell.source, i, imported, checks)
        if ours is not None and not course_code:
            # starter code the release put in an answer cell is the course's too (08: Value.__mul__ = mul)
            given = {line.strip() for line in ours.source.split("\n")}
            lines = cell.source.split("\n")
            cell_found = [
                f for f in cell_found if not (0 < f.line <= len(lines) and lines[f.line - 1].strip() in given)
            ]
        if not course_code:
            found.extend(cell_found)
    for grade_id in sorted(set(released_cells) - seen):
        found.append(Finding(-1, 0, f"grade_id={grade_id!r}", "removes a graded cell of the release"))
    return found
