"""symcoll from Python: symmetric tensors and stream-ordered GPU collectives over the C library.

    import symcoll, torch
    with symcoll.init():                      # torchrun, mpirun or symcoll-run; or group=pg
        x = symcoll.zeros(1024, torch.float32)
        symcoll.all_reduce(x)                 # on torch's current stream

torch is optional: imported by the caller, it is used; without it arrays are symcoll.Array
objects (__cuda_array_interface__ and DLPack). docs/python.md is the guide.
"""

from ._collectives import (
    NODE,
    WORLD,
    all_gather,
    all_reduce,
    all_to_all,
    all_to_all_v,
    barrier,
    broadcast,
    get,
    moe_combine,
    moe_dispatch,
    put,
    put_signal,
    reduce_scatter,
    signal_wait,
)
from ._core import Error, last_error
from ._halo import HaloPlan
from ._memory import Array, collect, empty, free, peer, zeros
from ._runtime import finalize, init, my_pe, n_pes

__all__ = [
    "Array",
    "Error",
    "HaloPlan",
    "NODE",
    "WORLD",
    "all_gather",
    "all_reduce",
    "all_to_all",
    "all_to_all_v",
    "barrier",
    "broadcast",
    "collect",
    "empty",
    "finalize",
    "free",
    "get",
    "init",
    "last_error",
    "moe_combine",
    "moe_dispatch",
    "my_pe",
    "n_pes",
    "peer",
    "put",
    "put_signal",
    "reduce_scatter",
    "signal_wait",
    "zeros",
]
