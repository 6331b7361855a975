"""Answers to lesson 11's checks, right and wrong, for the attack table in test_exercises.py.

The right ones are written from the lesson's definitions (central differences, a tape walked from
its end with ``+=``); the wrong ones are the mistakes a learner makes.
"""

from collections import defaultdict
from fractions import Fraction

import numpy as np

import gradbook as torch

# ---------------------------------------------------------------- derive: dg/du, dg/dv, dg/dw
# w = u·v = -3, g = w·w + u: dg/dw = 2w = -6, dg/dv = -6·u = -18, dg/du = -6·v + 1 = 7
HAND_RIGHT = [
    {"u": 7.0, "v": -18.0, "w": -6.0},
    {"w": -6, "v": -18, "u": 7},
    {"u": torch.tensor(7.0), "v": np.float32(-18), "w": Fraction(-6)},
]
HAND_WRONG = [
    {"u": 7.0005, "v": -18.001, "w": -6.0},  # close, but the answers are whole numbers
    {"u": 6.0, "v": -18.0, "w": -6.0},  # the + u path forgotten
    {"u": 1.0, "v": -18.0, "w": -6.0},  # only the + u path
    {"u": 7.0, "v": 18.0, "w": -6.0},  # a sign
    {"u": 7.0, "v": -18.0, "w": -3.0},  # w used once
    {"u": 7.0, "v": -9.0, "w": -3.0},  # w used once, carried on
    {"u": 7.0, "v": -18.0},  # a key missing
    {"u": 7.0, "v": -18.0, "w": -6.0, "g": 1.0},  # an extra key
    {"u": 7.0, "v": ..., "w": -6.0},  # one left at its placeholder
    {"u": "7", "v": -18.0, "w": -6.0},
    {"u": [7.0, 7.0], "v": -18.0, "w": -6.0},
    {"u": float("nan"), "v": -18.0, "w": -6.0},
    {"u": True, "v": -18.0, "w": -6.0},
    [7.0, -18.0, -6.0],
    (7.0, -18.0, -6.0),
    "u=7, v=-18, w=-6",
    7.0,
]


class RaisingMapping(dict):
    def __iter__(self):
        raise RuntimeError("no keys")


class LyingDict(dict):
    def __getitem__(self, key):
        return 0.0


def hand_fakes(lying):
    return [{"u": value, "v": value, "w": value} for value in lying] + [
        RaisingMapping(u=7.0, v=-18.0, w=-6.0),
        LyingDict(u=1, v=1, w=1),
    ]


# ---------------------------------------------------------------- build: numerical_grad
def numerical_grad(f, inputs, eps=1e-6):
    partials = []
    for i in range(len(inputs)):
        up, down = list(inputs), list(inputs)
        up[i] += eps
        down[i] -= eps
        partials.append((f(*up) - f(*down)) / (2 * eps))
    return partials


def numerical_grad_in_numpy(f, inputs, eps=1e-6):
    x = np.array(inputs, dtype=float)
    steps = np.eye(len(x)) * eps
    return np.array([(f(*(x + s)) - f(*(x - s))) / (2 * eps) for s in steps])


def numerical_grad_as_tensor(f, inputs, eps=1e-6):
    return torch.tensor(numerical_grad(f, inputs, eps), dtype=torch.float64)


def forward_difference(f, inputs, eps=1e-6):
    base = f(*inputs)
    partials = []
    for i in range(len(inputs)):
        up = list(inputs)
        up[i] += eps
        partials.append((f(*up) - base) / eps)
    return partials


def backward_difference(f, inputs, eps=1e-6):
    base = f(*inputs)
    partials = []
    for i in range(len(inputs)):
        down = list(inputs)
        down[i] -= eps
        partials.append((base - f(*down)) / eps)
    return partials


def forgets_the_two(f, inputs, eps=1e-6):
    return [2 * eps * p / eps for p in numerical_grad(f, inputs, eps)]


def ignores_eps(f, inputs, eps=1e-6):
    return numerical_grad(f, inputs)


def tiny_eps(f, inputs, eps=1e-6):
    return numerical_grad(f, inputs, 1e-13)


def nudges_every_input_at_once(f, inputs, eps=1e-6):
    up, down = [x + eps for x in inputs], [x - eps for x in inputs]
    return [(f(*up) - f(*down)) / (2 * eps)] * len(inputs)


def reversed_order(f, inputs, eps=1e-6):
    return numerical_grad(f, inputs, eps)[::-1]


def summed(f, inputs, eps=1e-6):
    return sum(numerical_grad(f, inputs, eps))


def mutates_inputs(f, inputs, eps=1e-6):
    inputs = list(inputs)
    partials = []
    for i in range(len(inputs)):
        inputs[i] += eps  # never put back
        up = f(*inputs)
        inputs[i] -= 2 * eps
        partials.append((up - f(*inputs)) / (2 * eps))
    return partials


def half_step(f, inputs, eps=1e-6):
    return numerical_grad(f, inputs, eps / 2)  # a central difference, at another step than asked


