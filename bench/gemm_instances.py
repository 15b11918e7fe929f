"""Every instance of the GEMM template, timed on a grid of shapes, with
cuBLAS in the same run: the measurements runtime/gemm_configs.cc's choice
stands on.

    TILEC_RUNTIME_LIB=build/lib/libtilec_runtime.so PYTHONPATH=runtime/python \\
        python3 bench/gemm_instances.py [fp8|bf16]
    # or instances of another build of the template (names carry the tile
    # as _<BM>x<BN>, anything may follow after a further '_'):
    python3 bench/gemm_instances.py --module gemm.ptx gemm.json fp8:gemm_fp8_64x32_s8 ...
    # other shapes first, e.g. rows 8-byte aligned but not 16, launched
    # without padding on a build with two 8-byte cp.async per chunk
    # (emit-ptx ... --async-copy-min-bytes=8), to set against the entry
    # point (which pads them; bench_gemm.py) and cuBLAS:
    python3 bench/gemm_instances.py --shapes 1000x1000x1000,256x8192x1000 \
        --module v8.ptx v8.json fp8:gemm_fp8_64x128_ws fp8:gemm_fp8_64x64

Instances are the kernels of the embedded "gemm" module named
gemm_<dtype>[_<BM>x<BN>] (128 x 128 when unnamed), launched directly on
the operands as they are (16-byte aligned rows take the TMA path, others
the kernel's cp.async ring); every output is checked against
float64 before timing. Median of 20 runs, L2 flushed before each. For each
shape the fastest instance is marked '*'.
"""
import re
import sys

import torch

import tilec
from timing import l2_flusher, time_median

INSTANCES = {
    "fp8": ["gemm_fp8", "gemm_fp8_128x256", "gemm_fp8_64x128",
            "gemm_fp8_64x64", "gemm_fp8_64x64_s8", "gemm_fp8_ws",
            "gemm_fp8_128x256_ws", "gemm_fp8_64x128_ws", "gemm_fp8_ws_p",
            "gemm_fp8_128x256_ws_p"],
    "bf16": ["gemm_bf16", "gemm_bf16_128x256", "gemm_bf16_64x128",
             "gemm_bf16_64x64", "gemm_bf16_64x64_s8", "gemm_bf16_ws",
             "gemm_bf16_128x256_ws", "gemm_bf16_64x128_ws", "gemm_bf16_ws_p",
             "gemm_bf16_128x256_ws_p"],
}
SHAPES = [(4096, 4096, 4096), (4096, 14336, 4096), (32, 8192, 8192),
          (1, 4096, 4096), (16, 4096, 4096), (64, 8192, 8192),
          (128, 8192, 8192), (256, 8192, 1024), (512, 4096, 4096),
          (1000, 1000, 1008), (2048, 2048, 8192), (8192, 8192, 8192),
          (1024, 1024, 1024), (300, 5000, 4096)]
RUNS = 20


def tile_of(name):
    found = re.search(r"_(\d+)x(\d+)(?:_[a-z0-9]+)*$", name)
    return (int(found[1]), int(found[2])) if found else (128, 128)


