"""Builds variants of kernels_dsl/paged_decode.mlir that differ in the depth
of the K/V ring (the split kernels' tile.num_stages), the number of warps,
the tokens per step, or that hold Q in registers, for bench/bench_decode.py
to time side by side with the embedded kernels.

    python3 bench/decode_variants.py OUTDIR [NAME=D64,D128[,qreg][,t128][,wN] ...]

Flags apply in the order given; ",qreg" must come before ",t128" (it looks
for the 64-token loop). Each variant NAME=D64,D128 sets tile.num_stages of paged_decode_d64 to D64
and of paged_decode_d128 to D128 (1: no ring, K and V gathered into
registers as before the ring existed). With ",wN" both run on N warps (the
layouts' 4 warps become N along the same dimensions); with ",t128" both
step 128 tokens at a time instead of 64; with ",qreg" the query tile
is loaded once before the step loop, a register tile restaged for each
step's dot, instead of being copied into the ring beside K and V each step
as the embedded kernels do (those save the restaging's two barriers a step
for one more cp.async of Q from L2). It writes
OUTDIR/NAME.mlir, OUTDIR/NAME.ptx and OUTDIR/NAME.json with emit-ptx
(EMIT_PTX, default build/bin/emit-ptx; target TARGET, default sm_90a). The
last line printed is the TILEC_DECODE_VARIANTS value naming them (paths as
given in OUTDIR), e.g.

    TILEC_DECODE_VARIANTS="$(python3 bench/decode_variants.py v | tail -1)" \\
        python3 bench/bench_decode.py

A variant's tile semantics (the 128-token steps' masks, say) can be checked
without a GPU: the CPU driver runs the decode tests on OUTDIR/NAME.mlir when
a folder holding it as paged_decode.mlir, with the other kernels_dsl files,
comes first in TILEC_CPU_DRIVER_KERNELS (docs/cpu-driver.md):

    mkdir k && cp kernels_dsl/*.mlir k/ && cp v/NAME.mlir k/paged_decode.mlir
    TILEC_CPU_DRIVER_KERNELS=k:test/gpu/kernels \\
        build/test/gpu/tilec_kernel_cpu_tests --gtest_filter='*PagedDecode*'
"""
import re
import sys

import kernel_variants

DEFAULT = ["regs=1,1", "s2=2,2", "s3=3,3", "s4=4,4", "s5=5,5", "qreg=4,3,qreg",
           "w8=4,2,w8", "t128w8=4,2,t128,w8"]


def with_stages(source, stages):
    """`source` with tile.num_stages of each split kernel set."""
    for d, n in stages.items():
        pattern = re.compile(r"(func\.func @paged_decode_d%d\(.*?attributes \{[^}]*?"
                             r"tile\.num_stages = )\d+" % d, re.S)
        source, count = pattern.subn(r"\g<1>%d" % n, source)
        if count != 1:
            sys.exit(f"paged_decode_d{d}: no tile.num_stages attribute")
    return source


def rewrite_kernel(source, kernel, rewrite):
    """`source` with the text of func.func @kernel replaced by
    rewrite(text)."""
    start, end = kernel_variants.kernel_text(source, kernel)
    return source[:start] + rewrite(source[start:end]) + source[end:]


def with_c128(fn):
    """The kernel text fn with an i32 constant 128 (%c128) after its %c64."""
    c64 = "  %c64 = arith.constant 64 : i32\n"
    if fn.count(c64) != 1:
        sys.exit("paged_decode: the %c64 constant was not found")
    return fn.replace(c64, c64 + "  %c128 = arith.constant 128 : i32\n")


def with_q_in_registers(source):
    """`source` with each split kernel's Q load hoisted out of its step loop,
    so that Q is a register tile restaged for each step's dot instead of a
    copy in the ring (the kernels before 2026-12-05 loaded it so)."""
    for d in (64, 128):
        load = ("    // The query, re-read each step: the ring holds it beside K and V.\n"
                "    %%qt = tile.load %%qv[%%qrow, 0] : tensor<16x%dxbf16>\n" % d)
        loop = "  %res:3 = scf.for %t = %tok0 to %tokEnd step %c64\n"

        def hoist(fn, d=d, load=load, loop=loop):
            if fn.count(load) != 1 or fn.count(loop) != 1:
                sys.exit(f"paged_decode_d{d}: Q load in the loop or loop start "
                         "not found")
            hoisted = load.split("\n")[1][2:] + "\n"
            return fn.replace(load, "").replace(loop, hoisted + loop)
        source = rewrite_kernel(source, f"paged_decode_d{d}", hoist)
    return source


