"""Start-up and shutdown: symcoll_init from the launcher's environment or from a
torch.distributed process group, symcoll_finalize, and the PE numbers."""

import ctypes

from . import _capi, _compile, _core, _memory


class _GroupExchange:
    """symcoll's bootstrap exchange over a torch.distributed process group: any backend, since
    it moves a few bytes through the group's own all_gather and barrier (CPU tensors, or CUDA
    tensors for backends that take only those)."""

    def __init__(self, group):
        import torch
        import torch.distributed as dist

        self.torch, self.dist, self.group = torch, dist, group
        backend = dist.get_backend(group)
        self.device = (
            torch.device("cuda", torch.cuda.current_device())
            if backend == "nccl"
            else torch.device("cpu")
        )
        self.size = dist.get_world_size(group)
        self.failure = None
        self.allgather = _capi.ALLGATHER(self._allgather)
        self.barrier = _capi.BARRIER(self._barrier)

    def _allgather(self, mine, all_, nbytes, _context):
        try:
            if nbytes == 0:
                return 0
            torch = self.torch
            src = torch.frombuffer(bytearray(ctypes.string_at(mine, nbytes)), dtype=torch.uint8)
            parts = [
                torch.empty(nbytes, dtype=torch.uint8, device=self.device) for _ in range(self.size)
            ]
            self.dist.all_gather(parts, src.to(self.device), group=self.group)
            gathered = torch.cat(parts).cpu().contiguous()
            ctypes.memmove(all_, gathered.data_ptr(), nbytes * self.size)
            return 0
        except Exception as e:  # noqa: BLE001 - any failure fails the C call with BOOTSTRAP
            self.failure = e
            return 1

    def _barrier(self, _context):
        try:
            self.dist.barrier(group=self.group)
            return 0
        except Exception as e:  # noqa: BLE001
            self.failure = e
            return 1


_exchange = None


class Session:
    """What init returns: use it as a context manager to finalize on exit."""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        finalize()
        return False


def init(group=None, heap_size=0, device=None):
    """Starts symcoll (collective). Without group, the PEs find each other as the C library's
    symcoll_init does (symcoll-run, mpirun's PMIx, torchrun's variables). With a
    torch.distributed process group, the PEs are the group's ranks in order and every exchange
    goes through the group: any backend, gloo included, so PEs may share a GPU. heap_size:
    bytes of symmetric heap per PE (0: SYMCOLL_SYMMETRIC_SIZE); device: the CUDA device (None:
    the local rank, or torch's current device with a group)."""
    global _exchange
    lib = _core.lib()
    if lib.symcoll_my_pe() >= 0:
        # The running session keeps its exchange: the library still calls its callbacks.
        raise _core.Error(
            1,
            "SYMCOLL_ERROR_INVALID_ARGUMENT",
            "init: symcoll is already running; finalize() first",
        )
    attr = _capi.InitAttr()
    lib.symcoll_init_attr_default(ctypes.byref(attr))
    attr.heap_size = heap_size
    exchange = None
    if group is not None:
        exchange = _GroupExchange(group)
        attr.bootstrap = _capi.BOOTSTRAP_CALLBACKS
        attr.rank = exchange.dist.get_rank(group)
        attr.size = exchange.size
        attr.callbacks.allgather = exchange.allgather
        attr.callbacks.barrier = exchange.barrier
        if device is None:
            device = exchange.torch.cuda.current_device()
    if device is not None:
        attr.device = device
    status = lib.symcoll_init(ctypes.byref(attr))
    try:
        _core.check(status)
    except _core.Error as e:
        if exchange is not None and exchange.failure is not None:
            raise e from exchange.failure
        raise
    _exchange = exchange
    _memory.started()
    _compile.register()
    return Session()


def finalize():
    """Frees what every PE has released, then stops symcoll (collective). symcoll_finalize runs
    even when the last settle point fails, so that no PE is left waiting for this one."""
    global _exchange
    try:
        _memory.stopping()
    finally:
        status = _core.lib().symcoll_finalize()
        _exchange = None
    _core.check(status)


def my_pe():
    """This PE's number; -1 before init."""
    return _core.lib().symcoll_my_pe()


def n_pes():
    """The number of PEs; -1 before init."""
    return _core.lib().symcoll_n_pes()
