"""GEMM: tilec (tilec.gemm, the embedded kernels_dsl/gemm.mlir) against cuBLAS.

    y = bf16(float(x @ w^T) * scale), x (M, K), w (N, K), scale (N,) f32

fp8 e4m3 against torch._scaled_mm with row-wise scales (cuBLAS), bf16
against torch.matmul (cuBLAS; the scale is not applied there, so the peer
does slightly less work). Run on a GPU machine with the runtime built:
    TILEC_RUNTIME_LIB=build/lib/libtilec_runtime.so \
    PYTHONPATH=runtime/python python3 bench/bench_gemm.py

    python3 bench/bench_gemm.py --grid   # fp8 only, WIDE_ROWS x WIDE_WEIGHTS
    python3 bench/bench_gemm.py --grid --rows 512,2048 --weights 3584x8192

Every shape is first checked on fresh random data against a float64
reference (the inputs of ../shared/KERNELS.md section 1, plus its stress
cases), with the output poisoned (NaN) before the run; then both are timed
with CUDA events around the launch alone, L2 flushed before every run,
median of many runs, in the same process.
"""
import sys

import torch

import tilec
from timing import l2_flusher, time_median

DECK = [(4096, 4096, 4096), (4096, 4096, 4127), (32, 8192, 8192),
        (4096, 14336, 4096)]
# Around the deck: odd, tiny and skinny shapes.
GRID = [(1, 1, 1), (7, 13, 17), (129, 257, 100), (1000, 1000, 1000),
        (32, 4096, 4096), (256, 8192, 1024), (2048, 2048, 8192)]
RUNS = 30
# --grid: fp8 over rows on either side of the dispatch's crossovers
# (runtime/gemm_configs.cc: 64-row tiles up to 128 rows, split K when
# 64 x 64 tiles leave SMs idle, then 64 x 128, 128 x 128, 128 x 256 and the
# persistent 128 x 256 as the tiles grow) and the weight shapes of common
# layers.
WIDE_ROWS = [1, 16, 64, 128, 129, 256, 512, 777, 1024, 2048, 4096, 8192]
WIDE_WEIGHTS = [(4096, 4096), (14336, 4096), (4096, 14336), (1024, 8192),
                (8192, 1024), (2880, 2880)]


def tilec_gemm(x, w, scale, y):
    """The user's entry point: validation, and for rows that are not
    16-byte aligned (K = 4127) the padding copies, all counted."""
    tilec.gemm(x, w, scale, y)


def fp8_inputs(m, n, k, x_scale=1.0):
    """KERNELS.md: x = (rand*8-4) in fp8; weight rows N(0, 0.02) stored as
    w/s in fp8 with s = amax(row)/448."""
    x = ((torch.rand(m, k, device="cuda") * 8 - 4) * x_scale).to(
        torch.float8_e4m3fn)
    w = torch.randn(n, k, device="cuda") * 0.02
    s = w.abs().amax(dim=1) / 448
    return x, (w / s[:, None]).to(torch.float8_e4m3fn), s.float()


def reference(x, w, scale):
    return (x.double() @ w.double().T) * scale.double()[None, :]


def check(x, w, scale, atol, rtol, what):
    y = torch.full((x.shape[0], w.shape[0]), float("nan"),
                   dtype=torch.bfloat16, device="cuda")
    tilec_gemm(x, w, scale, y)
    torch.cuda.synchronize()
    ref = reference(x, w, scale)
    err = (y.double() - ref).abs()
    ok = bool(torch.all(err <= atol + rtol * ref.abs()))
    if not ok:
        print(f"FAIL {what}: max err {err.max().item():.4g}, "
              f"ref max {ref.abs().max().item():.4g}")
    return ok


def check_shape(m, n, k):
    ok = True
    x, w, s = fp8_inputs(m, n, k)
    ok &= check(x, w, s, 0.2, 0.2, f"fp8 {m}x{n}x{k}")
    x1, _, _ = fp8_inputs(m, n, k, 1e-3)
    ok &= check(x1, w, s, 5e-4, 5e-2, f"fp8 x*1e-3 {m}x{n}x{k}")
    x64, _, _ = fp8_inputs(m, n, k, 64)
    ok &= check(x64, w, s, 12, 0.2, f"fp8 x*64 {m}x{n}x{k}")
    # The weight changed in place between calls.
    w.copy_((w.float() * 1e-2).to(torch.float8_e4m3fn))
    ok &= check(x, w, s, 3e-3, 0.2, f"fp8 w*1e-2 {m}x{n}x{k}")
    xb = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
    wb = torch.randn(n, k, device="cuda", dtype=torch.bfloat16) * 0.05
    sb = torch.rand(n, device="cuda") + 0.5
    ok &= check(xb, wb, sb, 0.02, 0.02, f"bf16 {m}x{n}x{k}")
    return ok


