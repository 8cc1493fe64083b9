"""GPU tests: every PE of a job runs this file, e.g.

    symcoll-run -n 2 python3 -m pytest python/tests/test_gpu.py          (symcoll's launcher)
    torchrun --nproc-per-node 2 -m pytest python/tests/test_gpu.py       (SYMCOLL_TEST_GROUP=gloo:
                                                                          init over a process group)

Each test checks against a CPU reference computed from seeds, so every PE knows every PE's
input. They skip without a GPU or torch, and outside a job of at least 2 PEs."""

import gc
import os

import pytest

from conftest import gpu_present

torch = pytest.importorskip("torch")
if not gpu_present() or not torch.cuda.is_available():
    pytest.skip("no GPU", allow_module_level=True)

import symcoll  # noqa: E402


@pytest.fixture(scope="module", autouse=True)
def session():
    group = None
    if os.environ.get("SYMCOLL_TEST_GROUP"):
        import torch.distributed as dist

        dist.init_process_group(os.environ["SYMCOLL_TEST_GROUP"])
        group = dist.group.WORLD
        # PEs may share a GPU (under MPS): local rank modulo the GPUs.
        torch.cuda.set_device(int(os.environ.get("LOCAL_RANK", "0")) % torch.cuda.device_count())
    with symcoll.init(group=group):
        if symcoll.n_pes() < 2:
            launched = int(os.environ.get("SYMCOLL_SIZE", os.environ.get("WORLD_SIZE", "1")))
            if launched > 1:
                pytest.fail(f"the launcher started {launched} PEs, but symcoll sees one")
            pytest.skip("a job of one PE: launch with symcoll-run -n 2 or torchrun")
        yield


def data(pe, n, dtype=torch.float32, seed=0):
    g = torch.Generator().manual_seed(1000 * seed + pe)
    return (torch.randint(-8, 8, (n,), generator=g)).to(dtype)


def me_n():
    return symcoll.my_pe(), symcoll.n_pes()


@pytest.mark.parametrize("n", [1, 7, 4096, 3 * 1024 * 1024 + 5])
def test_all_reduce_out_of_place_and_in_place(n):
    me, pes = me_n()
    src, dst = symcoll.empty(n), symcoll.empty(n)
    src.copy_(data(me, n))
    dst.fill_(float("nan"))
    symcoll.all_reduce(dst, src)
    want = sum(data(p, n) for p in range(pes))
    assert torch.equal(dst.cpu(), want)
    symcoll.all_reduce(src, op="max")
    assert torch.equal(src.cpu(), torch.stack([data(p, n) for p in range(pes)]).amax(0))


@pytest.mark.parametrize("dtype", [torch.int32, torch.float16, torch.bfloat16, torch.float64])
def test_all_gather_all_to_all_reduce_scatter(dtype):
    me, pes = me_n()
    k = 33
    src = symcoll.empty(k * pes, dtype)
    dst = symcoll.empty(k * pes, dtype)
    src.copy_(data(me, k * pes, dtype, seed=1))
    symcoll.all_gather(dst, src[:k])
    assert torch.equal(
        dst.cpu(), torch.cat([data(p, k * pes, dtype, seed=1)[:k] for p in range(pes)])
    )
    symcoll.all_to_all(dst, src)
    assert torch.equal(
        dst.cpu(),
        torch.cat([data(p, k * pes, dtype, seed=1)[me * k : (me + 1) * k] for p in range(pes)]),
    )
    out = symcoll.empty(k, dtype)
    symcoll.reduce_scatter(out, src)
    want = sum(data(p, k * pes, dtype, seed=1)[me * k : (me + 1) * k].double() for p in range(pes))
    assert torch.equal(out.cpu().double(), want)


def test_broadcast_put_signal_and_wait():
    me, pes = me_n()
    buf = symcoll.zeros(100, torch.int64)
    if me == 0:
        buf.copy_(torch.arange(100))
    symcoll.broadcast(buf, root=0)
    assert torch.equal(buf.cpu(), torch.arange(100))
    sig = symcoll.zeros(1, torch.uint64)
    box = symcoll.zeros(10, torch.int64)
    right = (me + 1) % pes
    symcoll.put_signal(box, torch.full((10,), me, dtype=torch.int64, device="cuda"), sig, 1, right)
    symcoll.signal_wait(sig, "ge", 1)
    assert torch.equal(box.cpu(), torch.full((10,), (me - 1) % pes))
    symcoll.barrier()


