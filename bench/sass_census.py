#!/usr/bin/env python3
"""What a kernel's machine code does, without a GPU: each kernel's
registers, its loops (backward branches) and the opcodes of each loop.

    python3 bench/sass_census.py build.ptx [--arch sm_90a] [--kernel NAME]
    python3 bench/sass_census.py kernels_dsl/paged_decode.mlir

A .mlir file is compiled by build/bin/emit-ptx first. ptxas comes from
PATH (the CUDA toolkit); cuobjdump from PATH or from the PyPI package
nvidia-cuda-cuobjdump (pip install nvidia-cuda-cuobjdump). A loop's count
is of instructions in its body, taken or not: the uncommon branches (a
gather's element-by-element fallback, say) are in it, so compare loops
between builds rather than reading a count as instructions per
iteration.
"""
import argparse
import collections
import glob
import os
import re
import shutil
import site
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def find_cuobjdump():
    path = shutil.which("cuobjdump")
    if path:
        return path
    for base in site.getsitepackages() + [site.getusersitepackages()]:
        for hit in glob.glob(os.path.join(base, "nvidia", "*", "bin",
                                          "cuobjdump")):
            return hit
    sys.exit("cuobjdump not found: pip install nvidia-cuda-cuobjdump")


def opcode(text):
    # Drop the predicate guard, then the modifiers.
    text = re.sub(r"^@!?U?P[T0-9]+\s+", "", text)
    return text.split()[0].split(".")[0]


def census(sass, only):
    for body in re.split(r"\n\s*Function : ", sass)[1:]:
        name = body.split()[0]
        if only and name != only:
            continue
        code = [(int(m.group(1), 16), m.group(2).strip())
                for m in re.finditer(r"/\*([0-9a-f]{4,})\*/\s+([^;]*);",
                                     body)]
        ops = collections.Counter(opcode(t) for _, t in code)
        print(f"{name}: {len(code)} instructions; " +
              ", ".join(f"{k} {v}" for k, v in ops.most_common(12)))
        for addr, text in code:
            branch = re.search(r"\bBRA\b.*?0x([0-9a-f]+)", text)
            if not branch or int(branch.group(1), 16) >= addr:
                continue
            start = int(branch.group(1), 16)
            loop = [t for a, t in code if start <= a <= addr]
            ops = collections.Counter(opcode(t) for t in loop)
            print(f"  loop {start:#x}-{addr:#x}: {len(loop)} instructions; " +
                  ", ".join(f"{k} {v}" for k, v in ops.most_common(16)))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("input", help="a .ptx, or a .mlir for emit-ptx")
    parser.add_argument("--arch", default="sm_90a")
    parser.add_argument("--kernel", help="only this kernel")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        ptx = args.input
        if ptx.endswith(".mlir"):
            ptx = os.path.join(tmp, "kernels.ptx")
            subprocess.run([os.path.join(ROOT, "build", "bin", "emit-ptx"),
                            args.input, "-o", ptx], check=True)
        cubin = os.path.join(tmp, "kernels.cubin")
        info = subprocess.run(["ptxas", f"-arch={args.arch}", "-v", ptx, "-o",
                               cubin], check=True, capture_output=True,
                              text=True).stderr
        for kernel, regs in re.findall(
                r"Compiling entry function '(\w+)'.*?Used (\d+) registers",
                info, re.S):
            if not args.kernel or kernel == args.kernel:
                print(f"{kernel}: {regs} registers")
        sass = subprocess.run([find_cuobjdump(), "-sass", cubin], check=True,
                              capture_output=True, text=True).stdout
    census(sass, args.kernel)


if __name__ == "__main__":
    main()
