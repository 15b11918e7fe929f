#!/bin/bash
# One check-and-bench round on a GPU machine, over a build made elsewhere and
# carried along (build/lib, build/test, build/kernels). Prints a short table
# last; logs go to $OUT when set.
set -u
OUT=${OUT:-/tmp/tilec-out}
mkdir -p "$OUT"
export TILEC_RUNTIME_LIB=$PWD/build/lib/libtilec_runtime.so
export PYTHONPATH=$PWD/runtime/python${PYTHONPATH:+:$PYTHONPATH}
nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv,noheader
status=0
for t in build/test/runtime/tilec_gpu_tests build/test/gpu/tilec_kernel_gpu_tests; do
  "$t" --gtest_brief=1 > "$OUT/$(basename "$t").log" 2>&1 || status=1
  tail -3 "$OUT/$(basename "$t").log"
done
for b in "$@"; do
  python3 "bench/$b" 2>&1 | tee "$OUT/${b%.py}.log" || status=1
done
exit $status
