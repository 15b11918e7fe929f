// RUN: kernel-opt %s -split-input-file -verify-diagnostics

func.func @not_last(%n: i32) attributes {tile.kernel} {
  // expected-error @+1 {{must be the last op of a kernel's body before its return}}
  tile.warp_specialize producer_warps 4 {
  } consumers {
  }
  %c = arith.addi %n, %n : i32
  return
}

// -----

func.func @nested(%n: i32) attributes {tile.kernel} {
  %p = arith.cmpi eq, %n, %n : i32
  scf.if %p {
    // expected-error @+1 {{must be the last op of a kernel's body before its return}}
    tile.warp_specialize producer_warps 4 {
    } consumers {
    }
  }
  return
}

// -----

func.func @partial_warpgroup() attributes {tile.kernel} {
  // expected-error @+1 {{producer_warps must be a multiple of 4 (whole warpgroups), got 2}}
  tile.warp_specialize producer_warps 2 {
  } consumers {
  }
  return
}

// -----

func.func @odd_registers() attributes {tile.kernel} {
  // expected-error @+1 {{register counts are multiples of 8 in [24, 256], got 44}}
  tile.warp_specialize producer_warps 4 registers(44, 232) {
  } consumers {
  }
  return
}

// -----

func.func @too_many_registers() attributes {tile.kernel, tile.num_warps = 8 : i32} {
  // expected-error @+1 {{gives 128 producer threads 40 registers and 256 consumer threads 248: more than the 65536 of a block}}
  tile.warp_specialize producer_warps 4 registers(40, 248) {
  } consumers {
  }
  return
}

// -----

func.func @bad_attribute() attributes {tile.kernel, tile.warp_specialize = 1 : i32} {
  // expected-error @-1 {{'tile.warp_specialize' is a bool on a func.func}}
  return
}

// -----

func.func @arrive_on_data(%i: i32) attributes {tile.kernel} {
  %b = tile.alloc_shared : !tile.smem<4xf32>
  // expected-error @+1 {{needs a rank-1 buffer of i64 mbarriers, got '!tile.smem<4xf32>'}}
  tile.mbarrier_arrive %b[%i] : !tile.smem<4xf32>
  return
}

// -----

// `across m` reaches cluster ranks 0 .. m - 1: the kernel's clusters must
// hold m programs.
func.func @arrive_across_unclustered(%i: i32) attributes {tile.kernel} {
  %b = tile.alloc_shared : !tile.smem<4xi64>
  // expected-error @+1 {{across 2 must equal its kernel's tile.multicast (1)}}
  tile.mbarrier_arrive %b[%i] across 2 : !tile.smem<4xi64>
  return
}

// -----

func.func @arrive_across_other_cluster(%i: i32)
    attributes {tile.kernel, tile.multicast = 4 : i32} {
  %b = tile.alloc_shared : !tile.smem<4xi64>
  // expected-error @+1 {{across 2 must equal its kernel's tile.multicast (4)}}
  tile.mbarrier_arrive %b[%i] across 2 : !tile.smem<4xi64>
  return
}

// -----

func.func @arrive_across_cluster(%i: i32)
    attributes {tile.kernel, tile.multicast = 2 : i32} {
  %b = tile.alloc_shared : !tile.smem<4xi64>
  tile.mbarrier_arrive %b[%i] across 2 : !tile.smem<4xi64>
  return
}
