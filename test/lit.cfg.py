# lit configuration for tilec's IR, lowering and kernel tests.
import os
import shutil

import lit.formats

config.name = "tilec"
config.test_format = lit.formats.ShTest(not lit_config.isWindows)
config.suffixes = [".mlir"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.tilec_obj_root, "test")
config.excludes = ["runtime", "gpu", "support", "unit", "Inputs", "lit.cfg.py", "CMakeLists.txt"]

config.environment["PATH"] = os.pathsep.join(
    [config.tilec_tools_dir, config.llvm_tools_dir,
     config.environment.get("PATH", "")])

config.substitutions.append(("%kernels", os.path.join(
    config.tilec_src_root, "kernels_dsl")))
# The PTX the build compiled ahead of time, kernels/<target>/<kernel>.ptx.
config.substitutions.append(("%aot", os.path.join(
    config.tilec_obj_root, "kernels")))

# ptxas checks run wherever the CUDA toolkit is installed.
ptxas = shutil.which("ptxas") or (
    "/usr/local/cuda/bin/ptxas"
    if os.path.exists("/usr/local/cuda/bin/ptxas") else None)
if ptxas:
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", ptxas))
