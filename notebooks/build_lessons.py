"""Write the lesson notebooks 01-07 from the cells below, then execute and save them with outputs.

Run from anywhere: ``python3 notebooks/build_lessons.py`` (all lessons) or ``... 01 03`` (some).
The notebooks are saved executed, each widget as its self-contained view and no widget state:
a picture where a notebook is not trusted (a fresh clone, GitHub, nbviewer), and the working
player where scripts run (a trusted notebook, ``nbconvert --to html``), offline; running the
cell gives the live widget. The cells marked ``# NBVAL_CHECK_OUTPUT`` are compared by
``pytest --nbval-lax`` on every test run.
Edit the lessons here, never the .ipynb files, and rebuild.
"""

from __future__ import annotations

import sys
from pathlib import Path

import nbformat
from nbclient import NotebookClient

from gradbook.exercises.lesson01 import ZEROING_PROGRAM  # the same texts the checks run
from gradbook.exercises.lesson04 import LEAVES_PROGRAM

HERE = Path(__file__).resolve().parent
CHECK = "# NBVAL_CHECK_OUTPUT\n"
# the seed lesson's first script (kept byte for byte in tests/seed/), after its coding line and import
SEED_EX1 = "\n".join((HERE.parent / "tests" / "seed" / "ex1.py").read_text().splitlines()[2:])


def md(text: str) -> nbformat.NotebookNode:
    return nbformat.v4.new_markdown_cell(text.strip())


def code(source: str, check: bool = False, tags: tuple[str, ...] = ()) -> nbformat.NotebookNode:
    """A code cell; ``check=True`` makes nbval compare its printed output with the saved one."""
    cell = nbformat.v4.new_code_cell((CHECK if check else "") + source.strip())
    if tags:
        cell.metadata["tags"] = list(tags)
    return cell


def error(source: str) -> nbformat.NotebookNode:
    """A cell that shows an error: nbval expects the exception, and the saved output shows its text."""
    return code(source, tags=("raises-exception",))


SETUP = code("import gradbook as torch")


# ---------------------------------------------------------------- 01
LESSON_01 = [
    md("""
# 01 · `backward()` and accumulation

`y.backward()` computes dy/dx for every leaf `x` that `requires_grad`, and **adds** it into
`x.grad`. It never overwrites. This lesson runs the example of the blog post gradbook grew from,
line for line, and shows why the sum keeps growing.

gradbook is PyTorch's autograd written in NumPy: with `import gradbook as torch`, the code below is
PyTorch code, and it prints exactly what PyTorch prints.
"""),
    SETUP,
    md("""
## The seed example

`x = 2` and `y = x * x`, so dy/dx = 2x = 4. The program builds `y` three times and calls
`y.backward()` each time, then does the same once with `z = 2 * x` (dz/dx = 2). Before you run it,
predict each `print(x.grad)`.
"""),
    code(SEED_EX1, check=True),  # the seed's ex1.py without its two header lines, word for word
    md("""
What happened:

1. Every `backward()` through an operation on `x` **added** that operation's gradient into `x.grad`:
   4, then 4 + 4 = 8, then 12, then 12 + 2 = 14.
2. Only a tensor whose `backward()` is called contributes. The last `z = 2*x` builds a graph but
   never runs it backward, so `x.grad` stays 14.

`grad_fn=<MulBackward0>` in `print(y)` is the node that knows how to send a gradient back
through `*`. `x.grad` has no `grad_fn`: it is a plain result.

Check the first conclusion with a learner check: it prints one line when the answer is right and
raises an `AssertionError` with a hint otherwise. Here is the value the program printed after the
third call; change it to `4.0` to see the feedback for a common mistake.
"""),
    code("""
from gradbook.exercises import check_grad_after_three_calls, check_grad_after_zeroing, check_training_step

check_grad_after_three_calls(12.0)
"""),
    md("""
## Why the graph is rebuilt each time

The program writes `y = x * x` before every `backward()`. That is not a style choice: `backward()`
frees what the graph saved for its derivative rules (here, `x` itself, for d(x·x)/dx = 2x), so the
graph of a `y` can be run backward only once. Each forward pass builds a **new** graph, and each
graph adds its gradient into the same `x.grad`. (Lesson 03 shows what happens when you try twice.)

Press the buttons: **new graph** runs `y = f(x)`, **backward()** runs `y.backward()` and animates the
pass, and the table and plot show what each call added. Try **backward()** twice without a new
graph, and try **x.grad = None** between calls.
"""),
    code("""
from gradbook.widgets import AccumulationLab

lab = AccumulationLab(lambda x: x * x, x=2.0)
lab.backward()
lab.new_graph()
lab.backward()
lab.new_graph()
lab.backward()
lab
"""),
    md("""
The buttons call methods, so the lab can also be driven from code. Its history is plain data:
"""),
    code("""
for row in lab.history:
    print(row["call"], row["graph"], row["contribution"], row["grad"])
"""),
    md("""
## Starting from zero: `grad = None` and `zero_()`

Accumulation is what you want when one loss is split into parts, and a bug when every step of a
training loop should see only its own gradient. Two ways to start again:

- `x.grad = None` drops the gradient; the next `backward()` creates a fresh one. This is what
  `optimizer.zero_grad()` does by default.
- `x.grad.zero_()` keeps the tensor and fills it with zeros.
"""),
    code(
        """
x = torch.tensor(2.0, requires_grad=True)
(x * x).backward()
(x * x).backward()
print(x.grad)
x.grad = None
print(x.grad)
(x * x).backward()
print(x.grad)
x.grad.zero_()
print(x.grad)
(x ** 3).backward()
print(x.grad)
""",
        check=True,
    ),
    md(
        """
Check your reading of `zero_()` on a program with three kinds of calls (x = 3):

```python
"""
        + ZEROING_PROGRAM
        + """```

The worked answer: `zero_()` wipes the three calls of 2x, then d(x³)/dx = 3x² and d(5x)/dx = 5 add up.
"""
    ),
    code("""
answer = 3 * 3**2 + 5
check_grad_after_zeroing(answer)
"""),
    md("""
## Accumulation in a training step

A step of gradient descent computes a loss, calls `backward()`, moves the weights against the
gradient under `torch.no_grad()` (the update itself must not be recorded), and empties `w.grad` so
the next step starts from zero. Lesson 07 trains a network this way; the check runs this step on
data you do not see.
"""),
    code("""
def step(w, x, y, lr):
    loss = ((x @ w - y) ** 2).mean()
    loss.backward()
    with torch.no_grad():
        w -= lr * w.grad
    w.grad = None  # delete this line and run the check again


check_training_step(step)
"""),
    md("""
## Try it

- In the lab, switch to another function, e.g. `AccumulationLab(lambda x: x ** 3, x=2.0)`: what does
  each call add now?
- Tick **retain_graph** and press **backward()** twice on the same graph.
- Remove `w.grad = None` from `step` above and run the check: read its hint.
"""),
    code("""
AccumulationLab(lambda x: x**3, x=2.0)
"""),
]


