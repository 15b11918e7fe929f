#!/usr/bin/env python3
"""Checks the two phases of the two-phase KDA schedule one at a time.

kda_prep's workspace records (−W, U, scale·(q ⊙ Γ), k ⊙ exp(G_last − G),
A_qk, and exp(G_last); docs/kda.md), in f32 and from kda_prep_bf16 in
bf16, are compared with the same quantities computed in float64 by torch;
then kda_chain and kda_chain_bf16 run on records computed by torch (not by
kda_prep) and their output and final state are compared with
the per-token recurrence. A wrong end-to-end result thus points at one
kernel and one record field. Fresh random inputs (KERNELS.md §4), outputs
poisoned with NaN first. Exits non-zero when a check fails.

    python3 bench/kda_phases.py [--d 128] [--t 200] [--h 2] [--b 2]
    python3 bench/kda_phases.py --time [--shapes 'B,T,H;...']   # phases timed
    python3 bench/kda_phases.py --errors   # variants' end-to-end error

With --time, kda_prep and kda_chain are timed apart on the deck shapes
(or those of --shapes; CUDA events, L2 flushed, median), so that the
two-phase schedule's time splits into its parts. Builds of
kernels_dsl/kda.mlir named in TILEC_KDA_VARIANTS="name=a.ptx,a.json;..."
(bench/kda_variants.py, or emit-ptx under other compiler options) are
timed beside it: their
kda_prep and kda_prep_bf16, each checked against the embedded kernel's
records on the same inputs, and their kda_chain and kda_chain_bf16 on
the embedded records, checked against the embedded chain's output.
"""
import argparse
import sys

import torch

import tilec
from kernel_variants import variant_modules
from timing import l2_flusher, time_median

CHUNK = 64


def chunk_records(q, k, v, g, beta, scale):
    """Per (b, chunk, h) records in float64: dict of field -> tensor of
    shape (B, C, H, ...)."""
    b, t, h, d = q.shape
    c = (t + CHUNK - 1) // CHUNK
    pad = c * CHUNK - t

    def blocks(x):
        # Zero rows past T along dim 1 (what the kernel's masked loads read).
        widths = (0, 0) * (x.dim() - 2) + (0, pad)
        x = torch.nn.functional.pad(x.double(), widths)
        return x.reshape(b, c, CHUNK, *x.shape[2:])

    qb, kb, vb, gb = blocks(q), blocks(k), blocks(v), blocks(g)
    bb = blocks(beta)  # (B, C, 64, H)
    # (B, C, H, 64, D)
    qb, kb, vb, gb = (x.permute(0, 1, 3, 2, 4) for x in (qb, kb, vb, gb))
    bb = bb.permute(0, 1, 3, 2)
    G = gb.cumsum(-2)
    Glast = G[..., -1:, :]
    diff = G.unsqueeze(-2) - G.unsqueeze(-3)  # [i, j, d] = G_i - G_j
    lower = torch.tril(torch.ones(CHUNK, CHUNK, dtype=torch.bool,
                                  device=q.device))
    strict = torch.tril(lower, -1)
    e = torch.where(lower[..., None], diff, torch.full_like(diff, -1e300))
    e = torch.exp(e)
    aqk = scale * (qb.unsqueeze(-2) * kb.unsqueeze(-3) * e).sum(-1)
    aqk = torch.where(lower, aqk, torch.zeros_like(aqk))
    kk = (kb.unsqueeze(-2) * kb.unsqueeze(-3) * e).sum(-1)
    L = torch.where(strict, bb.unsqueeze(-1) * kk, torch.zeros_like(kk))
    eye = torch.eye(CHUNK, dtype=torch.float64, device=q.device)
    tinv = torch.linalg.inv(eye + L)
    gam = torch.exp(G)
    w = tinv @ (bb.unsqueeze(-1) * kb * gam)
    u = tinv @ (bb.unsqueeze(-1) * vb)
    return {
        "-W": -w, "U": u, "q*G*scale": scale * qb * gam,
        "k*exp(Glast-G)": kb * torch.exp(Glast - G),
        "exp(Glast)": torch.exp(Glast[..., 0, :]), "A_qk": aqk,
    }


def record_len(d):
    """Elements of one record: −W, U, q ⊙ Γ, (k ⊙ exp(G_last − G))ᵀ, A_qk."""
    return 256 * d + CHUNK * CHUNK


