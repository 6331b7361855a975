"""nbgrader's execution step, with the judging done outside the student's process.

``gradbook-grade autograde`` puts ``JudgeOutside`` in the place of nbgrader's ``Execute``. A test
cell of the course reads::

    check_grad_after_three_calls(three_calls)      # visible: the student's own self-check
    ### BEGIN HIDDEN TESTS
    probe = {"three_calls": three_calls}           # the probe: runs in the student's kernel
    ### JUDGE
    assert abs(float(probe["three_calls"]) - 12.0) < 1e-6   # the judge: runs here, in the grader
    ### END HIDDEN TESTS

A judge has ``torch`` (gradbook), ``np``, ``math`` and ``probe`` (the decoded values); it compares
arrays with ``close(answer, expected)`` (imported from here): exact shape, then ``allclose``.

The student's kernel (sandboxed, ``sandbox.py``) runs their cells in order, each test cell's
visible part where it stands, and then, after the last cell, every probe. A probe hands out plain
data only (``probe.encode``: numbers, tensors, arrays, strings, lists, through JSON with size
caps). The judge parts, the expected values in them and the comparisons never enter the kernel:
they run in this process, which never imports or calls student code, on the decoded values. Each
test cell's outputs are then written here: the visible part's output as text (it cannot decide a
score; other cells keep text and pictures, never markup: ``feedback.safe_outputs``) and the judge's
verdict, an ``error`` output when it failed, which is what nbgrader's
``SaveAutoGrades`` reads. So code in the student's kernel can change only its own answers'
values, which is answering the question, or not.

A cell that runs past the timeout loses that cell's points, not the notebook's: the kernel is
interrupted (over the control channel) and, when it does not answer, restarted, and the cells that
had finished are run again before grading goes on. The whole notebook has a time limit too, and
each cell's output a size limit.
"""

from __future__ import annotations

import builtins
import copy
import json
import math
import shutil
import tempfile
import time
from typing import Any

import numpy as np
from nbformat import NotebookNode
from nbformat.v4 import new_code_cell, new_output
from nbgrader.preprocessors import ClearHiddenTests, ClearMarkScheme, Execute, OverwriteCells
from nbgrader.utils import compute_checksum
from traitlets import Integer

from .feedback import safe_markdown, safe_outputs
from .probe import MARK, MAX_BYTES, MAX_DEPTH, MAX_ITEMS, MAX_TEXT, ProbeError

