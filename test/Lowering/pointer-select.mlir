// A choice between two pointers (canonicalization turns an scf.if that
// yields one of two pointer arguments into arith.select) becomes an LLVM
// select of the converted pointers (lowering/MemoryLowering.cpp,
// PointerSelectLowering).
// RUN: kernel-opt %s -split-input-file -tile-assign-layouts -tile-allocate-shared -convert-tile-to-llvm | FileCheck %s --check-prefix=LLVM
// RUN: emit-ptx %s --target=sm_90a | FileCheck %s --check-prefix=PTX

// LLVM-LABEL: llvm.func @pick
// LLVM: %[[P:.*]] = llvm.select %{{.*}}, %arg0, %arg1 : i1, !llvm.ptr<1>
// LLVM: llvm.getelementptr %[[P]]
// PTX-LABEL: .entry pick(
// PTX: selp.b64
func.func @pick(%a: !tile.ptr<f32>, %b: !tile.ptr<f32>, %out: !tile.ptr<f32>,
                %which: i32, %n: i32) attributes {tile.kernel, tile.num_warps = 1 : i32} {
  %c0 = arith.constant 0 : i32
  %first = arith.cmpi eq, %which, %c0 : i32
  %p = arith.select %first, %a, %b : !tile.ptr<f32>
  %v = tile.make_view %p[%n] strides[1] : !tile.view<?xf32>
  %o = tile.make_view %out[%n] strides[1] : !tile.view<?xf32>
  %t = tile.load %v[0] : tensor<32xf32>
  tile.store %t, %o[0] : tensor<32xf32>
  return
}

// -----

// The same choice written as an scf.if reaches PTX.
// PTX-LABEL: .entry pick_if(
// PTX: selp.b64
func.func @pick_if(%a: !tile.ptr<f32>, %b: !tile.ptr<f32>,
                   %out: !tile.ptr<f32>, %which: i32, %n: i32) attributes {tile.kernel, tile.num_warps = 1 : i32} {
  %c0 = arith.constant 0 : i32
  %first = arith.cmpi eq, %which, %c0 : i32
  %p = scf.if %first -> (!tile.ptr<f32>) {
    scf.yield %a : !tile.ptr<f32>
  } else {
    scf.yield %b : !tile.ptr<f32>
  }
  %v = tile.make_view %p[%n] strides[1] : !tile.view<?xf32>
  %o = tile.make_view %out[%n] strides[1] : !tile.view<?xf32>
  %t = tile.load %v[0] : tensor<32xf32>
  tile.store %t, %o[0] : tensor<32xf32>
  return
}
