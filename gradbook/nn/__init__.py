"""gradbook.nn: the layers, containers and losses of torch.nn that teaching programs use.

>>> import gradbook as torch
>>> net = torch.nn.Sequential(torch.nn.Linear(2, 3), torch.nn.BatchNorm1d(3), torch.nn.ReLU())
>>> net
Sequential(
  (0): Linear(in_features=2, out_features=3, bias=True)
  (1): BatchNorm1d(3, eps=1e-05, momentum=0.1, affine=True, bias=True, track_running_stats=True)
  (2): ReLU()
)
>>> list(net.state_dict())
['0.weight', '0.bias', '1.weight', '1.bias', '1.running_mean', '1.running_var', '1.num_batches_tracked']
"""

from __future__ import annotations

import math
import warnings
from collections import OrderedDict, namedtuple
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

from .. import _device, _factories
from .._dtypes import dtype as _dtype
from .._dtypes import float32, float64, to_dtype, type_name
from ..autograd.grad_mode import _State, no_grad
from ..autograd.graph import RemovableHandle
from ..tensor import Tensor
from . import _ops, functional, init, utils

__all__ = [
    "AdaptiveAvgPool2d",
    "AvgPool2d",
    "BCELoss",
    "BCEWithLogitsLoss",
    "BatchNorm1d",
    "BatchNorm2d",
    "Conv1d",
    "Conv2d",
    "CrossEntropyLoss",
    "Dropout",
    "ELU",
    "Embedding",
    "Flatten",
    "GELU",
    "Hardtanh",
    "HuberLoss",
    "Identity",
    "L1Loss",
    "LayerNorm",
    "LeakyReLU",
    "Linear",
    "LogSigmoid",
    "LogSoftmax",
    "MSELoss",
    "MaxPool2d",
    "Mish",
    "Module",
    "ModuleDict",
    "ModuleList",
    "NLLLoss",
    "Parameter",
    "ReLU",
    "ReLU6",
    "Sequential",
    "SiLU",
    "Sigmoid",
    "SmoothL1Loss",
    "Softmax",
    "Softplus",
    "Softsign",
    "Tanh",
    "functional",
    "init",
    "utils",
]


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


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    """What ``load_state_dict`` returns: the keys it missed and the keys it did not know."""

    def __repr__(self) -> str:
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return f"_IncompatibleKeys(missing_keys={self.missing_keys}, unexpected_keys={self.unexpected_keys})"

    __str__ = __repr__


def _addindent(text: str, spaces: int) -> str:
    """Indent every line but the first (a child's repr inside its parent's)."""
    lines = text.split("\n")
    if len(lines) == 1:
        return text
    return lines[0] + "\n" + "\n".join(" " * spaces + line for line in lines[1:])


