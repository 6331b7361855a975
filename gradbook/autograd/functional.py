"""``gradbook.autograd.functional``, as ``torch.autograd.functional``: whole derivatives of a function.

Each one calls ``func`` on fresh copies of ``inputs`` and differentiates it with
``autograd.grad``: ``jacobian`` row by row (one vector-Jacobian product per output element),
``hessian`` as the Jacobian of the gradient, ``vjp``/``vhp`` as one backward pass, and
``jvp``/``hvp`` by the double-backward trick (gradbook has no forward mode): the vᵀJ of a
zero vector u is linear in u, and differentiating it with respect to u gives J v.

The shapes are torch's: for one input and one output the Jacobian is one tensor of shape
``output.shape + input.shape``; with a tuple of inputs (or outputs) it is a tuple (of tuples).

>>> import gradbook as torch
>>> from gradbook.autograd.functional import jacobian, hessian
>>> x = torch.tensor([1.0, 2.0])
>>> jacobian(lambda x: x**2, x)           # diag(2x)
tensor([[2., 0.],
        [0., 4.]])
>>> hessian(lambda x: (x**3).sum(), x)    # diag(6x)
tensor([[ 6.,  0.],
        [ 0., 12.]])
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .._arguments import stack
from .._factories import zeros_like
from ..tensor import Tensor
from .engine import grad
from .grad_mode import enable_grad, is_grad_enabled, set_grad_enabled

__all__ = ["vjp", "jvp", "jacobian", "hessian", "hvp", "vhp"]


# ---------------------------------------------------------------- torch's helpers, in its words


def _as_tuple(inp: Any, arg_name: str, fn_name: str) -> tuple[bool, tuple]:
    """``(was it a tuple, as a tuple)``, checking that it holds only tensors."""
    is_tuple = isinstance(inp, tuple)
    inp = inp if is_tuple else (inp,)
    for i, el in enumerate(inp):
        if not isinstance(el, Tensor):
            where = f"value at index {i}" if is_tuple else f"given {arg_name}"
            raise TypeError(
                f"The {arg_name} given to {fn_name} must be either a Tensor or a tuple of Tensors but the"
                f" {where} has type {type(el)}."
            )
    return is_tuple, inp


def _tuple_postprocess(res: Any, to_unpack: Any) -> Any:
    """Unwrap the one-element tuples the caller did not give: a tensor in, a tensor out."""
    if isinstance(to_unpack, tuple):
        if not to_unpack[1]:
            res = tuple(el[0] for el in res)
        if not to_unpack[0]:
            res = res[0]
    elif not to_unpack:
        res = res[0]
    return res


def _grad_preprocess(inputs: tuple, create_graph: bool, need_graph: bool) -> tuple:
    """Fresh inputs to differentiate: still connected to the caller's graph under create_graph."""
    return tuple(
        inp.view_as(inp) if create_graph and inp.requires_grad else inp.detach().requires_grad_(need_graph)
        for inp in inputs
    )


def _grad_postprocess(inputs: tuple, create_graph: bool) -> tuple:
    """Detach the results unless create_graph asked for differentiable ones (nested tuples too)."""
    if isinstance(inputs[0], Tensor):
        return inputs if create_graph else tuple(inp.detach() for inp in inputs)
    return tuple(_grad_postprocess(inp, create_graph) for inp in inputs)


def _validate_v(v: tuple, other: tuple, is_other_tuple: bool) -> None:
    if len(other) != len(v):
        if is_other_tuple:
            raise RuntimeError(f"v is a tuple of invalid length: should be {len(other)} but got {len(v)}.")
        raise RuntimeError("The given v should contain a single Tensor.")
    for idx, (el_v, el_other) in enumerate(zip(v, other)):
        if el_v.size() != el_other.size():
            prepend = f"Entry {idx} in " if is_other_tuple else ""
            raise RuntimeError(f"{prepend}v has invalid size: should be {el_other.size()} but got {el_v.size()}.")


_INDEPENDENT = {  # strict mode's complaints, by what was found not to require grad
    "hessian": "The hessian of the user-provided function with respect to input {i} is independent of the "
    "input. This is not allowed in strict mode. You should ensure that your function is thrice "
    "differentiable and that the hessian depends on the inputs.",
    "jacobian": "While computing the hessian, found that the jacobian of the user-provided function with "
    "respect to input {i} is independent of the input. This is not allowed in strict mode. You should "
    "ensure that your function is twice differentiable and that the jacobian depends on the inputs (this "
    "would be violated by a linear function for example).",
    "grad_inputs": "The gradient with respect to input {i} is independent of the inputs of the user-provided "
    "function. This is not allowed in strict mode.",
    "outputs": "Output {i} of the user-provided function does not require gradients. The outputs must be "
    "computed in a differentiable manner from the input when running in strict mode.",
}


