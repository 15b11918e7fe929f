// RUN: kernel-opt %s -convert-tile-math-to-nvvm | FileCheck %s

// CHECK-LABEL: func.func @exp
// CHECK-DAG: %[[C:.*]] = arith.constant 1.44269502 : f32
// CHECK: %[[S:.*]] = arith.mulf %arg0, %[[C]] : f32
// CHECK: llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f32"(%[[S]]) : (f32) -> f32
func.func @exp(%x: f32) -> f32 {
  %y = math.exp %x : f32
  return %y : f32
}

// CHECK-LABEL: func.func @log_bf16
// CHECK: %[[X:.*]] = arith.extf %arg0 : bf16 to f32
// CHECK: %[[L:.*]] = llvm.call_intrinsic "llvm.nvvm.lg2.approx.ftz.f"(%[[X]])
// CHECK: %[[LN2:.*]] = arith.constant 0.693147182 : f32
// CHECK: %[[Y:.*]] = arith.mulf %[[L]], %[[LN2]] : f32
// CHECK: arith.truncf %[[Y]] : f32 to bf16
func.func @log_bf16(%x: bf16) -> bf16 {
  %y = math.log %x : bf16
  return %y : bf16
}

// CHECK-LABEL: func.func @rsqrt
// CHECK: llvm.call_intrinsic "llvm.nvvm.rsqrt.approx.ftz.f"
func.func @rsqrt(%x: f32) -> f32 {
  %y = math.rsqrt %x : f32
  return %y : f32
}

// f64 keeps full precision: untouched here, lowered by math-to-llvm.
// CHECK-LABEL: func.func @exp_f64
// CHECK: math.exp %arg0 : f64
func.func @exp_f64(%x: f64) -> f64 {
  %y = math.exp %x : f64
  return %y : f64
}
