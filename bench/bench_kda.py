"""KDA (Kimi Delta Attention) chunked forward: tilec.kda_forward
(kernels_dsl/kda.mlir) against flash-linear-attention's chunk_kda in the
same process.

    q, k (B, T, H, 128) bf16, v (B, T, H, 128) bf16, g (B, T, H, 128) f32
    raw log-decay, beta (B, T, H) bf16 -> o (B, T, H, 128) bf16

Run on a GPU machine with the runtime built and fla-core installed (it is
pure Python + Triton: python3 -m pip install --no-deps --no-index
.whl/*.whl with the fla-core and einops wheels; a bare `pip` may install
into another interpreter than the one that runs this):
    TILEC_RUNTIME_LIB=build/lib/libtilec_runtime.so \\
    PYTHONPATH=runtime/python python3 bench/bench_kda.py

Each deck shape (../shared/KERNELS.md section 4: q, k, v = randn·0.1,
g = randn·0.1 − 0.05, beta = sigmoid(randn)) is first checked: ours
against chunk_kda's output (and final state) on the same fresh inputs, our
output poisoned with NaN first, tolerance 0.05 absolute on o. Then both
are timed with CUDA events around the call alone, L2 flushed before every
run, median of many runs after a warm-up, inputs rotated among copies.
Without fla-core the check falls back to a float32 recurrence in torch and
only ours is timed. Every schedule of tilec.kda_forward (two-phase with
bf16 records and chain, the default; two-phase in tf32; the single
kernel) is checked and timed. Exits non-zero when a check fails.

    --segments 0,2,4,8   also run the two-phase schedules with the chain cut
                         into segments of that many chunks (0: the
                         runtime's choice, the default)
    --shapes B,T,H;...   other (B, T, H) than the deck's
    --schedules a,b      only these schedules (e.g. two_phase,two_phase_bf16:
                         the single kernel takes tens of ms on large shapes)
    --d 64               head dimension K = V (128 by default)

With TILEC_BASELINE_LIB naming another build of the runtime, that build's
kda_forward is timed beside ours on the same inputs (column "base us").
"""
import sys

import torch

import os

import tilec
from baseline import load_baseline
from timing import l2_flusher, time_median

DECK = [(2, 1024, 8), (2, 2048, 8), (1, 4096, 8), (1, 2048, 4)]
# chunk_kda on the H200 as recorded in KERNELS.md, for reference.
FLA_RECORDED_US = [577, 581, 555, 1253]
RUNS = 30
COPIES = 3
ATOL = 0.05
SCHEDULES = ("two_phase", "two_phase_bf16", "single")


def option(name, default):
    if name in sys.argv:
        return sys.argv[sys.argv.index(name) + 1]
    return default


DIM = int(option("--d", "128"))


def make_inputs(b, t, h, d=DIM):
    q = (torch.randn(b, t, h, d, device="cuda") * 0.1).to(torch.bfloat16)
    k = (torch.randn(b, t, h, d, device="cuda") * 0.1).to(torch.bfloat16)
    v = (torch.randn(b, t, h, d, device="cuda") * 0.1).to(torch.bfloat16)
    g = torch.randn(b, t, h, d, device="cuda") * 0.1 - 0.05
    beta = torch.sigmoid(torch.randn(b, t, h, device="cuda")).to(
        torch.bfloat16)
    return q, k, v, g, beta


def recurrence(q, k, v, g, beta, scale):
    """The per-token recurrence in float32 (the fallback check)."""
    b, t, h, d = q.shape
    q, k, v, g, beta = (x.float() for x in (q, k, v, g, beta))
    s = torch.zeros(b, h, d, d, device="cuda")
    o = torch.empty(b, t, h, d, device="cuda")
    for i in range(t):
        s = s * g[:, i].exp().unsqueeze(-1)
        kv = torch.einsum("bhkv,bhk->bhv", s, k[:, i])
        u = beta[:, i].unsqueeze(-1) * (v[:, i] - kv)
        s = s + torch.einsum("bhk,bhv->bhkv", k[:, i], u)
        o[:, i] = scale * torch.einsum("bhkv,bhk->bhv", s, q[:, i])
    return o, s