# ---------------------------------------------------------------- 02
LESSON_02 = [
    md("""
# 02 · Non-scalar outputs and vector–Jacobian products

`backward()` without arguments works when the output is a single number. For a vector output it
refuses. This lesson shows the error, explains it, and shows what to pass instead.
"""),
    SETUP,
    md("""
## The error

The second example of the seed post: `y = x * x` for a vector `x`.
"""),
    code(
        """
x = torch.tensor([2, 3, 4], dtype=torch.float, requires_grad=True)
y = x * x
print(y)
""",
        check=True,
    ),
    error("""
# y.backward(torch.ones_like(x))
y.backward()
print(x.grad)
"""),
    md("""
`RuntimeError: grad can be implicitly created only for scalar outputs`. Why?

`y` has three components, and each depends on `x`: the derivative of `y` with respect to `x` is a
3 × 3 **Jacobian** J, with J[i, j] = ∂yᵢ/∂xⱼ. Backward mode never builds J. It computes a
**vector–Jacobian product** vᵀJ for a vector v that you choose, the same shape as `y`: the gradient
of the scalar v·y. For a scalar output, v = 1 is the obvious choice, so `backward()` makes it up.
For a vector output there is no obvious v, so PyTorch asks you to pass it as `gradient=`.

The lab below shows the same refusal: its first `backward()` on the vector `y` is refused with
torch's message, and `x.grad` stays `None`. The lab then opens a **gradient=** box; the code fills it
with ones, and the second call goes through. Edit the numbers in the box and press **backward()**.
"""),
    code("""
from gradbook.widgets import AccumulationLab

lab = AccumulationLab(lambda x: x * x, x=[2.0, 3.0, 4.0])
lab.backward()  # refused, shown in the lab
lab.gradient = torch.ones_like(lab.y)
lab.backward()
lab
"""),
    code(
        """
for row in lab.history:
    print(row["call"], row["grad"], row["error"])
""",
        check=True,
    ),
    md("""
## `gradient=torch.ones_like(y)`

With v = (1, 1, 1), vᵀJ is the gradient of `y.sum()`. Here J = diag(2x), so `x.grad` is 2x.
"""),
    code(
        """
x = torch.tensor([2, 3, 4], dtype=torch.float, requires_grad=True)
y = x * x
print(y)
# y.backward(torch.ones_like(x))
y.backward(torch.ones_like(y))
print(x.grad)
""",
        check=True,
    ),
    md("""
## Other `v`

`v` weights the outputs. A one-hot `v = eᵢ` picks row i of J, the gradient of yᵢ alone; any other `v`
mixes the rows. `y.sum().backward()` is the same as `v = ones`.
"""),
    code(
        """
for v in ([1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [1.0, 10.0, 100.0]):
    x = torch.tensor([2.0, 3.0, 4.0], requires_grad=True)
    (x * x).backward(torch.tensor(v))
    print(v, "->", x.grad)

x = torch.tensor([2.0, 3.0, 4.0], requires_grad=True)
(x * x).sum().backward()
print("sum ->", x.grad)
""",
        check=True,
    ),
    md("""
## A Jacobian picture

Backward mode gives J one row per `backward(eᵢ)`. For an elementwise function J is diagonal; when
outputs mix inputs, J fills in. Here are both, built row by row with `autograd.grad` (which returns
the gradient instead of adding it into `.grad`; `retain_graph=True` keeps the graph for the next
row).
"""),
    code("""
import matplotlib.pyplot as plt
import numpy as np


def jacobian(f, x):
    x = x.detach().requires_grad_()
    y = f(x)
    rows = [torch.autograd.grad(y, x, torch.eye(len(y))[i], retain_graph=True)[0] for i in range(len(y))]
    return torch.stack(rows)


x0 = torch.tensor([2.0, 3.0, 4.0])
W = torch.tensor([[1.0, -1.0, 0.5], [0.0, 2.0, 1.0], [1.0, 0.0, -2.0]])
cases = {"y = x * x": lambda x: x * x, "y = W @ x.tanh() * x": lambda x: (W @ x.tanh()) * x}

fig, axes = plt.subplots(1, 2, figsize=(8, 3.4))
for ax, (title, f) in zip(axes, cases.items()):
    J = jacobian(f, x0).numpy()
    ax.imshow(J, cmap="RdBu", vmin=-abs(J).max(), vmax=abs(J).max())
    for (i, j), value in np.ndenumerate(J):
        ax.text(j, i, f"{value:.2f}", ha="center", va="center")
    ax.set_title(title)
    ax.set_xlabel("input j")
    ax.set_ylabel("output i")
    ax.set_xticks(range(3))
    ax.set_yticks(range(3))
fig.tight_layout()
"""),
    md("""
## Check yourself

Predict `x.grad` after

```python
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x ** 2 + 3 * x
y.backward(torch.tensor([1.0, 0.5, -2.0]))
```

J is diagonal with Jᵢᵢ = 2xᵢ + 3, so vᵀJ multiplies each entry by vᵢ. The worked answer:
"""),
    code("""
from gradbook.exercises import check_backward_rule, check_jacobian, check_vjp

x = torch.tensor([1.0, 2.0, 3.0])
v = torch.tensor([1.0, 0.5, -2.0])
check_vjp(v * (2 * x + 3))
"""),
    md("""
The Jacobian of y = (x₀·x₁, x₀ + x₁, x₁²) at x = (2, 3): row i is the gradient of yᵢ.
"""),
    code("""
check_jacobian(
    [
        [3.0, 2.0],  # ∂(x0·x1)/∂x0 = x1, ∂(x0·x1)/∂x1 = x0
        [1.0, 1.0],  # x0 + x1
        [0.0, 6.0],  # x1²: 2·x1
    ]
)
"""),
    md("""
Every op of the engine is a function with a forward and a backward rule, and the backward rule
receives v (`grad_output`) and returns vᵀJ. You can write one yourself:
"""),
    code("""
class XSinX(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x.sin()

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * (x.sin() + x * x.cos())  # vᵀJ, with J diagonal


check_backward_rule(XSinX)
"""),
    md("""
## Try it

Pass other `v` to `y.backward(...)` below, and predict `x.grad` first. What `v` gives the gradient
of `y[0] - y[2]`? And what happens with a `v` of the wrong shape?
"""),
    code("""
x = torch.tensor([2.0, 3.0, 4.0], requires_grad=True)
y = x * x
y.backward(torch.tensor([1.0, 0.0, -1.0]))
x.grad
"""),
]