def bench(m, n, k, flush, with_bf16=True):
    x, w, s = fp8_inputs(m, n, k)
    y = torch.empty(m, n, dtype=torch.bfloat16, device="cuda")
    ours8 = time_median(lambda _: tilec_gemm(x, w, s, y), flush, RUNS)
    # cuBLAS needs K and N multiples of 16: pad outside the timing.
    kp = (k + 15) // 16 * 16
    np_ = (n + 15) // 16 * 16
    xp = torch.zeros(m, kp, device="cuda", dtype=torch.float8_e4m3fn)
    wp = torch.zeros(np_, kp, device="cuda", dtype=torch.float8_e4m3fn)
    xp[:, :k] = x
    wp[:n, :k] = w
    one = torch.ones(m, 1, device="cuda")
    sb = torch.ones(1, np_, device="cuda")
    sb[0, :n] = s
    peer8 = time_median(
        lambda _: torch._scaled_mm(xp, wp.t(), scale_a=one, scale_b=sb,
                                   out_dtype=torch.bfloat16), flush, RUNS)
    # What a user of cuBLAS pays for such a shape: the same copies into
    # aligned buffers, then the GEMM (only where padding is needed).
    peer8_padded = float("nan")
    if (kp, np_) != (k, n):
        def padded_peer(_):
            xp[:, :k].copy_(x)
            wp[:n, :k].copy_(w)
            sb[0, :n].copy_(s)
            torch._scaled_mm(xp, wp.t(), scale_a=one, scale_b=sb,
                             out_dtype=torch.bfloat16)
        peer8_padded = time_median(padded_peer, flush, RUNS)
    if not with_bf16:
        return ours8, peer8, peer8_padded, float("nan"), float("nan")
    xb = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
    wb = torch.randn(n, k, device="cuda", dtype=torch.bfloat16)
    sf = torch.rand(n, device="cuda")
    oursb = time_median(lambda _: tilec_gemm(xb, wb, sf, y), flush, RUNS)
    peerb = time_median(lambda _: torch.matmul(xb, wb.t()), flush, RUNS)
    return ours8, peer8, peer8_padded, oursb, peerb


def wide_grid(flush):
    """fp8 against cuBLAS over WIDE_ROWS x WIDE_WEIGHTS, each shape checked
    once first; the shapes slower than cuBLAS listed at the end."""
    ok = True
    slow = []
    ratios = []
    print(f"{'M x N x K':>22} | {'fp8 ours':>9} {'cuBLAS':>8} {'ratio':>6}"
          f" {'TFLOP/s':>8}")
    for n, k in WIDE_WEIGHTS:
        for m in WIDE_ROWS:
            x, w, s = fp8_inputs(m, n, k)
            ok &= check(x, w, s, 0.2, 0.2, f"fp8 {m}x{n}x{k}")
            o8, p8, _, _, _ = bench(m, n, k, flush, with_bf16=False)
            ratios.append(p8 / o8)
            if p8 / o8 < 1:
                slow.append((p8 / o8, m, n, k))
            tf = 2 * m * n * k / (o8 * 1e-6) / 1e12
            print(f"{f'{m} x {n} x {k}':>22} | {o8:8.1f}u {p8:7.1f}u "
                  f"{p8 / o8:6.2f} {tf:8.0f}", flush=True)
    geo = 1.0
    for r in ratios:
        geo *= r ** (1 / len(ratios))
    print(f"{len(ratios)} shapes, geomean {geo:.3f}x cuBLAS; slower than "
          f"cuBLAS: " + (", ".join(f"{m}x{n}x{k} {r:.2f}"
                                   for r, m, n, k in sorted(slow)) or "none"))
    print("correctness:", "all shapes pass" if ok else "FAILURES")
    return 0 if ok else 1


def parse_lists():
    """--rows M,M,... and --weights NxK,... replace the --grid lists."""
    global WIDE_ROWS, WIDE_WEIGHTS
    args = sys.argv[1:]
    for flag, value in zip(args, args[1:]):
        if flag == "--rows":
            WIDE_ROWS = [int(m) for m in value.split(",")]
        elif flag == "--weights":
            WIDE_WEIGHTS = [tuple(int(e) for e in nk.split("x"))
                            for nk in value.split(",")]


def main():
    parse_lists()
    torch.manual_seed(0)
    flush = l2_flusher()
    if "--grid" in sys.argv:
        return wide_grid(flush)
    ok = True
    for m, n, k in GRID + DECK:
        ok &= check_shape(m, n, k)
    print("correctness:", "all shapes pass" if ok else "FAILURES")
    # cuBLAS+pad: the user's copies into 16-aligned buffers counted too
    # (K or N not a multiple of 16 only; cuBLAS alone excludes them).
    print(f"{'M x N x K':>22} | {'fp8 ours':>9} {'cuBLAS':>8} {'ratio':>6}"
          f" {'TFLOP/s':>8} {'cuBLAS+pad':>10} {'ratio':>6} |"
          f" {'bf16 ours':>9} {'cuBLAS':>8} {'ratio':>6}")
    for m, n, k in DECK + GRID[3:]:
        o8, p8, p8pad, ob, pb = bench(m, n, k, flush)
        tf = 2 * m * n * k / (o8 * 1e-6) / 1e12
        print(f"{f'{m} x {n} x {k}':>22} | {o8:8.1f}u {p8:7.1f}u "
              f"{p8 / o8:6.2f} {tf:8.0f} {p8pad:9.1f}u {p8pad / o8:6.2f} | "
              f"{ob:8.1f}u {pb:7.1f}u {pb / ob:6.2f}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
