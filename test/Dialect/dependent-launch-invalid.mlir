// RUN: kernel-opt %s -split-input-file -verify-diagnostics

// expected-error @+1 {{'tile.dependent_launch' is a bool on a kernel}}
func.func @not_bool() attributes {tile.kernel, tile.dependent_launch = 1 : i32} {
  return
}

// -----

func.func @kernel() attributes {tile.kernel} {
  // expected-error @+1 {{'tile.dependent_launch' is a bool on a kernel}}
  %c0 = arith.constant {tile.dependent_launch = true} 0 : i32
  return
}
