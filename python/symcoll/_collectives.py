"""Collectives and one-sided RMA on arrays (torch tensors, __cuda_array_interface__ objects or
symcoll Arrays), enqueued on a stream as the C calls are: stream-ordered, graph-capturable,
no host synchronization. Arrays that must be symmetric are checked by the library, which names
the argument when one is not."""

import functools

from . import _capi, _compile, _core, _streams, _types

WORLD = _capi.TEAM_WORLD
NODE = _capi.TEAM_NODE


def _traceable(public):
    """The public call, which becomes its torch custom op while torch.compile traces it (see
    _compile); a call that names a stream stays eager."""
    name = public.__name__

    @functools.wraps(public)
    def call(*args, stream=None, **kwargs):
        if stream is None and _compile.tracing():
            return _compile.call(name, args, kwargs)
        return public(*args, stream=stream, **kwargs)

    return call


def _team_size(team):
    n = _core.lib().symcoll_team_n_pes(team)
    if n < 1:
        raise ValueError(f"team {team}: not a team of this job (symcoll_team_n_pes gives {n})")
    return n


def _op(op):
    ops = _core.ops()
    if op not in ops:
        raise ValueError(f"op {op!r}: symcoll has {', '.join(ops)}")
    return ops[op]


def _pair(dst, src):
    d = _types.view(dst, "dst")
    s = d if src is None else _types.view(src, "src")
    _types.same_dtype(d, s)
    return d, s


def _collective(function, team, d, s, count, stream, *op):
    """The C collective named function (symcoll_<name>_on_stream) on (team, dst, src, count,
    type[, op or root], stream). Addresses and the stream go to ctypes as ints: its argtypes
    convert them in less time than a c_void_p each takes to build."""
    call = getattr(_core.lib(), function)
    _core.check(call(team, d.ptr, s.ptr, count, d.datatype, *op, _streams.handle(stream)))


@_traceable
def barrier(team=WORLD, *, stream=None):
    """Every PE of team reaches this point of its stream before any goes on."""
    _core.check(_core.lib().symcoll_barrier_on_stream(team, _streams.handle(stream)))


@_traceable
def broadcast(dst, src=None, root=0, team=WORLD, *, stream=None):
    """dst on every PE of team gets root's src (src None: in place, root's dst)."""
    d, s = _pair(dst, src)
    if s.numel != d.numel:
        raise ValueError(f"broadcast: {d.what} and {s.what} hold different element counts")
    _collective("symcoll_broadcast_on_stream", team, d, s, d.numel, stream, root)


@_traceable
def all_reduce(dst, src=None, op="sum", team=WORLD, *, stream=None):
    """dst on every PE of team gets the reduction (op) of every PE's src (None: in place)."""
    d, s = _pair(dst, src)
    if s.numel != d.numel:
        raise ValueError(f"all_reduce: {d.what} and {s.what} hold different element counts")
    _collective("symcoll_reduce_on_stream", team, d, s, d.numel, stream, _op(op))


@_traceable
def reduce_scatter(dst, src, op="sum", team=WORLD, *, stream=None):
    """PE i's dst gets the reduction of block i of every PE's src (src holds team-size blocks of
    dst's element count), as ncclReduceScatter."""
    d, s = _pair(dst, src)
    n = _team_size(team)
    if s.numel != d.numel * n:
        raise ValueError(f"reduce_scatter: {s.what} must hold {n} x the elements of {d.what}")
    _collective("symcoll_reduce_scatter_on_stream", team, d, s, d.numel, stream, _op(op))


@_traceable
def all_gather(dst, src, team=WORLD, *, stream=None):
    """dst on every PE gets every PE's src, in PE order (symcoll's fcollect)."""
    d, s = _pair(dst, src)
    n = _team_size(team)
    if d.numel != s.numel * n:
        raise ValueError(f"all_gather: {d.what} must hold {n} x the elements of {s.what}")
    _collective("symcoll_fcollect_on_stream", team, d, s, s.numel, stream)


