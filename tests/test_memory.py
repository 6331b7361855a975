"""Memory as torch frees it: no reference cycles in a graph, saved tensors released by backward."""

import gc
import subprocess
import sys
import tracemalloc
import weakref

import numpy as np

import gradbook as torch


def in_a_fresh_process(code):
    """What ``code`` prints, run by a new interpreter (where no earlier test left anything)."""
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout


def without_gc(fn):
    enabled = gc.isenabled()
    gc.disable()
    try:
        return fn()
    finally:
        if enabled:
            gc.enable()


def test_a_leaf_used_in_a_graph_is_freed_by_del_with_the_cyclic_gc_off():
    def run():
        x = torch.tensor(np.ones(1000, dtype=np.float32), requires_grad=True)
        (x * 2).sum().backward()
        alive = weakref.ref(x)
        del x
        return alive() is None

    assert without_gc(run)


def test_two_thousand_dropped_graphs_leave_nothing_for_the_collector():
    code = (  # a fresh process: what earlier tests left behind cannot count
        "import gc, gradbook as torch\n"
        "gc.disable()\n"
        "w = torch.tensor(1.0, requires_grad=True)\n"
        "b = torch.tensor([1.0, 2.0], requires_grad=True)\n"
        "gc.collect()\n"
        "for _ in range(2000):\n"
        "    (w * 3 + 1).backward()\n"
        "    ((b * w).exp().sum() + b[0] * b.tanh().mean()).backward(retain_graph=True)\n"
        "    b.register_hook(lambda g: g).remove()\n"
        "    y = w.exp()\n"
        "    y.backward()\n"
        "    try:\n"
        "        y.backward()  # refused: freed\n"
        "    except RuntimeError:\n"
        "        pass\n"
        "    torch.tensor([[1.0, 2.0], [3.0, 4.0]]) @ torch.tensor([1.0, 2.0])\n"
        "gc.set_debug(gc.DEBUG_SAVEALL)\n"
        "gc.collect()\n"
        "print(sorted({type(o).__name__ for o in gc.garbage}))\n"
    )
    out = in_a_fresh_process(code)
    assert out.strip() == "[]"


def test_backward_releases_the_saved_tensors():
    n = 2_000_000
    size = 4 * n  # bytes of one float32 tensor of n elements
    tracemalloc.start()
    try:
        a = torch.tensor(np.ones(n, dtype=np.float32), requires_grad=True)
        b = a * 2
        c = (b * b).sum()  # MulBackward0 saves b (twice: as self and as other)
        del b  # only the graph holds it now
        held = tracemalloc.get_traced_memory()[0]
        c.backward()
        a.grad = None
        after = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    assert held > 1.9 * size  # a, and b kept by the graph
    assert after < 1.1 * size  # a alone: backward released the saved b


def test_backward_with_create_graph_warns_once_as_torch():
    code = (
        "import warnings, gradbook as torch\n"
        "warnings.simplefilter('always')\n"
        "x = torch.tensor(2.0, requires_grad=True)\n"
        "with warnings.catch_warnings(record=True) as w:\n"
        "    warnings.simplefilter('always')\n"
        "    (x * x).backward(create_graph=True)\n"
        "    (x * x).backward(create_graph=True)\n"
        "    torch.autograd.grad(x * x, x, create_graph=True)\n"
        "print(len(w), w[0].category.__name__, str(w[0].message)[:64])\n"
    )
    out = in_a_fresh_process(code)
    assert out.strip() == "1 UserWarning Using backward() with create_graph=True will create a reference"
