"""Runs tilec.gemm on one shape a few times, for a profiler to attach to:
    ncu -k regex:gemm -s 2 -c 1 --section SpeedOfLight \
        --section WarpStateStats python3 bench/profile_gemm.py 4096 4096 4096 fp8
"""
import sys

import torch

import tilec

m, n, k = (int(v) for v in sys.argv[1:4])
dtype = sys.argv[4] if len(sys.argv) > 4 else "fp8"
runs = int(sys.argv[5]) if len(sys.argv) > 5 else 4
element = torch.float8_e4m3fn if dtype == "fp8" else torch.bfloat16
x = torch.randn(m, k, device="cuda").to(element)
w = torch.randn(n, k, device="cuda").to(element)
scale = torch.rand(n, device="cuda")
y = torch.empty(m, n, device="cuda", dtype=torch.bfloat16)
for _ in range(runs):
    tilec.gemm(x, w, scale, y)
torch.cuda.synchronize()
print(f"ran tilec.gemm {dtype} {m}x{n}x{k} {runs} times")