# ---------------------------------------------------------------- 03
LESSON_03 = [
    md("""
# 03 · `retain_graph` and freed graphs

Lesson 01 rebuilt `y = x * x` before every `backward()`. Here is what happens when you do not, where
exactly it fails, and why `y = x + 3` does not fail.
"""),
    SETUP,
    md("""
## Backward twice through the same graph
"""),
    code(
        """
x = torch.tensor(2.0, requires_grad=True)
y = x * x
y.backward()
print(x.grad)
""",
        check=True,
    ),
    error("""
y.backward()
"""),
    md("""
To compute d(x·x)/dx = 2x on the way back, `MulBackward0` **saved** its inputs during the forward
pass. `backward()` frees saved tensors as soon as it has used them, to save memory, so the second
call finds nothing to multiply with. The drawing shows it: the saved tensors of `MulBackward0` are
marked **freed** (dashed).
"""),
    code("""
torch.draw(y)
"""),
    md("""
## `retain_graph=True`

If you need the same graph twice, ask the first call to keep it. Both calls then add their gradient,
as in lesson 01.
"""),
    code(
        """
x = torch.tensor(2.0, requires_grad=True)
y = x * x
y.backward(retain_graph=True)
y.backward()
print(x.grad)
""",
        check=True,
    ),
    md("""
## Why `x + 3` survives and `x * x` does not

Freeing is per node, and only nodes that **saved** something can lose it. The derivative of x + 3
is 1, whatever x is, so `AddBackward0` saves nothing and can run any number of times. The
derivative of x·x needs x, so `MulBackward0` saves it.
"""),
    code(
        """
x = torch.tensor(2.0, requires_grad=True)
y = x + 3
y.backward()
y.backward()
y.backward()
print(x.grad)
""",
        check=True,
    ),
    md("""
In one graph both kinds can meet: below, backward runs once; the drawing marks what was saved and
what was freed, node by node. `AddBackward0` has no saved row at all.
"""),
    code("""
x = torch.tensor(2.0, requires_grad=True)
a = x + 3
b = a * x
b.backward()
torch.draw(b)
"""),
    error("""
b.backward()  # fails at MulBackward0, which lost its saved a and x
"""),
    md("""
The `GraphView` widget redraws the same graph on demand, with toggles for what to show. Build a
graph, look at it, run backward, and press **refresh**.
"""),
    code("""
from gradbook.widgets import GraphView

x = torch.tensor(2.0, requires_grad=True)
y = (x * x).exp() + 3
view = GraphView(y)
y.backward()
view.refresh()
view
"""),
    md("""
## Check yourself

Predict `x.grad` (it runs without errors):

```python
x = torch.tensor(2.0, requires_grad=True)
y = x ** 3
y.backward(retain_graph=True)
y.backward(retain_graph=True)
z = y * x                      # z = x⁴
z.backward()
```

`retain_graph` changes what is freed, not how `.grad` accumulates: 3x² twice, then 4x³, at x = 2.
"""),
    code("""
from gradbook.exercises import check_backward_twice, check_grad_after_retain

check_grad_after_retain(3 * 2**2 + 3 * 2**2 + 4 * 2**3)
"""),
    md("""
Write `backward_twice(y)` so that two `backward()` calls on the same `y` both succeed:
"""),
    code("""
def backward_twice(y):
    y.backward(retain_graph=True)
    y.backward()


check_backward_twice(backward_twice)
"""),
    md("""
## Try it

Which of these survive a second `backward()`? Predict, then run: `x - 1`, `2 * x`, `x.exp()`,
`x.sin()`, `x / 2`. (Hint: does the derivative rule need a value from the forward pass? `2 * x`
saves the 2; `x.exp()` saves its result.)
"""),
    code("""
candidates = {
    "x - 1": lambda x: x - 1,
    "2 * x": lambda x: 2 * x,
    "x.exp()": lambda x: x.exp(),
    "x.sin()": lambda x: x.sin(),
    "x / 2": lambda x: x / 2,
}
for name, f in candidates.items():
    x = torch.tensor(1.0, requires_grad=True)
    y = f(x)
    y.backward()
    try:
        y.backward()
        print(f"{name}: backward twice works")
    except RuntimeError:
        print(f"{name}: the second backward fails")
"""),
]


