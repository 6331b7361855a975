"""gradbook.nn.modules.module: Module, the base class of every layer (registration of parameters,
buffers and submodules, calling with forward and backward hooks, modes, ``to``, ``state_dict`` and
``load_state_dict``, the repr), with the helpers it needs: _IncompatibleKeys (what
``load_state_dict`` returns), _addindent (a child's repr inside its parent's) and _BackwardHook (one
call of a module with full backward hooks), as in torch's torch/nn/modules/module.py.
"""

from __future__ import annotations

import warnings
from collections import OrderedDict, namedtuple
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from ... import _device, ops
from ..._dtypes import dtype as _dtype
from ..._dtypes import float32, float64, to_dtype, type_name
from ...autograd.grad_mode import _State, no_grad
from ...autograd.graph import RemovableHandle
from ...tensor import Tensor
from ..parameter import Parameter


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

    def get_submodule(self, target: str) -> Module:
        """The submodule at a dotted path (``"1.0"``, ``"encoder.layer"``); ``""`` is this module."""
        module = self
        for item in target.split(".") if target else ():
            if not hasattr(module, item):
                raise AttributeError(f"{type(module).__name__} has no attribute `{item}`")
            module = getattr(module, item)
            if not isinstance(module, Module):
                raise AttributeError(f"`{item}` is not an nn.Module")
        return module

    def get_parameter(self, target: str) -> Parameter:
        """The parameter at a dotted path (``"0.weight"``)."""
        module, name = self._owner(target)
        value = getattr(module, name)
        if not isinstance(value, Parameter):
            raise AttributeError(f"`{name}` is not an nn.Parameter")
        return value

    def get_buffer(self, target: str) -> Tensor:
        """The buffer at a dotted path (``"1.running_mean"``)."""
        module, name = self._owner(target)
        if name not in module._buffers:
            raise AttributeError(f"`{name}` is not a buffer")
        return getattr(module, name)

    def _owner(self, target: str) -> tuple[Module, str]:
        """The submodule holding the attribute at a dotted path, and the attribute's name (torch's error if none)."""
        path, _, name = target.rpartition(".")
        module = self.get_submodule(path)
        if not hasattr(module, name):
            raise AttributeError(f"{type(module).__name__} has no attribute `{name}`")
        return module, name

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
        if "copy" in kwargs:
            raise RuntimeError(".to() does not accept copy argument")
        unknown = [k for k in kwargs if k not in ("device", "dtype", "non_blocking", "memory_format", "tensor")]
        if unknown:
            got = ", ".join(f"{k}={type(kwargs[k]).__name__}" for k in unknown)
            raise TypeError(f"to() received an invalid combination of arguments - got ({got}, ), but expected one of:")
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
                wrapped[i] = ops.BackwardHookFunctionBackward.apply(a)
                wrapped[i].grad_fn.register_prehook(lambda grads, i=i: self._input_ready(i, grads))
                self.needing.add(i)
        return tuple(wrapped)

    def wrap_outputs(self, out: Any) -> Any:
        outs = out if isinstance(out, tuple) else (out,)
        self.grad_outputs = [None] * len(outs)
        wrapped = list(outs)
        for i, o in enumerate(outs):
            if isinstance(o, Tensor) and o.requires_grad:
                wrapped[i] = ops.BackwardHookFunctionBackward.apply(o)
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
