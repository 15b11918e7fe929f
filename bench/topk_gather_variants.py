"""Builds variants of kernels_dsl/topk.mlir whose topk_guess_gather_f32
takes a different number of columns per program, warps per program or
register bound, for bench/topk_gather.py to time beside the embedded one.

    python3 bench/topk_gather_variants.py OUTDIR [NAME=COLS,WARPS[,REGS] ...]

REGS bounds the registers per thread (tile.max_registers); without it the
kernel has no bound. The last line printed is the TILEC_TOPK_VARIANTS
value naming the variants (see bench/kernel_variants.py), e.g.

    TILEC_TOPK_VARIANTS="$(python3 bench/topk_gather_variants.py v | tail -1)" \\
        python3 bench/topk_gather.py
"""
import re
import sys

import kernel_variants

KERNEL = "topk_guess_gather_f32"
DEFAULT = ["c256w1=256,1", "c512w1r64=512,1,64", "c1024w1=1024,1",
           "c4096w8r72=4096,8,72"]


def make(source, spec):
    name, fields = spec.split("=")
    values = [int(v) for v in fields.split(",")]
    cols, warps, regs = values[0], values[1], values[2:]
    start, end = kernel_variants.kernel_text(source, KERNEL)
    fn = source[start:end]
    now = re.search(r"%partLen = arith.constant (\d+) : i32", fn)
    if not now:
        sys.exit(f"{KERNEL}: its columns per program were not found")
    fn = re.sub(r"(?<![0-9])%s(?![0-9])" % now.group(1), str(cols), fn)
    fn = kernel_variants.with_warps_and_registers(
        fn, warps, regs[0] if regs else None)
    variant = source[:start] + fn + source[end:]

    def description(ptx, target):
        return (f"{cols} columns, {warps} warps, registers "
                f"{regs[0] if regs else 'unbounded'}"
                + kernel_variants.ptxas_usage(ptx, target, KERNEL))
    return name, variant, description


if __name__ == "__main__":
    kernel_variants.build("topk.mlir", __doc__, DEFAULT, make)
