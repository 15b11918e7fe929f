// Launch arguments and their validation against kernel metadata.
//
// Validation is a pure function of the metadata and the arguments so that it
// runs, and is tested, without a driver; Kernel::Launch calls it before
// touching the driver.
#ifndef TILEC_RUNTIME_LAUNCH_H_
#define TILEC_RUNTIME_LAUNCH_H_

#include <cstdint>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "runtime/cuda_driver_api.h"
#include "runtime/metadata.h"

namespace tilec {

struct Dim3 {
  uint32_t x = 1;
  uint32_t y = 1;
  uint32_t z = 1;
};

// Grid limits of every supported target (sm_80 and newer).
inline constexpr uint32_t kMaxGridX = 0x7fffffffu;
inline constexpr uint32_t kMaxGridYZ = 65535;

// One kernel argument: a value tagged with the parameter kind it is meant
// for. Cheap to copy; a tensor map argument refers to caller-owned bytes.
class KernelArg {
public:
  static KernelArg Ptr(const void *device_ptr) {
    return DevicePtr(reinterpret_cast<uintptr_t>(device_ptr));
  }
  static KernelArg DevicePtr(cu::CUdeviceptr device_ptr) {
    KernelArg arg(ParamKind::kPtr);
    arg.value_.ptr = device_ptr;
    return arg;
  }
  static KernelArg I32(int32_t v) {
    KernelArg arg(ParamKind::kI32);
    arg.value_.i32 = v;
    return arg;
  }
  static KernelArg I64(int64_t v) {
    KernelArg arg(ParamKind::kI64);
    arg.value_.i64 = v;
    return arg;
  }
  static KernelArg F32(float v) {
    KernelArg arg(ParamKind::kF32);
    arg.value_.f32 = v;
    return arg;
  }
  static KernelArg F64(double v) {
    KernelArg arg(ParamKind::kF64);
    arg.value_.f64 = v;
    return arg;
  }
  // `bytes` points to a 128-byte CUtensorMap that must stay valid until
  // Launch returns (the driver copies it at launch).
  static KernelArg TensorMap(const void *bytes) {
    KernelArg arg(ParamKind::kTensorMap);
    arg.value_.tensor_map = bytes;
    return arg;
  }

  ParamKind kind() const { return kind_; }
  // The address of a ptr argument.
  cu::CUdeviceptr device_ptr() const { return value_.ptr; }

  // The value of an i32 or i64 argument.
  int64_t integer() const {
    return kind_ == ParamKind::kI32 ? value_.i32 : value_.i64;
  }

  // Whether a ptr or tensormap argument is null.
  bool IsNull() const {
    return (kind_ == ParamKind::kPtr && value_.ptr == 0) ||
           (kind_ == ParamKind::kTensorMap && value_.tensor_map == nullptr);
  }

  // The address cuLaunchKernel's kernelParams entry must hold: where the
  // argument's bytes are.
  void *ParamAddress() const {
    if (kind_ == ParamKind::kTensorMap)
      return const_cast<void *>(value_.tensor_map);
    return const_cast<void *>(static_cast<const void *>(&value_));
  }

private:
  explicit KernelArg(ParamKind kind) : kind_(kind) {}

  ParamKind kind_;
  // Each member starts at offset 0, so ParamAddress works for all of them.
  union {
    cu::CUdeviceptr ptr;
    int32_t i32;
    int64_t i64;
    float f32;
    double f64;
    const void *tensor_map;
  } value_ = {};
};

// Checks a launch against the kernel's metadata: argument count, each
// argument's kind, null pointers, grid limits and cluster divisibility.
// Errors are InvalidArgument and name the kernel and the parameter, e.g.
// "kernel 'softmax': argument 2 ('rows') expects i32, got f32".
absl::Status ValidateLaunch(const KernelInfo &kernel, Dim3 grid,
                            absl::Span<const KernelArg> args);

} // namespace tilec

#endif // TILEC_RUNTIME_LAUNCH_H_
