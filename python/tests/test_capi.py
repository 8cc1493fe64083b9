"""The ctypes bindings against include/symcoll.h, and the library's names as the package reads
them. No GPU needed."""

import ctypes
import json
import os
import re
import subprocess

import pytest

from symcoll import _capi, _core

# The ctypes type each C parameter or result type must have.
_C_TO_CTYPES = {
    "void": None,
    "int": ctypes.c_int,
    "size_t": ctypes.c_size_t,
    "uint32_t": ctypes.c_uint32,
    "uint64_t": ctypes.c_uint64,
    "symcoll_status_t": ctypes.c_int,
    "symcoll_team_t": ctypes.c_int32,
    "symcoll_datatype_t": ctypes.c_int,
    "symcoll_op_t": ctypes.c_int,
    "symcoll_signal_op_t": ctypes.c_int,
    "symcoll_cmp_t": ctypes.c_int,
    "cudaStream_t": "pointer",
    "symcoll_halo_t": "pointer",
}


def _prototypes(header):
    """{name: (result, [parameter types])} of every SYMCOLL_API function."""
    text = re.sub(r"/\*.*?\*/", " ", header, flags=re.S)
    found = {}
    for m in re.finditer(r"SYMCOLL_API\s+([^;(]+?)\b(symcoll_\w+)\s*\(([^)]*)\)\s*;", text):
        result, name, params = m.group(1).strip(), m.group(2), m.group(3).strip()
        types = []
        if params and params != "void":
            for param in params.split(","):
                words = param.replace("*", " * ").split()
                pointer = "*" in words or "[" in words[-1]
                base = [w for w in words[:-1] if w not in ("const", "*")]
                types.append("pointer" if pointer else " ".join(base))
        found[name] = ("pointer" if "*" in result else result.replace("const", "").strip(), types)
    return found


def _expected(c_type):
    if c_type == "pointer":
        return "pointer"
    return _C_TO_CTYPES[c_type]


def _actual(t):
    if t is None:
        return None
    if t in (ctypes.c_void_p, ctypes.c_char_p) or issubclass(t, ctypes._Pointer):
        return "pointer"
    return t


@pytest.mark.parametrize(
    "name,restype,argtypes", _capi.FUNCTIONS, ids=[f[0] for f in _capi.FUNCTIONS]
)
def test_binding_matches_the_header(header, name, restype, argtypes):
    prototypes = _prototypes(header)
    assert name in prototypes, f"{name} is not a SYMCOLL_API function of include/symcoll.h"
    result, params = prototypes[name]
    assert _actual(restype) == _expected(result), f"{name} returns {result}"
    assert len(argtypes) == len(params), f"{name} takes {params}"
    for i, (binding, c_type) in enumerate(zip(argtypes, params)):
        assert _actual(binding) == _expected(c_type), f"{name} parameter {i} is {c_type}"


def _struct_fields(header, name):
    text = re.sub(r"/\*.*?\*/", " ", header, flags=re.S)
    body = re.search(r"typedef struct \{([^}]*(?:\{[^}]*\}[^}]*)*)\}\s*" + name + ";", text).group(
        1
    )
    return [
        re.findall(r"(\w+)\s*(?:\[\d+\])?$", decl.strip())[0]
        for decl in body.split(";")
        if decl.strip()
    ]


@pytest.mark.parametrize(
    "struct,c_name",
    [
        (_capi.InitAttr, "symcoll_init_attr_t"),
        (_capi.GpuSharing, "symcoll_gpu_sharing_t"),
        (_capi.HaloDesc, "symcoll_halo_desc_t"),
    ],
)
def test_structures_follow_the_header(header, struct, c_name):
    assert [f[0] for f in struct._fields_] == _struct_fields(header, c_name)


@pytest.mark.parametrize(
    "struct,c_name",
    [
        (_capi.InitAttr, "symcoll_init_attr_t"),
        (_capi.BootstrapCallbacks, "symcoll_bootstrap_callbacks_t"),
        (_capi.GpuSharing, "symcoll_gpu_sharing_t"),
        (_capi.HaloDesc, "symcoll_halo_desc_t"),
    ],
)
def test_structures_have_the_compilers_layout(struct, c_name):
    """Offsets and sizes against tests/python_layout_probe.c, built with the library (ctest
    sets SYMCOLL_LAYOUT_PROBE)."""
    probe = os.environ.get("SYMCOLL_LAYOUT_PROBE")
    if not probe:
        pytest.skip("SYMCOLL_LAYOUT_PROBE not set: run through ctest (python_pure)")
    layout = json.loads(subprocess.run([probe], check=True, capture_output=True, text=True).stdout)
    c = layout[c_name]
    assert ctypes.sizeof(struct) == c["size"]
    for name, _ in struct._fields_:
        field = getattr(struct, name)
        assert [field.offset, field.size] == c["fields"][name], name


def test_halo_desc_default_is_the_headers(header):
    version = int(re.search(r"#define SYMCOLL_HALO_DESC_VERSION (\d+)", header).group(1))
    desc = _capi.HaloDesc()
    _core.lib().symcoll_halo_desc_default(ctypes.byref(desc))
    assert (desc.version, desc.ndims, list(desc.interior)) == (version, 1, [1, 1, 1])


def test_init_attr_version_is_the_headers(header):
    version = int(re.search(r"#define SYMCOLL_INIT_ATTR_VERSION (\d+)", header).group(1))
    attr = _capi.InitAttr()
    _core.lib().symcoll_init_attr_default(ctypes.byref(attr))
    assert attr.version == version
    assert (attr.rank, attr.size, attr.device, attr.bootstrap) == (-1, -1, -1, _capi.BOOTSTRAP_AUTO)


def test_names_come_from_the_library(header):
    assert _core.datatypes() == {
        "int8": 0,
        "uint8": 1,
        "int32": 2,
        "uint32": 3,
        "int64": 4,
        "uint64": 5,
        "float16": 6,
        "bfloat16": 7,
        "float32": 8,
        "float64": 9,
    }
    assert _core.ops() == {"sum": 0, "prod": 1, "min": 2, "max": 3, "and": 4, "or": 5, "xor": 6}
    statuses = _core.statuses()
    for name, value in re.findall(r"(SYMCOLL_(?:SUCCESS|ERROR_\w+)) = (\d+)", header):
        assert statuses[name] == int(value)


def test_a_failed_call_raises_error_with_status_and_message():
    # Before init every collective is NOT_INITIALIZED, with a message that names the call.
    with pytest.raises(_core.Error) as failure:
        _core.check(_core.lib().symcoll_barrier_on_stream(0, None))
    assert failure.value.status == _core.statuses()["SYMCOLL_ERROR_NOT_INITIALIZED"]
    assert failure.value.status_name == "SYMCOLL_ERROR_NOT_INITIALIZED"
    assert "symcoll_barrier_on_stream" in failure.value.message
    assert str(failure.value).startswith("SYMCOLL_ERROR_NOT_INITIALIZED: ")


def test_a_missing_library_is_named(monkeypatch):
    monkeypatch.setenv("SYMCOLL_LIBRARY", "/nonexistent/libsymcoll.so")
    with pytest.raises(OSError, match="SYMCOLL_LIBRARY.*/nonexistent/libsymcoll.so"):
        _capi.load()
