"""python -m symcoll.bench: a collective at every size symcoll-perf sweeps (8 B to 128 MiB, x8),
timed in eager mode and in CUDA-graph replay, beside torch.distributed (NCCL) and PyTorch's
SymmetricMemory where they can run. Run it on every PE of a job:

    torchrun --nproc-per-node 2 -m symcoll.bench              (all three where each rank has a GPU)
    symcoll-run -n 2 python3 -m symcoll.bench --csv out.csv   (symcoll; PEs may share a GPU)

time is per call, the median of --repeats timings of --iters calls after --warmup, averaged over
PEs; busbw follows nccl-tests. Each size's result is checked once per implementation
(#wrong). torch.distributed and SymmetricMemory need one GPU per rank and torch.distributed's
launcher variables (torchrun); elsewhere their columns say n/a, and why, in a comment line."""

import argparse
import csv
import os
import statistics
import sys

import torch
import torch.distributed as dist

import symcoll

SIZES = [8 << (3 * i) for i in range(9)]  # 8 B ... 128 MiB
_DTYPES = {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}


def _bus_factor(op, n):
    """nccl-tests' busbw / algbw for op on n ranks."""
    if op == "all_reduce":
        return 2 * (n - 1) / n
    return 1.0 if op == "broadcast" else (n - 1) / n


