// RUN: kernel-opt %s -tile-assign-layouts -tile-allocate-shared -convert-tile-to-llvm -tile-dependent-launch | FileCheck %s
// RUN: kernel-opt %s -tile-assign-layouts -tile-allocate-shared -convert-tile-to-llvm -tile-dependent-launch=all=true | FileCheck %s --check-prefix=ALL
// RUN: kernel-opt %s -tile-assign-layouts -tile-allocate-shared -convert-tile-to-llvm '-tile-dependent-launch=target=sm_80 all=true' | FileCheck %s --check-prefix=OFF
// RUN: emit-ptx %s --target=sm_90a -o %t.ptx --metadata-out=%t.json && FileCheck %s --check-prefix=PTX < %t.ptx && FileCheck %s --check-prefix=META < %t.json
// RUN: emit-ptx %s --target=sm_90a --dependent-launch -o %tall.ptx && FileCheck %s --check-prefix=PTXALL < %tall.ptx
// RUN: emit-ptx %s --target=sm_80 --dependent-launch -o %t80.ptx --metadata-out=%t80.json && FileCheck %s --check-prefix=OFF < %t80.ptx && FileCheck %s --check-prefix=OFF < %t80.json
// RUN: %if ptxas %{ %ptxas -arch=sm_90a %t.ptx -o %t.o %}
// RUN: emit-ptx %s --target=sm_100a -o %t100.ptx && FileCheck %s --check-prefix=PTX < %t100.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_100a %t100.ptx -o %t100.o %}

// On sm_90+ a kernel with tile.dependent_launch = true begins with the
// wait for the grids before it, ahead of every memory access (here the
// load of its input), then lets the grid after it be scheduled; its
// metadata says it may be launched so. A kernel without the attribute gets
// neither unless the pass runs with `all` (emit-ptx --dependent-launch);
// one with `false` never does. sm_80 has no griddepcontrol.
// The next grid may be scheduled early only from a grid of at most one
// program per SM (%nsmid).
// CHECK-LABEL: llvm.func @chained(
// CHECK-SAME: tile.metadata = {{.*}}dependent_launch = true
// CHECK-NEXT: nvvm.griddepcontrol wait
// CHECK-NEXT: %[[X:.*]] = nvvm.read.ptx.sreg.nctaid.x
// CHECK: %[[SMS:.*]] = nvvm.read.ptx.sreg.nsmid
// CHECK: %[[N:.*]] = llvm.zext %[[SMS]]
// CHECK-NEXT: %[[FITS:.*]] = llvm.icmp "ule" %{{.*}}, %[[N]] : i64
// CHECK-NEXT: scf.if %[[FITS]] {
// CHECK-NEXT: nvvm.griddepcontrol launch_dependents
// CHECK-NEXT: }
// CHECK: llvm.load
// CHECK-LABEL: llvm.func @plain(
// CHECK-NOT: dependent_launch = true
// CHECK-NOT: griddepcontrol
// CHECK-LABEL: llvm.func @alone(
// CHECK-NOT: dependent_launch = true
// CHECK-NOT: griddepcontrol
// CHECK: llvm.return

// ALL-LABEL: llvm.func @chained(
// ALL-NEXT: nvvm.griddepcontrol wait
// ALL-LABEL: llvm.func @plain(
// ALL-SAME: tile.metadata = {{.*}}dependent_launch = true
// ALL-NEXT: nvvm.griddepcontrol wait
// ALL: nvvm.griddepcontrol launch_dependents
// ALL-LABEL: llvm.func @alone(
// ALL-NOT: dependent_launch = true
// ALL-NOT: griddepcontrol
// ALL: llvm.return

// PTX-LABEL: .entry chained
// PTX-NOT: ld.global
// PTX: griddepcontrol.wait;
// PTX-NOT: ld.global
// PTX: %nsmid
// PTX-NOT: ld.global
// PTX: griddepcontrol.launch_dependents;
// PTX: ld.global
// PTX-LABEL: .entry plain
// PTX-NOT: griddepcontrol
// PTX: ret;
// PTX-LABEL: .entry alone
// PTX-NOT: griddepcontrol
// PTX: ret;
// PTXALL-LABEL: .entry chained
// PTXALL: griddepcontrol.wait;
// PTXALL-LABEL: .entry plain
// PTXALL: griddepcontrol.wait;
// PTXALL-LABEL: .entry alone
// PTXALL-NOT: griddepcontrol
// PTXALL: ret;
// Keys print sorted: the flag comes just before the kernel's name.
// META: "dependent_launch": true
// META-NEXT: "name": "chained"
// META-NOT: "dependent_launch"
// OFF-NOT: griddepcontrol
// OFF-NOT: {{[{ ]}}dependent_launch = true
// OFF-NOT: "dependent_launch"
func.func @chained(%x: !tile.ptr<f32>, %y: !tile.ptr<f32>, %n: i32)
    attributes {tile.kernel, tile.dependent_launch = true} {
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

func.func @plain(%x: !tile.ptr<f32>, %y: !tile.ptr<f32>, %n: i32)
    attributes {tile.kernel} {
  %c1 = arith.constant 1 : i32
  %c0 = arith.constant 0 : i32
  %xv = tile.make_view %x[%n] strides[%c1] : !tile.ptr<f32> -> !tile.view<?xf32>
  %yv = tile.make_view %y[%n] strides[%c1] : !tile.ptr<f32> -> !tile.view<?xf32>
  %t = tile.load %xv[%c0] : !tile.view<?xf32> -> tensor<256xf32>
  tile.store %t, %yv[%c0] : tensor<256xf32>, !tile.view<?xf32>
  return
}

func.func @alone(%x: !tile.ptr<f32>, %y: !tile.ptr<f32>, %n: i32)
    attributes {tile.kernel, tile.dependent_launch = false} {
  %c1 = arith.constant 1 : i32
  %c0 = arith.constant 0 : i32
  %xv = tile.make_view %x[%n] strides[%c1] : !tile.ptr<f32> -> !tile.view<?xf32>
  %yv = tile.make_view %y[%n] strides[%c1] : !tile.ptr<f32> -> !tile.view<?xf32>
  %t = tile.load %xv[%c0] : !tile.view<?xf32> -> tensor<256xf32>
  tile.store %t, %yv[%c0] : tensor<256xf32>, !tile.view<?xf32>
  return
}