@_traceable
def all_to_all(dst, src, team=WORLD, *, stream=None):
    """Block j of PE i's src goes to block i of PE j's dst (team-size equal blocks)."""
    d, s = _pair(dst, src)
    n = _team_size(team)
    if d.numel != s.numel or s.numel % n:
        raise ValueError(
            f"all_to_all: {d.what} and {s.what} must hold the same element count, a multiple of {n}"
        )
    _collective("symcoll_alltoall_on_stream", team, d, s, s.numel // n, stream)


def _counts(obj, name, n):
    v = _types.view(obj, name)
    if v.dtype not in ("int64", "uint64") or v.numel != n:
        raise ValueError(f"{name}: {v.what} must be {n} int64 or uint64 counts in GPU memory")
    return v


@_traceable
def all_to_all_v(dst, src, send_counts, recv_counts, recv_offsets, team=WORLD, *, stream=None):
    """alltoallv with the counts in GPU memory (written by earlier kernels on the stream): src
    holds this PE's segments by destination, send_counts[j] elements for PE j; the kernel
    exchanges the counts itself and writes recv_counts and recv_offsets (n int64 each). dst's
    element count is its capacity, the same on every PE; an overflow moves nothing and is
    reported by the team's status (symcoll_team_status) after the stream passes the call."""
    d, s = _pair(dst, src)
    n = _team_size(team)
    counts = [
        _counts(c, name, n)
        for c, name in (
            (send_counts, "send_counts"),
            (recv_counts, "recv_counts"),
            (recv_offsets, "recv_offsets"),
        )
    ]
    _core.check(
        _core.lib().symcoll_alltoallv_on_stream(
            team,
            d.ptr,
            d.numel,
            s.ptr,
            counts[0].ptr,
            counts[1].ptr,
            counts[2].ptr,
            d.datatype,
            _streams.handle(stream),
        )
    )


@_traceable
def moe_dispatch(
    dst,
    src,
    send_counts,
    recv_counts,
    recv_offsets,
    n_experts,
    major_align=1,
    team=WORLD,
    *,
    stream=None,
):
    """The expert-grouped all-to-all of mixture-of-experts layers (PyTorch's
    all_to_all_vdev_2d): send_counts[g] (team size x n_experts int64 in GPU memory) is what this
    PE sends to expert g, src holds it packed in g order; dst receives its local experts' groups
    (each at a multiple of major_align elements), recv_counts and recv_offsets [e * n + i] say
    what PE i sent to local expert e and where it is. Counts and major_align are in elements
    (a token of H elements counts H). dst's element count is its capacity, as in all_to_all_v."""
    d, s = _pair(dst, src)
    n = _team_size(team) * n_experts
    names = ("send_counts", "recv_counts", "recv_offsets")
    counts = [
        _counts(c, name, n) for c, name in zip((send_counts, recv_counts, recv_offsets), names)
    ]
    _core.check(
        _core.lib().symcoll_moe_dispatch_on_stream(
            team,
            d.ptr,
            d.numel,
            s.ptr,
            *(c.ptr for c in counts),
            n_experts,
            major_align,
            d.datatype,
            _streams.handle(stream),
        )
    )


@_traceable
def moe_combine(dst, src, send_counts, n_experts, major_align=1, team=WORLD, *, stream=None):
    """The inverse of moe_dispatch with the same send_counts, n_experts and major_align: src is
    laid out as the dispatch left its dst (the experts' outputs in place of their inputs), and
    dst gets every element back where it was in the dispatch's src."""
    d, s = _pair(dst, src)
    counts = _counts(send_counts, "send_counts", _team_size(team) * n_experts)
    _core.check(
        _core.lib().symcoll_moe_combine_on_stream(
            team,
            d.ptr,
            d.numel,
            s.ptr,
            counts.ptr,
            n_experts,
            major_align,
            d.datatype,
            _streams.handle(stream),
        )
    )


def _rma_pair(dst, src, what):
    """dst and src of a put or get, of one dtype and element count; their byte count."""
    d, s = _pair(dst, src)
    if d.numel != s.numel:
        raise ValueError(f"{what}: {d.what} and {s.what} hold different element counts")
    return d, s, d.numel * _core.datatype_size(d.datatype)


def _rma(name, function, dst, src, pe, stream):
    """function(dst, src, bytes, pe, stream), the C function of put or get (name)."""
    d, s, nbytes = _rma_pair(dst, src, name)
    call = getattr(_core.lib(), function)
    _core.check(call(d.ptr, s.ptr, nbytes, pe, _streams.handle(stream)))


@_traceable
def put(dst, src, pe, *, stream=None):
    """Writes src (this PE's GPU memory) into PE pe's copy of the symmetric dst."""
    _rma("put", "symcoll_put_on_stream", dst, src, pe, stream)


@_traceable
def get(dst, src, pe, *, stream=None):
    """Reads PE pe's copy of the symmetric src into dst (this PE's GPU memory)."""
    _rma("get", "symcoll_get_on_stream", dst, src, pe, stream)


def _signal(signal):
    v = _types.view(signal, "signal")
    if v.dtype not in ("int64", "uint64") or v.numel < 1:
        raise ValueError(f"signal: {v.what} must be a symmetric 64-bit integer")
    return v


_SIGNAL_OPS = {"set": _capi.SIGNAL_SET, "add": _capi.SIGNAL_ADD}
_CMPS = {"eq": 0, "ne": 1, "gt": 2, "ge": 3, "lt": 4, "le": 5}


@_traceable
def put_signal(dst, src, signal, value, pe, op="set", *, stream=None):
    """put, then sets (or adds value to) PE pe's copy of signal once the data is visible there."""
    d, s, nbytes = _rma_pair(dst, src, "put_signal")
    if op not in _SIGNAL_OPS:
        raise ValueError(f"op {op!r}: give 'set' or 'add'")
    g = _signal(signal)
    _core.check(
        _core.lib().symcoll_put_signal_on_stream(
            d.ptr,
            s.ptr,
            nbytes,
            g.ptr,
            value,
            _SIGNAL_OPS[op],
            pe,
            _streams.handle(stream),
        )
    )


@_traceable
def signal_wait(signal, cmp, value, *, stream=None):
    """The stream waits until this PE's signal compares (cmp: eq, ne, gt, ge, lt, le) to value."""
    if cmp not in _CMPS:
        raise ValueError(f"cmp {cmp!r}: give one of {', '.join(_CMPS)}")
    g = _signal(signal)
    _core.check(
        _core.lib().symcoll_signal_wait_until_on_stream(
            g.ptr, _CMPS[cmp], value, _streams.handle(stream)
        )
    )
