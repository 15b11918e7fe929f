"""Row top-k: tilec (embedded kernels_dsl/topk.mlir via tilec.topk) against
torch.topk(largest=True, sorted=True).

Run on a GPU machine with the runtime built:
    TILEC_RUNTIME_LIB=build/lib/libtilec_runtime.so \
    PYTHONPATH=runtime/python python3 bench/bench_topk.py

Checks each deck shape on random data first (values equal to torch's by
position, indices unique and gathering those values), then times the launch
alone with CUDA events, L2 flushed and the input rotated among several
copies before every run, median of many runs; torch is timed in the same
process on the same inputs.

With --grid, times the grid of batch x n x k of the top-k issue instead
(k <= n, inputs up to 16 GB; --batches/--ns/--ks narrow it, --data two
draws every element from {0, 1} instead of randn): each point is
checked, tilec and torch.topk are timed (a point tilec refuses is listed as
such), and inputs over 16 MB are set against the time to read them once at
the copy ceiling, measured in the same run by a device-to-device copy.

With TILEC_BASELINE_LIB naming another build of the runtime library (e.g.
one embedding an earlier compiler's kernels), that build is checked and
timed too, in the same process on the same inputs (column 'base us'; with
--grid as well).
"""
import argparse
import json
import math
import os

import torch

import tilec
from baseline import load_baseline
from timing import l2_flusher, time_median

SHAPES = [(1, 131072, 64), (64, 8192, 8), (32, 16384, 32), (16, 12000, 16),
          (128, 4096, 1)]
RUNS = 200
COPIES = 4


GRID_BATCHES = [1, 4, 64, 1024, 16384]
GRID_NS = [64, 1000, 32000, 131072, 1000000]
GRID_KS = [1, 8, 64, 256, 1024, 2048, 16384]
GRID_MAX_BYTES = 16 << 30


def check(x, k, values, indices):
    ref = torch.topk(x, k, dim=1, largest=True, sorted=True).values
    same = (values == ref) | (values.isnan() & ref.isnan())
    gathered = torch.gather(x, 1, indices)
    points = (gathered == values) | (gathered.isnan() & values.isnan())
    ordered = indices.sort(dim=1).values
    unique = bool((ordered[:, 1:] != ordered[:, :-1]).all())
    in_range = bool(((indices >= 0) & (indices < x.shape[1])).all())
    return bool(same.all()) and bool(points.all()) and unique and in_range


def adaptive_median(fn, flush, budget_s=0.25, most=100, fewest=5):
    """time_median with as many runs as fit in about `budget_s` seconds."""
    once = time_median(fn, flush, 1, warmup=1)
    runs = int(max(fewest, min(most, budget_s / max(once * 1e-6, 1e-9))))
    return time_median(fn, flush, runs, warmup=2)


def make_input(data, b, n):
    """randn, or `two`: values 0 and 1 only, so that half of each row
    ties with its k-th largest (the paths' slow cases: a guessed threshold
    misses, candidates overflow their slots)."""
    if data == "two":
        return torch.randint(0, 2, (b, n), device="cuda").float()
    return torch.randn(b, n, device="cuda")


