"""torch's texts for autograd's errors and warnings, kept off the reading path."""

from __future__ import annotations

import sys
import warnings
from typing import Any

from ._dtypes import type_name

FREED_ERROR = (
    "Trying to backward through the graph a second time (or directly access saved tensors after "
    "they have already been freed). Saved intermediate values of the graph are freed when you call "
    ".backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the "
    "graph a second time or if you need to access saved tensors after calling backward."
)

NON_LEAF_GRAD_WARNING = (
    "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad attribute "
    "won't be populated during autograd.backward(). If you indeed want the .grad field to be populated "
    "for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. If you access the non-leaf Tensor "
    "by mistake, make sure you access the leaf Tensor instead. See github.com/pytorch/pytorch/pull/30531 "
    "for more information."
)

GRAD_DTYPE_ERROR = (
    "attempting to assign a gradient with dtype '{got}' to a tensor with grad_dtype '{want}'. The gradient "
    "must match the tensor's grad_dtype (defaults to the tensor's dtype). You can set the tensor's grad_dtype "
    "attribute with a specific dtype, or None to allow any dtype. Set grad_dtype with caution. Diverging the "
    "dtypes of a tensor and its gradient may break downstream systems that assume they match."
)

NON_LEAF_REQUIRES_GRAD_ERROR = (
    "you can only change requires_grad flags of leaf variables. If you want to use a computed variable in a "
    "subgraph that doesn't require differentiation use var_no_grad = var.detach()."
)

SCALAR_WITH_GRAD_WARNING = (
    "Converting a tensor with requires_grad=True to a scalar may lead to unexpected behavior.\n"
    "Consider using tensor.detach() first."
)
CREATE_GRAPH_WARNING = (
    "Using backward() with create_graph=True will create a reference cycle between the parameter and its "
    "gradient which can cause a memory leak. We recommend using autograd.grad when creating the graph to "
    "avoid this. If you have to use this function, make sure to reset the .grad fields of your parameters "
    "to None after use to break the cycle and avoid the leak."
)

VIEW_OF_LEAF_INPLACE_ERROR = "a view of a leaf Variable that requires grad is being used in an in-place operation."
OVERLAP_ERROR = (
    "unsupported operation: more than one element of the written-to tensor refers to a single memory "
    "location. Please clone() the tensor before performing the operation."
)

LEAF_INPLACE_ERROR = "a leaf Variable that requires grad is being used in an in-place operation."
INFERENCE_SAVED_ERROR = (
    "Inference tensors cannot be saved for backward. Please do not use Tensors created in inference mode in "
    "computation tracked by autograd. To work around this, you can make a clone to get a normal tensor and use it "
    "in autograd, or use `torch.no_grad()` instead of `torch.inference_mode()`."
)
INFERENCE_INPLACE_ERROR = (
    "Inplace update to inference tensor outside InferenceMode is not allowed.You can make a clone to get a normal "
    "tensor before doing inplace update.See https://github.com/pytorch/rfcs/pull/17 for more details."
)
INFERENCE_VERSION_ERROR = "Inference tensors do not track version counter."
INFERENCE_REQUIRES_GRAD_ERROR = "Setting requires_grad=True on inference tensor outside InferenceMode is not allowed."


def version_error(t: Any, version: int, creator: Any, output: int = 0) -> RuntimeError:
    """torch's error for a saved tensor changed in place; ``creator`` made it (None for a leaf), as
    its output number ``output``."""
    name = "CPUBoolType" if t._array.dtype == bool else type_name(t._array.dtype)  # torch's names, bool's too
    what = f"[{name} [{', '.join(map(str, t._array.shape))}]]"
    if creator is not None:  # torch drops "Backward0" from the name only: "of Exp", "of Clamp1"
        what += f", which is output {output} of {creator.name().removesuffix('Backward0').replace('Backward', '')},"
    return RuntimeError(
        "one of the variables needed for gradient computation has been modified by an "
        f"inplace operation: {what} is at version {t._version}; expected version {version} "
        "instead. Hint: the saved value changed after it was used; compute on a copy "
        "(.clone()) or make the change after backward()."
    )


def type_of(value: Any) -> str:
    """A type's name as torch's C++ messages print it (``float``, ``numpy.ndarray``)."""
    t = type(value)
    heap = t.__flags__ & (1 << 9)  # a class written in Python: C's tp_name is its bare name
    return t.__name__ if heap or t.__module__ == "builtins" else f"{t.__module__}.{t.__name__}"


_warned: set[str] = set()


def warn_once(message: str) -> None:
    """Warn once per process (as torch's TORCH_WARN_ONCE), at the user's line that called gradbook."""
    if message not in _warned:
        _warned.add(message)
        frame, level = sys._getframe(1), 2
        while frame is not None and frame.f_globals.get("__name__", "").startswith("gradbook"):
            frame, level = frame.f_back, level + 1
        warnings.warn(message, UserWarning, stacklevel=level)


def check_hook_value(hook: Any, new: Any, old: Any) -> None:
    """torch's errors for a tensor hook that returned a gradient (array ``new``) of another size or
    dtype than the one it was given (``old``)."""
    if new.dtype != old.dtype:  # torch checks the type first (check_variable_result)
        raise RuntimeError(
            f"hook '{hook_name(hook)}' has changed the type of value (was {type_name(old.dtype)} "
            f"got {type_name(new.dtype)})"
        )
    if new.shape != old.shape:
        raise RuntimeError(f"hook '{hook_name(hook)}' has changed the size of value")


def hook_result(hook: Any, result: Any, expected: int) -> tuple | None:
    """A node hook's result, checked as torch does: None, or a tuple of ``expected`` gradients."""
    if result is None:
        return None
    if not isinstance(result, tuple):
        raise TypeError(f"expected tuple, but hook returned '{type(result).__name__}'")
    if len(result) != expected:
        raise RuntimeError(
            f"hook '{hook_name(hook)}' has returned an incorrect number of values "
            f"(got {len(result)}, but expected {expected})"
        )
    return result


def hook_name(hook: Any) -> str:
    return getattr(hook, "__name__", type(hook).__name__)
