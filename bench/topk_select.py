"""The guessed long-rows path's select kernel (topk_guess_select_f32) timed
alone in its direct form: the embedded build beside the variants named in
TILEC_SELECT_VARIANTS ("NAME=a.ptx,a.json;...", e.g. from
bench/warp_variants.py).

    TILEC_RUNTIME_LIB=build/lib/libtilec_runtime.so PYTHONPATH=runtime/python:bench \\
        python3 bench/topk_select.py [batch,n,k,count ...]

Each row's candidates are its `count` largest values (keys and columns, in
a random order, as the gathering kernel leaves them in its slots, and the
row's count set to `count`); every kernel's values and indices are checked
against torch.topk before timing. The defaults are the runtime's aims for
k = 1024 (1593 candidates: test/runtime/topk_strategy_test.cc) and k = 64.
Median of 30 runs, L2 flushed.
"""
import sys

import torch

from kernel_variants import embedded_and_variants
from timing import l2_flusher, time_median
from topk_gather import ordered

STATE_WORDS, COUNT_AT = 6176, 6163
RUNS = 30
SHAPES = [(256, 131072, 1024, 1593), (1024, 131072, 1024, 1593),
          (256, 131072, 64, 1200)]


def main():
    shapes = [tuple(map(int, s.split(","))) for s in sys.argv[1:]] or SHAPES
    torch.manual_seed(0)
    flush = l2_flusher()
    found = embedded_and_variants("topk", "topk_guess_select_f32",
                                  "TILEC_SELECT_VARIANTS")
    ok = True
    print("batch, n, k, count | " + " | ".join(n for n, _ in found)
          + "  (us)")
    for b, n, k, count in shapes:
        cap = max(32768, 2 * k)
        x = torch.randn(b, n, device="cuda")
        want = torch.topk(x, k, dim=1)
        top_cols = torch.topk(x, count, dim=1).indices
        shuffle = torch.argsort(torch.rand(b, count, device="cuda"), dim=1)
        cols = top_cols.gather(1, shuffle)
        cand = torch.zeros(b, 2 * cap, dtype=torch.int32, device="cuda")
        cand[:, :count] = ordered(x).gather(1, cols)
        cand[:, cap:cap + count] = cols.to(torch.int32)
        state = torch.zeros(b, STATE_WORDS, dtype=torch.int32, device="cuda")
        state[:, COUNT_AT] = count
        work = torch.empty(b, k, dtype=torch.int64, device="cuda")
        values = torch.empty(b, k, device="cuda")
        indices = torch.empty(b, k, dtype=torch.int64, device="cuda")
        cells = []
        for name, kernel in found:
            def run(_=None):
                kernel((b,), state, cand, work, values, indices, b, k, cap, 1)
            values.fill_(float("nan"))
            indices.fill_(-1)
            run()
            torch.cuda.synchronize()
            good = (torch.equal(values, want.values) and
                    torch.equal(x.gather(1, indices), want.values))
            ok &= good
            t = time_median(run, flush, RUNS)
            cells.append(f"{t:7.1f}" if good else "  wrong")
        print(f"{b:>5}, {n:>7}, {k:>5}, {count:>5} | " + " | ".join(cells),
              flush=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
