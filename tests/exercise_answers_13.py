"""Answers to lesson 13's checks, right and wrong, for the attack table in test_exercises.py.

w.grad: at w = 1 the residuals w·x − y are -1, 0, 1, 2, so 2(w·x − y)·x = -2, 0, 6, 16; the two
micro-batches give mean(-2, 0) = -1 and mean(6, 16) = 11, and without a division they add: 10.
"""

import numpy as np

import gradbook as torch

NO_DIVISION_RIGHT = [10.0, 10, np.float32(10.0), torch.tensor(10.0)]
NO_DIVISION_WRONG = [5.0, -1.0, 11.0, 2.5, 20.0, -10.0, "10", [10.0, 10.0], float("inf")]


def accumulation_step(model, optimizer, loss_fn, batches):
    optimizer.zero_grad()
    for xb, yb in batches:
        (loss_fn(model(xb), yb) / len(batches)).backward()
    optimizer.step()


def weighted_step(model, optimizer, loss_fn, batches):
    """Weights each micro-batch by its share of the examples: right for equal sizes too."""
    optimizer.zero_grad()
    total = sum(len(xb) for xb, _ in batches)
    for xb, yb in batches:
        (loss_fn(model(xb), yb) * (len(xb) / total)).backward()
    optimizer.step()


def concatenated_step(model, optimizer, loss_fn, batches):
    """No micro-batches at all: the whole batch at once, the same step."""
    optimizer.zero_grad()
    x = torch.cat([xb for xb, _ in batches])
    y = torch.cat([yb for _, yb in batches])
    loss_fn(model(x), y).backward()
    optimizer.step()


def zeroing_inside(model, optimizer, loss_fn, batches):
    for xb, yb in batches:
        optimizer.zero_grad()
        (loss_fn(model(xb), yb) / len(batches)).backward()
    optimizer.step()


def no_division(model, optimizer, loss_fn, batches):
    optimizer.zero_grad()
    for xb, yb in batches:
        loss_fn(model(xb), yb).backward()
    optimizer.step()


def never_zeroed(model, optimizer, loss_fn, batches):
    for xb, yb in batches:
        (loss_fn(model(xb), yb) / len(batches)).backward()
    optimizer.step()


def step_per_micro_batch(model, optimizer, loss_fn, batches):
    optimizer.zero_grad()
    for xb, yb in batches:
        (loss_fn(model(xb), yb) / len(batches)).backward()
        optimizer.step()


def first_batch_only(model, optimizer, loss_fn, batches):
    optimizer.zero_grad()
    xb, yb = batches[0]
    loss_fn(model(xb), yb).backward()
    optimizer.step()


def no_step(model, optimizer, loss_fn, batches):
    optimizer.zero_grad()
    for xb, yb in batches:
        (loss_fn(model(xb), yb) / len(batches)).backward()


def raises(model, optimizer, loss_fn, batches):
    raise NotImplementedError()


ACCUMULATION_RIGHT = [accumulation_step, weighted_step, concatenated_step]
ACCUMULATION_WRONG = [
    zeroing_inside,
    no_division,
    never_zeroed,
    step_per_micro_batch,
    first_batch_only,
    no_step,
    raises,
    lambda model, optimizer, loss_fn, batches: 1 / 0,
    "accumulation_step",
]