def test_graph_replay_moves_new_data_and_allocation_in_capture_is_refused():
    me, pes = me_n()
    x, y = symcoll.empty(1000), symcoll.empty(1000)
    s = torch.cuda.Stream()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.stream(s):
        x.fill_(1)
        symcoll.all_reduce(y, x, stream=s)
        s.synchronize()
        with torch.cuda.graph(graph, stream=s):
            symcoll.all_reduce(y, x)
            with pytest.raises(RuntimeError, match="during CUDA graph capture"):
                symcoll.empty(4)
    for step in range(3):
        x.fill_(me + step)
        graph.replay()
        torch.cuda.synchronize()
        assert torch.equal(y.cpu(), torch.full((1000,), float(sum(p + step for p in range(pes)))))


def test_an_allocation_one_pe_still_holds_stays():
    me, pes = me_n()
    symcoll.collect()
    kept = symcoll.empty(1024)
    kept.fill_(me)
    if me != 0:
        del kept
    gc.collect()
    assert symcoll.collect() == 0, "PE 0 still holds it: nobody frees it"
    if me == 0:
        assert torch.equal(kept.cpu(), torch.zeros(1024))
        del kept
    gc.collect()
    assert symcoll.collect() == 1, "every PE has let go: every PE frees it"


def test_garbage_collected_frees_settle_in_any_order():
    me, pes = me_n()
    for _ in range(3):
        held = [symcoll.empty(1 << 20) for _ in range(8)]
        order = list(range(8)) if me % 2 == 0 else list(reversed(range(8)))
        for i in order:
            held[i] = None
        gc.collect()
    symcoll.collect()
    live = len(symcoll._memory._heap.live)
    # 64 MiB a cycle: the 1 GiB default heap runs out within 16 cycles unless every free
    # settles.
    for _ in range(10000):
        t = symcoll.empty(1 << 24)
        del t
    symcoll.collect()
    assert symcoll.collect() == 0
    assert len(symcoll._memory._heap.live) == live


def test_moe_dispatch_then_combine_returns_every_token():
    me, pes = me_n()
    experts, h = 2, 4  # 2 experts per PE, tokens of 4 elements
    groups = pes * experts
    sent = [[(i + g) % 3 * h for g in range(groups)] for i in range(pes)]
    total = sum(sent[me])
    largest = max(max(sum(row) for row in sent), 1)  # symmetric: every PE allocates the same
    src = symcoll.empty(largest, torch.float32)
    src[:total].copy_(torch.arange(total, dtype=torch.float32) + 1000 * me)
    capacity = (
        max(
            sum(sent[i][j * experts + e] for i in range(pes) for e in range(experts))
            for j in range(pes)
        )
        + 8 * h
    )
    dst = symcoll.empty(capacity, torch.float32)
    back = symcoll.empty(largest, torch.float32)
    counts = torch.tensor(sent[me], dtype=torch.int64, device="cuda")
    recv_counts = torch.full((groups,), -1, dtype=torch.int64, device="cuda")
    recv_offsets = torch.full((groups,), -1, dtype=torch.int64, device="cuda")
    symcoll.moe_dispatch(dst, src, counts, recv_counts, recv_offsets, experts, major_align=h)
    symcoll.moe_combine(back, dst, counts, experts, major_align=h)
    torch.cuda.synchronize()
    assert symcoll._core.lib().symcoll_team_status(symcoll.WORLD) == 0, symcoll.last_error()
    want = [sent[i][me * experts + e] for e in range(experts) for i in range(pes)]
    assert recv_counts.cpu().tolist() == want
    assert all(o % h == 0 for o in recv_offsets.cpu().tolist()[::pes])
    assert torch.equal(back[:total].cpu(), torch.arange(total, dtype=torch.float32) + 1000 * me)


def test_a_compiled_function_keeps_its_collectives_in_one_graph():
    me, pes = me_n()
    n = 1000
    x, y, g = symcoll.empty(n), symcoll.empty(n), symcoll.empty(n * pes)

    def step(x, y, g):
        symcoll.all_reduce(y, x)
        symcoll.barrier()
        symcoll.all_reduce(y, op="max")
        symcoll.all_gather(g, y)
        return g.sum()

    compiled = torch.compile(step, fullgraph=True)  # a graph break would raise
    for seed in range(3):
        x.copy_(data(me, n, seed=seed))
        y.fill_(float("nan"))
        g.fill_(float("nan"))
        total = compiled(x, y, g)
        want = sum(data(p, n, seed=seed) for p in range(pes))
        assert torch.equal(y.cpu(), want)
        assert torch.equal(g.cpu(), want.repeat(pes))
        assert total.item() == want.sum().item() * pes


