"""The loaded library, the error type, and the names of statuses, datatypes and ops (read
from the library once: every call looks its type and op up in them)."""

import functools
import threading

from . import _capi

_lock = threading.Lock()
_lib = None


def lib():
    """The C library, loaded on first use (importing the package needs no library)."""
    # Every call asks for it: once loaded, no lock (the name is bound only to a typed library).
    if _lib is None:
        _load()
    return _lib


def _load():
    global _lib
    with _lock:
        if _lib is None:
            _lib = _capi.load()


class Error(RuntimeError):
    """A failed symcoll call: status is the symcoll_status_t value, status_name its constant's
    name, and the message symcoll_last_error() of the failure."""

    def __init__(self, status, status_name, message):
        super().__init__(f"{status_name}: {message}" if message else status_name)
        self.status = status
        self.status_name = status_name
        self.message = message


def last_error():
    return lib().symcoll_last_error().decode(errors="replace")


def check(status):
    """Raises Error for a status other than SYMCOLL_SUCCESS (0)."""
    if status != 0:
        name = lib().symcoll_status_string(status).decode()
        raise Error(status, name, last_error())


@functools.cache
def statuses():
    """{"SYMCOLL_SUCCESS": 0, ...} as the library names them."""
    return _capi.enum_names(lib(), lib().symcoll_status_string, "SYMCOLL_ERROR_UNKNOWN")


@functools.cache
def datatypes():
    """{"int8": 0, ..., "float64": 9} as the library names them."""
    return _capi.enum_names(lib(), lib().symcoll_datatype_name, "invalid")


@functools.cache
def ops():
    """{"sum": 0, ...} as the library names them."""
    return _capi.enum_names(lib(), lib().symcoll_op_name, "invalid")


@functools.cache
def datatype_size(datatype):
    """Bytes of one element of a symcoll_datatype_t value."""
    return lib().symcoll_datatype_size(datatype)
