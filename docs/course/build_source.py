"""Write the instructor notebooks of the course into ``source/<assignment>/``.

The notebooks are built here, cell by cell, with nbgrader's cell metadata, so that their
solution regions, points and hidden tests can be reviewed as code. Rerun after an edit::

    python3 build_source.py && nbgrader validate source/*/*.ipynb

Student versions are never written by hand: ``nbgrader generate_assignment`` makes them.
"""

from __future__ import annotations

from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from gradbook.exercises.lesson01 import ZEROING_PROGRAM  # the same texts the checks run
from gradbook.exercises.lesson04 import LEAVES_PROGRAM

HERE = Path(__file__).resolve().parent


def text(source: str) -> nbformat.NotebookNode:
    return new_markdown_cell(source.strip())


def example(source: str) -> nbformat.NotebookNode:
    return new_code_cell(source.strip())


def solution(grade_id: str, source: str) -> nbformat.NotebookNode:
    cell = new_code_cell(source.strip())
    cell.metadata["nbgrader"] = {
        "grade": False,
        "grade_id": grade_id,
        "locked": False,
        "schema_version": 3,
        "solution": True,
        "task": False,
    }
    return cell


def tests(grade_id: str, points: int, source: str) -> nbformat.NotebookNode:
    cell = new_code_cell(source.strip())
    cell.metadata["nbgrader"] = {
        "grade": True,
        "grade_id": grade_id,
        "locked": True,
        "points": points,
        "schema_version": 3,
        "solution": False,
        "task": False,
    }
    return cell


ACCUMULATION = [
    text("""
# Gradients accumulate

`backward()` **adds** the gradient into `.grad`; it never overwrites it. A worked example first:
"""),
    example("""
import gradbook as torch

x = torch.tensor(3.0, requires_grad=True)
(x * x).backward()  # adds d(x²)/dx = 2x = 6
(x * x).backward()  # adds 6 again
x.grad
"""),
    text("""
## Question 1 (1 point)

Without running it, predict `x.grad` after this program, and store it in `three_calls`:

```python
x = torch.tensor(2.0, requires_grad=True)
for _ in range(3):
    y = x * x
    y.backward()
```
"""),
    solution(
        "three_calls_answer",
        """
### BEGIN SOLUTION
three_calls = 12.0
### END SOLUTION
""",
    ),
    tests(
        "three_calls_tests",
        1,
        """
from gradbook.exercises import check_grad_after_three_calls

check_grad_after_three_calls(three_calls)
### BEGIN HIDDEN TESTS
assert abs(float(three_calls) - 12.0) < 1e-6
### END HIDDEN TESTS
""",
    ),
    text(
        """
## Question 2 (1 point)

`x.grad.zero_()` empties the sum so far. Predict `x.grad` at the end, and store it in `after_zeroing`:

```python
"""
        + ZEROING_PROGRAM
        + """```
"""
    ),
    solution(
        "after_zeroing_answer",
        """
### BEGIN SOLUTION
after_zeroing = 3 * 3.0**2 + 5
### END SOLUTION
""",
    ),
    tests(
        "after_zeroing_tests",
        1,
        """
from gradbook.exercises import check_grad_after_zeroing

check_grad_after_zeroing(after_zeroing)
### BEGIN HIDDEN TESTS
assert abs(float(after_zeroing) - 32.0) < 1e-6
### END HIDDEN TESTS
""",
    ),
    text("""
## Question 3 (2 points)

Write `step(w, x, y, lr)`: one step of gradient descent on the mean squared error
`((x @ w - y) ** 2).mean()`. Update `w` in place under `torch.no_grad()`, and leave `w.grad`
empty for the next step.
"""),
    solution(
        "training_step_answer",
        """
def step(w, x, y, lr):
    ### BEGIN SOLUTION
    loss = ((x @ w - y) ** 2).mean()
    loss.backward()
    with torch.no_grad():
        w -= lr * w.grad
    w.grad = None
    ### END SOLUTION
""",
    ),
    tests(
        "training_step_tests",
        2,
        """
from gradbook.exercises import check_training_step

check_training_step(step)
### BEGIN HIDDEN TESTS
_w = torch.tensor([1.0, -1.0], requires_grad=True)
_x = torch.tensor([[1.0, 0.0], [0.0, 2.0]])
_y = torch.tensor([0.0, 0.0])
for _ in range(2):
    step(_w, _x, _y, 0.25)
assert torch.allclose(_w.detach(), torch.tensor([0.5625, 0.0]))
assert _w.grad is None or float(_w.grad.abs().sum()) == 0.0
### END HIDDEN TESTS
""",
    ),
]

