"""The C library through ctypes: the structures the package passes, one table of the functions
it calls, and the names of the C enumerations, read from the library itself.

ctypes and not a compiled extension: the C ABI is stable and versioned, so the bindings need no
compiler, the wheel holds one native file (the library), and the same package works with any
CPython 3.10+ (docs/python.md says more).
"""

import ctypes
import ctypes.util
import os
import pathlib
import sys

c_status = ctypes.c_int
c_team = ctypes.c_int32
c_stream = ctypes.c_void_p

# symcoll_bootstrap_callbacks_t's two functions.
ALLGATHER = ctypes.CFUNCTYPE(
    ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p
)
BARRIER = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p)


class BootstrapCallbacks(ctypes.Structure):
    _fields_ = [("allgather", ALLGATHER), ("barrier", BARRIER), ("context", ctypes.c_void_p)]


class InitAttr(ctypes.Structure):
    """symcoll_init_attr_t of SYMCOLL_INIT_ATTR_VERSION 2."""

    _fields_ = [
        ("version", ctypes.c_uint32),
        ("heap_size", ctypes.c_size_t),
        ("device", ctypes.c_int),
        ("bootstrap", ctypes.c_int),
        ("uniqueid", ctypes.c_char * 128),
        ("rank", ctypes.c_int),
        ("size", ctypes.c_int),
        ("nccl_comm", ctypes.c_void_p),
        ("callbacks", BootstrapCallbacks),
    ]


class GpuSharing(ctypes.Structure):
    _fields_ = [
        ("sm_share", ctypes.c_int),
        ("device_sms", ctypes.c_int),
        ("pes_on_gpu", ctypes.c_int),
        ("mps", ctypes.c_int),
        ("divided", ctypes.c_int),
    ]


class HaloDesc(ctypes.Structure):
    """symcoll_halo_desc_t of SYMCOLL_HALO_DESC_VERSION 1 (x, the fastest dimension, first)."""

    _fields_ = [
        ("version", ctypes.c_uint32),
        ("ndims", ctypes.c_int),
        ("pe_grid", ctypes.c_int * 3),
        ("periodic", ctypes.c_int * 3),
        ("interior", ctypes.c_size_t * 3),
        ("width", ctypes.c_int * 3),
        ("pitch", ctypes.c_size_t * 2),
        ("type", ctypes.c_int),
        ("corners", ctypes.c_int),
    ]


BOOTSTRAP_AUTO = 0
BOOTSTRAP_CALLBACKS = 4
TEAM_WORLD = 0
TEAM_NODE = 1
SIGNAL_SET = 0
SIGNAL_ADD = 1

_p = ctypes.c_void_p
_size = ctypes.c_size_t
_int = ctypes.c_int
_u64 = ctypes.c_uint64