class _Case:
    """src and dst of one op at one size (nbytes: the largest buffer, as nccl-tests counts), made
    by make(elements, dtype); all_reduce and broadcast work in place."""

    def __init__(self, op, nbytes, dtype, make):
        self.op, self.me, self.n = op, symcoll.my_pe(), symcoll.n_pes()
        itemsize = torch.empty(0, dtype=dtype).element_size()
        self.chunk = max(nbytes // itemsize // self.n, 1)
        whole = self.chunk * self.n
        if op in ("all_reduce", "broadcast"):
            self.src = self.dst = make(max(nbytes // itemsize, 1), dtype)
        elif op == "all_gather":
            self.src, self.dst = make(self.chunk, dtype), make(whole, dtype)
        elif op == "reduce_scatter":
            self.src, self.dst = make(whole, dtype), make(self.chunk, dtype)
        else:
            self.src, self.dst = make(whole, dtype), make(whole, dtype)
        self.nbytes = max(self.src.numel(), self.dst.numel()) * itemsize

    def fill(self):
        self.src.fill_(self.me + 1)

    def want(self):
        """What dst must hold after the call on fill()'s inputs."""
        n = self.n
        if self.op in ("all_reduce", "reduce_scatter"):
            return torch.full((self.dst.numel(),), n * (n + 1) / 2)
        if self.op == "broadcast":
            return torch.ones(self.dst.numel())
        return torch.arange(1, n + 1).repeat_interleave(self.chunk).float()

    def wrong(self):
        return int((self.dst.float().cpu() != self.want()).sum())

    def buffers(self):
        return {self.src.data_ptr(): self.src, self.dst.data_ptr(): self.dst}.values()


def _symcoll_call(case):
    s, d = case.src, case.dst
    return {
        "all_reduce": lambda: symcoll.all_reduce(d),
        "broadcast": lambda: symcoll.broadcast(d, root=0),
        "all_gather": lambda: symcoll.all_gather(d, s),
        "reduce_scatter": lambda: symcoll.reduce_scatter(d, s),
        "all_to_all": lambda: symcoll.all_to_all(d, s),
    }[case.op]


def _dist_call(dist, case):
    s, d = case.src, case.dst
    return {
        "all_reduce": lambda: dist.all_reduce(d),
        "broadcast": lambda: dist.broadcast(d, src=0),
        "all_gather": lambda: dist.all_gather_into_tensor(d, s),
        "reduce_scatter": lambda: dist.reduce_scatter_tensor(d, s),
        "all_to_all": lambda: dist.all_to_all_single(d, s),
    }[case.op]


def _time(call, args, graph):
    """Per-call microseconds: the median of args.repeats timings of args.iters calls."""
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        for _ in range(args.warmup):
            call()
        if graph:
            g = torch.cuda.CUDAGraph()
            with torch.cuda.graph(g, stream=stream):
                for _ in range(args.iters):
                    call()
            run = g.replay
        else:

            def run():
                for _ in range(args.iters):
                    call()

        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        times = []
        for _ in range(args.repeats):
            start.record(stream)
            run()
            end.record(stream)
            end.synchronize()
            times.append(start.elapsed_time(end) * 1000 / args.iters)
    torch.cuda.current_stream().wait_stream(stream)
    return statistics.median(times)


def _sum_over_pes(value):
    t = symcoll.zeros(1, torch.float64)
    t.fill_(value)
    symcoll.all_reduce(t)
    result = t.item()
    symcoll.free(t)
    return result


class _Baselines:
    """torch.distributed over NCCL, and SymmetricMemory's two-shot all-reduce, where they can
    run; `why` says why not."""

    def __init__(self, op, group):
        self.dist = self.symm = None
        self.why_dist = self.why_symm = None
        if group is not None:
            self.why_dist = "the job's process group is gloo (--gloo)"
        elif "MASTER_ADDR" not in os.environ or "WORLD_SIZE" not in os.environ:
            self.why_dist = "no torch.distributed launcher variables (run under torchrun)"
        elif int(os.environ.get("LOCAL_WORLD_SIZE", os.environ["WORLD_SIZE"])) > (
            torch.cuda.device_count()
        ):
            self.why_dist = "ranks share a GPU (NCCL needs one GPU per rank)"
        else:
            try:
                dist.init_process_group("nccl", device_id=torch.cuda.current_device())
                self.dist = dist
            except Exception as e:  # any failure to start the baseline is reported, not fatal
                self.why_dist = f"init_process_group: {e}"
        if self.dist is None:
            self.why_symm = "needs torch.distributed: " + self.why_dist
        elif op != "all_reduce":
            self.why_symm = "SymmetricMemory is benchmarked for all_reduce only"
        else:
            try:
                import torch.distributed._symmetric_memory as symm_mem

                self.symm = symm_mem
            except Exception as e:
                self.why_symm = f"import: {e}"

    def symm_case(self, op, nbytes, dtype):
        """A case on SymmetricMemory buffers, and its two_shot_all_reduce_ call."""
        name = self.dist.group.WORLD.group_name

        def make(elements, t):
            buf = self.symm.empty(elements, dtype=t, device="cuda")
            self.symm.rendezvous(buf, name)
            return buf

        case = _Case(op, nbytes, dtype, make)
        return case, lambda: torch.ops.symm_mem.two_shot_all_reduce_(case.dst, "sum", name)


def _measure(name, call, case, args, rows):
    for mode in ("eager", "graph") if args.graph else ("eager",):
        case.dst.fill_(-1)
        case.fill()
        call()
        torch.cuda.synchronize()
        wrong = int(_sum_over_pes(case.wrong()))
        us = _sum_over_pes(_time(call, args, mode == "graph")) / case.n
        algbw = case.nbytes / us / 1e3
        rows.append(
            {
                "op": case.op,
                "bytes": case.nbytes,
                "dtype": args.dtype,
                "npes": case.n,
                "impl": name,
                "mode": mode,
                "time_us": round(us, 2),
                "algbw_gbps": round(algbw, 2),
                "busbw_gbps": round(algbw * _bus_factor(case.op, case.n), 2),
                "wrong": wrong,
            }
        )


def _bench_size(op, nbytes, dtype, args, base, rows):
    case = _Case(op, nbytes, dtype, symcoll.empty)
    _measure("symcoll", _symcoll_call(case), case, args, rows)
    for t in case.buffers():
        symcoll.free(t)
    if base.dist is not None:
        local = _Case(op, nbytes, dtype, lambda k, t: torch.empty(k, dtype=t, device="cuda"))
        _measure("torch.distributed", _dist_call(base.dist, local), local, args, rows)
    if base.symm is not None:
        symm, call = base.symm_case(op, nbytes, dtype)
        _measure("symm_mem", call, symm, args, rows)


def _table(rows, base, out):
    label = {"symcoll": "symcoll", "torch.distributed": "nccl", "symm_mem": "symm_mem"}
    modes = sorted({r["mode"] for r in rows})
    cols = [(i, m) for i in label for m in modes]
    times = {(r["bytes"], r["impl"], r["mode"]): r for r in rows}
    head = "".join(f"{label[i] + ' ' + m:>24}" for i, m in cols)
    print(
        f"# {rows[0]['op']}, {rows[0]['dtype']}, {rows[0]['npes']} PEs; time (us) / busbw (GB/s); "
        "nccl: torch.distributed over NCCL; symm_mem: SymmetricMemory two-shot",
        file=out,
    )
    for why, name in ((base.why_dist, "torch.distributed"), (base.why_symm, "symm_mem")):
        if why:
            print(f"# {name}: n/a, {why}", file=out)
    print(f"{'bytes':>10}{head}{'#wrong':>8}", file=out)
    for nbytes in sorted({r["bytes"] for r in rows}):
        cells, wrong = "", 0
        for i, m in cols:
            r = times.get((nbytes, i, m))
            cells += f"{r['time_us']:>14.2f} /{r['busbw_gbps']:>7.1f}" if r else f"{'n/a':>24}"
            wrong += r["wrong"] if r else 0
        print(f"{nbytes:>10}{cells}{wrong:>8}", file=out)


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="python -m symcoll.bench", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument(
        "--op",
        default="all_reduce",
        choices=["all_reduce", "broadcast", "all_gather", "reduce_scatter", "all_to_all"],
    )
    parser.add_argument("--dtype", default="float32", choices=sorted(_DTYPES))
    parser.add_argument("--max-bytes", type=int, default=SIZES[-1])
    parser.add_argument("--iters", type=int, default=20)
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--no-graph", dest="graph", action="store_false")
    parser.add_argument("--csv", help="also write the rows to this file (PE 0)")
    parser.add_argument(
        "--gloo",
        action="store_true",
        help="under torchrun, start symcoll over a gloo process group (PEs may share a GPU)",
    )
    args = parser.parse_args(argv)
    if "LOCAL_RANK" in os.environ:
        torch.cuda.set_device(int(os.environ["LOCAL_RANK"]) % torch.cuda.device_count())
    group = None
    if args.gloo:
        dist.init_process_group("gloo")
        group = dist.group.WORLD
    with symcoll.init(group=group):
        base = _Baselines(args.op, group)
        rows = []
        for nbytes in (s for s in SIZES if s <= args.max_bytes):
            _bench_size(args.op, nbytes, _DTYPES[args.dtype], args, base, rows)
        if symcoll.my_pe() == 0:
            _table(rows, base, sys.stdout)
            if args.csv:
                with open(args.csv, "w", newline="") as f:
                    writer = csv.DictWriter(f, fieldnames=list(rows[0]))
                    writer.writeheader()
                    writer.writerows(rows)
    if dist.is_initialized():
        dist.destroy_process_group()
    return 1 if any(r["wrong"] for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