VJP = [
    text("""
# Non-scalar outputs and vector-Jacobian products

For a vector y = f(x), `y.backward(v)` puts vᵀJ into `x.grad`, where J[i, j] = ∂yᵢ/∂xⱼ.
A worked example first:
"""),
    example("""
import gradbook as torch

x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * x  # J = diag(2x)
y.backward(torch.tensor([1.0, 10.0]))
x.grad  # vᵀJ = (1·2, 10·4)
"""),
    text("""
## Question 1 (1 point)

Predict `x.grad` (three numbers) and store it in `vjp`:

```python
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x ** 2 + 3 * x
y.backward(torch.tensor([1.0, 0.5, -2.0]))
```
"""),
    solution(
        "vjp_answer",
        """
### BEGIN SOLUTION
vjp = [5.0, 3.5, -18.0]
### END SOLUTION
""",
    ),
    tests(
        "vjp_tests",
        1,
        """
import numpy as np

from gradbook.exercises import check_vjp

check_vjp(vjp)
### BEGIN HIDDEN TESTS
assert np.allclose(np.asarray(vjp, dtype=float), [5.0, 3.5, -18.0])
### END HIDDEN TESTS
""",
    ),
    text("""
## Question 2 (1 point)

Give the 3 × 2 Jacobian of y = (x₀·x₁, x₀ + x₁, x₁²) at x = (2, 3), row i being the gradient of yᵢ,
and store it in `jacobian`.
"""),
    solution(
        "jacobian_answer",
        """
### BEGIN SOLUTION
jacobian = [[3.0, 2.0], [1.0, 1.0], [0.0, 6.0]]
### END SOLUTION
""",
    ),
    tests(
        "jacobian_tests",
        1,
        """
import numpy as np

from gradbook.exercises import check_jacobian

check_jacobian(jacobian)
### BEGIN HIDDEN TESTS
assert np.allclose(np.asarray(jacobian, dtype=float), [[3.0, 2.0], [1.0, 1.0], [0.0, 6.0]])
### END HIDDEN TESTS
""",
    ),
    text("""
## Question 3 (2 points)

Write `XSinX`, an `torch.autograd.Function` for f(x) = x · sin(x), elementwise, with its own
backward rule: save x with `ctx.save_for_backward(x)` in `forward`, and return
`grad_output` times f'(x) from `backward`.
"""),
    solution(
        "backward_rule_answer",
        """
class XSinX(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ### BEGIN SOLUTION
        ctx.save_for_backward(x)
        return x * x.sin()
        ### END SOLUTION

    @staticmethod
    def backward(ctx, grad_output):
        ### BEGIN SOLUTION
        (x,) = ctx.saved_tensors
        return grad_output * (x.sin() + x * x.cos())
        ### END SOLUTION
""",
    ),
    tests(
        "backward_rule_tests",
        2,
        """
from gradbook.exercises import check_backward_rule

check_backward_rule(XSinX)
### BEGIN HIDDEN TESTS
_x = torch.tensor([[0.3, -1.2], [2.0, 0.7]], dtype=torch.float64, requires_grad=True)
assert torch.autograd.gradcheck(XSinX.apply, (_x,))
### END HIDDEN TESTS
""",
    ),
]

