"""Runs tilec.kda_forward on one shape a few times, for a profiler to
attach to, e.g. the chain of (2, 1024, 8) unsegmented:
    ncu --clock-control none -k regex:kda_chain_bf16 -s 1 -c 1 --set full \\
        --import-source yes -o chain python3 bench/profile_kda.py 2 1024 8 \\
        two_phase_bf16 9999
Arguments: B T H [schedule [segment_chunks [runs]]] (segment_chunks 0:
the runtime's rule; a value of at least T/64 leaves the chain whole).
"""
import sys

import torch

import tilec

b, t, h = (int(v) for v in sys.argv[1:4])
schedule = sys.argv[4] if len(sys.argv) > 4 else "two_phase_bf16"
segment_chunks = int(sys.argv[5]) if len(sys.argv) > 5 else 0
runs = int(sys.argv[6]) if len(sys.argv) > 6 else 3
d = 128
q = (torch.randn(b, t, h, d, device="cuda") * 0.1).bfloat16()
k = (torch.randn(b, t, h, d, device="cuda") * 0.1).bfloat16()
v = (torch.randn(b, t, h, d, device="cuda") * 0.1).bfloat16()
g = torch.randn(b, t, h, d, device="cuda") * 0.1 - 0.05
beta = torch.sigmoid(torch.randn(b, t, h, device="cuda")).bfloat16()
out = torch.empty_like(v)
for _ in range(runs):
    tilec.kda_forward(q, k, v, g, beta, out=out, schedule=schedule,
                      segment_chunks=segment_chunks)
torch.cuda.synchronize()
print(f"ran tilec.kda_forward {schedule} ({b},{t},{h}) L={segment_chunks} "
      f"{runs} times")