# ---------------------------------------------------------------- 04
LESSON_04 = [
    md("""
# 04 · Reading the graph

Every tensor computed from tensors that require grad remembers how it was made: its `grad_fn`. The
`grad_fn` nodes and their links (`next_functions`) **are** the graph that `backward()` walks. This
lesson reads it by hand, then watches `backward()` walk it.
"""),
    SETUP,
    md("""
## `grad_fn` and `next_functions`

The name of a `grad_fn` says which op made the tensor: `MulBackward0` for `*`, `ExpBackward0` for
`exp`. `next_functions` lists, for each input of the op, the node that made that input and which of
its outputs it was. A leaf that requires grad is reached through an `AccumulateGrad` node: the one
that adds into `.grad`. Its `.variable` is the leaf itself.

(Printing a node shows a memory address, which changes every run; the code prints the class names.)
"""),
    code(
        """
x = torch.tensor(2.0, requires_grad=True)
w = torch.tensor(3.0, requires_grad=True)
y = (x * w).exp()
print(y)
print(type(y.grad_fn).__name__)
mul, _ = y.grad_fn.next_functions[0]
print(type(mul).__name__, [(type(fn).__name__, i) for fn, i in mul.next_functions])
acc, _ = mul.next_functions[0]
print(acc.variable is x, acc.variable is w)
""",
        check=True,
    ),
    md("""
A constant (a tensor that does not require grad, or a plain number) has no node: its entry in
`next_functions` is `None`.
"""),
    code(
        """
c = torch.tensor(5.0)
print([(type(fn).__name__ if fn is not None else None, i) for fn, i in (x * c).grad_fn.next_functions])
""",
        check=True,
    ),
    code("""
torch.draw(y)
"""),
    md("""
## Leaves and non-leaves

A **leaf** is a tensor you created, not the result of an op on tensors that require grad. Only
leaves that require grad get a `.grad` from `backward()`; the intermediate results pass their
gradient on and keep nothing.
"""),
    code(
        """
x = torch.tensor([1.0, 2.0], requires_grad=True)
h = x * x
out = h.sum()
print(x.is_leaf, h.is_leaf, out.is_leaf)
out.backward()
print(x.grad)
""",
        check=True,
    ),
    md("""
Asking a non-leaf for its `.grad` gives `None`, with a warning. Warnings go to the notebook's
error stream (shown on a red background below):
"""),
    code("""
h.grad
"""),
    md("""
Here is its full text, printed. It is PyTorch's text word for word (PyTorch adds where in its C++
source it was raised):
"""),
    code(
        """
import textwrap
import warnings

with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    grad = h.grad
print(grad)
print(caught[0].category.__name__)
print(textwrap.fill(str(caught[0].message), 100))
""",
        check=True,
    ),
    md("""
## `retain_grad()` and hooks

`h.retain_grad()` asks backward to keep the gradient of a non-leaf. A **hook** sees the gradient
as it passes: `register_hook(fn)` calls `fn(grad)` and, if `fn` returns a tensor, uses that
instead. Hooks are how you inspect or clip gradients in the middle of a graph.
"""),
    code(
        """
x = torch.tensor([1.0, 2.0], requires_grad=True)
h = x * x
h.retain_grad()
h.register_hook(lambda grad: print("gradient reaching h:", grad))
x.register_hook(lambda grad: grad * 10)  # the leaf's .grad gets 10 times the gradient
out = (3 * h).sum()
out.backward()
print("h.grad:", h.grad)
print("x.grad:", x.grad)
""",
        check=True,
    ),
    md("""
## Watching backward walk the graph

`BackwardPlayer` runs `backward()` once and plays it step by step: the node that runs, and in the
ledger the chain rule at that node, *local derivative × upstream gradient = contribution*. Use the
slider or **Play**.
"""),
    code("""
from gradbook.widgets import BackwardPlayer

x = torch.tensor(2.0, requires_grad=True)
w = torch.tensor(3.0, requires_grad=True)
y = (x * w).exp()
BackwardPlayer(y)
"""),
    md("""
## Check yourself

`check_graph_chain(build)` wants a `build(x)` whose graph, from the leaf up, is exactly
AccumulateGrad → ExpBackward0 → MulBackward0 → SumBackward0. `graph_chain` reads a chain for you;
a worked answer:
"""),
    code(
        """
from gradbook.exercises import check_graph_chain, check_leaves_with_grad, graph_chain


def build(x):
    return (x.exp() * 2).sum()


print(graph_chain(build(torch.tensor([1.0, 2.0], requires_grad=True))))
check_graph_chain(build)
""",
        check=True,
    ),
    md(
        """
Which of a, b, c, d, f have a `.grad` after this program?

```python
"""
        + LEAVES_PROGRAM
        + """```

Follow `next_functions` from `e.grad_fn`: `c` does not require grad, `b.detach()` is a new leaf
that does not, and `f` is not part of any graph (lesson 06). The worked answer:
"""
    ),
    code("""
check_leaves_with_grad({"a", "d"})
"""),
    md("""
## Try it

Build your own graph and read it: print the `grad_fn` names along `next_functions` from the top, then
play its backward pass. Try a graph where one tensor is used twice, e.g. `x * x + x`: how many
contributions reach the `AccumulateGrad` of `x`?
"""),
    code("""
x = torch.tensor(2.0, requires_grad=True)
y = x * x + x
BackwardPlayer(y)
"""),
]