def grid(args, base=None):
    flush = l2_flusher()
    rows = []
    print(f"{'batch':>6} {'n':>8} {'k':>6} {'tilec us':>10} {'torch us':>10} "
          f"{'speedup':>8} {'read1 us':>9} {'x read1':>8} ok  path"
          + ("  base us  ours/base" if base else ""),
          flush=True)
    for b in args.batches:
        for n in args.ns:
            nbytes = b * n * 4
            if nbytes > GRID_MAX_BYTES:
                continue
            copies = COPIES if nbytes < (16 << 20) else 1
            xs = [make_input(args.data, b, n) for _ in range(copies)]
            read1 = None
            if nbytes > (16 << 20):
                dst = torch.empty_like(xs[0])
                copy = adaptive_median(lambda i: dst.copy_(xs[0]), flush)
                del dst
                read1 = copy / 2  # a copy reads and writes the bytes once
            for k in args.ks:
                if k > n:
                    continue
                values = torch.full((b, k), float("nan"), device="cuda")
                indices = torch.full((b, k), -1, device="cuda",
                                     dtype=torch.int64)
                row = dict(batch=b, n=n, k=k, read1_us=read1,
                           path=tilec.topk_strategy(b, n, k))
                try:
                    tilec.topk(xs[0], k, values, indices)
                    torch.cuda.synchronize()
                    row["correct"] = check(xs[0], k, values, indices)
                    row["ours_us"] = adaptive_median(
                        lambda i: tilec.topk(xs[i % copies], k, values,
                                             indices), flush)
                except Exception as e:  # a refused point is reported
                    row["correct"] = None
                    row["refused"] = str(e).splitlines()[0][:80]
                row["torch_us"] = adaptive_median(
                    lambda i: torch.topk(xs[i % copies], k, dim=1), flush)
                if base is not None:
                    # The baseline build on the same inputs, checked too.
                    values.fill_(float("nan"))
                    indices.fill_(-1)
                    base.topk(xs[0], k, values, indices)
                    torch.cuda.synchronize()
                    if row.get("correct"):
                        row["correct"] = check(xs[0], k, values, indices)
                    row["base_us"] = adaptive_median(
                        lambda i: base.topk(xs[i % copies], k, values,
                                            indices), flush)
                ours = row.get("ours_us")
                row["speedup"] = row["torch_us"] / ours if ours else None
                rows.append(row)
                print(f"{b:>6} {n:>8} {k:>6} "
                      f"{ours if ours else float('nan'):>10.1f} "
                      f"{row['torch_us']:>10.1f} "
                      f"{row['speedup'] or float('nan'):>7.2f}x "
                      f"{read1 if read1 else float('nan'):>9.1f} "
                      f"{ours / read1 if ours and read1 else float('nan'):>8.2f}"
                      f" {dict([(True, 'yes'), (False, 'NO'), (None, 'refused')])[row['correct']]}"
                      f"  {row['path']}"
                      + (f"  {row['base_us']:>7.1f}  "
                         f"{ours / row['base_us'] if ours else float('nan'):>9.3f}"
                         if base is not None else ""),
                      flush=True)
            del xs
            torch.cuda.empty_cache()
    timed = [r for r in rows if r.get("speedup")]
    geo = math.exp(sum(math.log(r["speedup"]) for r in timed) / len(timed))
    slower = [r for r in timed if r["speedup"] < 1]
    print(f"grid: {len(rows)} points, {len(timed)} timed, "
          f"{len(rows) - len(timed)} refused, {len(slower)} slower than "
          f"torch.topk, geomean speedup {geo:.2f}x")
    out = os.environ.get("OUT")
    if out:
        with open(os.path.join(out, "bench_topk_grid.json"), "w") as f:
            json.dump(dict(rows=rows, geomean_speedup=geo), f, indent=1)
    if any(r["correct"] is False for r in rows):
        raise SystemExit(1)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--grid", action="store_true")
    parser.add_argument("--batches", type=int, nargs="+",
                        default=GRID_BATCHES)
    parser.add_argument("--ns", type=int, nargs="+", default=GRID_NS)
    parser.add_argument("--ks", type=int, nargs="+", default=GRID_KS)
    parser.add_argument("--data", choices=("randn", "two"), default="randn")
    args = parser.parse_args()
    torch.manual_seed(0)
    baseline = os.environ.get("TILEC_BASELINE_LIB")
    base = load_baseline(baseline) if baseline else None
    if args.grid:
        grid(args, base)
        return
    flush = l2_flusher()
    print(f"device: {torch.cuda.get_device_name()}")
    rows = []
    for (b, n, k) in SHAPES:
        xs = [torch.randn(b, n, device="cuda") for _ in range(COPIES)]
        values = torch.empty(b, k, device="cuda")
        indices = torch.empty(b, k, device="cuda", dtype=torch.int64)
        tilec.topk(xs[0], k, values, indices)
        torch.cuda.synchronize()
        ok = check(xs[0], k, values, indices)
        ours = time_median(
            lambda i: tilec.topk(xs[i % COPIES], k, values, indices), flush,
            RUNS)
        peer = time_median(lambda i: torch.topk(xs[i % COPIES], k, dim=1),
                           flush, RUNS)
        row = dict(batch=b, n=n, k=k, ours_us=ours, torch_us=peer,
                   speedup=peer / ours, correct=ok)
        if base is not None:
            values.fill_(float("nan"))
            indices.fill_(-1)
            base.topk(xs[0], k, values, indices)
            torch.cuda.synchronize()
            row["correct"] = ok and check(xs[0], k, values, indices)
            row["base_us"] = time_median(
                lambda i: base.topk(xs[i % COPIES], k, values, indices),
                flush, RUNS)
        rows.append(row)
    print(f"{'batch':>6} {'n':>7} {'k':>4} {'tilec us':>9} {'torch us':>9} "
          f"{'speedup':>8}" + (f" {'base us':>8} {'ours/base':>9}" if base
                               else "") + " ok")
    for r in rows:
        extra = (f" {r['base_us']:>8.1f} {r['ours_us'] / r['base_us']:>9.3f}"
                 if base else "")
        print(f"{r['batch']:>6} {r['n']:>7} {r['k']:>4} {r['ours_us']:>9.1f} "
              f"{r['torch_us']:>9.1f} {r['speedup']:>7.2f}x{extra} "
              f"{'yes' if r['correct'] else 'NO'}")
    geo = math.exp(sum(math.log(r["speedup"]) for r in rows) / len(rows))
    print(f"geomean speedup over torch.topk: {geo:.2f}x")
    out = os.environ.get("OUT")
    if out:
        with open(os.path.join(out, "bench_topk.json"), "w") as f:
            json.dump(dict(rows=rows, geomean_speedup=geo), f, indent=1)
    if not all(r["correct"] for r in rows):
        raise SystemExit(1)


if __name__ == "__main__":
    main()
