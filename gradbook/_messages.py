"""torch's texts for autograd's errors and warnings, kept off the reading path."""

from __future__ import annotations

import re
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
    what = f"[{type_name(t._array.dtype)} [{', '.join(map(str, t._array.shape))}]]"
    if creator is not None:  # torch names the op without "Backward0": "output 0 of Exp"
        what += f", which is output {output} of {re.sub(r'Backward[0-9]*$', '', creator.name())},"
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
