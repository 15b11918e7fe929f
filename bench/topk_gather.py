"""The guessed long-rows path's gathering kernel (topk_guess_gather_f32)
timed alone: the embedded build beside the variants named in
TILEC_TOPK_VARIANTS ("cCOLSwW=a.ptx,a.json;...", from
bench/topk_gather_variants.py; COLS, the columns per program, is read from
the name), and a read of the input once (a device-to-device copy, halved).

    TILEC_RUNTIME_LIB=build/lib/libtilec_runtime.so PYTHONPATH=runtime/python:bench \\
        python3 bench/topk_gather.py [batch,n ...]

Each row's threshold is the ordered key of its 4096th largest value (what
the sample aims at for k = 1024); every kernel's candidates are checked
against the keys at or above it (count, the multiset of keys, and each
column's key) before timing. Median of 30 runs, L2 flushed.
"""
import os
import re
import sys

import torch

from kernel_variants import embedded_and_variants
from timing import l2_flusher, time_median

STATE_WORDS, GUESS_AT, COUNT_AT = 6176, 6160, 6163
CAP = 32768
RANK = 4096
RUNS = 30
SHAPES = [(256, 131072), (1024, 131072), (64, 1000000), (16, 1000000)]


def ordered(x):
    """The kernels' order-preserving key of float32 values, as int32 bits."""
    bits = x.view(torch.int32)
    return bits ^ torch.where(bits < 0, torch.full_like(bits, -1),
                              torch.full_like(bits, -2**31))


def embedded_columns():
    """The embedded kernel's columns per program, as kernels_dsl/topk.mlir
    (built with it) has them."""
    path = os.path.join(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__))), "kernels_dsl", "topk.mlir")
    with open(path) as f:
        source = f.read()
    fn = source[source.index("func.func @topk_guess_gather_f32("):]
    return int(re.search(r"%partLen = arith.constant (\d+)", fn).group(1))


def kernels():
    """(name, columns per program, kernel), the columns read from a
    variant's name (cCOLS...)."""
    found = embedded_and_variants("topk", "topk_guess_gather_f32",
                                  "TILEC_TOPK_VARIANTS")
    return [(name, embedded_columns() if name == "embedded" else
             int(re.match(r"c(\d+)", name).group(1)), kernel)
            for name, kernel in found]


def check(b, n, state, cand, keys, threshold):
    count = state[:, COUNT_AT]
    above = (keys.to(torch.int64) & 0xFFFFFFFF) >= (
        threshold.to(torch.int64) & 0xFFFFFFFF)[:, None]
    if not torch.equal(count, above.sum(1).to(torch.int32)):
        return False
    for r in range(b):
        c = int(count[r])
        got = cand[r, :c]
        cols = cand[r, CAP:CAP + c].to(torch.int64)
        if not torch.equal(torch.sort(got).values,
                           torch.sort(keys[r][above[r]]).values):
            return False
        if not torch.equal(keys[r][cols], got):
            return False
    return True


def main():
    shapes = [tuple(map(int, s.split(","))) for s in sys.argv[1:]] or SHAPES
    torch.manual_seed(0)
    flush = l2_flusher()
    found = kernels()
    ok = True
    print("batch, n | read once | " + " | ".join(n for n, _, _ in found)
          + "  (us)")
    for b, n in shapes:
        x = torch.randn(b, n, device="cuda")
        keys = ordered(x)
        threshold = ordered(torch.topk(x, RANK, dim=1).values[:, -1:]
                            .contiguous())[:, 0]
        state = torch.zeros(b, STATE_WORDS, dtype=torch.int32, device="cuda")
        state[:, GUESS_AT] = threshold
        cand = torch.empty(b, 2 * CAP, dtype=torch.int32, device="cuda")
        copy = torch.empty_like(x)
        cells = [f"{time_median(lambda _: copy.copy_(x), flush, RUNS) / 2:7.1f}"]
        # Each timed run resets the counts first; that launch is timed
        # alone and taken off.
        reset = time_median(lambda _: state[:, COUNT_AT].zero_(), flush, RUNS)
        for name, cols, kernel in found:
            grid = ((n + cols - 1) // cols, b)

            def run():
                kernel(grid, x, state, cand, b, n, RANK // 4, CAP)

            state[:, COUNT_AT] = 0
            cand.fill_(-1)
            run()
            torch.cuda.synchronize()
            good = check(b, n, state, cand, keys, threshold)
            ok &= good

            def timed(_):
                state[:, COUNT_AT] = 0
                run()
            t = time_median(timed, flush, RUNS) - reset
            cells.append(f"{t:7.1f}" if good else "  wrong")
        print(f"{b:>5}, {n:>7} | " + " | ".join(cells), flush=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
