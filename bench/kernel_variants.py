"""What the *_variants.py builders and the benchmarks that time their
output share. Builders: each variant of a kernels_dsl file
written to OUTDIR/NAME.mlir and compiled with emit-ptx (EMIT_PTX, default
build/bin/emit-ptx; target TARGET, default sm_90a) to OUTDIR/NAME.ptx and
OUTDIR/NAME.json; the last line printed names them all as
"NAME=ptx,json;..." for the benchmarks' TILEC_*_VARIANTS."""
import os
import re
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def ptxas_usage(ptx, target, kernel):
    """" (kernel: R registers, S bytes of spill stores)", or "" without
    ptxas on PATH."""
    if not shutil.which("ptxas"):
        return ""
    log = subprocess.run(["ptxas", f"-arch={target}", "-v", ptx, "-o",
                          os.devnull], capture_output=True, text=True).stderr
    part = log.split(f"'{kernel}'")[-1]
    regs = re.search(r"Used (\d+) registers", part)
    spills = re.search(r"(\d+) bytes spill stores", part)
    if not (regs and spills):
        return ""
    return (f" ({kernel}: {regs.group(1)} registers, {spills.group(1)} bytes"
            f" of spill stores)")


def kernel_text(source, kernel):
    """(start, end) of func.func @kernel in source."""
    start = source.index(f"func.func @{kernel}(")
    return start, source.index("\n}\n", start) + 3


def with_warps_and_registers(fn, warps, regs=None):
    """The kernel text fn with `warps` warps per program and its registers
    per thread bounded by `regs` (unbounded when None)."""
    if not re.search(r"tile\.num_warps = \d+", fn):
        sys.exit("the kernel's tile.num_warps was not found")
    fn = re.sub(r"tile\.num_warps = \d+", f"tile.num_warps = {warps}", fn)
    fn = re.sub(r",\s*tile\.max_registers = \d+ : i32", "", fn)
    if regs is not None:
        fn = fn.replace(f"tile.num_warps = {warps} : i32",
                        f"tile.num_warps = {warps} : i32, "
                        f"tile.max_registers = {regs} : i32")
    return fn


def build(kernel_file, usage, default, make):
    """Builds the variants named on the command line (`default` without
    any): `make(source, spec)` gives (name, variant source, description)."""
    if len(sys.argv) < 2:
        sys.exit(usage)
    out = sys.argv[1]
    specs = sys.argv[2:] or default
    emit = os.environ.get("EMIT_PTX", os.path.join(ROOT, "build/bin/emit-ptx"))
    target = os.environ.get("TARGET", "sm_90a")
    with open(os.path.join(ROOT, "kernels_dsl", kernel_file)) as f:
        source = f.read()
    os.makedirs(out, exist_ok=True)
    names = []
    for spec in specs:
        name, variant, description = make(source, spec)
        mlir = os.path.join(out, name + ".mlir")
        with open(mlir, "w") as f:
            f.write(variant)
        ptx, meta = (os.path.join(out, name + ext) for ext in (".ptx", ".json"))
        subprocess.run([emit, mlir, f"--target={target}", "-o", ptx,
                        f"--metadata-out={meta}"], check=True)
        names.append(f"{name}={ptx},{meta}")
        print(f"{name}: {description(ptx, target)} -> {ptx}")
    print(";".join(names))


def variant_files(env):
    """(name, ptx, json) of each variant the environment variable `env`
    names, as "NAME=a.ptx,a.json;..." (what build() prints last)."""
    found = []
    for spec in filter(None, os.environ.get(env, "").split(";")):
        name, files = spec.split("=")
        ptx, meta = files.split(",")
        found.append((name, ptx, meta))
    return found


def variant_modules(env):
    """(name, loaded tilec.Module) of each variant `env` names."""
    import tilec  # the builders run without the runtime library
    return [(name, tilec.Module.from_files(ptx, meta))
            for name, ptx, meta in variant_files(env)]


def embedded_and_variants(module, kernel, env):
    """(name, kernel) of the embedded build's `kernel` of `module`, then of
    each variant `env` names."""
    import tilec
    return ([("embedded", tilec.Module.embedded(module).kernel(kernel))] +
            [(name, m.kernel(kernel)) for name, m in variant_modules(env)])