def flipped(f, inputs, eps=1e-6):
    return [-p for p in numerical_grad(f, inputs, eps)]


def over_four_eps(f, inputs, eps=1e-6):
    return [p / 2 for p in numerical_grad(f, inputs, eps)]


NUMERICAL_RIGHT = [numerical_grad, numerical_grad_in_numpy, numerical_grad_as_tensor]
NUMERICAL_WRONG = [
    half_step,
    flipped,
    over_four_eps,
    forward_difference,
    backward_difference,
    forgets_the_two,
    ignores_eps,
    tiny_eps,
    nudges_every_input_at_once,
    reversed_order,
    summed,
    mutates_inputs,
    lambda f, inputs, eps=1e-6: None,
    lambda f, inputs, eps=1e-6: [float("inf")] * len(inputs),
    lambda f, inputs, eps=1e-6: 1 / 0,
    lambda f, inputs: numerical_grad(f, inputs),  # no eps parameter
    numerical_grad(lambda a: a * a, (1.0,)),  # a list of numbers, not a function
    "numerical_grad",
]


def numerical_fakes(lying):
    return [lambda f, inputs, eps=1e-6, v=v: [v] * len(inputs) for v in lying]


# ---------------------------------------------------------------- debug: the tape's backward
def backward(tape, out):
    grads = {out: 1.0}
    for node in reversed(tape):
        upstream = grads.get(node, 0.0)
        for inp, local in node.inputs:
            grads[inp] = grads.get(inp, 0.0) + local * upstream
    return grads


def backward_with_defaultdict(tape, out):
    grads = defaultdict(float)
    grads[out] = 1.0
    for node in tape[::-1]:
        for inp, local in node.inputs:
            grads[inp] += local * grads[node]
    return dict(grads)


def backward_by_recursion(tape, out):
    """Ignores the tape's order: a topological order of its own, from out (micrograd's way)."""
    order, seen = [], set()

    def visit(v):
        if id(v) not in seen:
            seen.add(id(v))
            for inp, _ in v.inputs:
                visit(inp)
            order.append(v)

    visit(out)
    return backward(order, out)


def overwrites(tape, out):
    grads = {out: 1.0}
    for node in reversed(tape):
        upstream = grads.get(node, 0.0)
        for inp, local in node.inputs:
            grads[inp] = local * upstream
    return grads


def walks_forward(tape, out):
    grads = {out: 1.0}
    for node in tape:
        upstream = grads.get(node, 0.0)
        for inp, local in node.inputs:
            grads[inp] = grads.get(inp, 0.0) + local * upstream
    return grads


def no_seed(tape, out):
    grads = {}
    for node in reversed(tape):
        upstream = grads.get(node, 0.0)
        for inp, local in node.inputs:
            grads[inp] = grads.get(inp, 0.0) + local * upstream
    return grads


def forgets_local(tape, out):
    grads = {out: 1.0}
    for node in reversed(tape):
        upstream = grads.get(node, 0.0)
        for inp, _ in node.inputs:
            grads[inp] = grads.get(inp, 0.0) + upstream
    return grads


def forgets_upstream(tape, out):
    grads = {out: 1.0}
    for node in reversed(tape):
        for inp, local in node.inputs:
            grads[inp] = grads.get(inp, 0.0) + local
    return grads


def seeds_every_node(tape, out):
    grads = {node: 1.0 for node in tape}
    for node in reversed(tape):
        for inp, local in node.inputs:
            grads[inp] = grads.get(inp, 0.0) + local * grads[node]
    return grads


def values_not_gradients(tape, out):
    return {node: node.value for node in tape}


def seeds_the_last_node(tape, out):
    grads = {tape[-1]: 1.0}  # out is not always the tape's last node
    for node in reversed(tape):
        upstream = grads.get(node, 0.0)
        for inp, local in node.inputs:
            grads[inp] = grads.get(inp, 0.0) + local * upstream
    return grads


def defaults_to_one(tape, out):
    grads = {out: 1.0}
    for node in reversed(tape):
        upstream = grads.get(node, 1.0)  # a node out does not use sends gradient too
        for inp, local in node.inputs:
            grads[inp] = grads.get(inp, 0.0) + local * upstream
    return grads


def raises_not_implemented(tape, out):
    raise NotImplementedError()


TAPE_RIGHT = [backward, backward_with_defaultdict, backward_by_recursion]
TAPE_WRONG = [
    seeds_the_last_node,
    defaults_to_one,
    overwrites,
    walks_forward,
    no_seed,
    forgets_local,
    forgets_upstream,
    seeds_every_node,
    values_not_gradients,
    raises_not_implemented,
    lambda tape, out: None,
    lambda tape, out: [1.0] * len(tape),
    lambda tape, out: {},
    lambda tape, out: 1 / 0,
    "backward",
]


class RaisingGet(dict):
    def get(self, key, default=None):
        raise RuntimeError("no lookups")


def tape_fakes(lying):
    return [lambda tape, out, v=v: {node: v for node in tape} for v in lying] + [
        lambda tape, out: RaisingGet(),
    ]
