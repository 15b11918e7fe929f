"""Builds variants of one kernel of a kernels_dsl file with another number
of warps per program or another register bound, for the benchmarks that
time a kernel beside the embedded one (bench/topk_sample.py,
bench/topk_select.py, bench/topk_gather.py).

    python3 bench/warp_variants.py FILE KERNEL OUTDIR NAME=WARPS[,REGS] ...

REGS bounds the registers per thread (tile.max_registers); without it the
kernel has no bound. The last line printed is the TILEC_*_VARIANTS value
naming the variants (see bench/kernel_variants.py), e.g.

    TILEC_SELECT_VARIANTS="$(python3 bench/warp_variants.py topk.mlir \\
        topk_guess_select_f32 v w16=16 | tail -1)" python3 bench/topk_select.py
"""
import sys

import kernel_variants


def main():
    if len(sys.argv) < 5:
        sys.exit(__doc__)
    kernel_file, kernel = sys.argv[1], sys.argv[2]
    del sys.argv[1:3]

    def make(source, spec):
        name, fields = spec.split("=")
        values = [int(v) for v in fields.split(",")]
        warps, regs = values[0], (values[1] if len(values) > 1 else None)
        start, end = kernel_variants.kernel_text(source, kernel)
        fn = kernel_variants.with_warps_and_registers(source[start:end],
                                                      warps, regs)

        def description(ptx, target):
            return (f"{warps} warps, registers "
                    f"{regs if regs is not None else 'unbounded'}"
                    + kernel_variants.ptxas_usage(ptx, target, kernel))
        return name, source[:start] + fn + source[end:], description

    kernel_variants.build(kernel_file, __doc__, [], make)


if __name__ == "__main__":
    main()
