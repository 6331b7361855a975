"""``gradbook.save`` and ``gradbook.load``, as ``torch.save`` and ``torch.load``, in torch's own file format.

A file is a zip archive (``<name>/data.pkl``, one ``<name>/data/<key>`` per tensor's bytes, ``version``,
``byteorder`` …) whose pickle names torch's rebuild functions (``torch._utils._rebuild_tensor_v2``,
``torch.FloatStorage``). So a ``state_dict`` saved by gradbook loads in torch, and one saved by torch loads
in gradbook. As in torch 2.13, ``load`` reads with ``weights_only=True`` unless told otherwise: tensors,
numbers, strings, lists, tuples, dicts and ``OrderedDict``s only, so that a downloaded file cannot run code;
a whole module needs ``weights_only=False`` (and loads only in the library that saved it).

Differences kept: each tensor is saved with its own storage (two views of one tensor load as two tensors
that do not share memory; torch keeps them sharing), and only CPU locations exist.
"""

from __future__ import annotations

import _compat_pickle
import codecs
import collections
import contextlib
import copyreg
import io
import os
import pickle
import secrets
import zipfile
from collections.abc import Iterator
from typing import Any

import numpy as np

from . import _dtypes
from ._device import device as _device_class
from ._messages import type_of
from .tensor import Tensor

__all__ = ["add_safe_globals", "clear_safe_globals", "get_safe_globals", "load", "safe_globals", "save"]

# torch's storage class for each dtype, as its pickles name them
_STORAGES = {
    "float32": "FloatStorage",
    "float64": "DoubleStorage",
    "float16": "HalfStorage",
    "bfloat16": "BFloat16Storage",
    "int64": "LongStorage",
    "int32": "IntStorage",
    "int16": "ShortStorage",
    "int8": "CharStorage",
    "uint8": "ByteStorage",
    "bool": "BoolStorage",
}
_DTYPE_OF_STORAGE = {storage: name for name, storage in _STORAGES.items()}


class _Global:
    """A name written into the pickle as torch's (``torch._utils _rebuild_tensor_v2``), whatever is installed."""

    def __init__(self, module: str, name: str) -> None:
        self.module, self.name = module, name

    def __reduce__(self) -> str:
        return self.name  # a string: pickle saves a global, which _Saver.save_global writes as torch's

    def __call__(self, *args: Any) -> Any:  # pickle asks that what it records as a call be callable
        raise TypeError(f"{self.module}.{self.name} is rebuilt by gradbook.load or torch.load")


_REBUILD_TENSOR = _Global("torch._utils", "_rebuild_tensor_v2")
_REBUILD_PARAMETER = _Global("torch._utils", "_rebuild_parameter")


class _Saver(pickle._Pickler):  # type: ignore[name-defined]  (the Python pickler: it lets save_global be replaced)
    def __init__(self, file: Any, protocol: int) -> None:
        super().__init__(file, protocol)
        self.storages: list[np.ndarray] = []  # each a C-contiguous array, saved as one record
        self.keys: dict[int, str] = {}  # id of a storage array: its record's name

    def reducer_override(self, obj: Any) -> Any:
        if isinstance(obj, Tensor):
            from .nn.parameter import Parameter

            rebuilt = (_REBUILD_TENSOR, self.tensor_args(obj._array, obj.requires_grad and type(obj) is not Parameter))
            if type(obj) is Parameter:
                return _REBUILD_PARAMETER, (_Rebuilt(rebuilt), obj.requires_grad, collections.OrderedDict())
            return rebuilt
        return NotImplemented

    def tensor_args(self, array: np.ndarray, requires_grad: bool) -> tuple:
        """The rebuild arguments of a tensor: its storage (shared with the other views of the same memory, as
        torch saves them), the offset and strides in elements, requires_grad."""
        base, offset, strides = _view_of(array)
        if id(base) not in self.keys:
            self.keys[id(base)] = str(len(self.storages))
            self.storages.append(base)
        dtype = _dtypes.from_numpy_dtype(base.dtype)
        storage = ("storage", _Global("torch", _STORAGES[dtype.name]), self.keys[id(base)], "cpu", base.size)
        return (_Persistent(storage), offset, array.shape, strides, requires_grad, collections.OrderedDict())

    def persistent_id(self, obj: Any) -> Any:
        return obj.storage if isinstance(obj, _Persistent) else None

    def save_global(self, obj: Any, name: str | None = None) -> None:
        if isinstance(obj, _Global):
            self.write(pickle.GLOBAL + f"{obj.module}\n{obj.name}\n".encode())
            self.memoize(obj)
            return
        if obj is _dtypes.Size or obj is _device_class or isinstance(obj, _dtypes.dtype):  # torch.Size, torch.float32
            self.write(pickle.GLOBAL + f"torch\n{obj.__name__ if isinstance(obj, type) else name}\n".encode())
            self.memoize(obj)
            return
        super().save_global(obj, name)


