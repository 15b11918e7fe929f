"""Paged-attention decode: tilec.paged_decode (kernels_dsl/paged_decode.mlir)
against the PyTorch code a user would write: gather the pages through the
block table, then scaled_dot_product_attention (GQA).

    query (B, H, D) bf16, kv_cache (pages, 16, Hkv, 2*D) bf16 [K | V],
    block_table (B, W) int32, seq_lens (B,) int32 -> out (B, H, D) bf16

Run on a GPU machine with the runtime built:
    TILEC_RUNTIME_LIB=build/lib/libtilec_runtime.so \
    PYTHONPATH=runtime/python python3 bench/bench_decode.py

Each deck shape (../shared/KERNELS.md section 2) is first checked against a
float32 reference on fresh random data (output poisoned with NaN first);
then both are timed with CUDA events around the call alone, L2 flushed
before every run, median of many runs, inputs rotated among copies, in the
same process, next to the device-to-device copy ceiling of that run.
Achieved bandwidth counts the deck's bytes: 2*B*L*Hkv*D*2 + B*H*D*4.
SWEEP=1 (the default) also times each D kernel of the module (both D = 128
instances) launched directly over pages per split.

With --grid, a grid of shapes around the deck (batch 1 to 64, lengths 512
to 32768, head ratios 1 to 32, both D) is checked and timed instead, against
torch and, with TILEC_BASELINE_LIB naming another build of the runtime
library, that build (column 'base us'); 'plan' is the kernel and pages per
span the runtime picks (tilec.paged_decode_plan). GRID_SWEEP=1
adds each point's sweep of the point's D kernels (both at D = 128), and
of each TILEC_DECODE_VARIANTS build's; GRID_POINTS="B,H,Hkv,D,L;..."
times those points instead of the grid.
"""
import argparse
import json
import math
import os
import statistics
import sys

import torch
import torch.nn.functional as F

import tilec
from baseline import load_baseline
from kernel_variants import variant_files
from timing import l2_flusher, time_median

DECK = [(8, 32, 8, 128, 1024), (32, 32, 8, 128, 2048), (4, 64, 8, 128, 4096),
        (16, 32, 8, 128, 1535), (8, 16, 4, 64, 2000)]
TRITON_US = [45, 92, 70, 63, 99]
# (B, H, Hkv, D, L) around the deck: every batch from one sequence to a full
# grid at two lengths, crossing the 8-warp kernel's limit of 128 programs
# (B = 16 / 17 at 8 kv heads) and the 4-warp kernel's of 256 unsplit (31 /
# 32), long single sequences, head ratios H / Hkv of 1 to 32, and D = 64.
GRID = ([(b, 32, 8, 128, l) for l in (1024, 4096)
         for b in (1, 2, 4, 8, 16, 17, 24, 31, 32, 64)] +
        [(b, 32, 8, 128, l) for b in (4, 16) for l in (512, 2048, 8192)] +
        [(1, 32, 8, 128, 32768), (2, 64, 8, 128, 16384), (8, 8, 8, 128, 2048),
         (16, 64, 8, 128, 1000), (4, 32, 1, 128, 3000), (48, 32, 8, 128, 777),
         (8, 16, 4, 64, 2000), (64, 16, 4, 64, 1000), (1, 16, 4, 64, 20000)])
RUNS = 50
COPIES = 3
PAGE = 16


def make_inputs(b, h, hkv, d, length):
    pages = (length + PAGE - 1) // PAGE
    total = max(b * pages + 8, 64)
    q = torch.randn(b, h, d, device="cuda").to(torch.bfloat16)
    kv = torch.randn(total, PAGE, hkv, 2 * d, device="cuda").to(torch.bfloat16)
    table = torch.randperm(total, device="cuda")[:b * pages].view(
        b, pages).to(torch.int32).contiguous()
    lens = torch.full((b,), length, dtype=torch.int32, device="cuda")
    return q, kv, table, lens