def _global_value(gy, gx):
    return float(gy * 1000 + gx)


@pytest.mark.parametrize("corners", [False, True])
def test_halo_plan_fills_every_halo_cell_from_its_neighbour(corners):
    me, pes = me_n()
    ny, nx = 5, 7
    with symcoll.HaloPlan((ny, nx), 1, torch.float32, periodic=True, corners=corners) as plan:
        (py, px), (cy, cx) = plan.grid
        assert py * px == pes and plan.shape == (ny + 2, nx + 2)
        gy, gx = py * ny, px * nx
        want = torch.tensor(
            [
                [
                    _global_value((cy * ny + y - 1) % gy, (cx * nx + x - 1) % gx)
                    for x in range(nx + 2)
                ]
                for y in range(ny + 2)
            ]
        )
        a, b = symcoll.empty(plan.shape), symcoll.empty(plan.shape)
        for field, sign in ((a, 1), (b, -1)):
            field.fill_(float("nan"))
            field[1:-1, 1:-1].copy_(sign * want[1:-1, 1:-1])
        plan.exchange(a, b)
        torch.cuda.synchronize()
        faces = torch.ones(ny + 2, nx + 2, dtype=torch.bool)
        if not corners:
            faces[0, 0] = faces[0, -1] = faces[-1, 0] = faces[-1, -1] = False
        assert torch.equal(a.cpu()[faces], want[faces])
        assert torch.equal(b.cpu()[faces], -want[faces])
        assert plan.neighbor(1, +1) == cy * px + (cx + 1) % px


def test_all_to_all_v_against_the_reference():
    me, pes = me_n()

    def count(i, j):
        return (3 * i + 5 * j) % 7

    def segment(i, j):
        return torch.arange(count(i, j), dtype=torch.float32) + 100 * j + 10000 * i

    src = symcoll.empty(max(sum(count(i, j) for j in range(pes)) for i in range(pes)))
    capacity = max(sum(count(i, j) for i in range(pes)) for j in range(pes))
    dst = symcoll.empty(capacity)
    dst.fill_(float("nan"))
    mine = torch.cat([segment(me, j) for j in range(pes)])
    src[: mine.numel()].copy_(mine)
    counts = torch.tensor([count(me, j) for j in range(pes)], dtype=torch.int64, device="cuda")
    recv_counts = torch.full((pes,), -1, dtype=torch.int64, device="cuda")
    recv_offsets = torch.full((pes,), -1, dtype=torch.int64, device="cuda")
    symcoll.all_to_all_v(dst, src, counts, recv_counts, recv_offsets)
    want = [count(i, me) for i in range(pes)]
    assert recv_counts.cpu().tolist() == want
    assert recv_offsets.cpu().tolist() == [sum(want[:i]) for i in range(pes)]
    got = torch.cat([segment(i, me) for i in range(pes)])
    assert torch.equal(dst.cpu()[: got.numel()], got)


def test_put_get_and_peer_views():
    me, pes = me_n()
    right, left = (me + 1) % pes, (me - 1) % pes
    box = symcoll.zeros(33, torch.int32)
    symcoll.barrier()
    symcoll.put(box, torch.full((33,), me, dtype=torch.int32, device="cuda"), right)
    symcoll.barrier()
    assert torch.equal(box.cpu(), torch.full((33,), left, dtype=torch.int32))
    back = torch.empty(33, dtype=torch.int32, device="cuda")
    symcoll.get(back, box, right)
    torch.cuda.synchronize()
    assert torch.equal(back.cpu(), torch.full((33,), me, dtype=torch.int32))
    assert torch.equal(symcoll.peer(box, right).cpu(), torch.full((33,), me, dtype=torch.int32))
    symcoll.barrier()


def test_a_compiled_halo_exchange_matches_the_eager_one():
    me, pes = me_n()
    with symcoll.HaloPlan((4, 6), 1, torch.float32, periodic=True, corners=True) as plan:
        eager, compiled = symcoll.empty(plan.shape), symcoll.empty(plan.shape)
        for field in (eager, compiled):
            field.fill_(float("nan"))
            field[1:-1, 1:-1].copy_(data(me, 24, seed=3).reshape(4, 6))
        plan.exchange(eager)

        def step(field):
            plan.exchange(field)
            return field.sum()

        torch.compile(step, fullgraph=True)(compiled)
        torch.cuda.synchronize()
        assert not torch.isnan(eager).any()
        assert torch.equal(compiled.cpu(), eager.cpu())