class Module:
    """Base class of layers: attributes that are Parameters, buffers or Modules are registered in order.

    >>> import gradbook as torch
    >>> class Net(torch.nn.Module):
    ...     def __init__(self):
    ...         super().__init__()
    ...         self.fc = torch.nn.Linear(2, 1)
    ...     def forward(self, x):
    ...         return self.fc(x)
    >>> [name for name, _ in Net().named_parameters()]
    ['fc.weight', 'fc.bias']
    """

    training: bool
    _version: int = 1  # of the state_dict layout, kept in state_dict()._metadata as torch does
    _optional_keys: tuple[str, ...] = ()  # added in a later version: a state_dict of an earlier one may lack them

    def __init__(self) -> None:
        for name in ("_parameters", "_buffers", "_modules"):
            object.__setattr__(self, name, OrderedDict())
        object.__setattr__(self, "_non_persistent_buffers", set())
        for name in ("_forward_pre_hooks", "_forward_hooks", "_backward_hooks"):
            object.__setattr__(self, name, OrderedDict())
        object.__setattr__(self, "training", True)

    # ------------------------------------------------ registration

    def __setattr__(self, name: str, value: Any) -> None:
        if "_parameters" not in self.__dict__:  # before Module.__init__: plain attributes only
            if isinstance(value, (Parameter, Module)):
                kind = "parameters" if isinstance(value, Parameter) else "module"
                raise AttributeError(f"cannot assign {kind} before Module.__init__() call")
            object.__setattr__(self, name, value)
            return
        params, buffers, modules = self._parameters, self._buffers, self._modules
        if isinstance(value, Parameter):
            self._forget(name)
            self.register_parameter(name, value)
        elif name in params:
            if value is not None:
                raise TypeError(
                    f"cannot assign '{_typename(value)}' as parameter '{name}' (gradbook.nn.Parameter or None expected)"
                )
            params[name] = None
        elif isinstance(value, Module):
            self._forget(name)
            modules[name] = value
        elif name in modules:
            if value is not None:
                raise TypeError(
                    f"cannot assign '{_typename(value)}' as child module '{name}' (gradbook.nn.Module or None expected)"
                )
            modules[name] = None
        elif name in buffers:
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(
                    f"cannot assign '{_typename(value)}' as buffer '{name}' (gradbook.Tensor or None expected)"
                )
            buffers[name] = value
        else:
            object.__setattr__(self, name, value)

    def _forget(self, name: str) -> None:
        self.__dict__.pop(name, None)
        for store in (self._parameters, self._buffers, self._modules):
            store.pop(name, None)
        self._non_persistent_buffers.discard(name)

    def __getattr__(self, name: str) -> Any:
        d = self.__dict__
        for store in ("_parameters", "_buffers", "_modules"):
            if name in d.get(store, {}):
                return d[store][name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name: str) -> None:
        for store in (self._parameters, self._buffers, self._modules):
            if name in store:
                del store[name]
                self._non_persistent_buffers.discard(name)
                return
        object.__delattr__(self, name)

    def register_parameter(self, name: str, param: Parameter | None) -> None:
        """Register ``param`` (a Parameter, or None for an absent one such as a missing bias)."""
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign parameter before Module.__init__() call")
        _check_name(name, "parameter", self)
        if param is not None and not isinstance(param, Parameter):
            raise TypeError(
                f"cannot assign '{_typename(param)}' object to parameter '{name}' "
                "(gradbook.nn.Parameter or None required)"
            )
        self._parameters[name] = param

    def register_buffer(self, name: str, tensor: Tensor | None, persistent: bool = True) -> None:
        """Register a tensor that is state but not a parameter (running statistics): it is in
        ``state_dict()`` (unless ``persistent=False``) and not in ``parameters()``."""
        if "_buffers" not in self.__dict__:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        _check_name(name, "buffer", self)
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(
                f"cannot assign '{_typename(tensor)}' object to buffer '{name}' (torch Tensor or None required)"
            )
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers.discard(name)
        else:
            self._non_persistent_buffers.add(name)

    def add_module(self, name: str, module: Module | None) -> None:
        """Register a child module under ``name``."""
        if module is not None and not isinstance(module, Module):
            raise TypeError(f"{_typename(module)} is not a Module subclass")
        _check_name(name, "module", self)
        self._modules[name] = module

    register_module = add_module

    # ------------------------------------------------ calling

    def forward(self, *args: Any) -> Any:
        raise NotImplementedError(f'Module [{type(self).__name__}] is missing the required "forward" function')

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        for hook in list(self._forward_pre_hooks.values()):
            result = hook(self, args)
            if result is not None:
                args = result if isinstance(result, tuple) else (result,)
        backward_hook = _BackwardHook(self, args) if self._backward_hooks and _State.enabled else None
        if backward_hook is not None:
            args = backward_hook.wrap_inputs(args)
        out = self.forward(*args, **kwargs)
        for hook in list(self._forward_hooks.values()):
            result = hook(self, args, out)
            if result is not None:
                out = result
        return backward_hook.wrap_outputs(out) if backward_hook is not None else out

    def register_forward_pre_hook(self, hook: Callable[..., Any], *, prepend: bool = False) -> RemovableHandle:
        """Call ``hook(module, args)`` before each forward; a returned value replaces the args."""
        return _add_hook(self._forward_pre_hooks, hook, prepend)

    def register_forward_hook(self, hook: Callable[..., Any], *, prepend: bool = False) -> RemovableHandle:
        """Call ``hook(module, args, output)`` after each forward; a returned value replaces the output."""
        return _add_hook(self._forward_hooks, hook, prepend)

    def register_full_backward_hook(self, hook: Callable[..., Any], prepend: bool = False) -> RemovableHandle:
        """Call ``hook(module, grad_input, grad_output)`` when backward has the gradients of the
        module's inputs (``grad_input``, one per positional argument, None where none is needed)
        from those of its outputs (``grad_output``). A returned tuple replaces grad_input.

        As in torch, the module's outputs and its inputs that require grad pass through a
        ``BackwardHookFunctionBackward`` node, where the gradients are read.
        """
        return _add_hook(self._backward_hooks, hook, prepend)

    # ------------------------------------------------ what the module holds

    def _named_members(self, store: str, prefix: str, recurse: bool, remove_duplicate: bool = True) -> Iterator:
        seen: set[int] = set()
        modules = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate) if recurse else [(prefix, self)]
        for module_prefix, module in modules:
            for name, value in getattr(module, store).items():
                if value is None or (remove_duplicate and id(value) in seen):
                    continue
                seen.add(id(value))
                yield module_prefix + ("." if module_prefix else "") + name, value

    def named_parameters(
        self, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True
    ) -> Iterator[tuple[str, Parameter]]:
        """(name, parameter) pairs: ``"weight"``, ``"0.bias"``, ``"fc1.weight"``, in registration order."""
        yield from self._named_members("_parameters", prefix, recurse, remove_duplicate)

    def parameters(self, recurse: bool = True) -> Iterator[Parameter]:
        """Every trainable tensor, in registration order: what an optimizer is given."""
        for _, p in self.named_parameters(recurse=recurse):
            yield p

    def named_buffers(self, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True) -> Iterator:
        """(name, buffer) pairs, as named_parameters."""
        yield from self._named_members("_buffers", prefix, recurse, remove_duplicate)

    def buffers(self, recurse: bool = True) -> Iterator[Tensor]:
        for _, b in self.named_buffers(recurse=recurse):
            yield b

    def named_children(self) -> Iterator[tuple[str, Module]]:
        """The direct submodules with their names (each once)."""
        seen: set[int] = set()
        for name, m in self._modules.items():
            if m is not None and id(m) not in seen:
                seen.add(id(m))
                yield name, m

    def children(self) -> Iterator[Module]:
        for _, m in self.named_children():
            yield m

    def named_modules(
        self, memo: set | None = None, prefix: str = "", remove_duplicate: bool = True
    ) -> Iterator[tuple[str, Module]]:
        """This module (named ``prefix``) and every submodule below it, depth first."""
        memo = set() if memo is None else memo
        if id(self) in memo and remove_duplicate:
            return
        if remove_duplicate:
            memo.add(id(self))
        yield prefix, self
        for name, m in self._modules.items():
            if m is not None:
                yield from m.named_modules(memo, prefix + ("." if prefix else "") + name, remove_duplicate)

    def modules(self) -> Iterator[Module]:
        for _, m in self.named_modules():
            yield m

    def apply(self, fn: Callable[[Module], Any]) -> Module:
        """Call ``fn`` on every submodule, children first, then on this module (``net.apply(init_weights)``)."""
        for m in self.children():
            m.apply(fn)
        fn(self)
        return self

    # ------------------------------------------------ modes and gradients

    def train(self, mode: bool = True) -> Module:
        """Training mode (Dropout drops, BatchNorm uses and updates batch statistics), or eval (``mode=False``)."""
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        object.__setattr__(self, "training", mode)
        for m in self.children():
            m.train(mode)
        return self

    def eval(self) -> Module:
        return self.train(False)

    def requires_grad_(self, requires_grad: bool = True) -> Module:
        """Start (or stop, to freeze a layer) recording operations on every parameter."""
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Forget accumulated gradients before the next backward (``.grad = None`` by default)."""
        for p in self.parameters():
            if set_to_none:
                p.grad = None
            elif p.grad is not None:
                p.grad.detach_().zero_()

    def to(self, *args: Any, **kwargs: Any) -> Module:
        """Convert floating-point parameters and buffers in place: ``to(torch.float64)``; the
        device can only be the CPU (``to("cuda")`` raises torch's "Torch not compiled with CUDA")."""
        target = None
        for arg in (*args, *kwargs.values()):
            if isinstance(arg, Tensor):
                arg = arg.dtype
            if isinstance(arg, _dtype) or arg in (float, int, bool):
                target = to_dtype(arg)
            elif arg is not None and not isinstance(arg, bool):
                _device.check(arg)
        if target is None:
            return self
        if target.numpy.kind != "f":
            raise TypeError(
                f"nn.Module.to only accepts floating point or complex dtypes, but got desired dtype={target}"
            )
        return self._apply_to_tensors(lambda t: t.to(target) if t.is_floating_point() else t)

    def float(self) -> Module:
        return self.to(float32)

    def double(self) -> Module:
        return self.to(float64)

    def cpu(self) -> Module:
        return self

    def _apply_to_tensors(self, convert: Callable[[Tensor], Tensor]) -> Module:
        for m in self.modules():
            for p in m._parameters.values():
                if p is not None:
                    with no_grad():
                        p.data = convert(p.data)  # the same Parameter object: an optimizer keeps it
                    if p.grad is not None:
                        p.grad = convert(p.grad)
            for name, b in m._buffers.items():
                if b is not None:
                    m._buffers[name] = convert(b)
        return self

    # ------------------------------------------------ saving and loading

    def state_dict(self, *, destination: Any = None, prefix: str = "", keep_vars: bool = False) -> OrderedDict:
        """Every parameter and persistent buffer by name (``"0.weight"``, ``"bn.running_mean"``),
        detached unless ``keep_vars``."""
        if destination is None:
            destination = OrderedDict()
            destination._metadata = OrderedDict()  # type: ignore[attr-defined]
        metadata = getattr(destination, "_metadata", None)
        if metadata is not None:
            metadata[prefix[:-1]] = {"version": self._version}
        for name, p in self._parameters.items():
            if p is not None:
                destination[prefix + name] = p if keep_vars else p.detach()
        for name, b in self._buffers.items():
            if b is not None and name not in self._non_persistent_buffers:
                destination[prefix + name] = b if keep_vars else b.detach()
        for name, m in self._modules.items():
            if m is not None:
                m.state_dict(destination=destination, prefix=prefix + name + ".", keep_vars=keep_vars)
        return destination

    def load_state_dict(self, state_dict: Mapping[str, Any], strict: bool = True, assign: bool = False) -> Any:
        """Copy tensors from ``state_dict`` into the parameters and buffers of the same names.

        With ``strict`` (the default), missing or unexpected keys are an error, as torch's.
        """
        if not isinstance(state_dict, Mapping):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        missing: list[str] = []
        unexpected: list[str] = []
        errors: list[str] = []
        metadata = getattr(state_dict, "_metadata", {})
        for prefix, module in self.named_modules(prefix="", remove_duplicate=True):
            version = metadata.get(prefix, {}).get("version")
            prefix = prefix + "." if prefix else ""
            local = {k: v for k, v in module._parameters.items() if v is not None}
            local.update(
                (k, v) for k, v in module._buffers.items() if v is not None and k not in module._non_persistent_buffers
            )
            for name, mine in local.items():
                key = prefix + name
                if key not in state_dict:
                    if not (name in module._optional_keys and (version is None or version < module._version)):
                        missing.append(key)  # (an older state_dict may lack a newer buffer, as in torch)
                    continue
                theirs = state_dict[key]
                if not isinstance(theirs, Tensor):
                    errors.append(
                        f'While copying the parameter named "{key}", expected gradbook.Tensor or Tensor-like object '
                        f"from checkpoint but received {type(theirs)}"
                    )
                    continue
                if theirs.shape != mine.shape:
                    errors.append(
                        f"size mismatch for {key}: copying a param with shape {theirs.shape} from checkpoint, "
                        f"the shape in current model is {mine.shape}."
                    )
                    continue
                with no_grad():
                    mine.copy_(theirs)
            for key in state_dict:
                if key.startswith(prefix):
                    head, *rest = key[len(prefix) :].split(".", 1)
                    if (head not in module._modules) if rest else (head not in local):
                        unexpected.append(key)
        if strict:
            if unexpected:
                errors.insert(
                    0, "Unexpected key(s) in state_dict: {}. ".format(", ".join(f'"{k}"' for k in unexpected))
                )
            if missing:
                errors.insert(0, "Missing key(s) in state_dict: {}. ".format(", ".join(f'"{k}"' for k in missing)))
        if errors:
            raise RuntimeError(
                "Error(s) in loading state_dict for {}:\n\t{}".format(type(self).__name__, "\n\t".join(errors))
            )
        return _IncompatibleKeys(missing, unexpected)

    # ------------------------------------------------ printing

    def extra_repr(self) -> str:
        """The text inside this module's parentheses (``in_features=2, out_features=3, bias=True``)."""
        return ""

    def _get_name(self) -> str:
        return type(self).__name__

    def __repr__(self) -> str:
        extra = self.extra_repr().split("\n") if self.extra_repr() else []
        children = [f"({name}): " + _addindent(repr(m), 2) for name, m in self._modules.items()]
        lines = extra + children
        text = self._get_name() + "("
        if lines:
            if len(extra) == 1 and not children:
                text += extra[0]
            else:
                text += "\n  " + "\n  ".join(lines) + "\n"
        return text + ")"


def _typename(value: Any) -> str:
    if isinstance(value, Tensor):
        return type_name(value._array.dtype)
    return f"{type(value).__module__}.{type(value).__qualname__}".removeprefix("builtins.")


def _check_name(name: str, kind: str, module: Module) -> None:
    if not isinstance(name, str):
        raise TypeError(f"{kind} name should be a string. Got {type(name).__name__}")
    if "." in name:
        raise KeyError(f'{kind} name can\'t contain "."')
    if name == "":
        raise KeyError(f'{kind} name can\'t be empty string ""')
    if hasattr(module, name) and name not in getattr(
        module, {"parameter": "_parameters", "buffer": "_buffers"}.get(kind, "_modules")
    ):
        raise KeyError(f"attribute '{name}' already exists")


def _add_hook(hooks: OrderedDict, hook: Callable, prepend: bool) -> RemovableHandle:
    handle = RemovableHandle(hooks, hook)
    if prepend:
        hooks.move_to_end(handle.id, last=False)
    return handle


class _BackwardHook:
    """One call of a module with full backward hooks: its inputs and outputs pass through
    identity nodes (``BackwardHookFunctionBackward``) whose pre-hooks collect the gradients."""

    def __init__(self, module: Module, args: tuple) -> None:
        self.module = module
        self.grad_inputs: list[Any] = [None] * len(args)
        self.needing: set[int] = set()  # the positions of the inputs that require grad
        self.waiting: set[int] = set()  # those whose gradient this backward pass has not brought yet
        self.grad_outputs: list[Any] = []

    def wrap_inputs(self, args: tuple) -> tuple:
        wrapped = list(args)
        for i, a in enumerate(args):
            if isinstance(a, Tensor) and a.requires_grad:
                wrapped[i] = _ops.BackwardHookFunctionBackward.apply(a)
                wrapped[i].grad_fn.register_prehook(lambda grads, i=i: self._input_ready(i, grads))
                self.needing.add(i)
        return tuple(wrapped)

    def wrap_outputs(self, out: Any) -> Any:
        outs = out if isinstance(out, tuple) else (out,)
        self.grad_outputs = [None] * len(outs)
        wrapped = list(outs)
        for i, o in enumerate(outs):
            if isinstance(o, Tensor) and o.requires_grad:
                wrapped[i] = _ops.BackwardHookFunctionBackward.apply(o)
                wrapped[i].grad_fn.register_prehook(lambda grads, i=i: self._output_ready(i, grads))
        return tuple(wrapped) if isinstance(out, tuple) else wrapped[0]

    def _output_ready(self, i: int, grads: tuple) -> None:
        self.grad_outputs[i] = grads[0]
        self.waiting = set(self.needing)  # a new pass (the outputs' nodes run before the inputs')
        if not self.needing:  # no input needs a gradient: the hooks fire now, with grad_input None
            warnings.warn(
                "Full backward hook is firing when gradients are computed with respect to module outputs since no "
                "inputs require gradients. See https://docs.pytorch.org/docs/main/generated/torch.nn.Module.html"
                "#torch.nn.Module.register_full_backward_hook for more details.",
                UserWarning,
                stacklevel=2,
            )
            self._call_hooks()

    def _input_ready(self, i: int, grads: tuple) -> tuple | None:
        self.grad_inputs[i] = grads[0]
        self.waiting.discard(i)
        if self.waiting:
            return None
        replaced = self._call_hooks()
        return None if replaced is None else (replaced[i],)

    def _call_hooks(self) -> tuple | None:
        replaced = None
        for hook in list(self.module._backward_hooks.values()):
            result = hook(self.module, tuple(self.grad_inputs), tuple(self.grad_outputs))
            if result is not None:
                result = result if isinstance(result, tuple) else (result,)
                if len(result) != len(self.grad_inputs):
                    raise RuntimeError(
                        f"Backward hook returned an invalid number of grad_input, got {len(result)}, "
                        f"but expected {len(self.grad_inputs)}"
                    )
                self.grad_inputs = list(result)
                replaced = result
        return replaced


# ================================================================ layers


class Linear(Module):
    """y = x Wᵀ + b, with W of shape (out_features, in_features).

    Weights and bias start uniform in ±1/√in_features, drawn as torch draws them (the same seed
    gives torch's numbers): ``kaiming_uniform_(weight, a=√5)``, then ``uniform_`` for the bias.
    """

    def __init__(self, in_features: int, out_features: int, bias: bool = True) -> None:
        super().__init__()
        self.in_features, self.out_features = in_features, out_features
        self.weight = Parameter(_factories.empty(out_features, in_features))
        if bias:
            self.bias = Parameter(_factories.empty(out_features))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Draw the weights again, as a new Linear would."""
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))  # = uniform in ±1/√in_features
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return functional.linear(input, self.weight, self.bias)

    def extra_repr(self) -> str:
        return f"in_features={self.in_features}, out_features={self.out_features}, bias={self.bias is not None}"


class Identity(Module):
    """Its input, unchanged (a placeholder layer)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__()

    def forward(self, input: Any) -> Any:  # noqa: A002
        return input


class Flatten(Module):
    """Dimensions start_dim..end_dim joined into one: (N, C, H, W) → (N, C·H·W) by default."""

    def __init__(self, start_dim: int = 1, end_dim: int = -1) -> None:
        super().__init__()
        self.start_dim, self.end_dim = start_dim, end_dim

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return input.flatten(self.start_dim, self.end_dim)

    def extra_repr(self) -> str:
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


class Dropout(Module):
    """In training, each element zeroed with probability p and the others scaled by 1/(1-p); in eval, the input."""

    def __init__(self, p: float = 0.5, inplace: bool = False) -> None:
        super().__init__()
        if p < 0 or p > 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p, self.inplace = p, inplace

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return functional.dropout(input, self.p, self.training, self.inplace)

    def extra_repr(self) -> str:
        return f"p={self.p}, inplace={self.inplace}"


class _ConvNd(Module):
    """Conv1d and Conv2d: the weight (out, in/groups, *kernel) and bias start as torch's do
    (kaiming_uniform_ with a=√5, then uniform in ±1/√fan_in), from torch's random numbers."""

    _nd = 2

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        kernel_size: Any,
        stride: Any = 1,
        padding: Any = 0,
        dilation: Any = 1,
        groups: int = 1,
        bias: bool = True,
        padding_mode: str = "zeros",
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        if padding_mode != "zeros":
            raise NotImplementedError(f"gradbook pads convolutions with zeros only, not padding_mode={padding_mode!r}")
        nd = self._nd
        self.in_channels, self.out_channels, self.groups, self.padding_mode = (
            in_channels,
            out_channels,
            groups,
            padding_mode,
        )
        self.kernel_size, self.stride, self.dilation = (
            functional._ints(v, nd) for v in (kernel_size, stride, dilation)
        )
        self.padding = padding if isinstance(padding, str) else functional._ints(padding, nd)
        self.output_padding, self.transposed = (0,) * nd, False
        shape = (out_channels, in_channels // groups, *self.kernel_size)
        self.weight = Parameter(_factories.empty(shape, dtype=dtype, device=device))
        if bias:
            self.bias = Parameter(_factories.empty(out_channels, dtype=dtype, device=device))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Draw the weights again, as a new layer would."""
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            if fan_in != 0:
                bound = 1 / math.sqrt(fan_in)
                init.uniform_(self.bias, -bound, bound)

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        conv = functional.conv2d if self._nd == 2 else functional.conv1d
        return conv(input, self.weight, self.bias, self.stride, self.padding, self.dilation, self.groups)

    def extra_repr(self) -> str:
        nd = self._nd
        text = f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, stride={self.stride}"
        if self.padding != (0,) * nd:
            text += f", padding={self.padding}"
        if self.dilation != (1,) * nd:
            text += f", dilation={self.dilation}"
        if self.groups != 1:
            text += f", groups={self.groups}"
        if self.bias is None:
            text += ", bias=False"
        return text


class Conv2d(_ConvNd):
    """A 2-D convolution layer: (N, in_channels, H, W) → (N, out_channels, H', W')."""

    _nd = 2


class Conv1d(_ConvNd):
    """A 1-D convolution layer: (N, in_channels, L) → (N, out_channels, L')."""

    _nd = 1


class MaxPool2d(Module):
    """The largest value of each window."""

    def __init__(
        self,
        kernel_size: Any,
        stride: Any = None,
        padding: Any = 0,
        dilation: Any = 1,
        return_indices: bool = False,
        ceil_mode: bool = False,
    ) -> None:
        super().__init__()
        self.kernel_size, self.stride = kernel_size, stride if stride is not None else kernel_size
        self.padding, self.dilation, self.return_indices, self.ceil_mode = padding, dilation, return_indices, ceil_mode

    def forward(self, input: Tensor) -> Any:  # noqa: A002
        return functional.max_pool2d(
            input, self.kernel_size, self.stride, self.padding, self.dilation, self.ceil_mode, self.return_indices
        )

    def extra_repr(self) -> str:
        return (
            f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}, dilation={self.dilation}, "
            f"ceil_mode={self.ceil_mode}"
        )


class AvgPool2d(Module):
    """The mean of each window."""

    def __init__(
        self,
        kernel_size: Any,
        stride: Any = None,
        padding: Any = 0,
        ceil_mode: bool = False,
        count_include_pad: bool = True,
        divisor_override: Any = None,
    ) -> None:
        super().__init__()
        self.kernel_size, self.stride = kernel_size, stride if stride is not None else kernel_size
        self.padding, self.ceil_mode = padding, ceil_mode
        self.count_include_pad, self.divisor_override = count_include_pad, divisor_override

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return functional.avg_pool2d(
            input,
            self.kernel_size,
            self.stride,
            self.padding,
            self.ceil_mode,
            self.count_include_pad,
            self.divisor_override,
        )

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AdaptiveAvgPool2d(Module):
    """The mean over each channel's H × W (output_size 1)."""

    def __init__(self, output_size: Any) -> None:
        super().__init__()
        self.output_size = output_size

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return functional.adaptive_avg_pool2d(input, self.output_size)

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"


class LayerNorm(Module):
    """Normalise each row over its last dimensions (``normalized_shape``) to mean 0 and variance 1,
    then scale by ``weight`` and shift by ``bias`` (each of ``normalized_shape``), as in a
    transformer block. The same in training and eval: no running statistics.
    """

    def __init__(
        self,
        normalized_shape: Any,
        eps: float = 1e-5,
        elementwise_affine: bool = True,
        bias: bool = True,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
        self.normalized_shape, self.eps, self.elementwise_affine = shape, eps, elementwise_affine
        if elementwise_affine:
            self.weight = Parameter(_factories.ones(shape, dtype=dtype, device=device))
            if bias:
                self.bias = Parameter(_factories.zeros(shape, dtype=dtype, device=device))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return functional.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        has_bias = self.bias is not None
        return f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}, bias={has_bias}"


class BatchNorm1d(Module):
    """Normalise each channel (dimension 1 of (N, C) or (N, C, L)) to mean 0 and variance 1, then
    scale by ``weight`` and shift by ``bias``.

    In training it uses the batch's statistics and updates the buffers ``running_mean`` and
    ``running_var`` (unbiased) with ``momentum`` (None: their cumulative average), counting
    ``num_batches_tracked``; in eval it uses the running statistics.
    """

    _version = 2
    _input_dims, _input_text = (2, 3), "2D or 3D"
    _optional_keys = ("num_batches_tracked",)  # as torch: a plain dict (no _metadata) may omit it

    def __init__(
        self,
        num_features: int,
        eps: float = 1e-5,
        momentum: float | None = 0.1,
        affine: bool = True,
        track_running_stats: bool = True,
        device: Any = None,
        dtype: Any = None,
        *,
        bias: bool = True,
    ) -> None:
        super().__init__()
        self.num_features, self.eps, self.momentum = num_features, eps, momentum
        self.affine, self.track_running_stats = affine, track_running_stats
        if affine:
            self.weight = Parameter(_factories.ones(num_features, dtype=dtype))
            if bias:
                self.bias = Parameter(_factories.zeros(num_features, dtype=dtype))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        if track_running_stats:
            self.register_buffer("running_mean", _factories.zeros(num_features, dtype=dtype))
            self.register_buffer("running_var", _factories.ones(num_features, dtype=dtype))
            self.register_buffer("num_batches_tracked", _factories.tensor(0))
        else:
            for name in ("running_mean", "running_var", "num_batches_tracked"):
                self.register_buffer(name, None)

    def reset_running_stats(self) -> None:
        if self.track_running_stats:
            self.running_mean.zero_()
            self.running_var.fill_(1)
            self.num_batches_tracked.zero_()

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        if input.dim() not in self._input_dims:
            raise ValueError(f"expected {self._input_text} input (got {input.dim()}D input)")
        factor = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats and self.num_batches_tracked is not None:
            self.num_batches_tracked.add_(1)
            factor = 1.0 / float(self.num_batches_tracked) if self.momentum is None else self.momentum
        use_batch = self.training or (self.running_mean is None and self.running_var is None)
        tracked = not self.training or self.track_running_stats
        return functional.batch_norm(
            input,
            self.running_mean if tracked else None,
            self.running_var if tracked else None,
            self.weight,
            self.bias,
            use_batch,
            factor,
            self.eps,
        )

    def extra_repr(self) -> str:
        return (
            f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, affine={self.affine}, "
            f"bias={self.bias is not None}, track_running_stats={self.track_running_stats}"
        )


class BatchNorm2d(BatchNorm1d):
    """Normalise each channel (dimension 1 of (N, C, H, W)) to mean 0 and variance 1 over the batch
    and the positions, then scale and shift: BatchNorm1d for images."""

    _input_dims, _input_text = (4,), "4D"


class Embedding(Module):
    """A lookup table: row i of ``weight`` (num_embeddings, embedding_dim) for index i.

    Weights start standard normal, as torch's; the row ``padding_idx`` starts at zero and gets no gradient.
    """

    def __init__(
        self,
        num_embeddings: int,
        embedding_dim: int,
        padding_idx: int | None = None,
        max_norm: float | None = None,
        norm_type: float = 2.0,
        scale_grad_by_freq: bool = False,
        sparse: bool = False,
        _weight: Tensor | None = None,
        _freeze: bool = False,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        self.num_embeddings, self.embedding_dim = num_embeddings, embedding_dim
        if padding_idx is not None:
            if padding_idx > 0 and padding_idx >= num_embeddings:
                raise AssertionError("Padding_idx must be within num_embeddings")
            if padding_idx < 0:
                if padding_idx < -num_embeddings:
                    raise AssertionError("Padding_idx must be within num_embeddings")
                padding_idx = num_embeddings + padding_idx
        self.padding_idx, self.max_norm, self.norm_type = padding_idx, max_norm, norm_type
        self.scale_grad_by_freq, self.sparse = scale_grad_by_freq, sparse
        if _weight is None:
            self.weight = Parameter(_factories.randn(num_embeddings, embedding_dim, dtype=dtype), not _freeze)
            if padding_idx is not None:
                with no_grad():
                    self.weight[padding_idx] = 0.0
        else:
            if list(_weight.shape) != [num_embeddings, embedding_dim]:
                raise AssertionError("Shape of weight does not match num_embeddings and embedding_dim")
            self.weight = Parameter(_weight, requires_grad=not _freeze)

    @classmethod
    def from_pretrained(
        cls, embeddings: Tensor, freeze: bool = True, padding_idx: int | None = None, **kwargs: Any
    ) -> Embedding:
        """An Embedding whose rows are ``embeddings`` (frozen unless ``freeze=False``)."""
        if embeddings.dim() != 2:
            raise AssertionError("Embeddings parameter is expected to be 2-dimensional")
        rows, cols = embeddings.shape
        return cls(rows, cols, padding_idx, _weight=embeddings, _freeze=freeze, **kwargs)

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return functional.embedding(input, self.weight, self.padding_idx, self.max_norm, self.norm_type)

    def extra_repr(self) -> str:
        s = f"{self.num_embeddings}, {self.embedding_dim}"
        if self.padding_idx is not None:
            s += f", padding_idx={self.padding_idx}"
        if self.max_norm is not None:
            s += f", max_norm={self.max_norm}"
        if self.norm_type != 2:
            s += f", norm_type={self.norm_type}"
        if self.scale_grad_by_freq is not False:
            s += f", scale_grad_by_freq={self.scale_grad_by_freq}"
        if self.sparse is not False:
            s += ", sparse=True"
        return s


# ================================================================ containers


def _index(idx: int, size: int) -> int:
    idx = int(idx)
    if not -size <= idx < size:
        raise IndexError(f"index {idx} is out of range")
    return idx % size


class Sequential(Module):
    """Layers applied one after another (named "0", "1", ..., or by an OrderedDict's keys)."""

    def __init__(self, *layers: Any) -> None:
        super().__init__()
        if len(layers) == 1 and isinstance(layers[0], OrderedDict):
            for key, layer in layers[0].items():
                self.add_module(key, layer)
        else:
            for i, layer in enumerate(layers):
                self.add_module(str(i), layer)

    def forward(self, input: Any) -> Any:  # noqa: A002
        for layer in self._modules.values():
            input = layer(input)
        return input

    def __getitem__(self, idx: int | slice) -> Any:
        if isinstance(idx, slice):
            return type(self)(OrderedDict(list(self._modules.items())[idx]))
        return list(self._modules.values())[_index(idx, len(self))]

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[Module]:
        return iter(self._modules.values())

    def append(self, module: Module) -> Sequential:
        self.add_module(str(len(self)), module)
        return self


class ModuleList(Module):
    """A list of modules whose parameters the parent registers (a plain list would hide them)."""

    def __init__(self, modules: Iterable[Module] | None = None) -> None:
        super().__init__()
        if modules is not None:
            self.extend(modules)

    def __getitem__(self, idx: int | slice) -> Any:
        if isinstance(idx, slice):
            return type(self)(list(self._modules.values())[idx])
        return self._modules[str(_index(idx, len(self)))]

    def __setitem__(self, idx: int, module: Module) -> None:
        self.add_module(str(_index(idx, len(self))), module)

    def __delitem__(self, idx: int | slice) -> None:
        keys = list(self._modules)
        for key in keys[idx] if isinstance(idx, slice) else [keys[_index(idx, len(self))]]:
            del self._modules[key]
        modules = list(self._modules.values())  # renumbered from 0, as torch
        self._modules.clear()
        self.extend(modules)

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[Module]:
        return iter(self._modules.values())

    def __iadd__(self, modules: Iterable[Module]) -> ModuleList:
        return self.extend(modules)

    def append(self, module: Module) -> ModuleList:
        self.add_module(str(len(self)), module)
        return self

    def extend(self, modules: Iterable[Module]) -> ModuleList:
        offset = len(self)
        for i, module in enumerate(modules):
            self.add_module(str(offset + i), module)
        return self

    def insert(self, index: int, module: Module) -> None:
        modules = list(self._modules.values())
        modules.insert(index, module)
        self._modules.clear()
        self.extend(modules)

    def __repr__(self) -> str:
        """Runs of equal reprs are written once, as torch: ``(0-2): 3 x Linear(...)``."""
        reprs = [repr(m) for m in self]
        if not reprs:
            return self._get_name() + "()"
        blocks: list[list[Any]] = []  # [start, end, repr]
        for i, r in enumerate(reprs):
            if blocks and blocks[-1][2] == r:
                blocks[-1][1] = i
            else:
                blocks.append([i, i, r])
        lines = [_addindent(f"({s}): {r}" if s == e else f"({s}-{e}): {e - s + 1} x {r}", 2) for s, e, r in blocks]
        return self._get_name() + "(\n  " + "\n  ".join(lines) + "\n)"


class ModuleDict(Module):
    """A dict of modules whose parameters the parent registers, in insertion order."""

    def __init__(self, modules: Mapping[str, Module] | Iterable[tuple[str, Module]] | None = None) -> None:
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __getitem__(self, key: str) -> Module:
        return self._modules[key]

    def __setitem__(self, key: str, module: Module) -> None:
        self.add_module(key, module)

    def __delitem__(self, key: str) -> None:
        del self._modules[key]

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[str]:
        return iter(self._modules)

    def __contains__(self, key: str) -> bool:
        return key in self._modules

    def keys(self) -> Iterable[str]:
        return self._modules.keys()

    def items(self) -> Iterable[tuple[str, Module]]:
        return self._modules.items()

    def values(self) -> Iterable[Module]:
        return self._modules.values()

    def pop(self, key: str) -> Module:
        module = self[key]
        del self[key]
        return module

    def clear(self) -> None:
        self._modules.clear()

    def update(self, modules: Mapping[str, Module] | Iterable[tuple[str, Module]]) -> None:
        for key, module in modules.items() if isinstance(modules, Mapping) else modules:
            self[key] = module


# ================================================================ activations


class ReLU(Module):
    """max(x, 0)."""

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return input.relu()

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""


class LeakyReLU(Module):
    """x where x > 0, else negative_slope · x."""

    def __init__(self, negative_slope: float = 0.01, inplace: bool = False) -> None:
        super().__init__()
        self.negative_slope, self.inplace = negative_slope, inplace

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return functional.leaky_relu(input, self.negative_slope, self.inplace)

    def extra_repr(self) -> str:
        return f"negative_slope={self.negative_slope}" + (", inplace=True" if self.inplace else "")


class GELU(Module):
    """x · Φ(x), Φ the standard normal CDF (``approximate="tanh"``: torch's tanh formula)."""

    def __init__(self, approximate: str = "none") -> None:
        super().__init__()
        self.approximate = approximate

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return functional.gelu(input, approximate=self.approximate)

    def extra_repr(self) -> str:
        return f"approximate={self.approximate!r}"


class Tanh(Module):
    """tanh(x)."""

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return input.tanh()


class Sigmoid(Module):
    """1 / (1 + e⁻ˣ)."""

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return input.sigmoid()


class Softplus(Module):
    """log(1 + e^(beta·x)) / beta, a smooth relu."""

    def __init__(self, beta: float = 1.0, threshold: float = 20.0) -> None:
        super().__init__()
        self.beta, self.threshold = beta, threshold

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return functional.softplus(input, self.beta, self.threshold)

    def extra_repr(self) -> str:
        return f"beta={self.beta}, threshold={self.threshold}"


class SiLU(Module):
    """x · σ(x)."""

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return functional.silu(input)

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""


class Mish(Module):
    """x · tanh(softplus(x))."""

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return functional.mish(input)

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""


class ELU(Module):
    """x where x > 0, else alpha · (eˣ - 1)."""

    def __init__(self, alpha: float = 1.0, inplace: bool = False) -> None:
        super().__init__()
        self.alpha, self.inplace = alpha, inplace

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return functional.elu(input, self.alpha)

    def extra_repr(self) -> str:
        return f"alpha={self.alpha}" + (", inplace=True" if self.inplace else "")


class Hardtanh(Module):
    """x limited to [min_val, max_val]."""

    def __init__(self, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False) -> None:
        super().__init__()
        if min_val >= max_val:
            raise AssertionError  # torch's check, with no message
        self.min_val, self.max_val, self.inplace = min_val, max_val, inplace

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return functional.hardtanh(input, self.min_val, self.max_val)

    def extra_repr(self) -> str:
        return f"min_val={self.min_val}, max_val={self.max_val}" + (", inplace=True" if self.inplace else "")


class ReLU6(Hardtanh):
    """x limited to [0, 6]."""

    def __init__(self, inplace: bool = False) -> None:
        super().__init__(0.0, 6.0, inplace)

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""


class LogSigmoid(Module):
    """log σ(x)."""

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return functional.logsigmoid(input)


class Softsign(Module):
    """x / (1 + |x|)."""

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return functional.softsign(input)


def _softmax_dim(ndim: int) -> int:
    """torch's legacy choice when no dim is given (with its warning)."""
    warnings.warn(
        "Implicit dimension choice for softmax has been deprecated. Change the call to include dim=X as an argument.",
        UserWarning,
        stacklevel=4,
    )
    return 0 if ndim in (0, 1, 3) else 1


class Softmax(Module):
    """e^x / Σ e^x along ``dim``."""

    def __init__(self, dim: int | None = None) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return input.softmax(self.dim if self.dim is not None else _softmax_dim(input.ndim))

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class LogSoftmax(Softmax):
    """x - ln Σ e^x along ``dim``."""

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return input.log_softmax(self.dim if self.dim is not None else _softmax_dim(input.ndim))


# ================================================================ losses


class _Loss(Module):
    def __init__(self, size_average: Any = None, reduce: Any = None, reduction: str = "mean") -> None:
        super().__init__()
        self.reduction = functional._legacy_reduction(size_average, reduce, reduction)


class _WeightedLoss(_Loss):
    def __init__(
        self, weight: Tensor | None = None, size_average: Any = None, reduce: Any = None, reduction: str = "mean"
    ) -> None:
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)


class MSELoss(_Loss):
    """Mean squared error between prediction and target."""

    def forward(self, input: Tensor, target: Tensor) -> Tensor:  # noqa: A002
        return functional.mse_loss(input, target, reduction=self.reduction)


class L1Loss(_Loss):
    """Mean absolute error between prediction and target."""

    def forward(self, input: Tensor, target: Tensor) -> Tensor:  # noqa: A002
        return functional.l1_loss(input, target, reduction=self.reduction)


class SmoothL1Loss(_Loss):
    """Squared error below ``beta``, absolute error above it."""

    def __init__(
        self, size_average: Any = None, reduce: Any = None, reduction: str = "mean", beta: float = 1.0
    ) -> None:
        super().__init__(size_average, reduce, reduction)
        self.beta = beta

    def forward(self, input: Tensor, target: Tensor) -> Tensor:  # noqa: A002
        return functional.smooth_l1_loss(input, target, reduction=self.reduction, beta=self.beta)


class HuberLoss(_Loss):
    """Squared error below ``delta``, delta times the absolute error above it."""

    def __init__(self, reduction: str = "mean", delta: float = 1.0) -> None:
        super().__init__(reduction=reduction)
        self.delta = delta

    def forward(self, input: Tensor, target: Tensor) -> Tensor:  # noqa: A002
        return functional.huber_loss(input, target, reduction=self.reduction, delta=self.delta)


class BCELoss(_WeightedLoss):
    """Binary cross-entropy of probabilities (after a sigmoid) and 0/1 targets."""

    def forward(self, input: Tensor, target: Tensor) -> Tensor:  # noqa: A002
        return functional.binary_cross_entropy(input, target, weight=self.weight, reduction=self.reduction)


class BCEWithLogitsLoss(_Loss):
    """Binary cross-entropy of logits (a sigmoid inside, computed stably) and 0/1 targets."""

    def __init__(
        self,
        weight: Tensor | None = None,
        size_average: Any = None,
        reduce: Any = None,
        reduction: str = "mean",
        pos_weight: Tensor | None = None,
    ) -> None:
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)
        self.register_buffer("pos_weight", pos_weight)

    def forward(self, input: Tensor, target: Tensor) -> Tensor:  # noqa: A002
        return functional.binary_cross_entropy_with_logits(
            input, target, self.weight, reduction=self.reduction, pos_weight=self.pos_weight
        )


class NLLLoss(_WeightedLoss):
    """Negative log-likelihood of log-probabilities (after log_softmax) and class indices."""

    def __init__(
        self,
        weight: Tensor | None = None,
        size_average: Any = None,
        ignore_index: int = -100,
        reduce: Any = None,
        reduction: str = "mean",
    ) -> None:
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index = ignore_index

    def forward(self, input: Tensor, target: Tensor) -> Tensor:  # noqa: A002
        return functional.nll_loss(input, target, self.weight, ignore_index=self.ignore_index, reduction=self.reduction)


class CrossEntropyLoss(_WeightedLoss):
    """Cross-entropy of class scores and class indices."""

    def __init__(
        self,
        weight: Tensor | None = None,
        size_average: Any = None,
        ignore_index: int = -100,
        reduce: Any = None,
        reduction: str = "mean",
    ) -> None:
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index = ignore_index

    def forward(self, input: Tensor, target: Tensor) -> Tensor:  # noqa: A002
        return functional.cross_entropy(
            input, target, self.weight, ignore_index=self.ignore_index, reduction=self.reduction
        )