def _view_of(array: np.ndarray) -> tuple[np.ndarray, int, tuple]:
    """The contiguous array whose memory ``array`` views, with the offset and strides (in elements) that find
    ``array`` in it; ``array`` itself (or a copy) when it views none that torch's format can describe."""
    base = array
    while isinstance(base.base, np.ndarray):
        base = base.base
    size = array.itemsize
    if base is not array and base.flags.c_contiguous and base.dtype == array.dtype and array.size:
        start = array.__array_interface__["data"][0] - base.__array_interface__["data"][0]
        if start % size == 0 and all(s >= 0 and s % size == 0 for s in array.strides):
            return base, start // size, tuple(s // size for s in array.strides)
    data = array if array.flags.c_contiguous else array.copy(order="C")  # (ascontiguousarray makes 0-d 1-d)
    strides = tuple(s // size for s in data.strides) if data.size else (1,) * data.ndim
    return data, 0, strides


class _Persistent:
    def __init__(self, storage: tuple) -> None:
        self.storage = storage


class _Rebuilt:
    """A tensor's rebuild call inside a Parameter's: pickled as the call itself."""

    def __init__(self, call: tuple) -> None:
        self.call = call

    def __reduce__(self) -> tuple:
        return self.call


def save(
    obj: Any,
    f: str | os.PathLike | Any,
    pickle_module: Any = pickle,
    pickle_protocol: int = 2,
    _use_new_zipfile_serialization: bool = True,
    _disable_byteorder_record: bool = False,
) -> None:
    """Save ``obj`` (tensors, a ``state_dict``, an optimizer's, a whole module) to a path or a binary file,
    in torch's zip format.

    >>> import io, gradbook as torch
    >>> buffer = io.BytesIO()
    >>> torch.save({"w": torch.ones(2)}, buffer)
    >>> _ = buffer.seek(0)
    >>> torch.load(buffer)
    {'w': tensor([1., 1.])}
    """
    if not _use_new_zipfile_serialization:
        raise NotImplementedError("gradbook.save writes torch's zip format only (_use_new_zipfile_serialization=True)")
    if pickle_module is not pickle:
        raise NotImplementedError("gradbook.save pickles with Python's pickle module only")
    data = io.BytesIO()
    saver = _Saver(data, pickle_protocol)
    saver.dump(obj)
    name = _record_name(f)
    records = [("data.pkl", data.getvalue()), (".format_version", b"1"), (".storage_alignment", b"64")]
    if not _disable_byteorder_record:
        records.append(("byteorder", b"little"))
    records += [(f"data/{k}", a.tobytes()) for k, a in enumerate(saver.storages)]
    records += [("version", b"3\n"), (".data/serialization_id", str(secrets.randbits(128)).zfill(40).encode())]
    with _opened(f, "wb") as file, zipfile.ZipFile(file, "w", zipfile.ZIP_STORED) as archive:
        for record, content in records:
            archive.writestr(f"{name}/{record}", content)


def _record_name(f: Any) -> str:
    """The archive's folder name, as torch picks it: the file's name without its suffix, else "archive"."""
    if isinstance(f, (str, os.PathLike)):
        return os.path.splitext(os.path.basename(os.fspath(f)))[0] or "archive"
    return "archive"


@contextlib.contextmanager
def _opened(f: Any, mode: str) -> Iterator[Any]:
    if isinstance(f, (str, os.PathLike)):
        with open(f, mode) as file:
            yield file
    else:
        yield f


def _tensor_from_array(array: np.ndarray, requires_grad: bool) -> Tensor:
    t = Tensor._make(array)
    t.requires_grad = requires_grad
    return t


# pickle.dumps(t), as torch: the values and requires_grad (a non-leaf comes back a leaf); nn.Parameter's is in
# nn/parameter.py
copyreg.pickle(Tensor, lambda t: (_tensor_from_array, (np.array(t._array), t.requires_grad)))


# ------------------------------------------------ load

_safe: dict[tuple[str, str], Any] = {}  # add_safe_globals: (module, name) -> the object


def _rebuild_tensor_v2(
    storage: np.ndarray, offset: int, size: tuple, stride: tuple, requires_grad: bool, hooks: Any, metadata: Any = None
) -> Tensor:
    if not all(type(n) is int for n in (*size, *stride, offset)) or type(requires_grad) is not bool:
        raise RuntimeError("a tensor record of this file is malformed: sizes, strides and offset must be ints")
    size, stride = tuple(size), tuple(stride)
    if requires_grad and storage.dtype.kind != "f":
        raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
    needed = 0 if 0 in size else offset + 1 + sum((n - 1) * s for n, s in zip(size, stride))
    if offset < 0 or len(size) != len(stride) or min((*size, *stride, 0)) < 0 or needed > storage.size:
        raise RuntimeError(  # a file that would read outside its own bytes
            f"setStorage: sizes {list(size)}, strides {list(stride)}, storage offset {offset}, and itemsize "
            f"{storage.itemsize} requiring a storage size of {needed * storage.itemsize} are out of bounds for "
            f"storage of size {storage.size * storage.itemsize}"
        )
    array = np.lib.stride_tricks.as_strided(
        storage[offset:], shape=tuple(size), strides=tuple(s * storage.itemsize for s in stride)
    )
    t = Tensor._make(array)
    if requires_grad:
        t.requires_grad = True
    return t


def _rebuild_parameter(data: Tensor, requires_grad: bool, hooks: Any) -> Any:
    from .nn.parameter import Parameter

    if not isinstance(data, Tensor) or type(requires_grad) is not bool:
        raise RuntimeError("a parameter record of this file is malformed")
    return Parameter(data, requires_grad)


def _rebuild_parameter_with_state(data: Tensor, requires_grad: bool, hooks: Any, state: Any) -> Any:
    return _rebuild_parameter(data, requires_grad, hooks)


_REBUILDS = {
    "_rebuild_tensor_v2": _rebuild_tensor_v2,
    "_rebuild_parameter": _rebuild_parameter,
    "_rebuild_parameter_with_state": _rebuild_parameter_with_state,
}


class _StorageType:
    def __init__(self, name: str) -> None:
        dtype = getattr(_dtypes, _DTYPE_OF_STORAGE[name], None)
        if dtype is None:
            raise NotImplementedError(
                f"this file holds a torch.{_DTYPE_OF_STORAGE[name]} tensor, and gradbook has no "
                f"{_DTYPE_OF_STORAGE[name]} dtype (it has float32, float64, float16, int64, int32 and bool)"
            )
        self.dtype = dtype.numpy


def _torch_name(module: str, name: str) -> Any:
    """What a name in a torch pickle (``torch._utils._rebuild_tensor_v2``, ``torch.float32``) is in gradbook."""
    if module == "torch._utils" and name in (
        "_rebuild_tensor_v2",
        "_rebuild_parameter",
        "_rebuild_parameter_with_state",
    ):
        return globals()[name]
    if module == "torch" and name in _DTYPE_OF_STORAGE:
        return _StorageType(name)
    if module == "torch" and name == "Size":
        return _dtypes.Size
    if module == "torch" and name == "device":
        return _device_class
    if module == "torch" and isinstance(getattr(_dtypes, name, None), _dtypes.dtype):
        return getattr(_dtypes, name)
    return None


_PLAIN = {("collections", "OrderedDict"): collections.OrderedDict, ("builtins", "set"): set}
_PLAIN |= {("builtins", "frozenset"): frozenset, ("builtins", "complex"): complex, ("builtins", "slice"): slice}
_PLAIN |= {("builtins", "bytearray"): bytearray, ("collections", "Counter"): collections.Counter}
_PLAIN |= {("_codecs", "encode"): codecs.encode}  # how protocol 2 writes bytes


class _Loader(pickle.Unpickler):
    def __init__(
        self, file: Any, archive: zipfile.ZipFile, prefix: str, weights_only: bool, location: Any, **args: Any
    ) -> None:
        super().__init__(file, **args)
        self.archive, self.prefix, self.weights_only, self.location = archive, prefix, weights_only, location
        self.storages: dict[str, np.ndarray] = {}
        self.big_endian = False

    def find_class(self, module: str, name: str) -> Any:
        module = _compat_pickle.IMPORT_MAPPING.get(module, module)  # protocol 2 writes __builtin__
        found = _torch_name(module, name)
        if found is None and (module, name) in _PLAIN:
            found = _PLAIN[module, name]
        if found is None and module.startswith("gradbook") and isinstance(getattr(_dtypes, name, None), _dtypes.dtype):
            found = getattr(_dtypes, name)
        if found is None and (module, name) in _safe:
            found = _safe[module, name]
        if found is not None:
            return found
        if self.weights_only:
            raise pickle.UnpicklingError(_weights_only_error(f"{module}.{name}"))
        if module.startswith("torch"):
            raise pickle.UnpicklingError(
                f"this file holds a torch object, {module}.{name}, that gradbook cannot rebuild: save its "
                "state_dict() in torch and load that"
            )
        return super().find_class(module, name)

    def persistent_load(self, pid: Any) -> Any:
        kind, storage_type, key, location, numel = pid
        if kind != "storage" or not isinstance(storage_type, _StorageType) or type(numel) is not int:
            raise pickle.UnpicklingError(f"Unknown persistent id: {kind!r}")
        if key not in self.storages:
            raw = self.archive.read(f"{self.prefix}data/{key}")
            dtype = storage_type.dtype
            if len(raw) != numel * dtype.itemsize:
                raise RuntimeError(
                    f"storage {key} of this file holds {len(raw)} bytes, not the {numel * dtype.itemsize} its "
                    "tensors need: the file is damaged"
                )
            array = np.frombuffer(raw, dtype=dtype.newbyteorder(">") if self.big_endian else dtype).astype(dtype)
            self.storages[key] = _restore(array, location, self.location)
        return self.storages[key]


_CUDA_LOAD_ERROR = (
    "Attempting to deserialize object on a CUDA device but torch.cuda.is_available() is False. "
    "If you are running on a CPU-only machine, please use torch.load with "
    "map_location=torch.device('cpu') to map your storages to the CPU."
)


def _restore(storage: np.ndarray, location: str, map_location: Any) -> np.ndarray:
    """A storage saved at ``location``, placed as ``map_location`` says (the CPU is the only place here)."""
    if callable(map_location):  # map_location(storage, location): its result, or where it was saved if None
        placed = map_location(storage, location)
        if placed is not None:
            return np.asarray(placed)
        map_location = None
    if isinstance(map_location, dict):
        map_location = map_location.get(location, location)
    elif map_location is None:
        map_location = location
    elif not isinstance(map_location, (str, _device_class)):
        raise TypeError(
            f"map_location should be a callable, a str, a torch.device or a dict, not {type_of(map_location)}"
        )
    target = str(map_location)
    if target.startswith("cuda"):
        raise RuntimeError(_CUDA_LOAD_ERROR)
    if not target.startswith("cpu"):
        raise RuntimeError(
            f"don't know how to restore data location of torch.storage.UntypedStorage (tagged with {target})"
        )
    return storage


def _weights_only_error(name: str) -> str:
    return (
        "Weights only load failed. This file can still be loaded, to do so you have two options, do those steps "
        "only if you trust the source of the checkpoint. \n\t(1) In PyTorch 2.6, we changed the default value of "
        "the `weights_only` argument in `torch.load` from `False` to `True`. Re-running `torch.load` with "
        "`weights_only` set to `False` will likely succeed, but it can result in arbitrary code execution. Do it "
        "only if you got the file from a trusted source.\n\t(2) Alternatively, to load with `weights_only=True` "
        "please check the recommended steps in the following error message.\n\tWeightsUnpickler error: "
        f"Unsupported global: GLOBAL {name} was not an allowed global by default. Please use "
        f"`torch.serialization.add_safe_globals([{name}])` or the `torch.serialization.safe_globals([{name}])` "
        "context manager to allowlist this global if you trust this class/function.\n\nCheck the documentation "
        "of torch.load to learn more about types accepted by default with weights_only "
        "https://pytorch.org/docs/stable/generated/torch.load.html."
    )


def load(
    f: str | os.PathLike | Any,
    map_location: Any = None,
    pickle_module: Any = None,
    *,
    weights_only: bool | None = None,
    mmap: bool | None = None,
    **pickle_load_args: Any,
) -> Any:
    """Load what ``save`` (gradbook's or torch's) wrote. ``weights_only`` (the default) refuses anything but
    tensors and plain data; ``map_location`` may name the CPU only (a file saved from a GPU needs
    ``map_location="cpu"``, as in torch on a machine without one). ``mmap`` changes nothing here: the file
    is read whole, and the values are the same."""
    if pickle_module is not None and pickle_module is not pickle:
        raise NotImplementedError("gradbook.load unpickles with Python's pickle module only")
    if weights_only is None:
        weights_only = os.environ.get("TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD", "0") not in ("1", "y", "yes", "true")
    with _opened(f, "rb") as file:
        data = file.read()
    if not zipfile.is_zipfile(io.BytesIO(data)):
        raise pickle.UnpicklingError(
            "gradbook.load reads the zip format torch has written since 1.6 (and gradbook.save writes); this "
            "file is not one (a file of torch's older format: load it in torch and save it again)"
        )
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        pickles = [n for n in archive.namelist() if n.endswith("/data.pkl") and n.count("/") == 1]
        if not pickles:
            raise RuntimeError("PytorchStreamReader failed locating file data.pkl: file not found")
        prefix = pickles[0][: -len("data.pkl")]
        pickled = io.BytesIO(archive.read(pickles[0]))
        loader = _Loader(pickled, archive, prefix, weights_only, map_location, **pickle_load_args)
        order = archive.read(prefix + "byteorder") if prefix + "byteorder" in archive.namelist() else b"little"
        if order not in (b"little", b"big"):
            raise ValueError(f"Invalid load endianness type: {order.decode(errors='replace')}")
        loader.big_endian = order == b"big"
        return loader.load()


def add_safe_globals(safe_globals: list[Any]) -> None:
    """Allow these classes or functions in a ``weights_only`` load (as ``torch.serialization.add_safe_globals``)."""
    for obj in safe_globals:  # a class or function, or (it, "module.Name") for one saved under another name
        obj, name = obj if isinstance(obj, tuple) else (obj, f"{obj.__module__}.{obj.__qualname__}")
        _safe[tuple(name.rsplit(".", 1))] = obj


def get_safe_globals() -> list[Any]:
    return list(_safe.values())


def clear_safe_globals() -> None:
    _safe.clear()


@contextlib.contextmanager
def safe_globals(safe_globals: list[Any]) -> Iterator[None]:
    """``with safe_globals([...]):`` what ``add_safe_globals`` allows, inside the block only."""
    before = dict(_safe)
    add_safe_globals(safe_globals)
    try:
        yield
    finally:
        _safe.clear()
        _safe.update(before)