def _check_requires_grad(inputs: tuple, input_type: str, strict: bool) -> None:
    if not strict:
        return
    for i, inp in enumerate(inputs):
        if inp is None:
            raise RuntimeError(
                f"The output of the user-provided function is independent of input {i}. This is not allowed in "
                "strict mode."
            )
        if not inp.requires_grad:
            raise RuntimeError(_INDEPENDENT[input_type].format(i=i))


def _autograd_grad(
    outputs: tuple, inputs: tuple, grad_outputs: tuple | None = None, create_graph: bool = False, retain_graph=None
) -> tuple:
    """``autograd.grad`` over the outputs that require grad (None for every input if none does)."""
    grad_outputs = (None,) * len(outputs) if grad_outputs is None else grad_outputs
    pairs = [(out, g) for out, g in zip(outputs, grad_outputs) if out is not None and out.requires_grad]
    if not pairs:
        return (None,) * len(inputs)

    return grad(
        [out for out, _ in pairs],
        inputs,
        [g for _, g in pairs],
        allow_unused=True,
        create_graph=create_graph,
        retain_graph=retain_graph,
    )


_FILL_ERRORS = {
    "back": "The output of the user-provided function is independent of input {i}. This is not allowed in strict mode.",
    "back_trick": "The gradient with respect to the input is independent of entry {i} in the grad_outputs when "
    "using the double backward trick to compute forward mode gradients. This is not allowed in strict mode.",
    "double_back": "The jacobian of the user-provided function is independent of input {i}. This is not "
    "allowed in strict mode.",
    "double_back_trick": "The hessian of the user-provided function is independent of entry {i} in the "
    "grad_jacobian. This is not allowed in strict mode as it prevents from using the double backward trick to "
    "replace forward mode AD.",
}


def _fill_in_zeros(grads: tuple, refs: tuple, strict: bool, create_graph: bool, stage: str) -> tuple:
    """Zeros (shaped as ``refs``) where a gradient is None: the function does not depend on it."""
    res = []
    for i, g in enumerate(grads):
        if g is None:
            if strict:
                raise RuntimeError(_FILL_ERRORS[stage].format(i=i))
            g = zeros_like(refs[i])
        elif strict and create_graph and not g.requires_grad:
            what = "hessian" if "double" in stage else "jacobian"
            raise RuntimeError(
                f"The {what} of the user-provided function is independent of input {i}. This is not allowed in "
                "strict mode when create_graph=True."
            )
        res.append(g)
    return tuple(res)


def _prepare_v(v: Any, against: tuple, is_tuple: bool, create_graph: bool, name: str, v_none_error: str) -> Any:
    if v is not None:
        _, v = _as_tuple(v, "v", name)
        v = _grad_preprocess(v, create_graph=create_graph, need_graph=False)
        _validate_v(v, against, is_tuple)
    elif len(against) != 1 or against[0].numel() != 1:
        raise RuntimeError(v_none_error)
    return v


_V_OF_INPUT = (
    "The vector v can only be None if the input to the user-provided function is a single Tensor with a single element."  # noqa: E501
)


def _single_output(outputs: tuple, is_outputs_tuple: bool, name: str) -> None:
    if is_outputs_tuple or not isinstance(outputs[0], Tensor):
        raise RuntimeError(f"The function given to {name} should return a single Tensor")
    if outputs[0].numel() != 1:
        raise RuntimeError(f"The Tensor returned by the function given to {name} should contain a single element")


# ---------------------------------------------------------------- the six functions


def vjp(func: Callable[..., Any], inputs: Any, v: Any = None, create_graph: bool = False, strict: bool = False) -> Any:
    """``(func(inputs), vᵀ·J)``: the vector-Jacobian product, one backward pass.

    >>> import gradbook as torch
    >>> out, g = torch.autograd.functional.vjp(lambda x: x**2, torch.tensor([1.0, 2.0]), torch.ones(2))
    >>> g                                     # 2x
    tensor([2., 4.])
    """
    with enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "vjp")
        inputs = _grad_preprocess(inputs, create_graph=create_graph, need_graph=True)
        is_outputs_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided function", "vjp")
        _check_requires_grad(outputs, "outputs", strict=strict)
        v = _prepare_v(
            v,
            outputs,
            is_outputs_tuple,
            create_graph,
            "vjp",
            "The vector v can only be None if the user-provided function returns a single Tensor with a single "
            "element.",
        )
    with set_grad_enabled(True if create_graph else is_grad_enabled()):
        grad_res = _autograd_grad(outputs, inputs, v, create_graph=create_graph)
        result = _fill_in_zeros(grad_res, inputs, strict, create_graph, "back")
    outputs, result = _grad_postprocess(outputs, create_graph), _grad_postprocess(result, create_graph)
    return _tuple_postprocess(outputs, is_outputs_tuple), _tuple_postprocess(result, is_inputs_tuple)


