"""Builds variants of kernels_dsl/kda.mlir whose kda_prep instances take
other function attributes (warps, a register cap), for
`bench/kda_phases.py --time` to check and time beside the embedded kernels.

    python3 bench/kda_variants.py OUTDIR [NAME='ATTRS' ...]

Each NAME='ATTRS' adds ATTRS (instance attributes, e.g. '"tile.num_warps" =
16' or '"tile.max_registers" = 128') to both kda_prep instances and writes
OUTDIR/NAME.ptx and OUTDIR/NAME.json with emit-ptx (EMIT_PTX, default
build/bin/emit-ptx; target TARGET, default sm_90a), printing ptxas's
registers and spills of kda_prep_d128 when ptxas is on PATH. The last line
printed is the TILEC_KDA_VARIANTS value naming them, e.g.

    TILEC_KDA_VARIANTS="$(python3 bench/kda_variants.py v | tail -1)" \\
        python3 bench/kda_phases.py --time
"""
import os
import re
import shutil
import subprocess
import sys

DEFAULT = ['w16="tile.num_warps" = 16', 'r128="tile.max_registers" = 128']
INSTANCES = ("kda_prep_d128 = {", "kda_prep_d64 = {")


def with_attrs(source, attrs):
    """`source` with `attrs` added to both kda_prep instances."""
    for head in INSTANCES:
        at = source.find(head)
        if at < 0:
            sys.exit(f"no instance '{head}' in kernels_dsl/kda.mlir")
        end = source.index("}", at)
        inner = source[at + len(head):end].strip()
        joined = f"{inner}, {attrs}" if inner else attrs
        source = source[:at + len(head)] + joined + source[end:]
    return source


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    out = sys.argv[1]
    specs = sys.argv[2:] or DEFAULT
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    emit = os.environ.get("EMIT_PTX", os.path.join(root, "build/bin/emit-ptx"))
    target = os.environ.get("TARGET", "sm_90a")
    with open(os.path.join(root, "kernels_dsl/kda.mlir")) as f:
        source = f.read()
    os.makedirs(out, exist_ok=True)
    names = []
    for spec in specs:
        name, attrs = spec.split("=", 1)
        mlir = os.path.join(out, name + ".mlir")
        with open(mlir, "w") as f:
            f.write(with_attrs(source, attrs))
        ptx, meta = (os.path.join(out, name + ext) for ext in (".ptx", ".json"))
        subprocess.run([emit, mlir, f"--target={target}", "-o", ptx,
                        f"--metadata-out={meta}"], check=True)
        usage = ""
        if shutil.which("ptxas"):
            log = subprocess.run(["ptxas", f"-arch={target}", "-v", ptx, "-o",
                                  os.devnull], capture_output=True,
                                 text=True).stderr
            part = log.split("'kda_prep_d128'")[-1]
            regs = re.search(r"Used (\d+) registers", part)
            spills = re.search(r"(\d+) bytes spill stores", part)
            if regs and spills:
                usage = (f" (kda_prep_d128: {regs.group(1)} registers, "
                         f"{spills.group(1)} bytes of spill stores)")
        names.append(f"{name}={ptx},{meta}")
        print(f"{name}: {attrs} -> {ptx}{usage}")
    print(";".join(names))


if __name__ == "__main__":
    main()
