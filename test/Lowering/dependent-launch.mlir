// RUN: kernel-opt %s -tile-assign-layouts -tile-allocate-shared -convert-tile-to-llvm -tile-dependent-launch | FileCheck %s
// RUN: kernel-opt %s -tile-assign-layouts -tile-allocate-shared -convert-tile-to-llvm -tile-dependent-launch=target=sm_80 | FileCheck %s --check-prefix=SM80
// RUN: emit-ptx %s --target=sm_90a -o %t.ptx --metadata-out=%t.json && FileCheck %s --check-prefix=PTX < %t.ptx && FileCheck %s --check-prefix=META < %t.json
// RUN: emit-ptx %s --target=sm_90a --dependent-launch=false -o %toff.ptx --metadata-out=%toff.json && FileCheck %s --check-prefix=OFF < %toff.ptx && FileCheck %s --check-prefix=OFF < %toff.json
// RUN: emit-ptx %s --target=sm_80 -o %t80.ptx --metadata-out=%t80.json && FileCheck %s --check-prefix=OFF < %t80.ptx && FileCheck %s --check-prefix=OFF < %t80.json
// RUN: %if ptxas %{ %ptxas -arch=sm_90a %t.ptx -o %t.o %}
// RUN: emit-ptx %s --target=sm_100a -o %t100.ptx && FileCheck %s --check-prefix=PTX < %t100.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_100a %t100.ptx -o %t100.o %}

// On sm_90+ a kernel begins with the wait for the grids before it, ahead
// of every memory access (here the load of its input), then lets the grid
// after it be scheduled; its metadata says it may be launched so.
// CHECK-LABEL: llvm.func @scale(
// CHECK-SAME: tile.metadata = {{.*}}dependent_launch = true
// CHECK-NEXT: nvvm.griddepcontrol wait
// CHECK-NEXT: nvvm.griddepcontrol launch_dependents
// CHECK: llvm.load
// SM80-LABEL: llvm.func @scale(
// SM80-NOT: griddepcontrol
// SM80-NOT: dependent_launch = true
// PTX-LABEL: .entry scale
// PTX-NOT: ld.global
// PTX: griddepcontrol.wait;
// PTX-NEXT: griddepcontrol.launch_dependents;
// PTX: ld.global
// META: "dependent_launch": true
// OFF-NOT: griddepcontrol
// OFF-NOT: dependent_launch
// A kernel with tile.dependent_launch = false keeps neither.
// CHECK-LABEL: llvm.func @scale_alone(
// CHECK-NOT: dependent_launch = true
// CHECK-NOT: griddepcontrol
// CHECK: llvm.return
// PTX-LABEL: .entry scale_alone
// PTX-NOT: griddepcontrol
// PTX: ret;
func.func @scale(%x: !tile.ptr<f32>, %y: !tile.ptr<f32>, %n: i32)
    attributes {tile.kernel} {
  %c1 = arith.constant 1 : i32
  %pid = tile.program_id x
  %c256 = arith.constant 256 : i32
  %at = arith.muli %pid, %c256 : i32
  %xv = tile.make_view %x[%n] strides[%c1] : !tile.ptr<f32> -> !tile.view<?xf32>
  %yv = tile.make_view %y[%n] strides[%c1] : !tile.ptr<f32> -> !tile.view<?xf32>
  %t = tile.load %xv[%at] : !tile.view<?xf32> -> tensor<256xf32>
  %s = arith.addf %t, %t : tensor<256xf32>
  tile.store %s, %yv[%at] : tensor<256xf32>, !tile.view<?xf32>
  return
}

func.func @scale_alone(%x: !tile.ptr<f32>, %y: !tile.ptr<f32>, %n: i32)
    attributes {tile.kernel, tile.dependent_launch = false} {
  %c1 = arith.constant 1 : i32
  %c0 = arith.constant 0 : i32
  %xv = tile.make_view %x[%n] strides[%c1] : !tile.ptr<f32> -> !tile.view<?xf32>
  %yv = tile.make_view %y[%n] strides[%c1] : !tile.ptr<f32> -> !tile.view<?xf32>
  %t = tile.load %xv[%c0] : !tile.view<?xf32> -> tensor<256xf32>
  tile.store %t, %yv[%c0] : tensor<256xf32>, !tile.view<?xf32>
  return
}