def jvp(func: Callable[..., Any], inputs: Any, v: Any = None, create_graph: bool = False, strict: bool = False) -> Any:
    """``(func(inputs), J·v)``: the Jacobian-vector product, by the double-backward trick.

    >>> import gradbook as torch
    >>> out, jv = torch.autograd.functional.jvp(lambda x: x**2, torch.tensor([1.0, 2.0]), torch.ones(2))
    >>> jv                                    # 2x · 1
    tensor([2., 4.])
    """
    with enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jvp")
        inputs = _grad_preprocess(inputs, create_graph=create_graph, need_graph=True)
        v = _prepare_v(v, inputs, is_inputs_tuple, create_graph, "jvp", _V_OF_INPUT)
        is_outputs_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided function", "jvp")
        _check_requires_grad(outputs, "outputs", strict=strict)
        grad_outputs = tuple(zeros_like(out, requires_grad=True) for out in outputs)  # u, in uᵀJ
        grad_inputs = _autograd_grad(outputs, inputs, grad_outputs, create_graph=True)
        _check_requires_grad(grad_inputs, "grad_inputs", strict=strict)
    with set_grad_enabled(True if create_graph else is_grad_enabled()):
        grad_res = _autograd_grad(grad_inputs, grad_outputs, v, create_graph=create_graph)
        result = _fill_in_zeros(grad_res, outputs, strict, create_graph, "back_trick")
    outputs, result = _grad_postprocess(outputs, create_graph), _grad_postprocess(result, create_graph)
    return _tuple_postprocess(outputs, is_outputs_tuple), _tuple_postprocess(result, is_outputs_tuple)


def jacobian(
    func: Callable[..., Any],
    inputs: Any,
    create_graph: bool = False,
    strict: bool = False,
    vectorize: bool = False,
    strategy: str = "reverse-mode",
) -> Any:
    """The Jacobian of ``func`` at ``inputs``: entry ``[i..., j...]`` is ∂out[i...]/∂in[j...].

    It is computed row by row, one backward pass per output element, whatever ``vectorize`` and
    ``strategy`` say (they give the same numbers in torch; gradbook has no vmap or forward mode).

    >>> import gradbook as torch
    >>> torch.autograd.functional.jacobian(lambda x: x.exp(), torch.zeros(2))
    tensor([[1., 0.],
            [0., 1.]])
    """
    if strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError(
            'Expected strategy to be either "forward-mode" or "reverse-mode". Hint: If your function has more '
            'outputs than inputs, "forward-mode" tends to be more performant. Otherwise, prefer to use '
            '"reverse-mode".'
        )
    if strategy == "forward-mode":
        if create_graph:
            raise NotImplementedError(
                'gradbook.autograd.functional.jacobian: `create_graph=True` and `strategy="forward-mode"` are not '
                'supported together (yet). Please either set `create_graph=False` or `strategy="reverse-mode"`.'
            )
        if strict:
            raise RuntimeError(
                'gradbook.autograd.functional.jacobian: `strict=True` and `strategy="forward-mode"` are not supported '
                'together (yet). Please either set `strict=False` or `strategy="reverse-mode"`.'
            )
        if not vectorize:
            raise NotImplementedError(
                "Computing Jacobian using forward-AD or forward-over-reverse Hessian isonly implemented for "
                "`vectorize=True`."
            )
    if vectorize and strict:
        raise RuntimeError(
            "gradbook.autograd.functional.jacobian: `strict=True` and `vectorized=True` are not supported together. "
            "Please either set `strict=False` or `vectorize=False`."
        )
    with enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
        inputs = _grad_preprocess(inputs, create_graph=create_graph, need_graph=True)
        is_outputs_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided function", "jacobian")
        _check_requires_grad(outputs, "outputs", strict=strict)
        jacobian: tuple = ()
        for i, out in enumerate(outputs):
            rows: tuple[list, ...] = tuple([] for _ in inputs)  # for each input, one row per out element
            for j in range(out.numel()):
                vj = _autograd_grad((out.reshape(-1)[j],), inputs, retain_graph=True, create_graph=create_graph)
                for k, (row, g, inp) in enumerate(zip(rows, vj, inputs)):
                    if g is None:
                        if strict:
                            raise RuntimeError(
                                f"Output {i} of the user-provided function is independent of input {k}. This is not "
                                "allowed in strict mode."
                            )
                        g = zeros_like(inp)
                    elif strict and create_graph and not g.requires_grad:
                        raise RuntimeError(
                            f"The jacobian of the user-provided function is independent of input {i}. This is not "
                            "allowed in strict mode when create_graph=True."
                        )
                    row.append(g)
            jacobian += (
                tuple(stack(row, dim=0).view(tuple(out.shape) + tuple(inp.shape)) for row, inp in zip(rows, inputs)),
            )
        jacobian = _grad_postprocess(jacobian, create_graph)
        return _tuple_postprocess(jacobian, (is_outputs_tuple, is_inputs_tuple))