# ---------------------------------------------------------------- 05
LESSON_05 = [
    md("""
# 05 · Higher-order gradients

A gradient is a tensor computed by ops too. With `create_graph=True`, backward **records** those ops,
so the gradient has its own graph and can be differentiated again: second derivatives, Hessian–vector
products, gradient penalties.
"""),
    SETUP,
    md("""
## `autograd.grad` and `create_graph=True`

`torch.autograd.grad(y, x)` returns dy/dx instead of adding it into `x.grad`. For f(x) = x³ at x = 2:
f'(x) = 3x² = 12 and f''(x) = 6x = 12.
"""),
    code(
        """
x = torch.tensor(2.0, requires_grad=True)
y = x**3
(dy,) = torch.autograd.grad(y, x, create_graph=True)
print(dy)
(d2y,) = torch.autograd.grad(dy, x)
print(d2y)
""",
        check=True,
    ),
    md("""
`dy` has a `grad_fn`: it is the output of the ops that computed 3x², recorded because of
`create_graph=True`. Without it, `dy` is a plain number and cannot be differentiated again:
"""),
    code(
        """
x = torch.tensor(2.0, requires_grad=True)
(dy,) = torch.autograd.grad(x**3, x)
print(dy, dy.requires_grad)
""",
        check=True,
    ),
    md("""
The graph of the first derivative, drawn: the ops of the backward pass have become a forward graph
of their own.
"""),
    code("""
x = torch.tensor(2.0, requires_grad=True)
(dy,) = torch.autograd.grad(x**3, x, create_graph=True)
torch.draw(dy)
"""),
    md("""
## A second derivative, checked against the formula

f(x) = x · sin(x) has f'(x) = sin x + x cos x and f''(x) = 2 cos x − x sin x. Compute both with
autograd on many points at once (`gradient=ones` sums the independent components, lesson 02) and
compare with the formulas.
"""),
    code(
        """
x = torch.linspace(-3, 3, 7, dtype=torch.float64, requires_grad=True)
y = x * x.sin()
(d1,) = torch.autograd.grad(y, x, torch.ones_like(y), create_graph=True)
(d2,) = torch.autograd.grad(d1, x, torch.ones_like(d1))
with torch.no_grad():
    d1_formula = x.sin() + x * x.cos()
    d2_formula = 2 * x.cos() - x * x.sin()
print(torch.allclose(d1, d1_formula), torch.allclose(d2, d2_formula))
print((d2 - d2_formula).abs().max().item() < 1e-12)
""",
        check=True,
    ),
    md("""
`backward(create_graph=True)` does the same through `.grad`: the accumulated gradient keeps a graph.
PyTorch warns about it, once: `x.grad` now holds a graph that holds `x`, a reference cycle, so
`autograd.grad` is the better tool (reset `x.grad = None` after use otherwise). `gradcheck`
compares a function's autograd gradient with finite differences; it works on the first derivative
as a function too.
"""),
    code(
        """
x = torch.tensor([0.5, 1.5], dtype=torch.float64, requires_grad=True)
(x * x.sin()).sum().backward(create_graph=True)  # PyTorch's warning, once
print(x.grad.grad_fn is not None)
"""
    ),
    code(
        """
def first_derivative(t):
    (g,) = torch.autograd.grad((t * t.sin()).sum(), t, create_graph=True)
    return g


print(torch.autograd.gradcheck(first_derivative, (x.detach().requires_grad_(),)))
""",
        check=True,
    ),
    md("""
## The tangent explorer

Move the slider: the tangent's slope is `x.grad` from `f(x).backward()`. Where the slope stops
changing fast, f'' is small; where the tangent turns fastest, |f''| is largest.
"""),
    code("""
from gradbook.widgets import TangentExplorer

TangentExplorer(lambda t: t * t.sin(), (-6, 6), x=1.0)
"""),
    md("""
## Try it

Change `f` below, and check your own formula for f'' (for example f(x) = exp(−x²): f'' = (4x² − 2)
exp(−x²)). The explorer shows the first derivative; the last line compares the second.
"""),
    code("""
def f(t):
    return (-(t**2)).exp()


x = torch.tensor(0.8, dtype=torch.float64, requires_grad=True)
(d1,) = torch.autograd.grad(f(x), x, create_graph=True)
(d2,) = torch.autograd.grad(d1, x)
print(d2.item(), ((4 * x**2 - 2) * (-(x**2)).exp()).item())
TangentExplorer(f, (-3, 3), x=0.8)
"""),
]


