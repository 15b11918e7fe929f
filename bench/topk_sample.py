"""The guessed long-rows path's sample kernel (topk_guess_f32) timed alone:
the embedded build beside the variants named in TILEC_SAMPLE_VARIANTS
("NAME=a.ptx,a.json;..."), each checked first against the guess computed
here from the same runs.

    TILEC_RUNTIME_LIB=build/lib/libtilec_runtime.so PYTHONPATH=runtime/python:bench \\
        python3 bench/topk_sample.py [batch,n,blocks,rank ...]

blocks, the runs of 256 columns sampled (n // blocks apart), and rank are
the plan runtime/topk.cc (LongRowsGuess) makes for the shape; the defaults
are its plans for k = 1024 and k = 64 (test/runtime/topk_strategy_test.cc).
Direct plans (these) clear only the candidates' count of the row state;
TILEC_SAMPLE_CLEAR_ALL=1 times the clearing of all of it. Median of 30
runs, L2 flushed.
"""
import os
import sys

import torch

from kernel_variants import embedded_and_variants
from timing import l2_flusher, time_median
from topk_gather import ordered

STATE_WORDS, GUESS_AT, COUNT_AT = 6176, 6160, 6163
CLEAR_ALL = int(os.environ.get("TILEC_SAMPLE_CLEAR_ALL", "0"))
RUNS = 30
RUN_LEN = 256
# (batch, n, blocks, rank): k = 1024 and k = 64 at 256 x 131072, k = 1024
# at 1024 x 131072 and 256 x 10^6.
SHAPES = [(256, 131072, 64, 199), (256, 131072, 16, 32),
          (1024, 131072, 64, 199), (256, 1000000, 32, 33),
          (2048, 131072, 64, 199)]


def expected_guess(x, blocks, rank):
    """The rank-th largest key of the sampled runs, low 10 bits cleared."""
    b, n = x.shape
    step = n // blocks
    cols = (torch.arange(blocks, device="cuda")[:, None] * step +
            torch.arange(RUN_LEN, device="cuda")[None, :]).reshape(-1)
    keys = ordered(x[:, cols].contiguous()).to(torch.int64) & 0xFFFFFFFF
    kth = torch.topk(keys, rank, dim=1).values[:, -1]
    return (((kth & 0xFFFFFC00) ^ 0x80000000) - 0x80000000).to(torch.int32)


def main():
    shapes = [tuple(map(int, s.split(","))) for s in sys.argv[1:]] or SHAPES
    torch.manual_seed(0)
    flush = l2_flusher()
    found = embedded_and_variants("topk", "topk_guess_f32",
                                  "TILEC_SAMPLE_VARIANTS")
    ok = True
    print("batch, n, blocks, rank | " + " | ".join(n for n, _ in found)
          + "  (us)")
    for b, n, blocks, rank in shapes:
        x = torch.randn(b, n, device="cuda")
        want = expected_guess(x, blocks, rank)
        state = torch.empty(b, STATE_WORDS, dtype=torch.int32, device="cuda")
        cells = []
        for name, kernel in found:
            def run(_=None):
                kernel((b,), x, state, b, n, blocks, n // blocks, rank,
                       CLEAR_ALL)
            state.fill_(-1)
            run()
            torch.cuda.synchronize()
            # Cleared: every word but the guess, or only the count.
            rest = state.clone()
            rest[:, GUESS_AT] = 0
            if not CLEAR_ALL:
                rest = rest[:, COUNT_AT:COUNT_AT + 1]
            good = (torch.equal(state[:, GUESS_AT], want) and
                    not bool(rest.any()))
            ok &= good
            t = time_median(run, flush, RUNS)
            cells.append(f"{t:7.1f}" if good else "  wrong")
        print(f"{b:>5}, {n:>7}, {blocks:>3}, {rank:>3} | " + " | ".join(cells),
              flush=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
