"""The split-K GEMM instances (tile-split-k) against the unsplit ones and
cuBLAS, for every part count, on products with fewer output tiles than
SMs: the measurements GemmSplitParts and ChooseGemmConfig stand on.

    TILEC_RUNTIME_LIB=build/lib/libtilec_runtime.so PYTHONPATH=runtime/python \\
        python3 bench/gemm_split.py [fp8|bf16 ...]
    # other shapes, and the split instances of another build of the
    # template (unsplit ones stay the embedded module's):
    python3 bench/gemm_split.py --shapes 512x4096x4096,129x1024x8192 \
        --module gemm.ptx gemm.json --split gemm_fp8_128x256_ws_sk fp8

Each instance is launched directly on 16-byte aligned operands (grid z =
parts, partial sums and tickets in buffers of this script), checked against
float64 first (and the tickets checked back at zero), then timed: median of
20 runs, L2 flushed before each. `tilec.gemm` is the runtime's own choice.
"""
import sys

import torch

import tilec
from gemm_instances import cublas_us, matches, problem, rows_of, tile_of
from timing import l2_flusher, time_median

SPLIT = {"fp8": ["gemm_fp8_64x64_sk", "gemm_fp8_64x128_ws_sk"],
         "bf16": ["gemm_bf16_64x64_sk", "gemm_bf16_64x128_ws_sk"]}
UNSPLIT = {"fp8": ["gemm_fp8_64x64", "gemm_fp8_64x64_s8",
                   "gemm_fp8_64x128_ws"],
           "bf16": ["gemm_bf16_64x64", "gemm_bf16_64x64_s8",
                    "gemm_bf16_64x128_ws"]}
PARTS = [1, 2, 3, 4, 6, 8, 12, 16]
SHAPES = [(32, 8192, 8192), (32, 4096, 4096), (1, 4096, 4096),
          (16, 4096, 4096), (64, 8192, 8192), (128, 4096, 4096),
          (32, 4096, 14336), (32, 14336, 4096), (128, 8192, 1024),
          (32, 1024, 8192), (100, 3000, 5000)]
RUNS = 20


def main(dtypes, split_module=None):
    torch.manual_seed(0)
    flush = l2_flusher()
    module = tilec.Module.embedded("gemm")
    split_module = split_module or module
    ok = True
    for dname in dtypes:
        dt = torch.float8_e4m3fn if dname == "fp8" else torch.bfloat16
        print(f"{dname}: times in us; split instances per part count "
              f"{PARTS}", flush=True)
        for m, n, k in SHAPES:
            x, w, s, ref, mag = problem(m, n, k, dt)
            y = torch.empty(m, n, dtype=torch.bfloat16, device="cuda")

            def good(label):
                return matches(y, ref, mag, f"{label} {m}x{n}x{k}")

            line = f"{m:>4}x{n:>5}x{k:>5}"
            y.fill_(float("nan"))
            tilec.gemm(x, w, s, y)
            torch.cuda.synchronize()
            ok &= good("tilec.gemm")
            t = time_median(lambda _: tilec.gemm(x, w, s, y), flush, RUNS)
            line += f" | choice {t:6.1f}"
            for name in UNSPLIT[dname]:
                bm, bn = tile_of(name)
                kern = module.kernel(name)
                grid = ((n + bn - 1) // bn, rows_of(name, m, bm))
                t = time_median(
                    lambda _: kern.launch_tiles(grid, x, w, s, y, m, n, k),
                    flush, RUNS)
                line += f" {name.split('_', 2)[2]} {t:6.1f}"
            print(line, flush=True)
            for name in SPLIT[dname]:
                bm, bn = tile_of(name)
                kern = split_module.kernel(name)
                gx, gy = (n + bn - 1) // bn, rows_of(name, m, bm)
                cells = []
                for parts in PARTS:
                    partials = torch.empty(parts * gx * gy * bm * bn,
                                           dtype=torch.float32, device="cuda")
                    tickets = torch.zeros(gx * gy, dtype=torch.int32,
                                          device="cuda")
                    y.fill_(float("nan"))
                    kern.launch_tiles((gx, gy, parts), x, w, s, y, m, n, k,
                                      partials, tickets)
                    torch.cuda.synchronize()
                    fine = good(f"{name} parts={parts}")
                    if int(tickets.abs().sum()) != 0:
                        print(f"  {name} parts={parts}: tickets left set")
                        fine = False
                    ok &= fine
                    t = time_median(
                        lambda _: kern.launch_tiles(
                            (gx, gy, parts), x, w, s, y, m, n, k, partials,
                            tickets), flush, RUNS)
                    cells.append(f"{t:6.1f}" if fine else "   bad")
                print(f"{'':>16} {name:<24} " + " ".join(cells), flush=True)
            peer = cublas_us(x, w, s, flush, RUNS)
            print(f"{'':>16} cuBLAS {peer:6.1f}", flush=True)
    return 0 if ok else 1


if __name__ == "__main__":
    args = sys.argv[1:]
    other = None
    while args[:1] in (["--shapes"], ["--module"], ["--split"]):
        if args[0] == "--shapes":
            SHAPES = [tuple(int(e) for e in shape.split("x"))
                      for shape in args[1].split(",")]
            args = args[2:]
        elif args[0] == "--module":
            other = tilec.Module.from_files(args[1], args[2])
            args = args[3:]
        else:
            names = args[1].split(",")
            for dname in SPLIT:
                SPLIT[dname] = [n for n in names if f"_{dname}_" in n]
            args = args[2:]
    sys.exit(main(args or ["fp8", "bf16"], other))
