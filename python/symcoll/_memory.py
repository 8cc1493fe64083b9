"""Symmetric arrays: allocation, DLPack and __cuda_array_interface__ export, peer views, and
frees that garbage collection cannot deadlock.

symcoll_free is collective: every PE frees the same allocations in the same order. Garbage
collection runs at different times on different PEs, so a collected array is only marked
released here; the memory goes back at the next settle point (collect(), every allocation, and
finalize), which every PE reaches in the same order, as it reaches every collective call. There
the PEs agree, with a MIN reduction over one flag per live allocation, on the allocations that
every PE has released, and free those, oldest first. An allocation one PE still holds stays.
"""

import ctypes
import math
import sys
import weakref

from . import _compile, _core, _streams, _types

_KDLCUDA = 2
# DLDataType code and bits per symcoll type name.
_DLTYPE = {
    "int8": (0, 8),
    "int32": (0, 32),
    "int64": (0, 64),
    "uint8": (1, 8),
    "uint32": (1, 32),
    "uint64": (1, 64),
    "float16": (2, 16),
    "float32": (2, 32),
    "float64": (2, 64),
    "bfloat16": (4, 16),
}


class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [
        ("data", ctypes.c_void_p),
        ("device", _DLDevice),
        ("ndim", ctypes.c_int32),
        ("dtype", _DLDataType),
        ("shape", ctypes.POINTER(ctypes.c_int64)),
        ("strides", ctypes.POINTER(ctypes.c_int64)),
        ("byte_offset", ctypes.c_uint64),
    ]


class _DLManagedTensor(ctypes.Structure):
    pass


_DELETER = ctypes.CFUNCTYPE(None, ctypes.POINTER(_DLManagedTensor))
_DLManagedTensor._fields_ = [
    ("dl_tensor", _DLTensor),
    ("manager_ctx", ctypes.c_void_p),
    ("deleter", _DELETER),
]

# DLPack exports alive in a consumer, by the address of their DLManagedTensor: each keeps its
# array (and so the allocation) until the consumer calls the deleter.
_exports = {}


@_DELETER
def _dlpack_deleter(managed):
    _exports.pop(ctypes.addressof(managed.contents), None)


# The capsule API through prototypes of our own (ctypes.pythonapi's shared attributes stay as
# other code set them). The destructor gets the capsule as it dies: a raw pointer, never a
# Python object, which would revive it.
_CAPSULE_DESTRUCTOR = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
_capsule_new = ctypes.PYFUNCTYPE(
    ctypes.py_object, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p
)(("PyCapsule_New", ctypes.pythonapi))
_capsule_is_valid = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_char_p)(
    ("PyCapsule_IsValid", ctypes.pythonapi)
)
_capsule_pointer = ctypes.PYFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p, ctypes.c_char_p)(
    ("PyCapsule_GetPointer", ctypes.pythonapi)
)


@_CAPSULE_DESTRUCTOR
def _capsule_destructor(capsule):
    # A capsule never consumed still owns its tensor; a consumer renames it "used_dltensor".
    if _capsule_is_valid(capsule, b"dltensor"):
        _exports.pop(_capsule_pointer(capsule, b"dltensor"), None)


class _Allocation:
    """One symcoll_malloc: its place in allocation order, its address, the Arrays over it
    (views included), and whether this PE has let go of it (released: no Array left) or freed
    it (freed)."""

    def __init__(self, seq, ptr, nbytes):
        self.seq, self.ptr, self.nbytes = seq, ptr, nbytes
        self.arrays = 0
        self.released = False
        self.freed = False


class _Heap:
    """The live allocations of this PE, in allocation order (the same on every PE)."""

    def __init__(self):
        self.live = []
        self.next_seq = 0
        self.running = False


_heap = _Heap()


def started():
    global _heap, _flags
    _heap = _Heap()
    _heap.running = True
    _flags = None


def stopping():
    """Before finalize: the allocations every PE has released go back; finalize releases the
    rest with the heap."""
    if _heap.running and "torch" in sys.modules:
        collect()
    for allocation in _heap.live:
        allocation.freed = True
    _heap.live = []
    _heap.running = False