def with_warps(source, warps):
    """`source` with both split kernels on `warps` warps: the module's
    layouts spread their warps over the same dimensions, and each function's
    tile.num_warps is set."""
    source, n = re.subn(r"warps = \[4, 1\]", "warps = [%d, 1]" % warps, source)
    source, m = re.subn(r"warps = \[1, 4\]", "warps = [1, %d]" % warps, source)
    source, f = re.subn(r"tile\.num_warps = 4 : i32",
                        "tile.num_warps = %d : i32" % warps, source)
    if n != 2 or m != 3 or f != 2:
        sys.exit("paged_decode: layouts or num_warps not found")
    return source


def with_d128_step128(source):
    """`source` with paged_decode_d128 stepping 128 tokens at a time (its
    token tiles, scores and per-column sums twice as wide)."""
    def widen(fn):
        for old, new in [("16x64x", "16x128x"), ("tensor<64xi32", "tensor<128xi32"),
                         ("tensor<64xi1", "tensor<128xi1"), ("64x1xi32", "128x1xi32"),
                         ("1x64xi1", "1x128xi1"), ("64x128x", "128x128x"),
                         ("128x64xbf16", "128x128xbf16"), ("step %c64", "step %c128")]:
            if old not in fn:
                sys.exit(f"paged_decode_d128: {old} not found")
            fn = fn.replace(old, new)
        return with_c128(fn)
    return rewrite_kernel(source, "paged_decode_d128", widen)


TOKEN_TYPES = [("tensor<64xi32", "tensor<128xi32"), ("tensor<64xi1", "tensor<128xi1"),
               ("64x1x", "128x1x"), ("1x64xi1", "1x128xi1"),
               ("16x64xf32", "16x128xf32"), ("16x64xi1", "16x128xi1"),
               ("16x64xbf16, #mma", "16x128xbf16, #mma"),
               ("64x64xi32, #kv64", "128x64xi32, #kv64"),
               ("64x64xbf16, #kv64", "128x64xbf16, #kv64"),
               ("64x64xbf16, #kvt64", "64x128xbf16, #kvt64")]


def with_d64_step128(source):
    """`source` with paged_decode_d64 stepping 128 tokens at a time. D is 64
    there too, so each statement from the token vectors to the row sums'
    reduction is rewritten by what it holds: the accumulator's statements
    keep their 16 x 64 types, the loop's and the yield's second result
    (the accumulator) too."""
    return rewrite_kernel(source, "paged_decode_d64", widen_d64_tokens)


def widen_d64_tokens(fn):
    """The text of paged_decode_d64 rewritten as with_d64_step128 says."""
    lines = fn.split("\n")
    first = next(i for i, l in enumerate(lines) if "%iotaT = tile.iota" in l)
    last = next(i for i, l in enumerate(lines) if "%lsum = tile.reduce" in l) + 1
    keep = {"%acc0", "%aB", "%accA", "%qt", "%iotaD", "%colE"}
    name = None
    for i in range(first, last + 1):
        line = lines[i]
        m = re.match(r"\s*(%[\w]+)(:\d+)?\s*=", line)
        if m:
            name = m.group(1)
        elif line.strip().startswith("scf.yield"):
            name = "yield"
        if name in keep:
            continue
        if name in ("%res", "yield"):
            # (m, l, acc): only l, the first 16 x 64 type, is a token tile.
            if "16x64xf32" in line and "#srow" in line:
                line = line.replace("16x64xf32", "16x128xf32", 1)
            line = line.replace("step %c64", "step %c128")
        elif name == "%accN":
            line = line.replace("16x64xbf16, #mma", "16x128xbf16, #mma")
            line = line.replace("64x64xbf16, #kv64", "128x64xbf16, #kv64")
        else:
            for old, new in TOKEN_TYPES:
                line = line.replace(old, new)
        lines[i] = line
    return with_c128("\n".join(lines))


def make(source, spec):
    name, depths = spec.split("=")
    fields = depths.split(",")
    d64, d128 = int(fields[0]), int(fields[1])
    variant = with_stages(source, {64: d64, 128: d128})
    label = f"d64 {d64} stages, d128 {d128} stages"
    for flag in fields[2:]:
        if flag == "qreg":
            variant = with_q_in_registers(variant)
            label += ", Q in registers"
        elif flag == "t128":
            variant = with_d64_step128(with_d128_step128(variant))
            label += ", steps of 128 tokens"
        elif flag.startswith("w") and flag[1:].isdigit():
            variant = with_warps(variant, int(flag[1:]))
            label += f", {flag[1:]} warps"
        else:
            sys.exit(f"{spec}: expected NAME=D64,D128[,qreg][,t128][,wWARPS]")
    return name, variant, lambda ptx, target: label


if __name__ == "__main__":
    kernel_variants.build("paged_decode.mlir", __doc__, DEFAULT, make)
