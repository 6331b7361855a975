"""gradbook.nn.parameter: Parameter, the Tensor subclass a Module registers as a trainable weight
(torch's torch/nn/parameter.py). It needs only the Tensor, so every module file can import it.
"""

from __future__ import annotations

import copyreg

import numpy as np

from .. import _factories
from ..tensor import Tensor


class Parameter(Tensor):
    """A tensor that a Module registers as a trainable weight (``requires_grad=True``).

    >>> import gradbook as torch
    >>> torch.nn.Parameter(torch.ones(2))
    Parameter containing:
    tensor([1., 1.], requires_grad=True)
    """

    __slots__ = ()

    def __new__(cls, data: Tensor | None = None, requires_grad: bool = True) -> Parameter:
        p = Tensor._make((data if data is not None else _factories.empty(0))._array)
        p.__class__ = cls  # the same slots: a Parameter is a Tensor that a Module registers
        return p.requires_grad_(requires_grad)

    def __repr__(self) -> str:
        return "Parameter containing:\n" + super().__repr__()

    def __deepcopy__(self, memo: dict) -> Parameter:
        """A new Parameter with a copy of the values (torch's copies no ``.grad``)."""
        if id(self) not in memo:
            memo[id(self)] = Parameter(Tensor._make(self._array.copy()), self.requires_grad)
        return memo[id(self)]


def _rebuild(array: np.ndarray, requires_grad: bool) -> Parameter:
    return Parameter(Tensor._make(array), requires_grad)


copyreg.pickle(Parameter, lambda p: (_rebuild, (np.array(p._array), p.requires_grad)))  # pickle.dumps(p), as torch