# ---------------------------------------------------------------- 06
LESSON_06 = [
    md("""
# 06 · `no_grad`, `detach` and in-place updates

Autograd records every op on tensors that require grad. Sometimes you want the opposite: a
weight update, an evaluation, a value used as a constant. This lesson shows what is recorded and what
is not, and draws it.
"""),
    SETUP,
    md("""
## `torch.no_grad()`

Inside `with torch.no_grad():` nothing is recorded: results have no `grad_fn` and do not require grad.
"""),
    code(
        """
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * 2
with torch.no_grad():
    z = x * 2
print(y)
print(z, z.requires_grad, z.grad_fn)
""",
        check=True,
    ),
    md("""
## `detach()`

`x.detach()` is the same values as a new leaf that does not require grad: the graph is cut there.
Below, `y = x · x · x` uses `x` three times, but one of them is detached, so backward follows
only the other two: dy/dx = 2x · x = 8 at x = 2, not 3x² = 12. In the drawing, the detached `x`
is a **constant** input of the top `MulBackward0`: no edge leads from it back to `x`.
"""),
    code(
        """
x = torch.tensor(2.0, requires_grad=True)
y = x * x * x.detach()
y.backward()
print(x.grad)
""",
        check=True,
    ),
    code("""
torch.draw(y)
"""),
    md("""
## In-place updates

A training step changes the weights **in place**. Doing that to a leaf that requires grad, while
recording, is refused: it would make the leaf the result of an op.
"""),
    code(
        """
w = torch.tensor([1.0, -1.0], requires_grad=True)
loss = (w * w).sum()
loss.backward()
print(w.grad)
""",
        check=True,
    ),
    error("""
w -= 0.1 * w.grad
"""),
    md("""
Under `no_grad()` the update is not recorded, `w` stays a leaf, and the next forward pass builds a
new graph from the new values:
"""),
    code(
        """
with torch.no_grad():
    w -= 0.1 * w.grad
w.grad = None
print(w, w.is_leaf)
""",
        check=True,
    ),
    md("""
In-place ops on **non-leaf** tensors are recorded (their `grad_fn` says so). But if an op saved a
tensor for backward and it is changed afterwards, the saved value is stale, and backward refuses
rather than return a wrong gradient. Tensors count their in-place changes in `_version` for this check:
"""),
    code(
        """
x = torch.tensor([1.0, 2.0], requires_grad=True)
a = x * 1
b = a * a  # saves a
print(a._version)
a.mul_(2)
print(a._version, type(a.grad_fn).__name__)
try:
    b.sum().backward()
except RuntimeError as err:
    print(str(err).split(":")[0])
""",
        check=True,
    ),
    md("""
The same computation three ways: recorded, detached and under `no_grad`. Only the first has a
graph to draw; the other two are plain numbers with nothing behind them. The `GraphView` below can
show or hide values, gradients and shapes; press **refresh** after running `kept.backward()`.
"""),
    code("""
x = torch.tensor([1.0, 2.0], requires_grad=True)
kept = (x * 3).sum()
cut = (x.detach() * 3).sum()
with torch.no_grad():
    off = (x * 3).sum()
print(kept.requires_grad, cut.requires_grad, off.requires_grad)
"""),
    code("""
from gradbook.widgets import GraphView

view = GraphView(kept)
kept.backward()
view.refresh()
view
"""),
    md("""
## Try it

Predict `x.grad` for each line, then run: which paths reach `x`?
"""),
    code("""
x = torch.tensor(3.0, requires_grad=True)
y = x * x.detach() + 2 * x
with torch.no_grad():
    y2 = y * 100
y.backward()
print(x.grad, y2.requires_grad)
"""),
]


