//===- CpuDriver.h - the CUDA driver emulated on the host -------*- C++ -*-===//
//
// Entry points for the runtime's driver table (runtime/driver.h) that answer
// on the host: one device of compute capability 8.0, whose memory is host
// memory and whose kernels run in the tile interpreter (Interpreter.h),
// synchronously, each launch to completion. Install them with
// tilec::Driver::Install before the runtime's first Driver::Get to run the
// GPU tests on a machine without a GPU.
//
// Modules are PTX as the runtime embeds it; the driver takes the entry names
// from it and runs the tile kernels of the same names, loaded on first use
// from TILEC_CPU_DRIVER_KERNELS (colon-separated .mlir files or directories
// of them), else from the directories built in (kernels_dsl/ and the test
// kernels). Environment:
//   TILEC_CPU_DRIVER_SMS        multiprocessor count (default 132)
//   TILEC_CPU_DRIVER_MEMORY_GB  device memory (default: half the host's,
//                               at most 80)
//
// A failed launch prints its error to stderr and, as a fault does on a GPU,
// leaves the context unusable: later launches, copies and synchronizations
// return CUDA_ERROR_LAUNCH_FAILED until the process ends.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_TOOLS_CPU_DRIVER_CPUDRIVER_H
#define TILEC_TOOLS_CPU_DRIVER_CPUDRIVER_H

#include "runtime/driver.h"

namespace tilec::cpu {

/// The emulated driver's entry points: every required one, the scratch,
/// stream id, device name and event ones, and the occupancy query that
/// persistent kernels size their grid by; no cluster launches and no TMA.
tilec::DriverApi CpuDriverApi();

} // namespace tilec::cpu

#endif // TILEC_TOOLS_CPU_DRIVER_CPUDRIVER_H
