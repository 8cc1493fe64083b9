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
    src = symcoll.empty(max(total, 1), torch.float32)
    src[:total].copy_(torch.arange(total, dtype=torch.float32) + 1000 * me)
    capacity = (
        max(
            sum(sent[i][j * experts + e] for i in range(pes) for e in range(experts))
            for j in range(pes)
        )
        + 8 * h
    )
    dst = symcoll.empty(capacity, torch.float32)
    back = symcoll.empty(max(total, 1), torch.float32)
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
