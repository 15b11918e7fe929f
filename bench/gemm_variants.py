"""The GEMM kernels compiled several ways, timed side by side.

Build the variants where emit-ptx runs (not needed on the GPU machine):
    for v in "tma4 --num-stages=4" "tma5 --num-stages=5" \\
             "cp4 --num-stages=4 --tma=false" "cp5 --num-stages=5 --tma=false"; do
      set -- $v; n=$1; shift
      build/bin/emit-ptx kernels_dsl/gemm.mlir --target=sm_90a "$@" \\
          -o build/exp/$n.ptx --metadata-out=build/exp/$n.json
    done
then, on the GPU machine with the runtime built:
    TILEC_RUNTIME_LIB=build/lib/libtilec_runtime.so PYTHONPATH=runtime/python \\
        python3 bench/gemm_variants.py build/exp tma4 tma5 cp4 cp5

Each variant's kernels are launched directly (aligned rows, so TMA variants
take TMA), every output checked against float64 first; median of 30 runs,
L2 flushed before each.
"""
import sys

import torch

import tilec
from timing import l2_flusher, time_median

SHAPES = [(4096, 4096, 4096), (4096, 14336, 4096), (2048, 2048, 8192),
          (32, 8192, 8192), (1000, 1000, 1008)]


def main(folder, names):
    variants = {n: tilec.Module.from_files(f"{folder}/{n}.ptx",
                                           f"{folder}/{n}.json")
                for n in names}
    flush = l2_flusher()
    ok = True
    for m, n, k in SHAPES:
        for dt, name in [(torch.float8_e4m3fn, "gemm_fp8"),
                         (torch.bfloat16, "gemm_bf16")]:
            x = (torch.rand(m, k, device="cuda") * 8 - 4).to(dt)
            w = (torch.randn(n, k, device="cuda") * 0.5).to(dt)
            s = torch.rand(n, device="cuda")
            ref = (x.double() @ w.double().T) * s.double()[None, :]
            grid = ((n + 127) // 128, (m + 127) // 128)
            line = f"{name} {m}x{n}x{k}:"
            for v, module in variants.items():
                kern = module.kernel(name)
                y = torch.full((m, n), float("nan"), dtype=torch.bfloat16,
                               device="cuda")
                kern(grid, x, w, s, y, m, n, k)
                torch.cuda.synchronize()
                good = bool(torch.all((y.double() - ref).abs()
                                      <= 0.02 * ref.abs() + 1.0))
                ok &= good
                t = time_median(lambda _: kern(grid, x, w, s, y, m, n, k),
                                flush, 30)
                line += f" {v} {t:.1f}us{'' if good else ' WRONG'}"
            print(line, flush=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2:]))
