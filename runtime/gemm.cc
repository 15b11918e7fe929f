#include "runtime/gemm.h"

#include <cstdint>

#include "absl/strings/str_cat.h"
#include "runtime/driver.h"
#include "runtime/embedded.h"
#include "runtime/launch.h"
#include "runtime/module.h"

namespace tilec {

absl::Status ValidateGemm(const TensorRef &x, const TensorRef &w,
                          const TensorRef &scale, const TensorRef &y) {
  TILEC_RETURN_IF_ERROR(CheckTensor("x", x, {DType::kBF16, DType::kF8E4M3},
                                    {kAnyExtent, kAnyExtent}));
  const int64_t m = x.shape[0], k = x.shape[1];
  if (m < 1 || k < 1)
    return absl::InvalidArgumentError(
        absl::StrCat("argument 'x' has shape ", ShapeString(x.shape),
                     "; expected (M, K) with M >= 1 and K >= 1"));
  TILEC_RETURN_IF_ERROR(CheckTensor("w", w, {x.dtype}, {kAnyExtent, k}));
  const int64_t n = w.shape[0];
  if (n < 1)
    return absl::InvalidArgumentError(
        absl::StrCat("argument 'w' has shape ", ShapeString(w.shape),
                     "; expected (N, K) with N >= 1"));
  TILEC_RETURN_IF_ERROR(CheckTensor("scale", scale, {DType::kF32}, {n}));
  TILEC_RETURN_IF_ERROR(CheckTensor("y", y, {DType::kBF16}, {m, n}));
  TILEC_RETURN_IF_ERROR(CheckInt32Elements("x", x));
  TILEC_RETURN_IF_ERROR(CheckInt32Elements("w", w));
  TILEC_RETURN_IF_ERROR(CheckInt32Elements("y", y));
  TILEC_RETURN_IF_ERROR(CheckNoOverlap("x", x, "y", y));
  TILEC_RETURN_IF_ERROR(CheckNoOverlap("w", w, "y", y));
  TILEC_RETURN_IF_ERROR(CheckNoOverlap("scale", scale, "y", y));
  // Row tiles run along the grid's y dimension.
  if (m > int64_t{kMaxGridYZ} * kGemmTileM)
    return absl::UnimplementedError(absl::StrCat(
        "argument 'x' has ", m, " rows; the GEMM kernels take at most ",
        int64_t{kMaxGridYZ} * kGemmTileM, " (", kMaxGridYZ, " tiles of ",
        kGemmTileM, ")"));
  return absl::OkStatus();
}

absl::Status Gemm(const TensorRef &x, const TensorRef &w,
                  const TensorRef &scale, const TensorRef &y, CUstream stream) {
  TILEC_RETURN_IF_ERROR(ValidateGemm(x, w, scale, y));
  absl::StatusOr<const Driver *> driver = Driver::Get();
  if (!driver.ok())
    return driver.status();
  absl::StatusOr<int> device = CheckDeviceTensors(
      **driver, {{"x", &x}, {"w", &w}, {"scale", &scale}, {"y", &y}});
  if (!device.ok())
    return device.status();
  absl::StatusOr<const Kernel *> kernel = GetEmbeddedKernel(
      "gemm", x.dtype == DType::kBF16 ? "gemm_bf16" : "gemm_fp8", *device);
  if (!kernel.ok())
    return kernel.status();
  TILEC_RETURN_IF_ERROR(
      CheckStream(**driver, stream, (*kernel)->context(), *device));
  // Every extent fits in int32: the element counts do.
  const int m = int(x.shape[0]), k = int(x.shape[1]), n = int(w.shape[0]);
  const KernelArg args[] = {KernelArg::Ptr(x.data),     KernelArg::Ptr(w.data),
                            KernelArg::Ptr(scale.data), KernelArg::Ptr(y.data),
                            KernelArg::I32(m),          KernelArg::I32(n),
                            KernelArg::I32(k)};
  const uint32_t grid_n = uint32_t((n + kGemmTileN - 1) / kGemmTileN);
  const uint32_t grid_m = uint32_t((m + kGemmTileM - 1) / kGemmTileM);
  return (*kernel)->Launch({grid_n, grid_m, 1}, args, stream,
                           PointerCheck::kSkip);
}

} // namespace tilec
