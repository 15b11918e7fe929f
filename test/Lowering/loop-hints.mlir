// RUN: kernel-opt %s -tile-assign-layouts -tile-allocate-shared -convert-tile-to-llvm -lower-tile-loop-hints | FileCheck %s --check-prefix=HINT
// RUN: emit-ptx %s --target=sm_90a --emit=mlir | FileCheck %s --check-prefix=BR
// RUN: emit-ptx %s --target=sm_90a --emit=llvm | FileCheck %s --check-prefix=IR

// tile.no_hoist on a loop becomes an LLVM loop annotation disabling LICM,
// carried to the loop's back edge and emitted as !llvm.loop metadata; loops
// without it get none.
// HINT: #[[LICM:.*]] = #llvm.loop_licm<disable = true, versioningDisable = true>
// HINT: #[[ANN:.*]] = #llvm.loop_annotation<licm = #[[LICM]]>
// HINT-LABEL: llvm.func @staged
// HINT: } {llvm.loop_annotation = #[[ANN]]}
// HINT-LABEL: llvm.func @plain
// HINT-NOT: tile.no_hoist
// BR-LABEL: llvm.func @staged
// BR: llvm.{{(cond_)?}}br {{.*}} {loop_annotation = #{{.*}}}
// BR-NOT: llvm.loop_annotation =
// BR-LABEL: llvm.func @plain
// BR-NOT: loop_annotation
// IR-LABEL: define {{.*}} @staged
// IR: br {{.*}} !llvm.loop ![[LOOP:[0-9]+]]
// IR: ![[LOOP]] = distinct !{![[LOOP]], ![[DISABLE:[0-9]+]]
// IR: ![[DISABLE]] = !{!"llvm.licm.disable"}
func.func @staged(%p: !tile.ptr<i32>, %n: i32, %stages: i32) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %v = tile.make_view %p[%n] strides[%c1] : !tile.ptr<i32> -> !tile.view<?xi32>
  %t = tile.load %v[%c0] : !tile.view<?xi32> -> tensor<128xi32>
  %r = scf.for %s = %c0 to %stages step %c1 iter_args(%acc = %t) -> (tensor<128xi32>) : i32 {
    %first = arith.cmpi eq, %s, %c0 : i32
    %next = scf.if %first -> (tensor<128xi32>) {
      %nT = tile.splat %n : tensor<128xi32>
      %m = arith.muli %acc, %nT : tensor<128xi32>
      scf.yield %m : tensor<128xi32>
    } else {
      %sT = tile.splat %stages : tensor<128xi32>
      %a = arith.addi %acc, %sT : tensor<128xi32>
      scf.yield %a : tensor<128xi32>
    }
    scf.yield %next : tensor<128xi32>
  } {tile.no_hoist}
  tile.store %r, %v[%c0] : tensor<128xi32>, !tile.view<?xi32>
  return
}

func.func @plain(%p: !tile.ptr<i32>, %n: i32, %stages: i32) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %v = tile.make_view %p[%n] strides[%c1] : !tile.ptr<i32> -> !tile.view<?xi32>
  %t = tile.load %v[%c0] : !tile.view<?xi32> -> tensor<128xi32>
  %r = scf.for %s = %c0 to %stages step %c1 iter_args(%acc = %t) -> (tensor<128xi32>) : i32 {
    %nT = tile.splat %n : tensor<128xi32>
    %a = arith.addi %acc, %nT : tensor<128xi32>
    scf.yield %a : tensor<128xi32>
  }
  tile.store %r, %v[%c0] : tensor<128xi32>, !tile.view<?xi32>
  return
}
