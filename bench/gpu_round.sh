#!/bin/bash
# One check-and-bench round on a GPU machine, over a build made elsewhere and
# carried along (build/lib, build/test, build/kernels):
#   1. every test binary and the Python tests;
#   2. compute-sanitizer memcheck, racecheck, synccheck and initcheck over the
#      kernel GPU tests (SANITIZE_FILTER narrows them, e.g. '*Gemm*');
#   3. the benchmarks named on the command line (bench_gemm.py ...); an
#      argument with spaces passes the rest to the script
#      ('bench_topk.py --grid --batches 1 4').
# Each step's log goes to $OUT; a summary line per step is printed.
# SKIP_SANITIZERS=1 skips step 2.
set -u -o pipefail
OUT=${OUT:-/tmp/tilec-out}
mkdir -p "$OUT"
export TILEC_RUNTIME_LIB=$PWD/build/lib/libtilec_runtime.so
export PYTHONPATH=$PWD/runtime/python${PYTHONPATH:+:$PYTHONPATH}
nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv,noheader
status=0

step() { # name, command...
  local name=$1
  shift
  local start=$SECONDS
  if "$@" > "$OUT/$name.log" 2>&1; then
    echo "PASS $name ($((SECONDS - start)) s): $(tail -1 "$OUT/$name.log")"
  else
    status=1
    echo "FAIL $name ($((SECONDS - start)) s):"
    tail -15 "$OUT/$name.log"
  fi
}

for t in build/test/runtime/tilec_runtime_unit_tests \
  build/test/runtime/tilec_c_api_test build/test/runtime/tilec_gpu_tests \
  build/test/gpu/tilec_validation_gpu_tests \
  build/test/gpu/tilec_kernel_gpu_tests; do
  step "$(basename "$t")" "$t" --gtest_brief=1
done
if python3 -c 'import pytest' 2> /dev/null; then
  step python_tests python3 -m pytest -q -rs test/runtime/test_python_api.py \
    test/runtime/test_python_validation.py
fi

if [ "${SKIP_SANITIZERS:-0}" != 1 ]; then
  filter=${SANITIZE_FILTER:-*}
  for tool in memcheck racecheck synccheck initcheck; do
    step "sanitize_$tool" compute-sanitizer --tool "$tool" --error-exitcode 3 \
      build/test/gpu/tilec_kernel_gpu_tests --gtest_brief=1 \
      "--gtest_filter=$filter"
  done
fi

for b in "$@"; do
  read -ra words <<< "$b"
  log=$(echo "$b" | tr -c 'A-Za-z0-9_.\n-' _)
  python3 "bench/${words[0]}" "${words[@]:1}" 2>&1 | tee "$OUT/${log%.py}.log" \
    || status=1
done
exit $status
