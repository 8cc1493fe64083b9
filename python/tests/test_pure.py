"""The package's parts that need no GPU: arrays as the collectives see them, streams, DLPack
and __cuda_array_interface__ export, the bookkeeping of deferred frees, and the checks made
before any C call."""

import ctypes
import gc
import sys

import pytest

import symcoll
from symcoll import _memory, _streams, _types


class FakeCai:
    """A GPU array as CuPy or Numba shows it; never dereferenced here."""

    def __init__(self, shape, typestr, address=0x7F0000000000, strides=None):
        self.__cuda_array_interface__ = {
            "shape": shape,
            "typestr": typestr,
            "data": (address, False),
            "version": 3,
            "strides": strides,
        }


def test_dtype_names():
    assert _types.dtype_name("float32") == "float32"
    assert _types.dtype_name("<f2") == "float16"
    assert _types.dtype_name("torch.bfloat16") == "bfloat16"
    with pytest.raises(ValueError, match="complex64: symcoll has no such type"):
        _types.dtype_name("complex64")


def test_view_of_a_cuda_array_interface():
    v = _types.view(FakeCai((3, 5), "<i8"), "dst")
    assert (v.ptr, v.numel, v.dtype) == (0x7F0000000000, 15, "int64")
    assert "dst (3, 5) int64" == v.what
    contiguous = FakeCai((3, 5), "<i4", strides=(20, 4))
    assert _types.view(contiguous, "src").numel == 15
    with pytest.raises(ValueError, match="src: a non-contiguous array"):
        _types.view(FakeCai((3, 5), "<i4", strides=(4, 12)), "src")
    with pytest.raises(ValueError, match="dst: list is neither a torch tensor nor"):
        _types.view([1, 2], "dst")


def test_dtype_and_count_mismatches_name_both():
    with pytest.raises(
        ValueError, match=r"dst \(4,\) float32 and src \(4,\) int32: the dtypes differ"
    ):
        symcoll.broadcast(FakeCai((4,), "<f4"), FakeCai((4,), "<i4"))
    with pytest.raises(
        ValueError, match=r"dst \(4,\) float32 and src \(5,\) float32 hold different"
    ):
        symcoll.all_reduce(FakeCai((4,), "<f4"), FakeCai((5,), "<f4"))
    with pytest.raises(ValueError, match="op 'mean'"):
        symcoll.all_reduce(FakeCai((4,), "<f4"), op="mean")


def test_calls_before_init_raise_not_initialized():
    with pytest.raises(symcoll.Error) as failure:
        symcoll.barrier()
    assert failure.value.status_name == "SYMCOLL_ERROR_NOT_INITIALIZED"
    with pytest.raises(symcoll.Error, match="NOT_INITIALIZED"):
        symcoll.empty(16)
    assert (symcoll.my_pe(), symcoll.n_pes()) == (-1, -1)


class StreamProtocol:
    def __cuda_stream__(self):
        return (0, 0xABC)


class TorchLikeStream:
    cuda_stream = 0xDEF


def test_stream_handles(monkeypatch):
    monkeypatch.delitem(sys.modules, "torch", raising=False)
    assert _streams.handle(None) == 0
    assert _streams.handle(StreamProtocol()) == 0xABC
    assert _streams.handle(TorchLikeStream()) == 0xDEF
    assert _streams.handle(7) == 7
    with pytest.raises(ValueError, match="stream: str is not a stream"):
        _streams.handle("default")


def _array(shape=(2, 3), dtype="float32"):
    allocation = _memory._Allocation(0, 0x7F0000001000, 4096)
    return _memory.Array(allocation, shape, dtype, 0), allocation


def test_array_interface():
    array, _ = _array()
    cai = array.__cuda_array_interface__
    assert cai == {
        "shape": (2, 3),
        "typestr": "<f4",
        "data": (0x7F0000001000, False),
        "version": 3,
        "strides": None,
    }
    assert array.__dlpack_device__() == (2, 0)
    assert array.nbytes == 24


def test_dlpack_capsule_describes_the_array_and_keeps_it_alive():
    array, allocation = _array((4,), "bfloat16")
    capsule = array.__dlpack__()
    get_pointer = ctypes.PYFUNCTYPE(ctypes.c_void_p, ctypes.py_object, ctypes.c_char_p)(
        ("PyCapsule_GetPointer", ctypes.pythonapi)
    )
    address = get_pointer(capsule, b"dltensor")
    managed = _memory._DLManagedTensor.from_address(address)
    tensor = managed.dl_tensor
    assert tensor.data == 0x7F0000001000
    assert (tensor.device.device_type, tensor.ndim, tensor.shape[0]) == (2, 1, 4)
    assert (tensor.dtype.code, tensor.dtype.bits, tensor.dtype.lanes) == (4, 16, 1)
    del array
    gc.collect()
    assert not allocation.released, "the export holds the array"
    del capsule, managed, tensor
    gc.collect()
    assert allocation.released, "an unconsumed capsule lets go when it is collected"


def test_release_waits_for_every_array_over_an_allocation():
    array, allocation = _array()
    view = _memory.Array(allocation, (6,), "float32", 0, offset=0)
    del array
    gc.collect()
    assert not allocation.released
    del view
    gc.collect()
    assert allocation.released


def test_init_without_a_gpu_says_so():
    from conftest import gpu_present

    if gpu_present():
        pytest.skip("this machine has a GPU")
    with pytest.raises(symcoll.Error) as failure:
        symcoll.init()
    assert failure.value.status_name == "SYMCOLL_ERROR_NO_GPU"
    assert "symcoll_init" in failure.value.message
    assert symcoll.my_pe() == -1


def _schema_parameters(text):
    """[(name, default or inspect.Parameter.empty)] of a schema's parameter list."""
    import inspect

    out = []
    for param in text.split(","):
        words = param.split()
        name, _, default = words[-1].partition("=")
        out.append((name, inspect.Parameter.empty if not default else default.strip("'")))
    return out


def test_each_custom_op_schema_is_its_public_calls_signature():
    """A traced call passes its arguments to the op as they came, so each schema must name the
    public call's parameters (all but stream) in order, with the same defaults."""
    import inspect

    from symcoll import _compile

    for name, parameters in _compile._SCHEMAS.items():
        public = inspect.signature(getattr(symcoll, name))
        want = [
            (p.name, p.default if p.default is inspect.Parameter.empty else str(p.default))
            for p in public.parameters.values()
            if p.name != "stream"
        ]
        got = [
            (n, d if d == inspect.Parameter.empty or d != "None" else "None")
            for n, d in _schema_parameters(parameters)
        ]
        assert got == want, name
        assert public.parameters["stream"].kind is inspect.Parameter.KEYWORD_ONLY, name
    exported = {n for n in symcoll.__all__ if callable(getattr(symcoll, n))}
    traced = {n for n in exported if hasattr(getattr(symcoll, n), "__wrapped__")}
    assert traced == set(_compile._SCHEMAS)


def test_without_torch_compile_nothing_is_traced():
    from symcoll import _compile

    assert not _compile.tracing() or "torch" in sys.modules


def test_halo_plan_arguments_are_checked_before_the_library():
    with pytest.raises(ValueError, match="4 dimensions"):
        symcoll.HaloPlan((2, 2, 2, 2), 1)
    with pytest.raises(ValueError, match="width: 3 values for a field of 2 dimensions"):
        symcoll.HaloPlan((8, 8), (1, 1, 1))
    with pytest.raises(symcoll.Error, match="NOT_INITIALIZED|not initialized"):
        symcoll.HaloPlan((8, 8), 1)