class Array:
    """A symmetric array: a contiguous allocation on this PE's GPU whose address is valid, as
    the same offset, on every PE. It offers __cuda_array_interface__ (version 3) and DLPack, so
    torch.from_dlpack, CuPy and others take it without a copy; the allocation lives while this
    object or any such consumer does."""

    def __init__(self, allocation, shape, dtype, device_id, offset=0):
        self._allocation = allocation
        self.shape = tuple(shape)
        self.dtype = dtype
        self.device_id = device_id
        self.ptr = allocation.ptr + offset
        allocation.arrays += 1
        weakref.finalize(self, _release, allocation)

    @property
    def nbytes(self):
        return math.prod(self.shape) * _core.lib().symcoll_datatype_size(
            _types.datatype(self.dtype)
        )

    @property
    def __cuda_array_interface__(self):
        return {
            "shape": self.shape,
            "typestr": _types.TYPESTR_OF.get(self.dtype, "<V2"),
            "data": (self.ptr, False),
            "version": 3,
            "strides": None,
        }

    def __dlpack_device__(self):
        return (_KDLCUDA, self.device_id)

    def __dlpack__(self, stream=None, **_kwargs):
        ndim = len(self.shape)
        managed = _DLManagedTensor()
        shape = (ctypes.c_int64 * max(ndim, 1))(*self.shape)
        code, bits = _DLTYPE[self.dtype]
        managed.dl_tensor = _DLTensor(
            self.ptr,
            _DLDevice(_KDLCUDA, self.device_id),
            ndim,
            _DLDataType(code, bits, 1),
            shape,
            None,
            0,
        )
        managed.manager_ctx = None
        managed.deleter = _dlpack_deleter
        address = ctypes.addressof(managed)
        _exports[address] = (managed, shape, self)
        return _capsule_new(address, b"dltensor", ctypes.cast(_capsule_destructor, ctypes.c_void_p))


def _release(allocation):
    allocation.arrays -= 1
    allocation.released = allocation.arrays == 0


def _shape_of(shape):
    return (shape,) if isinstance(shape, int) else tuple(int(s) for s in shape)


def _capturing():
    torch = sys.modules.get("torch")
    return (
        torch is not None and torch.cuda.is_available() and torch.cuda.is_current_stream_capturing()
    )


def _allocate(shape, dtype, zero):
    if not _heap.running:
        raise _core.Error(
            2, "SYMCOLL_ERROR_NOT_INITIALIZED", "symcoll.empty/zeros: call symcoll.init() first"
        )
    if _capturing():
        raise RuntimeError(
            "symcoll.empty/zeros during CUDA graph capture: symmetric allocation is collective and "
            "host-synchronous; allocate before capture and reuse the buffers in the graph"
        )
    if "torch" in sys.modules:
        collect()
    shape = _shape_of(shape)
    name = _types.dtype_name(dtype)
    lib = _core.lib()
    nbytes = max(math.prod(shape) * lib.symcoll_datatype_size(_core.datatypes()[name]), 1)
    ptr = lib.symcoll_calloc(1, nbytes) if zero else lib.symcoll_malloc(nbytes)
    if not ptr:
        _allocation_failed()
    allocation = _Allocation(_heap.next_seq, ptr, nbytes)
    _heap.next_seq += 1
    _heap.live.append(allocation)
    return Array(allocation, shape, name, _device_id())


def _allocation_failed():
    """symcoll_malloc returns NULL without a status: the Error carries status None and the
    library's message, which names the cause (heap exhausted, PEs that disagree, a failed
    bootstrap exchange)."""
    raise _core.Error(None, "symcoll_malloc returned NULL", _core.last_error())


def _device_id():
    torch = sys.modules.get("torch")
    return torch.cuda.current_device() if torch is not None and torch.cuda.is_available() else 0


def _wrap(array, like):
    """A torch tensor over array when torch is imported (the default), else array itself."""
    torch = sys.modules.get("torch")
    if like == "array" or torch is None:
        return array
    _compile.register()
    return torch.from_dlpack(array)