JUDGE = "### JUDGE"
BEGIN, END = "BEGIN HIDDEN TESTS", "END HIDDEN TESTS"  # as nbgrader matches them: anywhere in a line
DTYPES = {"float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "bool"}
TIMEOUT = "CellTimeoutError"


def split(source: str) -> tuple[str, str | None, str | None]:
    """A test cell's ``(visible, probe, judge)`` sources; ``None`` for a part it does not have.

    >>> split("check(a)\\n### BEGIN HIDDEN TESTS\\nprobe = {'a': a}\\n### JUDGE\\nassert probe['a'] == 1\\n"
    ...       "### END HIDDEN TESTS")
    ('check(a)', "probe = {'a': a}", "assert probe['a'] == 1")
    """
    visible, probe, judge, part = [], [], [], "visible"
    for line in source.split("\n"):
        if BEGIN in line:
            part = "probe"
        elif END in line:
            part = "visible"
        elif part == "probe" and line.strip() == JUDGE:
            part = "judge"
        else:
            {"visible": visible, "probe": probe, "judge": judge}[part].append(line)
    hidden = any(BEGIN in line for line in source.split("\n"))
    return (
        "\n".join(visible).strip("\n"),
        "\n".join(probe).strip("\n") if hidden else None,
        "\n".join(judge).strip("\n") if judge else None,
    )


def decode(data: Any) -> Any:
    """What a probe reported, as Python values (tensors as gradbook tensors); ``ProbeError`` for
    anything that is not the plain data ``probe.encode`` writes, or is over its limits."""
    import gradbook

    budget = [MAX_ITEMS]

    def take(n: int) -> None:
        budget[0] -= n
        if budget[0] < 0:
            raise ProbeError(f"more than {MAX_ITEMS} values")

    def walk(value: Any, depth: int) -> Any:
        if depth > MAX_DEPTH + 2:
            raise ProbeError("nested too deeply")
        if value is None or isinstance(value, bool):
            return value
        if isinstance(value, int):
            take(1)
            return value if abs(value) < 2**63 else float(value)
        if isinstance(value, float):
            take(1)
            return value
        if isinstance(value, str):
            take(1)
            return value[:MAX_TEXT]
        if isinstance(value, list):
            return [walk(v, depth + 1) for v in value]
        if not isinstance(value, dict) or len(value) == 0:
            raise ProbeError(f"unexpected {type(value).__name__}")
        if set(value) == {"float"} and value["float"] in ("nan", "inf", "-inf"):
            take(1)
            return float(value["float"])
        if set(value) == {"dict"} and isinstance(value["dict"], dict):
            return {str(k)[:MAX_TEXT]: walk(v, depth + 1) for k, v in value["dict"].items()}
        if set(value) == {"set"} and isinstance(value["set"], list):
            items = [walk(v, depth + 1) for v in value["set"]]
            if not all(isinstance(v, (str, int, float, bool)) or v is None for v in items):
                raise ProbeError("a set of something other than numbers and strings")
            return set(items)
        kind = "tensor" if "tensor" in value else "array"
        if set(value) - {kind, "shape", "dtype", "requires_grad"} or not {kind, "shape", "dtype"} <= set(value):
            raise ProbeError("unexpected keys " + ", ".join(sorted(map(str, value)))[:200])
        shape, dtype, flat = value["shape"], value["dtype"], value[kind]
        if dtype not in DTYPES or not isinstance(shape, list) or not all(isinstance(n, int) and n >= 0 for n in shape):
            raise ProbeError("an array with an unexpected shape or dtype")
        if not isinstance(flat, list) or len(flat) != math.prod(shape) or len(shape) > 16:
            raise ProbeError("an array whose numbers do not fit its shape")
        take(len(flat))
        numbers = [walk(v, depth + 1) for v in flat]
        if not all(isinstance(v, (int, float)) for v in numbers):
            raise ProbeError("an array of something other than numbers")
        array = np.array(numbers, dtype=np.float64 if dtype != "bool" else bool).reshape(shape).astype(dtype)
        if kind == "array":
            return array
        return gradbook.tensor(array, requires_grad=bool(value.get("requires_grad")) and array.dtype.kind == "f")

    return walk(data, 0)


def read_probe(outputs: list) -> dict:
    """The last result line a probe printed (``{"ok": ..., ...}``), or why there is none."""
    found = None
    for out in outputs:
        if out.get("output_type") == "stream" and out.get("name") == "stdout":
            for line in out.get("text", "").split("\n"):
                if line.startswith(MARK):
                    found = line[len(MARK) :]
    if found is None:
        return {"ok": False, "error": "the hidden test printed no result"}
    try:
        result = json.loads(found) if len(found) <= MAX_BYTES else None
    except ValueError:
        result = None
    if not isinstance(result, dict) or not isinstance(result.get("ok"), bool):
        return {"ok": False, "error": "the hidden test's result could not be read"}
    return result


def judge(source: str | None, result: dict | None) -> tuple[str, str] | None:
    """Run one judge here on a probe's ``result``: ``None`` when it passed, else ``(ename,
    message)`` for the student (the judge's own assert message, never its source or values)."""
    if source is None:
        return "UngradedTestError", "this test cell has no judge part (### JUDGE): grade it by hand"
    if result is None:
        return TIMEOUT, "the hidden test did not run: the notebook ran out of time"
    if not result["ok"]:
        return "HiddenTestError", f"your answer raised {_plain(str(result.get('error')))}"
    try:
        values = decode(result.get("values"))
    except (ProbeError, ValueError, TypeError, OverflowError) as err:
        return "HiddenTestError", f"your answer's values could not be read: {err}"
    if not isinstance(values, dict):
        return "HiddenTestError", "your answer's values could not be read"
    import gradbook

    namespace = {"__builtins__": builtins, "torch": gradbook, "np": np, "math": math, "probe": values}
    try:
        exec(compile(source, "<judge>", "exec"), namespace)
    except AssertionError as err:
        return "AssertionError", str(err) or "a hidden test failed"
    except Exception as err:  # the answer's values do not fit what the test expects
        return "AssertionError", f"a hidden test could not use your answer ({type(err).__name__})"
    return None


def close(answer: Any, expected: Any, rtol: float = 1e-5, atol: float = 1e-8) -> bool:
    """The judges' comparison: ``answer`` has exactly ``expected``'s shape and its numbers are close
    to it (``np.allclose``'s tolerances). Not ``allclose`` alone, which broadcasts, so an empty
    ``(0, 3)`` answer would equal anything; a wrong shape fails with a message naming both shapes.

    >>> close(np.array([0.5, 0.0]), [0.5, 0.0]), close([[1.0, 2.0]], [[1.0, 2.0 + 1e-9]])
    (True, True)
    >>> close(np.zeros((0, 2)), [0.5, 0.0])
    Traceback (most recent call last):
    AssertionError: your answer has shape (0, 2); the question asks for shape (2,)
    """

    def numbers(value: Any) -> Any:
        if isinstance(value, (list, tuple)):
            return [numbers(v) for v in value]
        return value.detach().numpy() if hasattr(value, "detach") else value

    got, want = np.asarray(numbers(answer), dtype=float), np.asarray(numbers(expected), dtype=float)
    if got.shape != want.shape:
        raise AssertionError(f"your answer has shape {got.shape}; the question asks for shape {want.shape}")
    return bool(np.allclose(got, want, rtol=rtol, atol=atol))


def _plain(text: str) -> str:
    """``text`` with control characters escaped (for feedback and terminals)."""
    return "".join(c if c.isprintable() or c in "\n\t" else repr(c)[1:-1] for c in text)[:MAX_TEXT]


def _text(outputs: list) -> str:
    """What a visible part printed and raised, as one text: it is shown, and decides nothing."""
    parts = []
    for out in outputs:
        kind = out.get("output_type")
        if kind == "stream":
            parts.append(out.get("text", ""))
        elif kind == "error":
            parts.append(f"{out.get('ename', 'Error')}: {out.get('evalue', '')}\n")
        elif kind in ("execute_result", "display_data"):
            parts.append(str(out.get("data", {}).get("text/plain", "")) + "\n")
    return _plain("".join(parts))


def is_test(cell: NotebookNode) -> bool:
    meta = cell.get("metadata", {}).get("nbgrader", {})
    return cell.cell_type == "code" and bool(meta.get("grade")) and not meta.get("solution")


class JudgeOutside(Execute):
    """nbgrader's ``Execute``, with the test cells judged in this process (see the module)."""

    total_timeout = Integer(600, help="seconds for the whole notebook; cells left after it score 0").tag(config=True)
    max_cell_output = Integer(200_000, help="bytes of output kept per cell").tag(config=True)

    def preprocess(self, nb: NotebookNode, resources: Any = None, km: Any = None) -> tuple[NotebookNode, Any]:
        from nbclient import NotebookClient

        NotebookClient.__init__(self, nb, km)
        self.reset_execution_trackers()
        self._check_assign_resources(resources)
        scratch = tempfile.mkdtemp(prefix="gradbook-kernel-")  # the kernel's folder: empty, never read back
        self.resources.setdefault("metadata", {})["path"] = scratch
        self._cell_timeout, self._deadline = self.timeout, time.monotonic() + self.total_timeout
        self._bytes: dict[int, int] = {}
        self._finished: list[str] = []
        tests: dict[int, tuple[str | None, str | None]] = {}
        results: dict[int, dict | None] = {}
        try:
            with self.setup_kernel():
                self.wait_for_reply(self.kc.kernel_info())
                for index, cell in enumerate(self.nb.cells):
                    if cell.cell_type != "code":
                        cell.source = safe_markdown(cell.source)  # (feedback.py: no student markup shown)
                        continue
                    if is_test(cell):
                        visible, probe, judge_source = split(cell.source)
                        tests[index] = (probe, judge_source)
                        outputs = self._run(visible, index) if visible.strip() else []
                        shown = _text(outputs or [])
                        cell.outputs = [new_output("stream", name="stdout", text=shown)] if shown else []
                    else:
                        cell.outputs = safe_outputs(self._run(cell.source, index, keep=True) or [])
                for index, (probe, _) in tests.items():
                    if probe is None:
                        results[index] = {"ok": True, "values": {"dict": {}}}
                        continue
                    code = f"__import__('gradbook.grading.probe', fromlist=['run']).run({probe!r}, globals())"
                    outputs = self._run(code, index, history=False)
                    results[index] = None if outputs is None else read_probe(outputs)
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
        for index, (_, judge_source) in tests.items():
            verdict = judge(judge_source, results.get(index))
            if verdict is not None:
                ename, message = verdict
                self.nb.cells[index].outputs.append(
                    new_output("error", ename=ename, evalue=message, traceback=[f"{ename}: {message}"])
                )
        return self.nb, self.resources

    def _run(self, source: str, index: int, keep: bool = False, history: bool = True) -> list | None:
        """Run ``source`` in the kernel: its outputs, or ``None`` when it ran out of time (the cell's
        or the notebook's). A kernel that no longer answers is restarted and the finished cells
        are run again."""
        left = self._deadline - time.monotonic()
        if left <= 1:
            return None
        cell = new_code_cell(source)
        self.timeout = int(min(self._cell_timeout, left)) or 1
        self._bytes[index] = 0
        original = self.nb.cells[index]
        try:
            self.execute_cell(cell, index, store_history=history)  # (nbclient puts `cell` at `index`)
            timed_out = any(o.get("ename") == TIMEOUT for o in cell.outputs if o.get("output_type") == "error")
        except Exception:  # a dead or unresponsive kernel, an iopub timeout
            timed_out = True
        finally:
            self.nb.cells[index] = original
        if timed_out:
            self._recover()
            return None
        if self._bytes.get(index, 0) > self.max_cell_output:
            cell.outputs.append(
                new_output("stream", name="stdout", text=f"\n[output cut at {self.max_cell_output} bytes]\n")
            )
        if keep:
            self._finished.append(source)
        return cell.outputs

    def _recover(self) -> None:
        """After a timeout: keep the kernel if it answers, else restart it and run again the cells
        that had finished (their outputs are already kept)."""
        self.timeout = 5
        try:  # (nbclient answers None, not an exception, when the reply does not come in time)
            if self.wait_for_reply(self.kc.kernel_info()) is not None:
                return
        except Exception:
            pass
        from nbclient.util import run_sync

        run_sync(self.km.restart_kernel)(now=True)
        run_sync(self.kc.wait_for_ready)(timeout=60)
        for source in list(self._finished):
            left = self._deadline - time.monotonic()
            if left <= 1:
                return
            self.timeout = int(min(self._cell_timeout, left)) or 1
            original = self.nb.cells[0]
            try:
                self.execute_cell(new_code_cell(source), 0, store_history=False)
            except Exception:
                return
            finally:
                self.nb.cells[0] = original

    def output(self, outs: list, msg: dict, display_id: str | None, cell_index: int) -> Any:
        """nbclient's output handler, keeping at most ``max_cell_output`` bytes of each cell."""
        size = len(json.dumps(msg.get("content", {}), default=str))
        self._bytes[cell_index] = self._bytes.get(cell_index, 0) + size
        if self._bytes[cell_index] > self.max_cell_output:
            return None
        return super().output(outs, msg, display_id, cell_index)


class OverwriteReleasedCells(OverwriteCells):
    """nbgrader's ``OverwriteCells`` (the sanitizing step, which puts each locked cell back as the
    gradebook has it, hidden tests included), quiet about a locked cell that is as released.

    nbgrader stores a test cell's checksum before ``generate_assignment`` takes the hidden tests out
    of the student version, so every untouched test cell with hidden tests "has changed"
    (jupyter/nbgrader#1961): three warnings per honest notebook of this course. Here the checksum is
    compared with the released form's too, the gradebook's source with its hidden tests and mark
    scheme taken out as ``generate_assignment`` takes them out: a cell that is exactly that gets
    its source back without a warning; any other change is reported, and overwritten, as nbgrader
    does. (Scoring does not depend on it: the cell is overwritten either way.)"""

    _cell: NotebookNode | None = None

    def preprocess_cell(self, cell: NotebookNode, resources: Any, cell_index: int) -> tuple[NotebookNode, Any]:
        self._cell = cell
        try:
            return super().preprocess_cell(cell, resources, cell_index)
        finally:
            self._cell = None

    def report_change(self, name: str, attr: str, old: Any, new: Any) -> None:
        if attr == "checksum" and self._cell is not None and new == self._released_checksum(name):
            return
        super().report_change(name, attr, old, new)

    def _released_checksum(self, grade_id: str) -> str | None:
        """The checksum of the cell as ``generate_assignment`` released it (its metadata as it is now,
        after nbgrader's own repairs), or ``None`` when the stored source cannot be cleared."""
        released = copy.deepcopy(self._cell)
        released.source = self.gradebook.find_source_cell(grade_id, self.notebook_id, self.assignment_id).source
        try:
            ClearHiddenTests(parent=self)._remove_hidden_test_region(released)
            ClearMarkScheme(parent=self)._remove_mark_scheme_region(released)
        except RuntimeError:
            return None
        return compute_checksum(released)
