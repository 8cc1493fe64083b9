"""Halo exchange plans over the C library's symcoll_halo_* calls.

Python gives every per-dimension value in the array's axis order, as numpy and torch index it:
the last axis varies fastest (the C API's x, dimension 0, comes last here). A field of
interior (ny, nx) with width (1, 1) is an array of shape (ny + 2, nx + 2)."""

import ctypes
import weakref

from . import _capi, _compile, _core, _streams, _types

WORLD = _capi.TEAM_WORLD
MAX_FIELDS = 8  # SYMCOLL_HALO_MAX_FIELDS

# Live plans by id, for the custom op halo_exchange (see _compile), which names its plan so.
_plans = weakref.WeakValueDictionary()


def _per_axis(value, ndims, name, default):
    """value for each of ndims axes (a sequence, or one value for all), in C order (x first)."""
    if value is None:
        value = default
    values = [value] * ndims if isinstance(value, (int, bool)) else list(value)
    if len(values) != ndims:
        raise ValueError(f"{name}: {len(values)} values for a field of {ndims} dimensions")
    return [int(v) for v in reversed(values)]


class HaloPlan:
    """The neighbour exchange of a Cartesian decomposition of team: each PE's boundary cells go
    into its neighbours' halo cells, one fused kernel per exchange (symcoll_halo.h says how).

    Creating and destroying a plan are collective over WORLD (every PE, in the same order).
    destroy() releases the plan, as does leaving a `with` block; a plan that is never destroyed
    keeps its symmetric memory until finalize(). Garbage collection does not destroy a plan,
    since PEs collect at different times."""

    def __init__(
        self,
        interior,
        width,
        dtype="float32",
        *,
        pe_grid=None,
        periodic=False,
        pitch=None,
        corners=False,
        team=WORLD,
    ):
        ndims = len(interior)
        if not 1 <= ndims <= 3:
            raise ValueError(f"interior: {ndims} dimensions (a plan has 1, 2 or 3)")
        desc = _capi.HaloDesc()
        lib = _core.lib()
        lib.symcoll_halo_desc_default(ctypes.byref(desc))
        desc.ndims = ndims
        for d, (n, w, g, p) in enumerate(
            zip(
                _per_axis(interior, ndims, "interior", None),
                _per_axis(width, ndims, "width", None),
                _per_axis(pe_grid, ndims, "pe_grid", 0),
                _per_axis(periodic, ndims, "periodic", False),
            )
        ):
            desc.interior[d], desc.width[d], desc.pe_grid[d], desc.periodic[d] = n, w, g, p
        if pitch is not None:
            pitches = _per_axis(pitch, ndims - 1, "pitch", None)
            for d, p in enumerate(pitches):
                desc.pitch[d] = p
        desc.type = _types.datatype(dtype)
        desc.corners = int(bool(corners))
        handle = ctypes.c_void_p()
        _core.check(lib.symcoll_halo_create(team, ctypes.byref(desc), ctypes.byref(handle)))
        self._handle = handle
        self.id = handle.value  # the custom op's name for this plan
        _plans[self.id] = self
        self.ndims = ndims
        self.dtype = _types.dtype_name(dtype)
        self.shape = tuple(
            desc.interior[d] + 2 * desc.width[d] for d in reversed(range(ndims))
        )  # the dense field (pitch None)

    def _live(self):
        if not self._handle:
            raise ValueError("halo plan: destroyed")
        return self._handle

    def exchange(self, *fields, stream=None):
        """One exchange of up to MAX_FIELDS symmetric fields together (one kernel), on stream
        (None: torch's current stream). Graph-capturable; under torch.compile the op
        halo_exchange."""
        if stream is None and _compile.tracing():
            return _compile.call("halo_exchange", (self.id, list(fields)), {})
        if not 1 <= len(fields) <= MAX_FIELDS:
            raise ValueError(f"exchange: {len(fields)} fields (give 1 to {MAX_FIELDS})")
        views = [_types.view(f, f"fields[{i}]") for i, f in enumerate(fields)]
        for v in views:
            if v.dtype != self.dtype:
                raise ValueError(f"exchange: {v.what}, but the plan is for {self.dtype}")
        s = _streams.handle(stream)
        lib = _core.lib()
        if len(views) == 1:
            status = lib.symcoll_halo_exchange_on_stream(self._live(), views[0].ptr, s)
        else:
            pointers = (ctypes.c_void_p * len(views))(*(v.ptr for v in views))
            status = lib.symcoll_halo_exchange_many_on_stream(self._live(), pointers, len(views), s)
        _core.check(status)

    def neighbor(self, axis, direction):
        """The team PE next to this one along axis (array order) in direction -1 or +1; -1 at a
        non-periodic edge."""
        if not 0 <= axis < self.ndims or direction not in (-1, 1):
            raise ValueError(f"neighbor: axis {axis} of {self.ndims}, direction {direction}")
        return _core.lib().symcoll_halo_neighbor(self._live(), self.ndims - 1 - axis, direction)

    @property
    def grid(self):
        """(PEs along each axis, this PE's coordinates), in array order; coordinates are -1 on a
        PE outside the team."""
        pe_grid, coords = (ctypes.c_int * 3)(), (ctypes.c_int * 3)()
        _core.check(_core.lib().symcoll_halo_grid(self._live(), pe_grid, coords))
        n = self.ndims
        return tuple(reversed(pe_grid[:n])), tuple(reversed(coords[:n]))

    def destroy(self):
        """Waits for this PE's GPU and releases the plan (collective over WORLD)."""
        if self._handle:
            handle, self._handle = self._handle, None
            _plans.pop(self.id, None)
            _core.check(_core.lib().symcoll_halo_destroy(handle))

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.destroy()
        return False


def exchange_by_id(plan, fields):
    """The eager exchange of the live plan with id `plan` (the custom op's implementation)."""
    if plan not in _plans:
        raise ValueError(f"halo_exchange: no live halo plan has id {plan}")
    _plans[plan].exchange(*fields)
