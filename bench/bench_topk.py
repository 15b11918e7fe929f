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

With TILEC_BASELINE_LIB naming another build of the runtime library (e.g.
one embedding an earlier compiler's kernels), that build is checked and
timed too, in the same process on the same inputs (column 'base us').
"""
import importlib.util
import json
import math
import os

import torch

import tilec
from timing import l2_flusher, time_median

SHAPES = [(1, 131072, 64), (64, 8192, 8), (32, 16384, 32), (16, 12000, 16),
          (128, 4096, 1)]
RUNS = 200
COPIES = 4


def check(x, k, values, indices):
    ref = torch.topk(x, k, dim=1, largest=True, sorted=True).values
    same = (values == ref) | (values.isnan() & ref.isnan())
    gathered = torch.gather(x, 1, indices)
    points = (gathered == values) | (gathered.isnan() & values.isnan())
    unique = all(len(set(r.tolist())) == k for r in indices.cpu())
    return bool(same.all()) and bool(points.all()) and unique


def load_baseline(lib):
    """A second instance of the tilec package bound to the library `lib`
    (a distinct file, so the two builds load side by side)."""
    saved = os.environ.get("TILEC_RUNTIME_LIB")
    os.environ["TILEC_RUNTIME_LIB"] = lib
    try:
        spec = importlib.util.spec_from_file_location("tilec_baseline",
                                                      tilec.__file__)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    finally:
        if saved is None:
            del os.environ["TILEC_RUNTIME_LIB"]
        else:
            os.environ["TILEC_RUNTIME_LIB"] = saved
    return module


def main():
    torch.manual_seed(0)
    flush = l2_flusher()
    print(f"device: {torch.cuda.get_device_name()}")
    baseline = os.environ.get("TILEC_BASELINE_LIB")
    base = load_baseline(baseline) if baseline else None
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
