"""Runs tilec.paged_decode on one shape a few times, for a profiler to
attach to, e.g. the D = 64 deck shape:
    ncu --clock-control none -k regex:paged_decode -s 1 -c 1 --set full \\
        --import-source yes -o decode python3 bench/profile_decode.py \\
        8 16 4 64 2000
Arguments: B H Hkv D L [runs] (inputs as bench_decode.py makes them).
"""
import sys

import torch

import tilec
from bench_decode import make_inputs

b, h, hkv, d, length = (int(v) for v in sys.argv[1:6])
runs = int(sys.argv[6]) if len(sys.argv) > 6 else 3
q, kv, table, lens = make_inputs(b, h, hkv, d, length)
out = torch.empty_like(q)
for _ in range(runs):
    tilec.paged_decode(q, kv, table, lens, out=out)
torch.cuda.synchronize()
print(f"ran tilec.paged_decode ({b},{h},{hkv},{d},{length}) "
      f"{tilec.paged_decode_plan(b, h, hkv, d, table.shape[1])} {runs} times")