# ---------------------------------------------------------------- 07
LESSON_07 = [
    md("""
# 07 · A training loop

Everything so far, at scale: a small network (`torch.nn`) learns to separate two classes in the
plane with stochastic gradient descent (`torch.optim.SGD`). Each step is lesson 01's
`loss.backward()` on a new graph, then an update under `no_grad` (lesson 06), then
`optimizer.zero_grad()`. At the end, the same training without `zero_grad`: the seed's lesson.
"""),
    code("""
import matplotlib.pyplot as plt
import numpy as np

import gradbook as torch
from gradbook import nn
"""),
    md("""
## A toy dataset: two interleaved moons

200 points, seeded, so every run is the same.
"""),
    code("""
rng = np.random.default_rng(0)
n = 100
angle = rng.uniform(0, np.pi, n)
upper = np.stack([np.cos(angle), np.sin(angle)], axis=1)
lower = np.stack([1 - np.cos(angle), 0.5 - np.sin(angle)], axis=1)
points = np.concatenate([upper, lower]) + rng.normal(0, 0.1, (2 * n, 2))
X = torch.tensor(points, dtype=torch.float)
labels = torch.tensor(np.repeat([0, 1], n))

plt.figure(figsize=(4.5, 3.2))
plt.scatter(points[:, 0], points[:, 1], c=labels.numpy(), cmap="coolwarm", s=12)
plt.title("two moons");
"""),
    md("""
## The model and one training step

A 2 → 16 → 16 → 2 network with ReLU, cross-entropy loss, plain SGD.
"""),
    code(
        """
def make_model(seed=0):
    torch.manual_seed(seed)
    return nn.Sequential(nn.Linear(2, 16), nn.ReLU(), nn.Linear(16, 16), nn.ReLU(), nn.Linear(16, 2))


model = make_model()
loss_fn = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.3)
print(model)
print(sum(p.numel() for p in model.parameters()), "parameters")
""",
        check=True,
    ),
    code(
        """
def train(model, optimizer, steps=300, zero_grad=True):
    losses = []
    for _ in range(steps):
        loss = loss_fn(model(X), labels)  # a new graph every step
        if zero_grad:
            optimizer.zero_grad()  # p.grad = None for every parameter
        loss.backward()  # adds into p.grad
        optimizer.step()  # p -= lr * p.grad, under no_grad
        losses.append(loss.item())
    return losses


losses = train(model, optimizer)
accuracy = (model(X).argmax(dim=1) == labels).float().mean().item()
print(f"loss {losses[0]:.2f} -> {losses[-1]:.2f}, accuracy {accuracy:.0%}")
"""
    ),
    md("""
The last digits of a float32 training run depend on the machine's BLAS (the order it adds the
products of a matrix multiply in), and 300 steps amplify them, so the numbers above can differ
a little on your machine. What does not differ: the loss fell, and most points are classified right.
"""),
    code(
        """
print("loss fell:", losses[-1] < 0.8 * losses[0], "| accuracy above 70%:", accuracy > 0.7)
""",
        check=True,
    ),
    md("""
The graph of one step's loss is the same shape every step (only the values change). Untick
**data** and **grad** to see only the shapes, or tick **legend**:
"""),
    code("""
from gradbook.widgets import GraphView

loss = loss_fn(model(X), labels)
GraphView(loss)
"""),
    md("""
## The loss and the decision boundary
"""),
    code("""
def decision_boundary(model, ax):
    grid_x, grid_y = np.meshgrid(np.linspace(-1.5, 2.5, 200), np.linspace(-1.0, 1.5, 150))
    grid = torch.tensor(np.stack([grid_x.ravel(), grid_y.ravel()], axis=1), dtype=torch.float)
    with torch.no_grad():  # evaluation: nothing to record
        p = model(grid).softmax(dim=1)[:, 1].numpy().reshape(grid_x.shape)
    ax.contourf(grid_x, grid_y, p, levels=20, cmap="coolwarm", alpha=0.4)
    ax.contour(grid_x, grid_y, p, levels=[0.5], colors="k", linewidths=1)
    ax.scatter(points[:, 0], points[:, 1], c=labels.numpy(), cmap="coolwarm", s=10)


fig, (ax_loss, ax_map) = plt.subplots(1, 2, figsize=(9, 3.4))
ax_loss.plot(losses)
ax_loss.set_xlabel("step")
ax_loss.set_ylabel("cross-entropy loss")
ax_loss.set_yscale("log")
decision_boundary(model, ax_map)
ax_map.set_title("p(class 1), boundary at 0.5")
fig.tight_layout()
"""),
    md("""
## Forgetting `zero_grad()`

Same model, same start, same data, but no `optimizer.zero_grad()`. Every `backward()` adds into
`p.grad` (lesson 01), so step k moves the weights by the **sum** of all k gradients so far: the
step grows even where the current gradient is small, and the training oscillates or diverges.
"""),
    code(
        """
model_forgot = make_model()
optimizer_forgot = torch.optim.SGD(model_forgot.parameters(), lr=0.3)
losses_forgot = train(model_forgot, optimizer_forgot, zero_grad=False)
accuracy_forgot = (model_forgot(X).argmax(dim=1) == labels).float().mean().item()
print(f"loss {losses_forgot[0]:.2f} -> {losses_forgot[-1]:.2f}, accuracy {accuracy_forgot:.0%}")
"""
    ),
    code(
        """
print("same start:", losses_forgot[0] == losses[0], "| ends worse:", min(losses_forgot[-50:]) > max(losses[-50:]))
""",
        check=True,
    ),
    code("""
fig, (ax_loss, ax_map) = plt.subplots(1, 2, figsize=(9, 3.4))
ax_loss.plot(losses, label="with zero_grad()")
ax_loss.plot(losses_forgot, label="without")
ax_loss.set_xlabel("step")
ax_loss.set_ylabel("cross-entropy loss")
ax_loss.set_yscale("log")
ax_loss.legend()
decision_boundary(model_forgot, ax_map)
ax_map.set_title("without zero_grad()")
fig.tight_layout()
"""),
    md("""
The same in miniature, with one number: the gradient the optimizer sees after each `backward()`,
with and without zeroing, for a fixed batch and fixed weights. Without zeroing it is k times the
true gradient at step k: lesson 01's 4, 8, 12.
"""),
    code(
        """
model = make_model()
first = model[0].weight
for k in range(1, 4):
    loss_fn(model(X), labels).backward()
    print(k, round(first.grad.abs().sum().item(), 4))
""",
        check=True,
    ),
    md("""
## Try it

Change the learning rate, the width of the hidden layers or the number of steps and rerun the two
training cells. With `SGD(..., momentum=0.9)` the optimizer accumulates on purpose: compare.
"""),
    code("""
model_try = make_model(seed=1)
losses_try = train(model_try, torch.optim.SGD(model_try.parameters(), lr=0.1, momentum=0.9), steps=200)
fig, ax = plt.subplots(figsize=(4.5, 3.2))
decision_boundary(model_try, ax)
ax.set_title(f"momentum 0.9: final loss {losses_try[-1]:.3f}");
"""),
]