def main():
    try:
        from fla.ops.kda import chunk_kda
    except ImportError as e:
        chunk_kda = None
        print(f"fla-core not importable ({e}); checking against a torch "
              "recurrence and timing tilec only")
    torch.manual_seed(0)
    flush = l2_flusher()
    scale = DIM ** -0.5
    base_lib = os.environ.get("TILEC_BASELINE_LIB")
    base = load_baseline(base_lib) if base_lib else None
    print(f"device: {torch.cuda.get_device_name()}")
    print(f"{'B,T,H':>12} {'schedule':>10} {'tilec us':>9} {'fla us':>9}"
          f" {'speedup':>8} {'fla (KERNELS.md) us':>20} {'base us':>8}"
          "  check")
    ok = True
    rows = []
    segments = [int(x) for x in option("--segments", "0").split(",")]
    schedules = option("--schedules", ",".join(SCHEDULES)).split(",")
    runs = [(s, 0) for s in schedules if s == "single"] + [
        (s, n) for n in segments for s in schedules if s != "single"]
    shapes = list(zip(DECK, FLA_RECORDED_US))
    if "--shapes" in sys.argv:
        shapes = [(tuple(int(x) for x in shape.split(",")), float("nan"))
                  for shape in option("--shapes", "").split(";")]
    for (b, t, h), recorded in shapes:
        inputs = [make_inputs(b, t, h) for _ in range(COPIES)]
        q, k, v, g, beta = inputs[0]
        if chunk_kda is not None:
            ref_o, ref_ht = chunk_kda(q, k, v, g, beta, scale=scale,
                                      output_final_state=True)
            against = "chunk_kda"
            peer = time_median(
                lambda i: chunk_kda(*inputs[i % COPIES], scale=scale),
                flush, RUNS)
        else:
            ref_o, ref_ht = recurrence(q, k, v, g, beta, scale)
            against = "torch recurrence"
            peer = float("nan")
        for schedule, segment_chunks in runs:
            out = torch.full_like(q, float("nan"))
            ht = torch.full((b, h, DIM, DIM), float("nan"), device="cuda")
            tilec.kda_forward(q, k, v, g, beta, scale=scale, out=out,
                              final_state=ht, schedule=schedule,
                              segment_chunks=segment_chunks)
            torch.cuda.synchronize()
            err = (out.float() - ref_o.float()).abs().max().item()
            state_err = (ht - ref_ht.float()).abs().max().item()
            good = bool(err <= ATOL) and bool(torch.isfinite(out).all())
            ok &= good
            outs = [torch.empty_like(out) for _ in range(COPIES)]
            ours = time_median(
                lambda i: tilec.kda_forward(*inputs[i % COPIES], scale=scale,
                                            out=outs[i % COPIES],
                                            schedule=schedule,
                                            segment_chunks=segment_chunks),
                flush, RUNS)
            based = float("nan")
            if base is not None:
                based = time_median(
                    lambda i: base.kda_forward(
                        *inputs[i % COPIES], scale=scale,
                        out=outs[i % COPIES], schedule=schedule,
                        segment_chunks=segment_chunks), flush, RUNS)
            shape = f"({b},{t},{h})"
            if segment_chunks:
                schedule = f"{schedule} L={segment_chunks}"
            print(f"{shape:>12} {schedule:>10} {ours:9.1f} {peer:9.1f}"
                  f" {peer / ours:7.2f}x {recorded:20.0f} {based:8.1f}"
                  f"  max |o - {against}|"
                  f" {err:.2e}, max |ht - ref| {state_err:.2e}"
                  f"{'' if good else '  WRONG'}")
            rows.append((shape, schedule, ours, peer, based))
    print()
    print("| (B, T, H) | schedule | tilec µs | chunk_kda µs | speedup |"
          " base µs |")
    print("|---|---|---|---|---|---|")
    for shape, schedule, ours, peer, based in rows:
        print(f"| {shape} | {schedule} | {ours:.1f} | {peer:.1f} |"
              f" {peer / ours:.2f}x | {based:.1f} |")
    if not ok:
        print("FAILED: tilec.kda_forward disagrees with the reference")
        sys.exit(1)


if __name__ == "__main__":
    main()