def hessian(
    func: Callable[..., Any],
    inputs: Any,
    create_graph: bool = False,
    strict: bool = False,
    vectorize: bool = False,
    outer_jacobian_strategy: str = "reverse-mode",
) -> Any:
    """The Hessian of a function with one-element output: the Jacobian of its gradient. With a
    tuple of inputs, entry ``[i][j]`` holds ∂²f/∂in_i∂in_j (shape ``in_i.shape + in_j.shape``).

    >>> import gradbook as torch
    >>> torch.autograd.functional.hessian(lambda x: (x * x).sum(), torch.ones(2))   # 2·I
    tensor([[2., 0.],
            [0., 2.]])
    """
    is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "hessian")
    if outer_jacobian_strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode".')

    def ensure_single_output_function(*inp: Tensor) -> Tensor:
        out = func(*inp)
        is_out_tuple, t_out = _as_tuple(out, "outputs of the user-provided function", "hessian")
        _check_requires_grad(t_out, "outputs", strict=strict)
        _single_output(t_out, is_out_tuple, "hessian")
        return out.squeeze()

    def jac_func(*inp: Tensor) -> Any:
        jac = jacobian(ensure_single_output_function, inp, create_graph=True)
        _check_requires_grad(jac, "jacobian", strict=strict)
        return jac

    res = jacobian(
        jac_func,
        inputs,
        create_graph=create_graph,
        strict=strict,
        vectorize=vectorize,
        strategy=outer_jacobian_strategy,
    )
    return _tuple_postprocess(res, (is_inputs_tuple, is_inputs_tuple))


def vhp(func: Callable[..., Any], inputs: Any, v: Any = None, create_graph: bool = False, strict: bool = False) -> Any:
    """``(func(inputs), vᵀ·H)``: two backward passes through a one-element function.

    >>> import gradbook as torch
    >>> _, r = torch.autograd.functional.vhp(lambda x: (x**3).sum(), torch.tensor([1.0, 2.0]), torch.ones(2))
    >>> r                                     # 6x
    tensor([ 6., 12.])
    """
    return _second_order(func, inputs, v, create_graph, strict, "vhp")


def hvp(func: Callable[..., Any], inputs: Any, v: Any = None, create_graph: bool = False, strict: bool = False) -> Any:
    """``(func(inputs), H·v)``, by the double-backward trick (for a Hessian, the same as vᵀ·H).

    >>> import gradbook as torch
    >>> _, r = torch.autograd.functional.hvp(lambda x: (x**3).sum(), torch.tensor([1.0, 2.0]), torch.ones(2))
    >>> r                                     # 6x
    tensor([ 6., 12.])
    """
    return _second_order(func, inputs, v, create_graph, strict, "hvp")


def _second_order(func: Callable[..., Any], inputs: Any, v: Any, create_graph: bool, strict: bool, name: str) -> Any:
    """The body of ``vhp`` and ``hvp`` (torch's, which repeats it in both)."""
    with enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", name)
        inputs = _grad_preprocess(inputs, create_graph=create_graph, need_graph=True)
        v = _prepare_v(v, inputs, is_inputs_tuple, create_graph, name, _V_OF_INPUT)
        is_outputs_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided function", name)
        _check_requires_grad(outputs, "outputs", strict=strict)
        _single_output(outputs, is_outputs_tuple, name)
        jac = _autograd_grad(outputs, inputs, create_graph=True)
        _check_requires_grad(jac, "jacobian", strict=strict)
        if name == "hvp":  # differentiate uᵀH (u = 0) with respect to u: H v
            grad_jac = tuple(zeros_like(inp, requires_grad=True) for inp in inputs)
            double_back = _autograd_grad(jac, inputs, grad_jac, create_graph=True)
            _check_requires_grad(jac, "hessian", strict=strict)
    with set_grad_enabled(True if create_graph else is_grad_enabled()):
        if name == "hvp":
            grad_res = _autograd_grad(double_back, grad_jac, v, create_graph=create_graph)
            result = _fill_in_zeros(grad_res, inputs, strict, create_graph, "double_back_trick")
        else:
            grad_res = _autograd_grad(jac, inputs, v, create_graph=create_graph)
            result = _fill_in_zeros(grad_res, inputs, strict, create_graph, "double_back")
    outputs, result = _grad_postprocess(outputs, create_graph), _grad_postprocess(result, create_graph)
    return _tuple_postprocess(outputs, is_outputs_tuple), _tuple_postprocess(result, is_inputs_tuple)
