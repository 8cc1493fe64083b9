#!/usr/bin/env python3
"""Plots a symcoll-perf CSV: latency and bus bandwidth against size, ours and NCCL's.

Usage: symcoll-perf-plot.py RESULTS.csv OUT.png

One column of panels per collective (latency on top, bus bandwidth below; barrier as bars),
one colour per implementation (symcoll, NCCL, NCCL symmetric) and one line style per mode
(stream dashed, graph solid). Where the CSV holds several datatypes or reduction ops
for a collective, the first one it lists is plotted. symcoll-perf --plot runs this script.
"""
import csv
import sys
from collections import OrderedDict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (the backend must be chosen first)

COLLECTIVES = ["barrier", "broadcast", "reduce", "fcollect", "alltoall",
               "halo_rows", "halo_columns", "halo_3d"]
MODE_STYLES = {"stream": "--", "graph": "-"}
SERIES = [  # (CSV column, label, colour): one colour per implementation, one style per mode
    ("time_us", "symcoll", "tab:green"),
    ("nccl_time_us", "NCCL", "tab:red"),
    ("nccl_sym_time_us", "NCCL symmetric", "tab:purple"),
]
# --op halo rows: the NCCL columns hold NCCL send/recv and the copy-engine baseline.
HALO_SERIES = [
    ("time_us", "symcoll", "tab:green"),
    ("nccl_time_us", "NCCL send/recv", "tab:red"),
    ("nccl_sym_time_us", "cudaMemcpy2DAsync + barrier", "tab:blue"),
]


def number(text):
    return float(text) if text not in ("", None) else None


def read_rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def first_variant(rows):
    """Rows of the first (type, redop) the CSV lists, so one panel holds one line per series."""
    variant = (rows[0]["type"], rows[0]["redop"])
    return [r for r in rows if (r["type"], r["redop"]) == variant], variant


def plot_barrier(ax, rows, launch):
    labels, values, colours = [], [], []
    for mode in MODE_STYLES:
        for r in (r for r in rows if r["mode"] == mode):
            for column, name, colour in SERIES:
                if number(r[column]) is not None:
                    labels.append(f"{name}\n{mode}")
                    values.append(number(r[column]))
                    colours.append(colour)
        if mode in launch:
            labels.append(f"empty kernel\n{mode}")
            values.append(launch[mode])
            colours.append("lightgrey")
    ax.bar(range(len(values)), values, color=colours)
    ax.set_xticks(range(len(values)), labels, rotation=60, ha="right", fontsize=7)
    ax.set_ylabel("latency (us)")
    ax.set_title("barrier")


def plot_sized(ax_time, ax_bw, op, rows, launch):
    rows, (dtype, redop) = first_variant(rows)
    for mode, style in MODE_STYLES.items():
        ours = [r for r in rows if r["mode"] == mode]
        if not ours:
            continue
        sizes = [int(r["bytes"]) for r in ours]
        for column, name, colour in HALO_SERIES if op.startswith("halo") else SERIES:
            points = [(s, number(r[column]), r) for s, r in zip(sizes, ours)
                      if number(r[column]) is not None]
            if not points:
                continue
            xs = [p[0] for p in points]
            times = [p[1] for p in points]
            # Same bytes and factor as our row: busbw scales inversely with time.
            busbw = [number(p[2]["busbw_gbps"]) * number(p[2]["time_us"]) / p[1] for p in points]
            label = f"{name} ({mode})"
            ax_time.plot(xs, times, style, color=colour, marker=".", label=label)
            ax_bw.plot(xs, busbw, style, color=colour, marker=".", label=label)
        if mode in launch:
            ax_time.axhline(launch[mode], color="grey", linestyle=style, linewidth=0.8, alpha=0.5)
    title = op if redop == "none" else f"{op} ({redop})"
    ax_time.set_title(f"{title}, {dtype}")
    for ax in (ax_time, ax_bw):
        ax.set_xscale("log", base=2)
        ax.set_xlabel("bytes")
        ax.grid(True, which="both", alpha=0.3)
    ax_time.set_yscale("log")
    ax_time.set_ylabel("latency (us)")
    ax_bw.set_ylabel("bus bandwidth (GB/s)")
    ax_time.legend(fontsize=6)


def main(argv):
    if len(argv) != 3:
        sys.stderr.write(__doc__)
        return 2
    rows = read_rows(argv[1])
    launch = {r["mode"]: float(r["time_us"]) for r in rows if r["op"] == "launch"}
    by_op = OrderedDict((op, [r for r in rows if r["op"] == op]) for op in COLLECTIVES)
    ops = [op for op, op_rows in by_op.items() if op_rows]
    if not ops:
        sys.stderr.write(f"{argv[1]}: no collective rows to plot\n")
        return 1
    npes = rows[0]["npes"]
    fig, axes = plt.subplots(2, len(ops), figsize=(4.2 * len(ops), 7.5), squeeze=False)
    for col, op in enumerate(ops):
        if op == "barrier":
            plot_barrier(axes[0][col], by_op[op], launch)
            axes[1][col].axis("off")
        else:
            plot_sized(axes[0][col], axes[1][col], op, by_op[op], launch)
    fig.suptitle(f"symcoll-perf, {npes} PEs (faint lines: empty-kernel launch)")
    fig.tight_layout()
    fig.savefig(argv[2], dpi=120)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
