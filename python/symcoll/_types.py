"""What a collective needs to know of an array: its device address, element count and symcoll
datatype, from a torch tensor, any object with __cuda_array_interface__, or a symcoll Array.
torch is never imported here: a tensor is recognised by its methods."""

import functools
import math

from . import _core

# __cuda_array_interface__ typestr (little-endian) and torch dtype names to symcoll names.
_TYPESTR = {
    "|i1": "int8",
    "|u1": "uint8",
    "<i4": "int32",
    "<u4": "uint32",
    "<i8": "int64",
    "<u8": "uint64",
    "<f2": "float16",
    "<f4": "float32",
    "<f8": "float64",
}
_TORCH = {
    "torch.int8": "int8",
    "torch.uint8": "uint8",
    "torch.int32": "int32",
    "torch.uint32": "uint32",
    "torch.int64": "int64",
    "torch.uint64": "uint64",
    "torch.float16": "float16",
    "torch.bfloat16": "bfloat16",
    "torch.float32": "float32",
    "torch.float64": "float64",
}
TYPESTR_OF = {name: typestr for typestr, name in _TYPESTR.items()}


def dtype_name(dtype):
    """symcoll's name for dtype: a symcoll name ("float32"), a torch dtype, or a typestr;
    ValueError for one symcoll has no type for."""
    text = str(dtype)
    if text in _core.datatypes():
        return text
    name = _TORCH.get(text) or _TYPESTR.get(text)
    if name is None:
        raise ValueError(
            f"dtype {text}: symcoll has no such type (it has {', '.join(_core.datatypes())})"
        )
    return name


def datatype(dtype):
    """The symcoll_datatype_t value of dtype."""
    return _core.datatypes()[dtype_name(dtype)]


@functools.cache
def _name_and_datatype(dtype):
    """(dtype_name, datatype) of an array's dtype. Programs use a few dtypes, and every call
    looks its arrays' up: once per dtype is enough."""
    name = dtype_name(dtype)
    return name, _core.datatypes()[name]


class View:
    """An array as a collective sees it: address, elements, symcoll type name (dtype) and value
    (datatype), from the array's own dtype (a torch dtype, typestr or symcoll name), and what it
    is for messages: argument name, shape and dtype as shown, formatted only when a message
    needs it (a call that raises nothing formats nothing)."""

    __slots__ = ("ptr", "numel", "dtype", "datatype", "_name", "_shape", "_shown_dtype")

    def __init__(self, ptr, numel, dtype, name, shape, shown_dtype):
        self.ptr = ptr
        self.numel = numel
        self.dtype, self.datatype = _name_and_datatype(dtype)
        self._name = name
        self._shape = shape
        self._shown_dtype = shown_dtype

    @property
    def what(self):
        return f"{self._name} {tuple(self._shape)} {self._shown_dtype}"


def _is_torch_tensor(obj):
    return _from_torch(type(obj)) and hasattr(obj, "data_ptr")


@functools.cache
def _from_torch(cls):
    # Cached: every array of every call asks, of a few classes.
    return cls.__module__.startswith("torch")


def view(obj, name):
    """View of obj, argument `name` of a call; ValueError when it is not a contiguous array in
    GPU memory."""
    if _is_torch_tensor(obj):
        if not obj.is_cuda:
            raise ValueError(f"{name}: a tensor on {obj.device}, not on a CUDA device")
        if not obj.is_contiguous():
            raise ValueError(f"{name}: a non-contiguous tensor (call .contiguous())")
        dtype = obj.dtype
        return View(obj.data_ptr(), obj.numel(), dtype, name, obj.shape, dtype)
    if hasattr(obj, "_allocation") and hasattr(obj, "ptr"):
        # A symcoll Array: its own dtype (bfloat16 has no __cuda_array_interface__ typestr).
        return View(obj.ptr, math.prod(obj.shape), obj.dtype, name, obj.shape, obj.dtype)
    cai = getattr(obj, "__cuda_array_interface__", None)
    if cai is None:
        raise ValueError(
            f"{name}: {type(obj).__name__} is neither a torch tensor nor an object with "
            "__cuda_array_interface__"
        )
    shape = tuple(cai["shape"])
    if cai.get("strides") is not None:
        itemsize = int(cai["typestr"][2:])
        expected, stride = [], itemsize
        for extent in reversed(shape):
            expected.insert(0, stride)
            stride *= extent
        if tuple(cai["strides"]) != tuple(expected):
            raise ValueError(f"{name}: a non-contiguous array (strides {cai['strides']})")
    dtype = _name_and_datatype(cai["typestr"])[0]
    address = cai["data"][0]
    if not isinstance(address, int):
        # The calls pass addresses to ctypes as they are, and ctypes takes a str for its buffer.
        raise TypeError(f"{name}: __cuda_array_interface__ data {address!r} is not an address")
    return View(address, math.prod(shape), dtype, name, shape, dtype)


def same_dtype(a, b):
    if a.dtype != b.dtype:
        raise ValueError(f"{a.what} and {b.what}: the dtypes differ")
