import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import gradbook

collect_ignore = ["seed", "scripts"]  # scripts run as programs, not imported

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def run_as_torch(tmp_path):
    """Run a script with gradbook standing in for torch (``import torch`` gives gradbook)."""
    (tmp_path / "torch.py").write_text(
        "import sys, gradbook\n"
        "sys.modules['torch'] = gradbook\n"
        "for name, mod in list(sys.modules.items()):\n"
        "    if name.startswith('gradbook.'):\n"
        "        sys.modules['torch' + name[len('gradbook'):]] = mod\n"
    )

    def run(script: Path) -> subprocess.CompletedProcess:
        env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path), str(ROOT)]))
        return subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env, cwd=tmp_path)

    return run


def chain(ops):
    """A graph of ``ops`` ops in a line (``* 1.001 + 0.5`` repeated) from one leaf."""
    x = gradbook.tensor(1.0, requires_grad=True)
    y = x
    for _ in range(ops // 2):
        y = y * 1.001 + 0.5
    return y


def watch_order(root):
    """A list that fills, as the engine runs the graph of ``root``, with the nodes' names.

    It uses node pre-hooks (``Node.register_prehook``), so it watches gradbook and torch alike.
    """
    order, seen, stack = [], set(), [root.grad_fn]
    while stack:
        node = stack.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        node.register_prehook(lambda g, node=node: order.append(node.name()))
        stack.extend(fn for fn, _ in node.next_functions)
    return order


def value(t):
    """The numbers in a tensor, as a float64 NumPy array (for comparisons in tests)."""
    return np.asarray(t.detach().numpy(), dtype=np.float64)


gradbook.manual_seed(0)


# Tests marked ``exe`` run a Graphviz renderer binary (xflr6/graphviz's convention): each one skips
# itself when its renderer is missing, and ``pytest --skip-exe`` skips them all.
def pytest_addoption(parser):
    parser.addoption("--skip-exe", action="store_true", help="skip tests marked exe (they run Graphviz binaries)")


def pytest_collection_modifyitems(config, items):
    if config.getoption("--skip-exe"):
        for item in items:
            if item.get_closest_marker("exe") is not None:
                item.add_marker(pytest.mark.skip(reason="skipped by --skip-exe"))
