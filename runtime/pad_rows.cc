#include "runtime/pad_rows.h"

#include <cstdint>

#include "runtime/launch.h"

namespace tilec {
namespace {

// Rows and bytes per program of pad_rows_pair.
constexpr uint32_t kRowsPerProgram = 4, kBytesPerProgram = 1024;

} // namespace

absl::Status PadRowsPair(const Kernel &pad, const PaddedRows &a,
                         const PaddedRows &b, int cols, int src_stride,
                         int padded, CUstream stream) {
  // Each source as its first byte and the 4-byte word holding it: the
  // kernel reads whole words and shifts the bytes into place.
  auto word = [](const void *src) {
    return cu::CUdeviceptr(reinterpret_cast<uintptr_t>(src) & ~uintptr_t(3));
  };
  auto shift = [](const void *src) {
    return int(reinterpret_cast<uintptr_t>(src) & 3);
  };
  const KernelArg args[] = {KernelArg::Ptr(a.src),
                            KernelArg::DevicePtr(word(a.src)),
                            KernelArg::I32(shift(a.src)),
                            KernelArg::DevicePtr(a.dst),
                            KernelArg::I32(a.rows),
                            KernelArg::Ptr(b.src),
                            KernelArg::DevicePtr(word(b.src)),
                            KernelArg::I32(shift(b.src)),
                            KernelArg::DevicePtr(b.dst),
                            KernelArg::I32(b.rows),
                            KernelArg::I32(cols),
                            KernelArg::I32(src_stride),
                            KernelArg::I32(padded)};
  const uint32_t blocks =
      (uint32_t(a.rows) + kRowsPerProgram - 1) / kRowsPerProgram +
      (uint32_t(b.rows) + kRowsPerProgram - 1) / kRowsPerProgram;
  return pad.Launch(
      {blocks, (uint32_t(padded) + kBytesPerProgram - 1) / kBytesPerProgram, 1},
      args, stream, PointerCheck::kSkip);
}

} // namespace tilec
