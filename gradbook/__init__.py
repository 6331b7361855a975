"""gradbook: PyTorch's autograd, in NumPy, for teaching.

Swap ``import torch`` for ``import gradbook as torch`` and a lesson on autograd runs and
prints the same text.

>>> import gradbook as torch
>>> x = torch.tensor(2, dtype=torch.float, requires_grad=True)
>>> for _ in range(3):
...     y = x * x
...     y.backward()
>>> x.grad
tensor(12.)
"""

from __future__ import annotations

import typing as _typing

from . import accelerator, autograd, backends, cuda, func, linalg, nn, ops, optim, serialization, utils
from ._device import device, get_default_device, set_default_device
from ._dtypes import Size, bool, dtype, float16, float32, float64, get_default_dtype, int32, int64, set_default_dtype
from ._factories import (
    Generator,
    arange,
    as_tensor,
    bernoulli,
    default_generator,
    empty,
    eye,
    from_numpy,
    full,
    full_like,
    get_rng_state,
    initial_seed,
    linspace,
    manual_seed,
    multinomial,
    normal,
    ones,
    ones_like,
    rand,
    rand_like,
    randint,
    randint_like,
    randn,
    randn_like,
    randperm,
    seed,
    set_rng_state,
    tensor,
    zeros,
    zeros_like,
)
from ._functions import *  # gradbook.exp(x), gradbook.cat(...): the functional forms
from ._legacy import BoolTensor, DoubleTensor, FloatTensor, HalfTensor, IntTensor, LongTensor
from ._printing import get_printoptions, set_printoptions
from .autograd.grad_mode import (
    enable_grad,
    inference_mode,
    is_grad_enabled,
    is_inference_mode_enabled,
    no_grad,
    set_grad_enabled,
)
from .func import vmap
from .language import get_language, set_language
from .serialization import load, save
from .tensor import Tensor

if _typing.TYPE_CHECKING:
    from .viz.draw import GraphDrawing  # imported on the first draw(): graphviz is not needed before

float = float32  # noqa: A001  (torch.float)
double = float64
half = float16
long = int64
int = int32  # noqa: A001  (torch.int)

__version__ = "0.1.0"


def __getattr__(name: str) -> _typing.Any:  # a torch name gradbook lacks: say so, by name
    from . import _missing

    if name in _missing.TORCH:
        raise _missing.missing("", name)
    raise AttributeError(f"module 'gradbook' has no attribute '{name}'")


def draw(*roots: Tensor, **kwargs: _typing.Any) -> GraphDrawing:
    """Draw the autograd graph behind ``roots`` (a ``graphviz.Digraph``; a notebook cell shows it).

    Leaves and outputs are named after your variables. Graphviz is imported on the first call,
    so ``import gradbook`` stays NumPy-only. Options: see ``gradbook.viz.draw``.

    >>> import gradbook as torch
    >>> x = torch.tensor(2.0, requires_grad=True)
    >>> g = torch.draw(x * x)
    >>> "MulBackward0" in g.source and "<B>x</B>" in g.source
    True
    """
    from .viz.draw import draw as draw_graph

    # name discovery looks at the frame that called this function, one further up than usual
    level = kwargs.get("stacklevel", 1)
    kwargs["stacklevel"] = level + 1 if level > 0 else 0
    return draw_graph(*roots, **kwargs)
