//===- Interpreter.h - run tile kernels on the CPU --------------*- C++ -*-===//
//
// Executes a kernel of the tile dialect, program by program, on host
// memory, with the semantics the ops' descriptions give (TileOps.td) and
// without the lowering: every tile value is a plain array, layouts are
// ignored. It runs the IR the tile-level passes leave for
// convert-tile-to-llvm on targets without TMA (instances, split-K and
// persistent schedules, histograms in shared memory, cp.async rings), so
// it checks the kernel sources and those passes, not the per-thread
// lowering. Every global access is checked against the allocations the
// caller registers; an access outside them, or a read of a ring stage
// whose copy has not been waited for, stops the launch with a located
// error.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_TOOLS_CPU_DRIVER_INTERPRETER_H
#define TILEC_TOOLS_CPU_DRIVER_INTERPRETER_H

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace tilec::cpu {

/// Host allocations interpreted kernels may read and write, by address.
/// Each allocation also records which of its bytes have been written
/// (copied to, filled, stored by a kernel), so that a kernel reading bytes
/// nothing wrote is caught, as compute-sanitizer's initcheck catches it.
class MemoryMap {
public:
  /// Registers [base, base + bytes), its bytes written or not.
  void add(uint64_t base, uint64_t bytes, bool written = true);
  void remove(uint64_t base) { ranges.erase(base); }
  /// Whether [addr, addr + bytes) lies inside one allocation.
  bool contains(uint64_t addr, uint64_t bytes) const;
  /// Whether every byte of [addr, addr + bytes), inside one allocation, has
  /// been written.
  bool written(uint64_t addr, uint64_t bytes) const;
  /// Records [addr, addr + bytes), inside one allocation, as written.
  void markWritten(uint64_t addr, uint64_t bytes);

private:
  struct Range {
    uint64_t bytes;
    std::vector<bool> written;
  };
  /// The allocation holding [addr, addr + bytes), or null.
  const Range *find(uint64_t addr, uint64_t bytes, uint64_t &base) const;
  std::map<uint64_t, Range> ranges;
};

struct Grid {
  uint32_t x = 1, y = 1, z = 1;
};

/// Runs `kernel` for every program of `grid`, x fastest, each to completion
/// before the next starts. `params[i]` points to the value of argument i,
/// as cuLaunchKernel's kernelParams do: 8 bytes for a `!tile.ptr`, the
/// argument's own size for integers and floats. Returns an empty string on
/// success, else the error: the op's location, the program and what went
/// wrong. Kernel stores mark the bytes they write in `memory`.
std::string runKernel(mlir::func::FuncOp kernel, Grid grid, void *const *params,
                      MemoryMap &memory);

} // namespace tilec::cpu

#endif // TILEC_TOOLS_CPU_DRIVER_INTERPRETER_H
