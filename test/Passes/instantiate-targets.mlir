// RUN: kernel-opt %s -tile-instantiate=target=sm_100a | FileCheck %s --check-prefix=SM100
// RUN: kernel-opt %s -tile-instantiate=target=sm_90a | FileCheck %s --check-prefix=SM90
// RUN: kernel-opt %s -tile-instantiate | FileCheck %s --check-prefix=ANY

// An instance with tile.targets is made only for the targets it lists (all
// of them without a target); the key does not become a function attribute.
// SM100: func.func @k()
// SM100: func.func @k_pair()
// SM100-SAME: tile.cta_pair = true
// SM100-NOT: tile.targets
// SM90: func.func @k()
// SM90-NOT: @k_pair
// ANY: func.func @k()
// ANY: func.func @k_pair()
func.func @k() attributes {tile.kernel, tile.params = {N = 2 : i32},
    tile.instances = {k = {},
                      k_pair = {"tile.targets" = ["sm_100a"],
                                "tile.cta_pair" = true}}} {
  return
}
