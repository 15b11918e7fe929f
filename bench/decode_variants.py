"""Builds variants of kernels_dsl/paged_decode.mlir that differ in the depth
of the K/V ring (the split kernels' tile.num_stages), or that load Q in the
loop, for bench/bench_decode.py to time side by side with the embedded
kernels.

    python3 bench/decode_variants.py OUTDIR [NAME=D64,D128[,q] ...]

Each variant NAME=D64,D128 sets tile.num_stages of paged_decode_d64 to D64
and of paged_decode_d128 to D128 (1: no ring, K and V gathered into
registers as before the ring existed); with ",q" the query tile is loaded
inside the step loop instead of before it, so that tile-pipeline-loads
copies it into the ring with K and V and the QK dot reads it in place (no
restaging of the register tile, two barriers fewer per step, one more
cp.async of Q per step from L2). It writes OUTDIR/NAME.ptx and
OUTDIR/NAME.json with emit-ptx (EMIT_PTX, default build/bin/emit-ptx; target
TARGET, default sm_90a). The last line printed is the
TILEC_DECODE_VARIANTS value naming them (paths as given in OUTDIR), e.g.

    TILEC_DECODE_VARIANTS="$(python3 bench/decode_variants.py v | tail -1)" \\
        python3 bench/bench_decode.py
"""
import re
import sys

import kernel_variants

DEFAULT = ["regs=1,1", "s2=2,2", "s3=3,3", "s4=4,4", "s5=5,5", "q=4,3,q"]


def with_stages(source, stages):
    """`source` with tile.num_stages of each split kernel set."""
    for d, n in stages.items():
        pattern = re.compile(r"(func\.func @paged_decode_d%d\(.*?attributes \{[^}]*?"
                             r"tile\.num_stages = )\d+" % d, re.S)
        source, count = pattern.subn(r"\g<1>%d" % n, source)
        if count != 1:
            sys.exit(f"paged_decode_d{d}: no tile.num_stages attribute")
    return source


def with_q_in_loop(source):
    """`source` with each split kernel's Q load moved into its step loop."""
    for d in (64, 128):
        load = "  %%qt = tile.load %%qv[%%qrow, 0] : tensor<16x%dxbf16>\n" % d
        step = "    %%tT = tile.splat %%t : tensor<64xi32, #row%d>\n" % d
        if source.count(load) != 1 or source.count(step) != 1:
            sys.exit(f"paged_decode_d{d}: Q load or loop start not found")
        source = source.replace(load, "")
        source = source.replace(step, "  " + load + step)
    return source


def make(source, spec):
    name, depths = spec.split("=")
    fields = depths.split(",")
    d64, d128 = int(fields[0]), int(fields[1])
    variant = with_stages(source, {64: d64, 128: d128})
    if fields[2:] == ["q"]:
        variant = with_q_in_loop(variant)
    elif fields[2:]:
        sys.exit(f"{spec}: expected NAME=D64,D128 or NAME=D64,D128,q")
    label = (f"d64 {d64} stages, d128 {d128} stages"
             f"{', Q in the loop' if fields[2:] else ''}")
    return name, variant, lambda ptx, target: label


if __name__ == "__main__":
    kernel_variants.build("paged_decode.mlir", __doc__, DEFAULT, make)
