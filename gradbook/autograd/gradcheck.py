"""Checking backward rules against finite differences: ``gradcheck`` and ``gradgradcheck``, with
torch's ``GradcheckError`` (``from torch.autograd.gradcheck import GradcheckError`` works the same)."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from .._arguments import as_list
from ..tensor import Tensor
from .engine import grad


class GradcheckError(RuntimeError):
    """Raised by :func:`gradcheck` when backward disagrees with finite differences."""


def gradcheck(
    fn: Callable[..., Any],
    inputs: Any,
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-3,
    raise_exception: bool = True,
    **torch_options: Any,
) -> bool:
    """Check ``fn``'s backward against central finite differences, in the inputs' dtype: pass
    float64 inputs (float32 is too coarse for ε = 1e-6, and torch warns, as here).

    For each input element xⱼ the numerical derivative (f(x + ε eⱼ) - f(x - ε eⱼ)) / 2ε is
    compared with the column of the Jacobian that backward computes, row by row, through
    vector-Jacobian products. Inputs that require grad are checked; others are held fixed.
    A mismatch raises ``GradcheckError`` with torch's text: both Jacobians, one row per input
    element and one column per output element. torch's other options (``nondet_tol``,
    ``fast_mode``, ...) are accepted and change nothing.

    >>> import gradbook as torch
    >>> x = torch.tensor([0.5, -1.0], dtype=torch.float64, requires_grad=True)
    >>> torch.autograd.gradcheck(lambda x: (x * x.sin()).sum(), (x,))
    True
    """
    _check_options("gradcheck", torch_options, _GRADCHECK_OPTIONS)
    given = (inputs,) if isinstance(inputs, Tensor) else tuple(inputs)
    for i, t in enumerate(given):  # torch computes in the inputs' own dtype, and says float32 is too coarse
        if isinstance(t, Tensor) and t.requires_grad and t._array.dtype not in (np.float64, np.complex128):
            warnings.warn(
                f"Input #{i} requires gradient and is not a double precision floating point or complex. This check "
                "will likely fail if all the inputs are not of double precision floating point or complex. ",
                stacklevel=2,
            )
    args = [  # copies: the finite differences nudge them in place, never the caller's tensors
        Tensor._make(t._array.copy()).requires_grad_(t.requires_grad)
        if isinstance(t, Tensor) and t.is_floating_point()
        else t
        for t in given
    ]
    checked = [i for i, a in enumerate(args) if isinstance(a, Tensor) and a.requires_grad]
    if not checked:
        raise ValueError(
            "gradcheck expects at least one input tensor to require gradient, but none of them have requires_grad=True."
        )

    def run() -> list[np.ndarray]:
        out = fn(*args)
        return [o._array.astype(np.float64).ravel().copy() for o in as_list(out)]

    def numerical_jacobian(k: int, x: Tensor) -> np.ndarray:
        """Row j: (f(x + ε eⱼ) - f(x - ε eⱼ)) / 2ε for output k, one column per output element."""
        flat = x._array.reshape(-1)
        numerical = np.zeros((flat.size, outs[k].numel()))
        for j in range(flat.size):
            old = flat[j]
            flat[j] = old + eps
            plus = run()[k]
            flat[j] = old - eps
            minus = run()[k]
            flat[j] = old
            numerical[j] = (plus - minus) / (2 * eps)
        return numerical

    def refuse(msg: str) -> bool:
        if raise_exception:
            raise GradcheckError(msg)
        return False

    outs = as_list(fn(*args))
    differentiable = [k for k, out in enumerate(outs) if out.requires_grad]
    if not differentiable:  # as torch: then every numerical derivative must be 0
        for k in range(len(outs)):
            for i in checked:
                if np.any(numerical_jacobian(k, args[i]) != 0):
                    return refuse("Numerical gradient for function expected to be zero")
        return True
    # outputs that do not require grad are not checked; torch numbers outputs and inputs among
    # those that are (the differentiable outputs, the inputs that require grad)
    for shown_k, k in enumerate(differentiable):
        out = outs[k]
        for shown_i, i in enumerate(checked):
            x = args[i]
            numerical = numerical_jacobian(k, x)
            analytical = np.zeros_like(numerical)
            for r in range(out.numel()):
                seed = np.zeros(out.numel())
                seed[r] = 1
                (g,) = grad(
                    out,
                    x,
                    Tensor._make(seed.reshape(out._array.shape).astype(out._array.dtype)),
                    retain_graph=True,
                    allow_unused=True,
                )
                if g is not None:
                    analytical[:, r] = g._array.ravel()
            if not np.allclose(analytical, numerical, rtol=rtol, atol=atol):

                def shown(jacobian: np.ndarray, dtype: np.dtype = x._array.dtype) -> str:  # as torch prints it
                    return repr(Tensor._make(jacobian.astype(dtype)))

                return refuse(
                    f"Jacobian mismatch for output {shown_k} with respect to input {shown_i},\n"
                    f"numerical:{shown(numerical)}\nanalytical:{shown(analytical)}\n"
                )
    return True


def gradgradcheck(
    func: Callable[..., Any],
    inputs: Any,
    grad_outputs: Any = None,
    *,
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-3,
    raise_exception: bool = True,
    **torch_options: Any,
) -> bool:
    """Check second derivatives: :func:`gradcheck` of the function that maps (inputs, v) to the
    gradient vᵀ·∂func/∂inputs, which backward computes with ``create_graph=True``.

    ``grad_outputs`` (the v, one per output that requires grad) are random in [-1, 1) when not
    given. torch's other options (``check_undefined_grad``, ``fast_mode``, ...) are accepted and
    change nothing.

    >>> import gradbook as torch
    >>> x = torch.tensor([0.5, -1.0], dtype=torch.float64, requires_grad=True)
    >>> torch.autograd.gradgradcheck(lambda x: x.sin() * x, (x,))
    True
    """
    _check_options("gradgradcheck", torch_options, _GRADGRADCHECK_OPTIONS)
    given = (inputs,) if isinstance(inputs, Tensor) else tuple(inputs)
    if grad_outputs is None:
        rng = np.random.default_rng(0)  # its own generator: a check does not move the user's seed
        outs = [o for o in as_list(func(*given)) if o.requires_grad]
        dtypes = [o._array.dtype if o.is_floating_point() else np.float64 for o in outs]
        seeds = tuple(
            Tensor._make(rng.uniform(-1, 1, o._array.shape).astype(dt)).requires_grad_() for o, dt in zip(outs, dtypes)
        )
    else:
        seeds = (grad_outputs,) if isinstance(grad_outputs, Tensor) else tuple(grad_outputs)
    n = len(seeds)
    differentiable = [i for i, x in enumerate(given) if isinstance(x, Tensor) and x.requires_grad]

    def first_derivative(*args: Any) -> tuple:
        outputs = [o for o in as_list(func(*args[:-n])) if o.requires_grad]
        grads = grad(outputs, [args[i] for i in differentiable], list(args[-n:]), create_graph=True, allow_unused=True)
        return tuple(g for g in grads if g is not None)

    return gradcheck(first_derivative, given + seeds, eps=eps, atol=atol, rtol=rtol, raise_exception=raise_exception)


# torch's options that change nothing here (gradbook's checks are exact, dense and on the CPU)
_GRADCHECK_OPTIONS = {
    "nondet_tol",
    "check_undefined_grad",
    "check_grad_dtypes",
    "check_batched_grad",
    "check_batched_forward_grad",
    "check_forward_ad",
    "check_backward_ad",
    "fast_mode",
    "masked",
}
_GRADGRADCHECK_OPTIONS = {
    "gen_non_contig_grad_outputs",
    "nondet_tol",
    "check_undefined_grad",
    "check_grad_dtypes",
    "check_batched_grad",
    "check_fwd_over_rev",
    "check_rev_over_rev",
    "fast_mode",
    "masked",
}


def _check_options(caller: str, given: dict, known: set) -> None:
    """An option torch does not take is refused by name, never ignored."""
    for name in given:
        if name not in known:
            raise TypeError(f"{caller}() got an unexpected keyword argument '{name}'")
