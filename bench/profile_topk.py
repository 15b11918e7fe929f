"""Per-kernel times of tilec.topk (CUPTI, through torch.profiler) on the
shapes given as batch,n,k arguments: five calls each on normal values,
after one call to warm up.
    python3 bench/profile_topk.py 256,131072,1024 64,1000000,1024
"""
import sys

import torch

import tilec

for spec in sys.argv[1:]:
    b, n, k = map(int, spec.split(","))
    x = torch.randn(b, n, device="cuda")
    values = torch.empty(b, k, device="cuda")
    indices = torch.empty(b, k, device="cuda", dtype=torch.int64)
    tilec.topk(x, k, values, indices)
    torch.cuda.synchronize()
    with torch.profiler.profile(
            activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
        for _ in range(5):
            tilec.topk(x, k, values, indices)
        torch.cuda.synchronize()
    print(f"== {b} x {n}, k = {k} ({tilec.topk_strategy(b, n, k)})")
    for e in prof.key_averages():
        if e.device_time_total > 0:
            print(f"  {e.key[:40]:<40} calls {e.count:>3}  "
                  f"avg {e.device_time_total / e.count:8.1f} us")
