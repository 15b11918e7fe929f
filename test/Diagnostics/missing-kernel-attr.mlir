// The common authoring mistakes get a located diagnostic that says what to
// change, not a generic conversion failure.
// RUN: kernel-opt %s -split-input-file -convert-tile-to-llvm -verify-diagnostics
// RUN: not emit-ptx %s --target=sm_80 -o /dev/null 2>&1 | FileCheck %s

// A function without `tile.kernel`: only kernels are lowered.
// CHECK: missing-kernel-attr.mlir:[[@LINE+1]]:1: error: function 'add_one' is not a kernel: add the `tile.kernel` attribute
func.func @add_one(%x: i32) -> i32 { // expected-error {{function 'add_one' is not a kernel: add the `tile.kernel` attribute (`func.func @add_one(...) attributes {tile.kernel}`); tilec lowers only kernels}}
  %c1 = arith.constant 1 : i32
  %y = arith.addi %x, %c1 : i32
  return %y : i32
}

// -----

// A helper next to a kernel is reported too, the kernel itself is fine.
func.func @kernel(%n: i32) attributes {tile.kernel} {
  return
}

func.func private @helper() // expected-error {{function 'helper' is not a kernel}}
