"""Every public callable refuses a keyword argument it does not take, with a TypeError that names it (torch's
"got an unexpected keyword argument" or "received an invalid combination of arguments"), never ignoring it:
a keyword torch takes that gradbook ignored would be a silent wrong result (``normal(..., requires_grad=True)``
returned a tensor that did not require grad). That the keywords gradbook takes do what torch's do is checked
against torch in ``test_oracle_semantics.py``."""

from __future__ import annotations

import inspect
import io

import pytest

import gradbook
import gradbook.nn.functional as F  # noqa: N812 (as torch users write it)
from gradbook import nn, optim

BOGUS = "no_such_keyword_in_torch"

# callables that take **kwargs, with arguments that make a call valid (so that only the bogus keyword is wrong)
VALID = {
    "torch.zeros": lambda: ((2,), {}),
    "torch.ones": lambda: ((2,), {}),
    "torch.empty": lambda: ((2,), {}),
    "torch.rand": lambda: ((2,), {}),
    "torch.randn": lambda: ((2,), {}),
    "torch.sum": lambda: ((gradbook.ones(2),), {}),
    "torch.mean": lambda: ((gradbook.ones(2),), {}),
    "torch.std": lambda: ((gradbook.ones(2),), {}),
    "torch.var": lambda: ((gradbook.ones(2),), {}),
    "torch.scatter": lambda: ((gradbook.zeros(3), 0, gradbook.tensor([0, 1]), gradbook.ones(2)), {}),
    "torch.load": lambda: ((_saved(),), {}),
    "serialization.load": lambda: ((_saved(),), {}),
    "autograd.gradcheck": lambda: (
        (lambda x: x * 2, (gradbook.ones(1, dtype=gradbook.float64, requires_grad=True),)),
        {},
    ),
    "autograd.gradgradcheck": lambda: (
        (lambda x: x * x, (gradbook.ones(1, dtype=gradbook.float64, requires_grad=True),)),
        {},
    ),
    "Tensor.sum": lambda: ((), {}),
    "Tensor.mean": lambda: ((), {}),
    "Tensor.std": lambda: ((), {}),
    "Tensor.var": lambda: ((), {}),
    "Tensor.to": lambda: ((gradbook.float64,), {}),
    "Tensor.cuda": lambda: ((), {}),
    "Tensor.scatter": lambda: ((0, gradbook.tensor([0, 1]), gradbook.ones(2)), {}),
    "Tensor.scatter_": lambda: ((0, gradbook.tensor([0, 1]), gradbook.ones(2)), {}),
    "Tensor.scatter_add_": lambda: ((0, gradbook.tensor([0, 1]), gradbook.ones(2)), {}),
    "Tensor.masked_fill_": lambda: ((gradbook.tensor([True, False, True]), 0.0), {}),
    "Tensor.pow_": lambda: ((2,), {}),
    "Tensor.floor_divide_": lambda: ((2,), {}),
    "Tensor.remainder_": lambda: ((2,), {}),
}


def _saved():
    buffer = io.BytesIO()
    gradbook.save(gradbook.ones(1), buffer)
    buffer.seek(0)
    return buffer


# torch takes any arguments here and ignores them, as documented
TAKES_ANY = {"nn.Identity"}


def public_callables():
    found = {}
    spaces = (("torch.", gradbook), ("F.", F), ("nn.", nn), ("optim.", optim), ("autograd.", gradbook.autograd))
    for prefix, namespace in (*spaces, ("serialization.", gradbook.serialization)):
        for name in dir(namespace):
            value = getattr(namespace, name)
            if name.startswith("_") or inspect.ismodule(value) or not callable(value):
                continue
            if inspect.isclass(value) and not getattr(value, "__module__", "").startswith("gradbook"):
                continue
            if isinstance(value, gradbook.dtype):
                continue
            found.setdefault(prefix + name, value)
    for name in dir(gradbook.Tensor):
        if not name.startswith("_") and callable(getattr(gradbook.Tensor, name)):
            found["Tensor." + name] = name
    return found


CALLABLES = public_callables()


def call_with_bogus(name, f):
    args, kwargs = VALID[name]() if name in VALID else ((), {})
    if isinstance(f, str):  # a Tensor method, on a tensor it can run on
        f = getattr(gradbook.tensor([1.0, 2.0, 3.0]), f)
    return f(*args, **kwargs, **{BOGUS: 1})


@pytest.mark.parametrize("name", sorted(set(CALLABLES) - TAKES_ANY))
def test_an_unknown_keyword_is_refused_by_name(name):
    with pytest.raises(TypeError) as caught:
        call_with_bogus(name, CALLABLES[name])
    message = str(caught.value)  # no_grad() and torch.Size take nothing at all: Python's own words, as in torch
    assert BOGUS in message or message.endswith(("takes no arguments", "takes no keyword arguments")), name


def test_the_walk_covers_the_api():
    names = set(CALLABLES)
    assert {"torch.normal", "torch.randn", "F.relu", "nn.Linear", "optim.SGD", "Tensor.backward"} <= names
    assert len(names) > 450
    assert set(VALID) <= names  # no stale entry


def test_a_keyword_swallowed_by_kwargs_is_found():
    def swallowing(*size, **kwargs):  # what normal() did: keywords it did not know vanished
        return size

    with pytest.raises(pytest.fail.Exception):
        with pytest.raises(TypeError):
            swallowing(2, **{BOGUS: 1})