def torch_decode(q, kv, table, lens, length):
    """What a user writes: gather the pages, then SDPA (every sequence of
    one length here, as in the deck)."""
    b, h, d = q.shape
    hkv = kv.shape[2]
    pages = kv[table.long()]  # (B, W, 16, Hkv, 2D)
    seq = pages.view(b, -1, hkv, 2 * d)[:, :length]
    k = seq[..., :d].transpose(1, 2)
    v = seq[..., d:].transpose(1, 2)
    try:
        out = F.scaled_dot_product_attention(q.unsqueeze(2), k, v,
                                             enable_gqa=True)
    except TypeError:  # torch before 2.5
        k = k.repeat_interleave(h // hkv, dim=1)
        v = v.repeat_interleave(h // hkv, dim=1)
        out = F.scaled_dot_product_attention(q.unsqueeze(2), k, v)
    return out.squeeze(2)


def reference(q, kv, table, lens):
    b, h, d = q.shape
    hkv = kv.shape[2]
    out = torch.zeros(b, h, d, device="cuda")
    for i in range(b):
        n = int(lens[i])
        if n == 0:
            continue
        pages = kv[table[i].long()].float().view(-1, hkv, 2 * d)[:n]
        k = pages[..., :d].repeat_interleave(h // hkv, dim=1)  # (n, H, D)
        v = pages[..., d:].repeat_interleave(h // hkv, dim=1)
        s = torch.einsum("hd,nhd->hn", q[i].float(), k) / math.sqrt(d)
        out[i] = torch.einsum("hn,nhd->hd", s.softmax(-1), v)
    return out


_modules = {}


def module(variant):
    """The embedded kernels ("tilec"), or another build of them named in
    TILEC_DECODE_VARIANTS="name=a.ptx,a.json;..." (to compare versions of
    the kernel source in one run)."""
    if variant not in _modules:
        if variant == "tilec":
            _modules[variant] = tilec.Module.embedded("paged_decode")
        else:
            ptx, meta = variants()[variant]
            _modules[variant] = tilec.Module.from_files(ptx, meta)
    return _modules[variant]


def variants():
    return {name: (ptx, meta)
            for name, ptx, meta in variant_files("TILEC_DECODE_VARIANTS")}


def raw_decode(q, kv, table, lens, out, pps, scratch, variant="tilec",
               name=None):
    """Kernel `name` (default paged_decode_d<D>) launched directly with `pps`
    pages per split (the runtime picks the kernel and pps itself; this
    sweeps them). A variant built before the merge moved into the split
    kernel takes a second launch, its combine."""
    _module = module(variant)
    b, h, d = q.shape
    hkv = kv.shape[2]
    width = table.shape[1]
    splits = (width + pps - 1) // pps
    chunks = (h // hkv + 15) // 16
    pm, pl, pacc, tickets = scratch
    split = _module.kernel(name or f"paged_decode_d{d}")
    if any(p["name"] == "tickets" for p in split.params):
        split((splits, hkv * chunks, b), q, kv, table, lens, pm, pl, pacc,
              tickets, out, b, h, hkv, width, kv.shape[0], splits, pps,
              1.0 / math.sqrt(d))
        return
    split((splits, hkv * chunks, b), q, kv, table, lens, pm, pl, pacc, b, h,
          hkv, width, kv.shape[0], splits, pps, 1.0 / math.sqrt(d))
    _module.kernel(f"paged_decode_combine_d{d}")(
        ((b * h + 15) // 16,), pm, pl, pacc, out, b * h, splits)


def decode_scratch(b, h, hkv, d, splits):
    """Partials and tickets for either kernel layout: slots of 32 floats and
    min(G, 16) rows per (split, tile of up to 16 heads), or rows of
    (split, B*H)."""
    tiles = b * hkv * ((h // hkv + 15) // 16)
    rows = max(splits * tiles * 32, splits * b * h)
    slot_rows = min(h // hkv, 16)
    return (torch.empty(rows, device="cuda"),
            torch.empty(rows, device="cuda"),
            torch.empty(max(splits * tiles * slot_rows, splits * b * h) * d,
                        device="cuda"),
            torch.zeros(tiles, dtype=torch.int32, device="cuda"))


def kernel_names(variant, d):
    """The kernels of `variant` that serve head dim `d`: paged_decode_d<D>
    and, where the module has them, its 8-warp instances (_w8, _w8s3)."""
    names = []
    for suffix in ("", "_w8", "_w8s3"):
        try:
            module(variant).kernel(f"paged_decode_d{d}{suffix}")
        except tilec.TilecError:
            continue
        names.append(f"paged_decode_d{d}{suffix}")
    return names


def sweep(inputs, flush, ref, variant, name=None, spans=(4, 8, 16, 32, 64,
                                                        128)):
    """Median us per pages-per-split value, for the split heuristic; None
    when the variant's output is wrong."""
    q, kv, table, lens = inputs[0]
    b, h, d = q.shape
    width = table.shape[1]
    result = {}
    for pps in spans:
        if pps > 4 and (pps // 2) >= width:
            break
        splits = (width + pps - 1) // pps
        scratch = decode_scratch(b, h, kv.shape[2], d, splits)
        out = torch.full_like(q, float("nan"))
        raw_decode(*inputs[0], out, pps, scratch, variant, name)
        if not torch.allclose(out.float(), ref, atol=0.02, rtol=0.02):
            return None
        if scratch[3].any():
            sys.exit(f"{variant}: tickets left nonzero at pps {pps}")
        result[pps] = time_median(
            lambda i: raw_decode(*inputs[i % COPIES], out, pps, scratch,
                                 variant, name),
            flush, 15, warmup=2)
    return result


def print_sweep(variant, name, times):
    print(f"    {variant:>6} {name} pages per split -> us: " + (
        "WRONG" if times is None else ", ".join(
            f"{k}: {v:.1f}" for k, v in times.items())))


def grid(flush, ceiling, base):
    """The runtime (and the baseline build) against torch over GRID, each
    point checked against the float32 reference first."""
    print(f"{'B,H,Hkv,D,L':>22} {'plan':>13} {'tilec us':>9} {'base us':>8}"
          f" {'vs base':>7} {'torch us':>9} {'vs torch':>8} {'floor us':>8}")
    worst = None
    ratios = []
    ok = True
    points = GRID
    if os.environ.get("GRID_POINTS"):
        points = [tuple(int(x) for x in p.split(","))
                  for p in os.environ["GRID_POINTS"].split(";")]
    for b, h, hkv, d, length in points:
        inputs = [make_inputs(b, h, hkv, d, length) for _ in range(COPIES)]
        q, kv, table, lens = inputs[0]
        ref = reference(q, kv, table, lens)
        out = torch.full((b, h, d), float("nan"), dtype=torch.bfloat16,
                         device="cuda")
        tilec.paged_decode(q, kv, table, lens, out=out)
        good = torch.allclose(out.float(), ref, atol=0.02, rtol=0.02)
        outs = [torch.empty_like(out) for _ in range(COPIES)]
        ours = time_median(
            lambda i: tilec.paged_decode(*inputs[i % COPIES],
                                         out=outs[i % COPIES]), flush, RUNS)
        if base is not None:
            out.fill_(float("nan"))
            base.paged_decode(q, kv, table, lens, out=out)
            good &= torch.allclose(out.float(), ref, atol=0.02, rtol=0.02)
            base_us = time_median(
                lambda i: base.paged_decode(*inputs[i % COPIES],
                                            out=outs[i % COPIES]),
                flush, RUNS)
            based = f" {base_us:8.1f} {base_us / ours:6.2f}x"
        else:
            based = f" {'':>8} {'':>7}"
        peer = time_median(
            lambda i: torch_decode(*inputs[i % COPIES], length), flush, RUNS)
        ok &= good
        ratios.append(peer / ours)
        if worst is None or peer / ours < worst[0]:
            worst = (peer / ours, (b, h, hkv, d, length))
        nbytes = 2 * b * length * hkv * d * 2 + b * h * d * 4
        floor = nbytes / (ceiling * 1e12) * 1e6
        name, pps = tilec.paged_decode_plan(b, h, hkv, d, table.shape[1])
        plan = f"{name.replace('paged_decode_', '')} {pps}p"
        shape = f"({b},{h},{hkv},{d},{length})"
        print(f"{shape:>22} {plan:>13} {ours:9.1f}{based} {peer:9.1f}"
              f" {peer / ours:7.2f}x {floor:8.1f}"
              f"{'' if good else '  WRONG'}", flush=True)
        if os.environ.get("GRID_SWEEP") == "1":
            for variant in ["tilec"] + list(variants()):
                for name in kernel_names(variant, d):
                    print_sweep(variant, name,
                                sweep(inputs, flush, ref, variant, name,
                                      (16, 32, 64, 128, 256, 512, 1024)))
        inputs = None  # frees the copies before the next point
    geo = math.exp(statistics.mean(math.log(r) for r in ratios))
    print(f"{len(ratios)} points, geomean vs torch {geo:.2f}x, least "
          f"{worst[0]:.2f}x at {worst[1]}")
    return 0 if ok else 1


def copy_ceiling(flush):
    x = torch.empty(1 << 28, dtype=torch.float32, device="cuda")  # 1 GiB
    y = torch.empty_like(x)
    us = time_median(lambda _: y.copy_(x), flush, 30, warmup=5)
    return 2 * x.numel() * 4 / (us * 1e-6) / 1e12


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--grid", action="store_true")
    args = parser.parse_args()
    torch.manual_seed(0)
    flush = l2_flusher()
    ceiling = copy_ceiling(flush)
    print(f"device: {torch.cuda.get_device_name()}  copy ceiling: "
          f"{ceiling:.2f} TB/s (read+write)")
    if args.grid:
        baseline = os.environ.get("TILEC_BASELINE_LIB")
        return grid(flush, ceiling,
                    load_baseline(baseline) if baseline else None)
    print(f"{'B,H,Hkv,D,L':>22} {'tilec us':>9} {'torch us':>9} {'vs torch':>8}"
          f" {'triton us':>9} {'vs triton':>9} {'TB/s':>6} {'% copy':>6}"
          f" {'floor us':>8}")
    rows = []
    ok = True
    for (b, h, hkv, d, length), triton in zip(DECK, TRITON_US):
        inputs = [make_inputs(b, h, hkv, d, length) for _ in range(COPIES)]
        q, kv, table, lens = inputs[0]
        out = torch.full((b, h, d), float("nan"), dtype=torch.bfloat16,
                         device="cuda")
        tilec.paged_decode(q, kv, table, lens, out=out)
        ref = reference(q, kv, table, lens)
        err = (out.float() - ref).abs().max().item()
        good = torch.allclose(out.float(), ref, atol=0.02, rtol=0.02)
        base_err = (torch_decode(q, kv, table, lens, length).float() -
                    ref).abs().max().item()
        ok &= good
        outs = [torch.empty_like(out) for _ in range(COPIES)]
        ours = time_median(
            lambda i: tilec.paged_decode(*inputs[i % COPIES],
                                         out=outs[i % COPIES]),
            flush, RUNS)
        peer = time_median(
            lambda i: torch_decode(*inputs[i % COPIES], length), flush, RUNS)
        nbytes = 2 * b * length * hkv * d * 2 + b * h * d * 4
        tbs = nbytes / (ours * 1e-6) / 1e12
        floor = nbytes / (ceiling * 1e12) * 1e6
        shape = f"({b},{h},{hkv},{d},{length})"
        print(f"{shape:>22} {ours:9.1f} {peer:9.1f} {peer / ours:7.2f}x"
              f" {triton:9.0f} {triton / ours:8.2f}x {tbs:6.2f}"
              f" {100 * tbs / ceiling:6.1f} {floor:8.1f}"
              f"  max err {err:.4f} (torch {base_err:.4f})"
              f"{'' if good else '  WRONG'}")
        if os.environ.get("SWEEP", "1") == "1":
            for variant in ["tilec"] + list(variants()):
                for name in kernel_names(variant, d):
                    print_sweep(variant, name,
                                sweep(inputs, flush, ref, variant, name))
        rows.append(dict(shape=[b, h, hkv, d, length], tilec_us=ours,
                         torch_us=peer, triton_us=triton, tbs=tbs,
                         floor_us=floor, max_err=err, correct=good))
    geo = math.exp(statistics.mean(
        math.log(r["triton_us"] / r["tilec_us"]) for r in rows))
    geo_torch = math.exp(statistics.mean(
        math.log(r["torch_us"] / r["tilec_us"]) for r in rows))
    print(f"geomean speedup vs triton {geo:.2f}x, vs torch {geo_torch:.2f}x")
    if os.environ.get("OUT"):
        with open(os.path.join(os.environ["OUT"], "bench_decode.json"),
                  "w") as f:
            json.dump(dict(ceiling_tbs=ceiling, rows=rows), f, indent=1)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
