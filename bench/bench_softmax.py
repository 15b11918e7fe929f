"""Row softmax: tilec (embedded kernels_dsl/softmax.mlir) against torch.softmax.

Run on a GPU machine with the runtime built:
    TILEC_RUNTIME_LIB=build/lib/libtilec_runtime.so \
    PYTHONPATH=runtime/python python3 bench/bench_softmax.py

Checks the result on fresh random data first (float64 reference), then times
each kernel with CUDA events around the launch alone, L2 flushed before every
run, median of many runs; peer and ceiling are measured in the same process.
"""
import json
import os
import sys

import torch

import tilec
from kernel_variants import variant_modules
from timing import l2_flusher, time_median

SHAPES = [(4096, 8192), (4096, 4096), (8192, 1000), (16384, 256),
          (1024, 30000)]
DTYPES = [torch.float32, torch.bfloat16]
RUNS = 100


def kernel_name(cols, dtype):
    """The instance of kernels_dsl/softmax.mlir for the width (softmax.cc)."""
    for width in (256, 1024, 4096, 8192):
        if cols <= width:
            return f"softmax_{dtype}_c{width}"
    return f"softmax_{dtype}_wide"


def rows_per_program(cols, dtype):
    """The kernel's rows per program (kernels_dsl/softmax.mlir)."""
    scale = 2 if dtype == torch.bfloat16 else 1
    for width, rows in ((256, 32), (1024, 8), (4096, 2), (8192, 1)):
        if cols <= width:
            return rows * scale
    return 1


def copy_ceiling(flush):
    x = torch.empty(1 << 28, dtype=torch.float32, device="cuda")  # 1 GiB
    y = torch.empty_like(x)
    us = time_median(lambda _: y.copy_(x), flush, RUNS, warmup=5)
    return 2 * x.numel() * 4 / (us * 1e-6) / 1e12


def main():
    torch.manual_seed(0)
    flush = l2_flusher()
    variants = {"tilec": None}  # the runtime's entry point, embedded kernels
    # Extra builds of the same source to compare, e.g. other warp counts:
    # TILEC_SOFTMAX_VARIANTS="w16=a.ptx,a.json;w4=b.ptx,b.json"
    variants.update(variant_modules("TILEC_SOFTMAX_VARIANTS"))
    ceiling = copy_ceiling(flush)
    print(f"device: {torch.cuda.get_device_name()}  copy ceiling: "
          f"{ceiling:.2f} TB/s (read+write)")
    rows = []
    names = {torch.float32: "f32", torch.bfloat16: "bf16"}
    for variant, mod in variants.items():
        for dtype in DTYPES:
            for (m, n) in SHAPES:
                x = torch.randn(m, n, device="cuda", dtype=dtype) * 3
                y = torch.full_like(x, float("nan"))
                if mod is None:
                    run = lambda: tilec.softmax(x, y)
                else:
                    kernel = mod.kernel(kernel_name(n, names[dtype]))
                    grid = (-(-m // rows_per_program(n, dtype)),)
                    run = lambda: kernel(grid, x, y, m, n)
                run()
                torch.cuda.synchronize()
                ref = torch.softmax(x.double(), dim=1)
                err = (y.double() - ref).abs().max().item()
                tol = 1e-5 if dtype == torch.float32 else 8e-3
                ok = bool(torch.isfinite(y).all()) and err <= tol
                ours = time_median(lambda _: run(), flush, RUNS, warmup=5)
                peer = time_median(lambda _: torch.softmax(x, dim=1), flush,
                                   RUNS, warmup=5)
                nbytes = 2 * x.numel() * x.element_size()
                rows.append(dict(variant=variant,
                                 dtype=str(dtype).replace("torch.", ""), rows=m,
                                 cols=n, ours_us=ours, torch_us=peer,
                                 speedup=peer / ours,
                                 ours_tbs=nbytes / (ours * 1e-6) / 1e12,
                                 floor_us=nbytes / (ceiling * 1e12) * 1e6,
                                 max_abs_err=err, correct=ok))
    print(f"{'variant':8} {'dtype':9} {'shape':>12} {'tilec us':>9} {'torch us':>9} "
          f"{'speedup':>8} {'TB/s':>6} {'%copy':>6} {'floor us':>9} {'maxerr':>9}")
    for r in rows:
        print(f"{r['variant']:8} {r['dtype']:9} "
              f"{str((r['rows'], r['cols'])):>12} "
              f"{r['ours_us']:9.1f} {r['torch_us']:9.1f} {r['speedup']:8.2f} "
              f"{r['ours_tbs']:6.2f} {100 * r['ours_tbs'] / ceiling:6.1f} "
              f"{r['floor_us']:9.1f} {r['max_abs_err']:9.2e}"
              + ("" if r["correct"] else "  WRONG"))
    out = os.environ.get("OUT")
    if out:
        with open(os.path.join(out, "bench_softmax.json"), "w") as f:
            json.dump(dict(ceiling_tbs=ceiling, rows=rows), f, indent=1)
    return 0 if all(r["correct"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
