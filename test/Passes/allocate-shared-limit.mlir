// RUN: kernel-opt %s -split-input-file -tile-assign-layouts=target=sm_90a -tile-allocate-shared -verify-diagnostics

// More shared memory than one program may have is refused where the
// kernel is, with what to change (227 KiB on sm_90a).
// expected-error @below {{kernel 'too_big' needs 262144 bytes of shared memory; sm_90a allows 232448 per program: use smaller tiles or fewer pipeline stages (num-stages)}}
func.func @too_big() attributes {tile.kernel} {
  %b = tile.alloc_shared : !tile.smem<65536xf32>
  return
}

// -----

// 160 KiB fits sm_90a.
func.func @fits() attributes {tile.kernel} {
  %b = tile.alloc_shared : !tile.smem<40960xf32>
  return
}
