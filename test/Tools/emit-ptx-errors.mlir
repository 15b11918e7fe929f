// Bad input gets a located diagnostic and a non-zero exit, never a crash.
// RUN: not emit-ptx %s --target=sm_75 2>&1 | FileCheck %s --check-prefix=TARGET
// RUN: not emit-ptx %s 2>&1 | FileCheck %s --check-prefix=PARSE
// RUN: not emit-ptx %S/Inputs/ill-typed.mlir 2>&1 | FileCheck %s --check-prefix=TYPE
// RUN: not emit-ptx %S/Inputs/does-not-exist.mlir 2>&1 | FileCheck %s --check-prefix=MISSING

// TARGET: error: unknown target 'sm_75'; supported targets: sm_80, sm_90a, sm_100a

// PARSE: emit-ptx-errors.mlir:[[@LINE+2]]:{{[0-9]+}}: error:
func.func @broken(%x: !tile.ptr<f32>) attributes {tile.kernel} {
  %t = tile.load %x[] : !tile.view<?xf32> -> tensor<4xf32>
  return
}

// TYPE: ill-typed.mlir:5:8: error: 'tile.reduce' op result must be a 'tensor<4xi32>' tile

// MISSING: error: cannot open input file '{{.*}}does-not-exist.mlir'