def rows_of(name, m, bm):
    """Row tiles of an instance's grid: whole clusters of _mc<m> instances
    (the extra programs read zeros and store nothing)."""
    found = re.search(r"_mc(\d+)", name)
    cluster = int(found[1]) if found else 1
    return ((m + bm - 1) // bm + cluster - 1) // cluster * cluster


def problem(m, n, k, dt):
    """Fresh operands of KERNELS.md's distributions, the float64 product
    and the sum of |products| (which bounds the accumulation error)."""
    x = (torch.rand(m, k, device="cuda") * 8 - 4).to(dt)
    w = (torch.randn(n, k, device="cuda") * 0.5).to(dt)
    s = torch.rand(n, device="cuda") + 0.5
    ref = (x.double() @ w.double().T) * s.double()[None, :]
    mag = (x.double().abs() @ w.double().abs().T) * s.double()[None, :]
    return x, w, s, ref, mag


def matches(y, ref, mag, label):
    """Whether y is the product within bf16 rounding and the accumulation
    error; prints the worst error otherwise."""
    err = (y.double() - ref).abs()
    good = bool(torch.all(err <= 1e-2 * ref.abs() + 1e-3 * mag))
    if not good:
        print(f"  {label} wrong: max err / sum|p| "
              f"{(err / mag).max().item():.3g}", flush=True)
    return good


def cublas_us(x, w, s, flush, runs):
    """Median microseconds of the cuBLAS product a user would call for
    y = (x @ w^T) * s: fp8 through torch._scaled_mm with row-wise scales
    (M, N, K padded to multiples of 16, as it requires, outside the
    timing), bf16 through torch.matmul (without the scale)."""
    if x.dtype != torch.float8_e4m3fn:
        return time_median(lambda _: torch.matmul(x, w.t()), flush, runs)
    (m, k), n = x.shape, w.shape[0]
    mp, np_, kp = ((v + 15) // 16 * 16 for v in (m, n, k))
    xp = torch.zeros(mp, kp, device="cuda", dtype=x.dtype)
    wp = torch.zeros(np_, kp, device="cuda", dtype=x.dtype)
    xp[:m, :k] = x
    wp[:n, :k] = w
    one = torch.ones(mp, 1, device="cuda")
    sb = torch.ones(1, np_, device="cuda")
    sb[0, :n] = s
    return time_median(
        lambda _: torch._scaled_mm(xp, wp.t(), scale_a=one, scale_b=sb,
                                   out_dtype=torch.bfloat16), flush, runs)


def main(dtypes, module=None):
    torch.manual_seed(0)
    flush = l2_flusher()
    module = module or tilec.Module.embedded("gemm")
    ok = True
    for dname in dtypes:
        dt = torch.float8_e4m3fn if dname == "fp8" else torch.bfloat16
        names = INSTANCES[dname]
        print(f"{dname}: " + " | ".join(names) + " | cuBLAS", flush=True)
        for m, n, k in SHAPES:
            x, w, s, ref, mag = problem(m, n, k, dt)
            y = torch.empty(m, n, dtype=torch.bfloat16, device="cuda")
            times = []
            for name in names:
                bm, bn = tile_of(name)
                kern = module.kernel(name)
                grid = ((n + bn - 1) // bn, rows_of(name, m, bm))
                y.fill_(float("nan"))
                kern.launch_tiles(grid, x, w, s, y, m, n, k)
                torch.cuda.synchronize()
                good = matches(y, ref, mag, f"{name} {m}x{n}x{k}")
                ok &= good
                t = time_median(
                    lambda _: kern.launch_tiles(grid, x, w, s, y, m, n, k),
                    flush, RUNS)
                times.append(t if good else float("inf"))
            peer = cublas_us(x, w, s, flush, RUNS)
            best = min(times)
            cells = [f"{t:8.1f}{'*' if t == best else ' '}" for t in times]
            print(f"{m:>5}x{n:>5}x{k:>5} " + " ".join(cells) +
                  f" | {peer:8.1f}  best/cuBLAS {peer / best:5.2f}",
                  flush=True)
    return 0 if ok else 1


if __name__ == "__main__":
    args = sys.argv[1:]
    if args[:1] == ["--shapes"]:
        SHAPES = [tuple(int(e) for e in shape.split("x"))
                  for shape in args[1].split(",")]
        args = args[2:]
    if args[:1] == ["--module"]:
        mod = tilec.Module.from_files(args[1], args[2])
        INSTANCES = {"fp8": [], "bf16": []}
        for spec in args[3:]:
            dtype, name = spec.split(":")
            INSTANCES[dtype].append(name)
        sys.exit(main([d for d in INSTANCES if INSTANCES[d]], mod))
    sys.exit(main(args or ["fp8", "bf16"]))
