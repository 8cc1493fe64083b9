"""The collectives and RMA calls as torch custom ops (namespace "symcoll"), so that a function
that torch.compile traces keeps them in its graph: no graph break.

Each public call checks tracing() first. While dynamo traces, it calls torch.ops.symcoll.<name>
instead of the C library; the op's CUDA implementation is the public call itself (eager, on the
current stream) and its fake implementation does nothing, as every op returns nothing. The
arrays a call writes are declared mutated (for put and put_signal: the local dst and signal as
well, which keeps later reads of them after the call). Every op also mutates one shared token
tensor: that orders the ops among themselves as the program wrote them, and keeps barrier and
signal_wait, which write no array of the program, from being removed as dead code.

The schemas name the parameters as the public calls do, with the same defaults, so a traced call
passes its arguments on as they came. stream has no place in a schema: inside a compiled
function a call runs on the current stream, and one that names a stream is left to eager mode
(a graph break). A halo plan's exchange is the op halo_exchange, which names its plan by
HaloPlan.id."""

import sys

from . import _collectives, _halo

# name: the schema's parameters after the token (the public call's, stream left out).
_SCHEMAS = {
    "barrier": "int team=0",
    "broadcast": "Tensor(b!) dst, Tensor? src=None, int root=0, int team=0",
    "all_reduce": "Tensor(b!) dst, Tensor? src=None, str op='sum', int team=0",
    "reduce_scatter": "Tensor(b!) dst, Tensor src, str op='sum', int team=0",
    "all_gather": "Tensor(b!) dst, Tensor src, int team=0",
    "all_to_all": "Tensor(b!) dst, Tensor src, int team=0",
    "all_to_all_v": "Tensor(b!) dst, Tensor src, Tensor send_counts, Tensor(c!) recv_counts, "
    "Tensor(d!) recv_offsets, int team=0",
    "moe_dispatch": "Tensor(b!) dst, Tensor src, Tensor send_counts, Tensor(c!) recv_counts, "
    "Tensor(d!) recv_offsets, int n_experts, int major_align=1, int team=0",
    "moe_combine": "Tensor(b!) dst, Tensor src, Tensor send_counts, int n_experts, "
    "int major_align=1, int team=0",
    "put": "Tensor(b!) dst, Tensor src, int pe",
    "get": "Tensor(b!) dst, Tensor src, int pe",
    "put_signal": "Tensor(b!) dst, Tensor src, Tensor(c!) signal, int value, int pe, "
    "str op='set'",
    "signal_wait": "Tensor signal, str cmp, int value",
}
_HALO_SCHEMA = "int plan, Tensor(b!)[] fields"

_torch = None
_token = None
_library = None  # held: a torch Library removes its ops when it is collected


def tracing():
    """True while torch.compile (dynamo) traces a call; False without torch or before
    register()."""
    return _torch is not None and _torch.compiler.is_compiling()


def call(name, args, kwargs):
    """The custom op of public call `name` with the call's arguments (stream left out)."""
    return getattr(_torch.ops.symcoll, name)(_token, *args, **kwargs)


def _implementation(public):
    def run(_token, *args, **kwargs):
        public(*args, **kwargs)

    return run


def _fake(*_args, **_kwargs):
    return None


def register():
    """Defines the ops once per process (on the first init with torch imported); the token
    lives on the current CUDA device. Later calls do nothing."""
    global _torch, _token, _library
    torch = sys.modules.get("torch")
    if _torch is not None or torch is None or not torch.cuda.is_available():
        return
    library = torch.library.Library("symcoll", "DEF")
    ops = [(name, p, getattr(_collectives, name)) for name, p in _SCHEMAS.items()]
    ops.append(("halo_exchange", _HALO_SCHEMA, _halo.exchange_by_id))
    for name, parameters, public in ops:
        library.define(f"{name}(Tensor(a!) token, {parameters}) -> ()")
        library.impl(name, _implementation(public), "CUDA")
        torch.library.register_fake(f"symcoll::{name}", _fake, lib=library)
    _library = library
    _token = torch.zeros(1, device=torch.cuda.current_device())
    _torch = torch
