"""The row-padding copy of kernels_dsl/pad_rows.mlir (and any variants
listed in VARIANTS; 02248f2 held three) against torch, on the operands the
GEMM entry point pads (rows not 16-byte aligned, K = 4127 and 1000 in fp8;
2 bytes wider rows in bf16).

    TILEC_RUNTIME_LIB=build/lib/libtilec_runtime.so PYTHONPATH=runtime/python \\
        python3 bench/pad_rows_variants.py

Each variant's output is checked against torch (zeros in the padding)
before timing; median of 30 runs, L2 flushed; the effective bandwidth
counts the bytes read plus the bytes written.
"""
import sys

import torch

import tilec
from timing import l2_flusher, time_median

VARIANTS = ["pad_rows"]
# (rows, bytes per row)
SHAPES = [(4096, 4127), (1000, 1000), (14336, 4127), (4096, 8254),
          (32, 8193)]
RUNS = 30


def main():
    torch.manual_seed(0)
    flush = l2_flusher()
    module = tilec.Module.embedded("pad_rows")
    ok = True
    print("rows x bytes | " + " | ".join(VARIANTS) + " | torch copy  (us, TB/s)")
    for rows, cols in SHAPES:
        padded = (cols + 15) // 16 * 16
        # An odd offset into a larger buffer: rows at every alignment.
        base = torch.randint(-128, 128, (rows * cols + 1,), dtype=torch.int8,
                             device="cuda")
        src = base[1:].view(rows, cols)
        want = torch.zeros(rows, padded, dtype=torch.int8, device="cuda")
        want[:, :cols] = src
        dst = torch.empty(rows, padded, dtype=torch.int8, device="cuda")
        moved = rows * cols + rows * padded
        cells = []
        grid = ((rows + 3) // 4, (padded + 1023) // 1024)
        for name in VARIANTS:
            kern = module.kernel(name)
            args = (src, dst, rows, cols, cols, padded)
            dst.fill_(-85)
            kern(grid, *args)
            torch.cuda.synchronize()
            good = bool(torch.equal(dst, want))
            ok &= good
            t = time_median(lambda _: kern(grid, *args), flush, RUNS)
            cells.append(f"{t:7.1f} {moved / t / 1e6:4.2f}" if good else
                         "  wrong")
        t = time_median(lambda _: dst[:, :cols].copy_(src), flush, RUNS)
        cells.append(f"{t:7.1f} {moved / t / 1e6:4.2f}")
        print(f"{rows:>5} x {cols:>5} | " + " | ".join(cells), flush=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