GRAPH = [
    text("""
# retain_graph, and reading the graph

`backward()` frees what the graph saved for its derivative rules, so a second `backward()`
through the same graph fails unless the first one passed `retain_graph=True`. A worked example:
"""),
    example("""
import gradbook as torch

x = torch.tensor(3.0, requires_grad=True)
y = x * x
y.backward(retain_graph=True)  # keeps the saved x
y.backward()  # works, and adds again
x.grad, y.grad_fn, y.grad_fn.next_functions
"""),
    text("""
## Question 1 (1 point)

Write `backward_twice(y)` so that it calls `y.backward()` twice on the same graph, and both succeed.
"""),
    solution(
        "backward_twice_answer",
        """
def backward_twice(y):
    ### BEGIN SOLUTION
    y.backward(retain_graph=True)
    y.backward()
    ### END SOLUTION
""",
    ),
    tests(
        "backward_twice_tests",
        1,
        """
from gradbook.exercises import check_backward_twice

check_backward_twice(backward_twice)
### BEGIN HIDDEN TESTS
_x = torch.tensor([1.0, 2.0], requires_grad=True)
backward_twice((_x * _x).sum())
assert torch.allclose(_x.grad, torch.tensor([4.0, 8.0]))
### END HIDDEN TESTS
""",
    ),
    text("""
## Question 2 (1 point)

Predict `x.grad` at the end, and store it in `after_retain`:

```python
x = torch.tensor(2.0, requires_grad=True)
y = x ** 3
y.backward(retain_graph=True)
y.backward(retain_graph=True)
z = y * x
z.backward()
```
"""),
    solution(
        "after_retain_answer",
        """
### BEGIN SOLUTION
after_retain = 2 * 3 * 2.0**2 + 4 * 2.0**3
### END SOLUTION
""",
    ),
    tests(
        "after_retain_tests",
        1,
        """
from gradbook.exercises import check_grad_after_retain

check_grad_after_retain(after_retain)
### BEGIN HIDDEN TESTS
assert abs(float(after_retain) - 56.0) < 1e-6
### END HIDDEN TESTS
""",
    ),
    text("""
## Question 3 (1 point)

Write `build(x)` returning a tensor whose graph is exactly the chain
`AccumulateGrad → ExpBackward0 → MulBackward0 → SumBackward0` (follow `grad_fn.next_functions`
to see the graph you built).
"""),
    solution(
        "graph_chain_answer",
        """
def build(x):
    ### BEGIN SOLUTION
    return (x.exp() * 2).sum()
    ### END SOLUTION
""",
    ),
    tests(
        "graph_chain_tests",
        1,
        """
from gradbook.exercises import check_graph_chain
from gradbook.exercises.lesson04 import graph_chain

check_graph_chain(build)
### BEGIN HIDDEN TESTS
_x = torch.tensor([0.5, 1.5], requires_grad=True)
assert graph_chain(build(_x)) == ["AccumulateGrad", "ExpBackward0", "MulBackward0", "SumBackward0"]
### END HIDDEN TESTS
""",
    ),
    text(
        """
## Question 4 (1 point)

Which of `a, b, c, d, f` have a `.grad` after this program? Store their names in the set `leaves`.

```python
"""
        + LEAVES_PROGRAM
        + """```
"""
    ),
    solution(
        "leaves_answer",
        """
### BEGIN SOLUTION
leaves = {"a", "d"}
### END SOLUTION
""",
    ),
    tests(
        "leaves_tests",
        1,
        """
from gradbook.exercises import check_leaves_with_grad

check_leaves_with_grad(leaves)
### BEGIN HIDDEN TESTS
assert set(leaves) == {"a", "d"}
### END HIDDEN TESTS
""",
    ),
]

ASSIGNMENTS = {
    "01_accumulation": ("accumulation", ACCUMULATION),
    "02_vjp": ("vjp", VJP),
    "03_retain_graph": ("retain_graph", GRAPH),
}


def build(root: Path = HERE) -> list[Path]:
    """Write every source notebook under ``root/source``; return their paths."""
    written = []
    for assignment, (name, cells) in ASSIGNMENTS.items():
        nb = new_notebook(
            cells=cells,
            metadata={
                "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
                "language_info": {"name": "python"},
            },
        )
        for i, cell in enumerate(nb.cells):
            cell["id"] = f"{name}-{i}"  # stable ids: rebuilding gives the same files
        path = root / "source" / assignment / f"{name}.ipynb"
        path.parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(nb, path)
        written.append(path)
    return written


if __name__ == "__main__":
    for path in build():
        print(path.relative_to(HERE))