LESSONS = {
    "01_backward_and_accumulation": LESSON_01,
    "02_non_scalar_outputs": LESSON_02,
    "03_retain_graph": LESSON_03,
    "04_reading_the_graph": LESSON_04,
    "05_higher_order_gradients": LESSON_05,
    "06_no_grad_detach_inplace": LESSON_06,
    "07_training_loop": LESSON_07,
}


WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


def build(name: str, cells: list[nbformat.NotebookNode]) -> Path:
    """Write one lesson, execute it in a fresh python3 kernel from notebooks/, and save it."""
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.from_dict(dict(cell)) for cell in cells]  # copies: SETUP is shared
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.metadata["language_info"] = {"name": "python"}
    client = NotebookClient(
        nb, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(HERE)}}, store_widget_state=False
    )
    client.execute()
    for cell in nb.cells:  # a saved widget view would show "model not found": keep the self-contained view
        for output in cell.get("outputs", []):
            if "text/html" in output.get("data", {}):
                output["data"].pop(WIDGET_VIEW, None)
    for cell in nb.cells:
        cell.pop("id", None)  # ids would change every build; nbformat 4.4 notebooks do without
    nb.nbformat_minor = 4
    path = HERE / f"{name}.ipynb"
    nbformat.write(nb, path)
    return path


def main(selected: list[str]) -> None:
    for name, cells in LESSONS.items():
        if not selected or name[:2] in selected:
            print("built", build(name, cells).relative_to(HERE.parent))


if __name__ == "__main__":
    main(sys.argv[1:])
