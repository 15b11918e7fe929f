"""The GEMM entry point's row padding of both operands (rows not 16-byte
aligned: K = 4127 and 1000 in fp8, 2 bytes wider rows in bf16): one launch
of `pad_rows_pair` (a 32-bit word per thread, the runtime's path) against
two launches of the byte-wise `pad_rows`, and torch copying both operands.

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

# (rows of x, rows of w, bytes per row): the GEMM shapes that pad.
SHAPES = [(4096, 4096, 4127), (1000, 1000, 1000), (4096, 14336, 4127),
          (4096, 4096, 8254), (32, 8192, 8193), (256, 8192, 1001)]
RUNS = 30


def source(rows, cols, offset):
    """rows x cols random bytes starting `offset` bytes into a buffer."""
    base = torch.randint(-128, 128, (rows * cols + offset,), dtype=torch.int8,
                         device="cuda")
    return base[offset:].view(rows, cols)


def main():
    torch.manual_seed(0)
    flush = l2_flusher()
    module = tilec.Module.embedded("pad_rows")
    single, pair = module.kernel("pad_rows"), module.kernel("pad_rows_pair")
    ok = True
    print("x rows, w rows, bytes | pad_rows x2 | pad_rows_pair | torch copy"
          "  (us, TB/s)")
    for m, n, cols in SHAPES:
        padded = (cols + 15) // 16 * 16
        # Odd offsets: rows at every alignment, words shifted by 1 and 3.
        srcs = [source(m, cols, 1), source(n, cols, 3)]
        wants = []
        for s in srcs:
            want = torch.zeros(s.shape[0], padded, dtype=torch.int8,
                               device="cuda")
            want[:, :cols] = s
            wants.append(want)
        dsts = [torch.empty_like(w) for w in wants]
        moved = (m + n) * (cols + padded)

        def twice():
            for s, d in zip(srcs, dsts):
                rows = s.shape[0]
                single(((rows + 3) // 4, (padded + 1023) // 1024), s, d,
                       rows, cols, cols, padded)

        def once():
            args = []
            for s, d in zip(srcs, dsts):
                at = s.data_ptr()
                args += [at, at & ~3, at & 3, d.data_ptr(), s.shape[0]]
            pair(((m + 3) // 4 + (n + 3) // 4, (padded + 1023) // 1024),
                 *args, cols, cols, padded)

        def torch_copy():
            for s, d in zip(srcs, dsts):
                d[:, :cols].copy_(s)

        cells = []
        for run in (twice, once):
            for d in dsts:
                d.fill_(-85)
            run()
            torch.cuda.synchronize()
            good = all(torch.equal(d, w) for d, w in zip(dsts, wants))
            ok &= good
            t = time_median(lambda _: run(), flush, RUNS)
            cells.append(f"{t:7.1f} {moved / t / 1e6:4.2f}" if good else
                         "  wrong")
        t = time_median(lambda _: torch_copy(), flush, RUNS)
        cells.append(f"{t:7.1f} {moved / t / 1e6:4.2f}")
        print(f"{m:>5}, {n:>5}, {cols:>5} | " + " | ".join(cells), flush=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