# (name, result, arguments) of every C function the package calls; tests/test_capi.py checks
# each against include/symcoll.h.
FUNCTIONS = (
    ("symcoll_init_attr_default", None, (ctypes.POINTER(InitAttr),)),
    ("symcoll_init", c_status, (ctypes.POINTER(InitAttr),)),
    ("symcoll_finalize", c_status, ()),
    ("symcoll_my_pe", _int, ()),
    ("symcoll_n_pes", _int, ()),
    ("symcoll_malloc", _p, (_size,)),
    ("symcoll_calloc", _p, (_size, _size)),
    ("symcoll_free_checked", c_status, (_p,)),
    ("symcoll_ptr", _p, (_p, _int)),
    ("symcoll_put_on_stream", c_status, (_p, _p, _size, _int, c_stream)),
    ("symcoll_get_on_stream", c_status, (_p, _p, _size, _int, c_stream)),
    ("symcoll_put_signal_on_stream", c_status, (_p, _p, _size, _p, _u64, _int, _int, c_stream)),
    ("symcoll_signal_wait_until_on_stream", c_status, (_p, _int, _u64, c_stream)),
    ("symcoll_barrier_on_stream", c_status, (c_team, c_stream)),
    ("symcoll_broadcast_on_stream", c_status, (c_team, _p, _p, _size, _int, _int, c_stream)),
    ("symcoll_reduce_on_stream", c_status, (c_team, _p, _p, _size, _int, _int, c_stream)),
    ("symcoll_fcollect_on_stream", c_status, (c_team, _p, _p, _size, _int, c_stream)),
    ("symcoll_alltoall_on_stream", c_status, (c_team, _p, _p, _size, _int, c_stream)),
    (
        "symcoll_reduce_scatter_on_stream",
        c_status,
        (c_team, _p, _p, _size, _int, _int, c_stream),
    ),
    (
        "symcoll_alltoallv_on_stream",
        c_status,
        (c_team, _p, _size, _p, _p, _p, _p, _int, c_stream),
    ),
    (
        "symcoll_moe_dispatch_on_stream",
        c_status,
        (c_team, _p, _size, _p, _p, _p, _p, _int, _size, _int, c_stream),
    ),
    (
        "symcoll_moe_combine_on_stream",
        c_status,
        (c_team, _p, _size, _p, _p, _int, _size, _int, c_stream),
    ),
    ("symcoll_halo_desc_default", None, (ctypes.POINTER(HaloDesc),)),
    ("symcoll_halo_create", c_status, (c_team, ctypes.POINTER(HaloDesc), ctypes.POINTER(_p))),
    ("symcoll_halo_exchange_on_stream", c_status, (_p, _p, c_stream)),
    ("symcoll_halo_exchange_many_on_stream", c_status, (_p, ctypes.POINTER(_p), _int, c_stream)),
    ("symcoll_halo_neighbor", _int, (_p, _int, _int)),
    ("symcoll_halo_grid", c_status, (_p, ctypes.POINTER(_int), ctypes.POINTER(_int))),
    ("symcoll_halo_destroy", c_status, (_p,)),
    ("symcoll_team_my_pe", _int, (c_team,)),
    ("symcoll_team_n_pes", _int, (c_team,)),
    ("symcoll_team_status", c_status, (c_team,)),
    ("symcoll_gpu_sharing", c_status, (ctypes.POINTER(GpuSharing),)),
    ("symcoll_get_version", c_status, (ctypes.POINTER(_int),)),
    ("symcoll_last_error", ctypes.c_char_p, ()),
    ("symcoll_status_string", ctypes.c_char_p, (c_status,)),
    ("symcoll_datatype_name", ctypes.c_char_p, (_int,)),
    ("symcoll_datatype_size", _size, (_int,)),
    ("symcoll_op_name", ctypes.c_char_p, (_int,)),
)

_LIBRARY_NAME = "libsymcoll.so.1"


def _candidates():
    """Where the library may be, in order: SYMCOLL_LIBRARY, the wheel's copy, the system's."""
    explicit = os.environ.get("SYMCOLL_LIBRARY")
    if explicit:
        return [explicit]
    here = pathlib.Path(__file__).resolve().parent / "lib"
    found = sorted(here.glob("libsymcoll.so*"))
    system = ctypes.util.find_library("symcoll")
    return [str(p) for p in found] + ([system] if system else []) + [_LIBRARY_NAME]


def _preload_nccl():
    """The library needs libnccl.so.2 (for its bootstrap). PyTorch's wheels ship it in the
    nvidia.nccl package, off the loader's path: load that copy first, where there is one."""
    for entry in sys.path:
        candidate = pathlib.Path(entry) / "nvidia" / "nccl" / "lib" / "libnccl.so.2"
        if candidate.is_file():
            try:
                ctypes.CDLL(str(candidate), mode=ctypes.RTLD_GLOBAL)
            except OSError:
                continue
            return


def load():
    """The library with every function of FUNCTIONS typed; OSError naming every place tried."""
    _preload_nccl()
    tried = []
    for path in _candidates():
        try:
            lib = ctypes.CDLL(path)
        except OSError as e:
            tried.append(f"{path}: {e}")
            continue
        for name, restype, argtypes in FUNCTIONS:
            fn = getattr(lib, name)
            fn.restype = restype
            fn.argtypes = argtypes
        return lib
    raise OSError(
        "symcoll: cannot load the C library (set SYMCOLL_LIBRARY to libsymcoll.so, or install "
        "the wheel, which holds it); tried: " + "; ".join(tried)
    )


def enum_names(lib, name_of, invalid):
    """{name: value} of a C enumeration, from the library's own naming function, which returns
    `invalid` past the last value."""
    names = {}
    for value in range(256):
        name = name_of(value).decode()
        if name == invalid:
            break
        names[name] = value
    return names