def make_inputs(b, t, h, d, amp=0.1, beta_value=None, dev="cuda"):
    """q, k, v, g, beta of KERNELS.md's distributions (q, k, v = randn·amp;
    with beta_value, the long-memory case: g ≈ −0.003, beta constant)."""
    q, k, v = ((torch.randn(b, t, h, d, device=dev) * amp).bfloat16()
               for _ in range(3))
    if beta_value is None:
        g = torch.randn(b, t, h, d, device=dev) * 0.1 - 0.05
        beta = torch.sigmoid(torch.randn(b, t, h, device=dev)).bfloat16()
    else:
        g = -0.003 + 0.001 * torch.randn(b, t, h, d, device=dev)
        beta = torch.full((b, t, h), beta_value, device=dev).bfloat16()
    return q, k, v, g, beta


def chain_grid(b, h, d):
    """kda_chain's grid for one segment: a head's blocks of state columns
    (32 wide at D = 128, 16 at 64) along x, sequences along y."""
    return (h * (d // (16 if d == 64 else 32)), b, 1)


def pack(rec, d, dtype):
    """The records (of `dtype`) and the exp(G_last) rows (f32) in kda_prep's
    layout (no cu_seqlens, kernels_dsl/kda.mlir)."""
    b, c, h = rec["U"].shape[:3]
    ws = torch.zeros(b, c, h, record_len(d), dtype=dtype,
                     device=rec["U"].device)
    # The decayed k is stored transposed: D rows of 64 in place of 64 of D.
    kend_t = rec["k*exp(Glast-G)"].transpose(-1, -2).reshape(b, c, h, 64, d)
    rows = torch.cat([rec["-W"], rec["U"], rec["q*G*scale"], kend_t], dim=-2)
    ws[..., :256 * d] = rows.reshape(b, c, h, 256 * d).to(dtype)
    ws[..., 256 * d:] = rec["A_qk"].reshape(b, c, h, -1).to(dtype)
    return ws.reshape(-1), rec["exp(Glast)"].float().reshape(-1)


def unpack(ws, decays, b, c, h, d):
    ws = ws.reshape(b, c, h, record_len(d)).double()
    rows = ws[..., :256 * d].reshape(b, c, h, 256, d)
    return {
        "-W": rows[..., 0:64, :], "U": rows[..., 64:128, :],
        "q*G*scale": rows[..., 128:192, :],
        "k*exp(Glast-G)": rows[..., 192:256, :].reshape(b, c, h, d, 64)
        .transpose(-1, -2),
        "exp(Glast)": decays.reshape(b, c, h, d).double(),
        "A_qk": ws[..., 256 * d:].reshape(b, c, h, CHUNK, CHUNK),
    }


# kda_prep instances and the chains that read their records.
PHASES = (("kda_prep", "kda_chain", torch.float32),
          ("kda_prep_bf16", "kda_chain_bf16", torch.bfloat16))


def recurrence(q, k, v, g, beta, scale):
    b, t, h, d = q.shape
    S = torch.zeros(b, h, d, d, dtype=torch.float64, device=q.device)
    o = torch.empty(b, t, h, d, dtype=torch.float64, device=q.device)
    qd, kd, vd, gd, bd = (x.double() for x in (q, k, v, g, beta))
    for i in range(t):
        S = S * torch.exp(gd[:, i]).unsqueeze(-1)
        kt = kd[:, i]
        pred = torch.einsum("bhk,bhkv->bhv", kt, S)
        S = S + torch.einsum("bhk,bhv->bhkv", kt,
                             bd[:, i].unsqueeze(-1) * (vd[:, i] - pred))
        o[:, i] = scale * torch.einsum("bhk,bhkv->bhv", qd[:, i], S)
    return o, S


def prep_variants(suffix):
    """(name, module) of each build in TILEC_KDA_VARIANTS."""
    return variant_modules("TILEC_KDA_VARIANTS")


DECK = [(2, 1024, 8), (2, 2048, 8), (1, 4096, 8), (1, 2048, 4)]


def time_phases(d=128, shapes=DECK):
    module = tilec.Module.embedded("kda")
    suffix = "_d%d" % d
    others = prep_variants(suffix)
    flush = l2_flusher()
    dev = "cuda"
    none = torch.zeros(1, dtype=torch.int32, device=dev)
    h0 = torch.zeros(1, device=dev)
    for b, t, h in shapes:
        # KERNELS.md's distributions: with unscaled q and k the WY inverse
        # overflows and the variants' records cannot be compared.
        q, k, v, g, beta = make_inputs(b, t, h, d)
        c = (t + CHUNK - 1) // CHUNK
        o = torch.empty_like(q)
        ht = torch.empty(b, h, d, d, device=dev)
        decays = torch.zeros(b * c * h * d, device=dev)
        grid = chain_grid(b, h, d)
        line = f"({b},{t},{h}) D={d}, {b * c * h} prep programs, {c} " \
            f"chunks, {grid[0] * grid[1]} chain programs:"
        for prep_name, chain_name, dtype in PHASES:
            prep_k = module.kernel(prep_name + suffix)
            chain = module.kernel(chain_name + suffix)
            ws = torch.zeros(b * c * h * record_len(d), dtype=dtype,
                             device=dev)
            prep_us = time_median(
                lambda i: prep_k((h, b, c), q, k, v, g, beta, ws, decays,
                                 none, t, h, b, 0, d ** -0.5), flush, 30)
            chain_us = time_median(
                lambda i: chain(grid, ws, decays, o, h0, ht, decays, none,
                                t, h, b, 0, 1, 0, c), flush, 30)
            line += f" {prep_name} {prep_us:.1f} us, {chain_name} " \
                f"{chain_us:.1f} us;"
        print(line)
        if not others:
            continue
        # Each variant's phases against the embedded kernels' on the same
        # inputs: its records (both precisions), then its chain of each
        # precision on the embedded records.
        for name, variant in others:
            line = f"    {name}:"
            for prep_name, chain_name, dtype in PHASES:
                ws = torch.zeros(b * c * h * record_len(d), dtype=dtype,
                                 device=dev)
                module.kernel(prep_name + suffix)(
                    (h, b, c), q, k, v, g, beta, ws, decays, none, t, h, b, 0,
                    d ** -0.5)
                want = ws.float()
                other = variant.kernel(prep_name + suffix)
                got = torch.full_like(ws, float("nan"))
                other((h, b, c), q, k, v, g, beta, got, decays, none, t, h,
                      b, 0, d ** -0.5)
                torch.cuda.synchronize()
                worst = (got.float() - want).abs().max().item()
                good = bool(torch.isfinite(got).all()) and \
                    worst <= 1e-2 * want.abs().max().item() + 1e-6
                t_us = time_median(
                    lambda i: other((h, b, c), q, k, v, g, beta, got, decays,
                                    none, t, h, b, 0, d ** -0.5), flush, 30)
                line += f" {prep_name} {t_us:.1f} us (max difference " \
                    f"{worst:.3g}{'' if good else ' WRONG'}),"
                chain = variant.kernel(chain_name + suffix)
                o_want = torch.full_like(q, float("nan"))
                module.kernel(chain_name + suffix)(
                    grid, ws, decays, o_want, h0, ht, decays, none, t, h, b,
                    0, 1, 0, c)
                o_got = torch.full_like(q, float("nan"))
                chain(grid, ws, decays, o_got, h0, ht, decays, none, t, h,
                      b, 0, 1, 0, c)
                torch.cuda.synchronize()
                worst = (o_got.float() - o_want.float()).abs().max().item()
                good = bool(torch.isfinite(o_got).all()) and worst <= \
                    1e-2 * o_want.float().abs().max().item() + 1e-6
                t_us = time_median(
                    lambda i: chain(grid, ws, decays, o_got, h0, ht, decays,
                                    none, t, h, b, 0, 1, 0, c),
                    flush, 30)
                line += f" {chain_name} {t_us:.1f} us (max difference " \
                    f"{worst:.3g}{'' if good else ' WRONG'});"
            print(line)


def variant_errors(d=128):
    """max |o - recurrence| of the bf16 prep of the embedded build and of
    each TILEC_KDA_VARIANTS build, all through the embedded bf16 chain, on
    fresh inputs of KERNELS.md's distributions: the deck's, both stress
    scales and the long-memory case."""
    module = tilec.Module.embedded("kda")
    suffix = "_d%d" % d
    builds = [("embedded", module)] + prep_variants(suffix)
    chain = module.kernel("kda_chain_bf16" + suffix)
    dev = "cuda"
    none = torch.zeros(1, dtype=torch.int32, device=dev)
    h0 = torch.zeros(1, device=dev)
    b, h = 1, 2
    cases = [("deck", 1024, 0.1, None), ("x2", 1024, 0.2, None),
             ("x1e-2", 1024, 1e-3, None), ("long_memory", 2048, 0.1, 0.8)]
    for case, t, amp, beta_value in cases:
        q, k, v, g, beta = make_inputs(b, t, h, d, amp, beta_value)
        scale = d ** -0.5
        want, _ = recurrence(q, k, v, g, beta, scale)
        c = (t + CHUNK - 1) // CHUNK
        line = f"{case} ({b},{t},{h}) max|o| {want.abs().max().item():.3g}:"
        for name, build in builds:
            ws = torch.full((b * c * h * record_len(d),), float("nan"),
                            dtype=torch.bfloat16, device=dev)
            decays = torch.zeros(b * c * h * d, device=dev)
            build.kernel("kda_prep_bf16" + suffix)(
                (h, b, c), q, k, v, g, beta, ws, decays, none, t, h, b, 0,
                scale)
            o = torch.full_like(q, float("nan"))
            ht = torch.empty(b, h, d, d, device=dev)
            chain(chain_grid(b, h, d), ws, decays, o, h0, ht, decays, none,
                  t, h, b, 0, 1, 0, c)
            torch.cuda.synchronize()
            err = (o.double() - want).abs().max().item()
            line += f" {name} {err:.3g};"
        print(line)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--time", action="store_true")
    parser.add_argument("--errors", action="store_true",
                        help="end-to-end error of each variant's bf16 prep")
    parser.add_argument("--shapes", default=None,
                        help="with --time: 'B,T,H;...' instead of the deck")
    parser.add_argument("--d", type=int, default=128)
    parser.add_argument("--t", type=int, default=200)
    parser.add_argument("--h", type=int, default=2)
    parser.add_argument("--b", type=int, default=2)
    args = parser.parse_args()
    if args.errors:
        variant_errors(args.d)
        return
    if args.time:
        shapes = DECK if args.shapes is None else [
            tuple(int(x) for x in shape.split(","))
            for shape in args.shapes.split(";")]
        time_phases(args.d, shapes)
        return
    b, t, h, d = args.b, args.t, args.h, args.d
    torch.manual_seed(torch.seed() % 2**31)
    dev = "cuda"
    q, k, v, g, beta = make_inputs(b, t, h, d)
    scale = d ** -0.5
    c = (t + CHUNK - 1) // CHUNK
    suffix = "_d%d" % d
    module = tilec.Module.embedded("kda")
    ok = True

    want = chunk_records(q, k, v, g, beta, scale)
    none_i32 = torch.zeros(1, dtype=torch.int32, device=dev)
    for prep_name, _, dtype in PHASES:
        prep = module.kernel(prep_name + suffix)
        ws = torch.full((b * c * h * record_len(d),), float("nan"),
                        dtype=dtype, device=dev)
        decays = torch.full((b * c * h * d,), float("nan"), device=dev)
        prep((h, b, c), q, k, v, g, beta, ws, decays, none_i32, t, h, b, 0,
             scale)
        torch.cuda.synchronize()
        got = unpack(ws, decays, b, c, h, d)
        print(f"{prep_name}{suffix} (B, T, H) = ({b}, {t}, {h}):")
        for name, ref in want.items():
            err = (got[name] - ref).abs()
            worst = err.max().item()
            big = ref.abs().max().item()
            good = bool(torch.isfinite(got[name]).all()) and worst <= \
                1e-2 * big + 1e-6
            ok &= good
            per_chunk = err.flatten(3).amax(-1).amax(0).amax(-1).tolist()
            print(f"  {name:>16}: max err {worst:.3g} (max |ref| {big:.3g})"
                  f" per chunk {['%.2g' % e for e in per_chunk]}"
                  f"{'' if good else '  WRONG'}")

    ref_o, ref_s = recurrence(q, k, v, g, beta, scale)
    for _, chain_name, dtype in PHASES:
        chain = module.kernel(chain_name + suffix)
        o = torch.full_like(q, float("nan"))
        ht = torch.full((b, h, d, d), float("nan"), device=dev)
        h0 = torch.zeros(1, device=dev)
        records, decays = pack(want, d, dtype)
        # One segment of c chunks: the segment buffer is never read.
        chain(chain_grid(b, h, d), records, decays, o, h0, ht, decays,
              none_i32, t, h, b, 0, 1, 0, c)
        torch.cuda.synchronize()
        err = (o.double() - ref_o).abs()
        serr = (ht.double() - ref_s).abs()
        per_chunk = [err[:, i * CHUNK:(i + 1) * CHUNK].max().item()
                     for i in range(c)]
        good = bool(torch.isfinite(o).all()) and \
            err.max().item() <= 0.02 * ref_o.abs().max().item() and \
            serr.max().item() <= 0.02 * ref_s.abs().max().item()
        ok &= good
        print(f"{chain_name}{suffix} on torch's records: max |o - ref| "
              f"{err.max().item():.3g} (max |ref| "
              f"{ref_o.abs().max().item():.3g}), per chunk "
              f"{['%.2g' % e for e in per_chunk]}; max |ht - ref| "
              f"{serr.max().item():.3g}{'' if good else '  WRONG'}")
    if not ok:
        print("FAILED")
        sys.exit(1)


if __name__ == "__main__":
    main()