def empty(shape, dtype="float32", *, out="torch"):
    """A symmetric array of shape and dtype (collective: every PE calls it with the same shape
    and dtype, in the same order). Returns a torch tensor when torch is imported, else (or
    with out="array") an Array."""
    return _wrap(_allocate(shape, dtype, zero=False), out)


def zeros(shape, dtype="float32", *, out="torch"):
    """As empty, zero-filled on every PE."""
    return _wrap(_allocate(shape, dtype, zero=True), out)


def _allocation_of(obj, what):
    ptr = _types.view(obj, what).ptr
    for allocation in _heap.live:
        if allocation.ptr <= ptr < allocation.ptr + allocation.nbytes and not allocation.freed:
            return allocation
    raise ValueError(f"{what}: not a live allocation of symcoll.empty or symcoll.zeros")


def free(obj):
    """Frees obj's allocation now (collective: every PE frees the same one in the same order).
    Every view of it is then invalid."""
    allocation = _allocation_of(obj, "free")
    _core.check(_core.lib().symcoll_free_checked(ctypes.c_void_p(allocation.ptr)))
    allocation.freed = True
    _heap.live.remove(allocation)


def peer(obj, pe):
    """A view of PE pe's copy of the symmetric array obj, for loads and stores by this PE's GPU;
    ValueError when pe's memory is not load/store reachable from here."""
    v = _types.view(obj, "peer")
    address = _core.lib().symcoll_ptr(ctypes.c_void_p(v.ptr), pe)
    if not address:
        raise ValueError(
            f"peer: PE {pe} is not load/store reachable from PE {_core.lib().symcoll_my_pe()} "
            f"({_core.last_error()})"
        )
    allocation = _allocation_of(obj, "peer")
    shape = tuple(getattr(obj, "shape", (v.numel,)))
    view = Array(allocation, shape, v.dtype, _device_id(), offset=address - allocation.ptr)
    return _wrap(view, "array" if isinstance(obj, Array) else "torch")


def collect():
    """A settle point (collective): frees the allocations that every PE has released, oldest
    first, and returns how many. Needs torch for the agreement's host copy; every allocation,
    and finalize, call it. It first waits for the GPU: its agreement is a WORLD collective,
    which may not run beside another of the same team still in flight on some stream."""
    import torch

    live = list(_heap.live)
    if not live:
        return 0
    torch.cuda.synchronize()
    mine = torch.tensor([1 if a.released else 0 for a in live], dtype=torch.uint8)
    flags = _flags_for(len(live))
    flags[: len(live)].copy_(mine)
    _core.check(
        _core.lib().symcoll_reduce_on_stream(
            0,
            ctypes.c_void_p(flags.data_ptr()),
            ctypes.c_void_p(flags.data_ptr()),
            len(live),
            _core.datatypes()["uint8"],
            _core.ops()["min"],
            ctypes.c_void_p(_streams.handle(None)),
        )
    )
    agreed = flags[: len(live)].cpu().tolist()
    freed = 0
    for allocation, everyone in zip(live, agreed):
        if everyone:
            _core.check(_core.lib().symcoll_free_checked(ctypes.c_void_p(allocation.ptr)))
            allocation.freed = True
            _heap.live.remove(allocation)
            freed += 1
    return freed


_flags = None


def _flags_for(n):
    """The symmetric flag buffer for n allocations, grown in powers of two (every PE has the same
    n, so every PE grows it at the same settle point)."""
    global _flags
    import torch

    lib = _core.lib()
    if _flags is None or _flags[1] < n:
        if _flags is not None:
            _core.check(lib.symcoll_free_checked(ctypes.c_void_p(_flags[0])))
        capacity = 1 << max(n - 1, 63).bit_length()
        ptr = lib.symcoll_malloc(capacity)
        if not ptr:
            _allocation_failed()
        _flags = (ptr, capacity)
    allocation = _Allocation(-1, _flags[0], _flags[1])
    return torch.from_dlpack(Array(allocation, (_flags[1],), "uint8", _device_id()))
