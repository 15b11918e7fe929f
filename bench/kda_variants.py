"""Builds variants of kernels_dsl/kda.mlir whose kda_prep instances take
other function attributes (warps, a register cap), for
`bench/kda_phases.py --time` to check and time beside the embedded kernels.

    python3 bench/kda_variants.py OUTDIR [NAME='ATTRS' ...]

Each NAME='ATTRS' adds ATTRS (instance attributes, e.g. '"tile.num_warps" =
16' or '"tile.max_registers" = 128') to every kda_prep instance and writes
OUTDIR/NAME.ptx and OUTDIR/NAME.json with emit-ptx (EMIT_PTX, default
build/bin/emit-ptx; target TARGET, default sm_90a), printing ptxas's
registers and spills of kda_prep_d128 when ptxas is on PATH. The last line
printed is the TILEC_KDA_VARIANTS value naming them, e.g.

    TILEC_KDA_VARIANTS="$(python3 bench/kda_variants.py v | tail -1)" \\
        python3 bench/kda_phases.py --time
"""
import sys

import kernel_variants

DEFAULT = ['w16="tile.num_warps" = 16', 'r128="tile.max_registers" = 128']
INSTANCES = ("kda_prep_d128 = {", "kda_prep_d64 = {",
             "kda_prep_bf16_d128 = {", "kda_prep_bf16_d64 = {")


def with_attrs(source, attrs):
    """`source` with `attrs` added to every kda_prep instance."""
    for head in INSTANCES:
        at = source.find(head)
        if at < 0:
            sys.exit(f"no instance '{head}' in kernels_dsl/kda.mlir")
        end = source.index("}", at)
        inner = source[at + len(head):end].strip()
        joined = f"{inner}, {attrs}" if inner else attrs
        source = source[:at + len(head)] + joined + source[end:]
    return source


def make(source, spec):
    name, attrs = spec.split("=", 1)
    return name, with_attrs(source, attrs), lambda ptx, target: (
        attrs + kernel_variants.ptxas_usage(ptx, target, "kda_prep_d128")
        + kernel_variants.ptxas_usage(ptx, target, "kda_prep_bf16_d128"))


if __name__ == "__main__":
    kernel_variants.build("kda.mlir", __doc__, DEFAULT, make)
