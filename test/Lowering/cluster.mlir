// RUN: kernel-opt %s -tile-assign-layouts -tile-allocate-shared -convert-tile-to-llvm | FileCheck %s
// RUN: emit-ptx %s --target=sm_90a -o %t.ptx && FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: emit-ptx %s --target=sm_80 -o %t80.ptx && FileCheck %s --check-prefix=SM80 < %t80.ptx
// RUN: emit-ptx %s --target=sm_90a -o /dev/null --metadata-out=- | FileCheck %s --check-prefix=META
// RUN: %if ptxas %{ %ptxas -arch=sm_90a %t.ptx -o %t.o %}
// RUN: %if ptxas %{ %ptxas -arch=sm_80 %t80.ptx -o %t80.o %}

// Each program of a cluster writes 64 values into program 0's buffer
// (mapa, then st.shared::cluster), the cluster barrier releases and
// acquires them, and program 0 reads them back. The buffer sits after the
// scratch area (none here) at offset 0; its 2048 bytes are the kernel's
// dynamic shared memory.
// A kernel that stores to a peer's buffer starts with a cluster barrier
// (no program writes a peer that has not started) and ends with one (none
// exits while a peer may still write it). The 64 values of a 128-thread
// CTA are replicated; only the thread whose coordinate does not wrap
// stores each (replicas racing on one address would be a race even with
// equal values).
// CHECK-LABEL: llvm.func @gather_parts
// CHECK: nvvm.cluster.arrive {aligned}
// CHECK-NEXT: nvvm.cluster.wait {aligned}
// CHECK: llvm.mlir.addressof @__tile_smem : !llvm.ptr<3>
// CHECK: nvvm.read.ptx.sreg.cluster.ctarank
// CHECK: nvvm.read.ptx.sreg.cluster.nctarank
// CHECK: nvvm.mapa %{{.*}} : !llvm.ptr<3> -> !llvm.ptr<7>
// CHECK: llvm.mlir.constant(true) : i1
// CHECK-NEXT: %[[C64:.*]] = llvm.mlir.constant(64 : i32) : i32
// CHECK-NEXT: %[[UNWRAPPED:.*]] = llvm.icmp "ult" %{{.*}}, %[[C64]] : i32
// CHECK-NEXT: %[[OWNER:.*]] = llvm.and %{{.*}}, %[[UNWRAPPED]] : i1
// CHECK-NEXT: %[[STORE:.*]] = llvm.and %{{.*}}, %[[OWNER]] : i1
// CHECK: scf.if %[[STORE]] {
// CHECK: llvm.store %{{.*}} : i64, !llvm.ptr<7>
// CHECK: nvvm.cluster.arrive {aligned}
// CHECK-NEXT: nvvm.cluster.wait {aligned}
// CHECK: llvm.load %{{.*}} : !llvm.ptr<3> -> i64
// CHECK: nvvm.cluster.arrive {aligned}
// CHECK-NEXT: nvvm.cluster.wait {aligned}
// CHECK-NEXT: llvm.return
// PTX-LABEL: .entry gather_parts
// PTX-DAG: mov.u32 %r{{[0-9]+}}, %cluster_ctarank;
// PTX-DAG: mapa.shared::cluster.u64
// PTX-DAG: st.shared::cluster.b{{32|64}}
// PTX: barrier.cluster.arrive.aligned;
// PTX-NEXT: barrier.cluster.wait.aligned;
// PTX: ld.shared.b64

// Without clusters every program is a cluster of one: rank 0, size 1, a
// CTA barrier, and stores to its own buffer.
// SM80-LABEL: .entry gather_parts
// SM80-NOT: cluster
// SM80: st.shared.b{{32|64}}
// SM80: bar.sync 0;
// SM80: ld.shared.b64

// META: "shared_bytes": 2048
func.func @gather_parts(%out: !tile.ptr<i64>, %n: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %buf = tile.alloc_shared : !tile.smem<256xi64>
  %rank = tile.cluster_rank
  %size = tile.cluster_size
  %r64 = arith.extui %rank : i32 to i64
  %v = tile.splat %r64 : tensor<64xi64>
  %at = arith.muli %rank, %c64 : i32
  tile.store_shared %v, %buf[%at] rank %c0 : tensor<64xi64>, !tile.smem<256xi64>
  tile.cluster_barrier
  %lead = arith.cmpi eq, %rank, %c0 : i32
  scf.if %lead {
    %i = tile.iota : tensor<256xi32>
    %lim = arith.muli %size, %c64 : i32
    %limT = tile.splat %lim : tensor<256xi32>
    %m = arith.cmpi slt, %i, %limT : tensor<256xi32>
    %all = tile.load_shared %buf[%c0] mask %m pad -1 : i64 : !tile.smem<256xi64> -> tensor<256xi64>
    %ov = tile.make_view %out[%n] strides[%c1] : !tile.ptr<i64> -> !tile.view<?xi64>
    tile.store %all, %ov[%c0] : tensor<256xi64>, !tile.view<?xi64>
  }
  return
}
