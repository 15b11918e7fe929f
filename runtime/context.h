// CUDA context selection.
//
// The runtime works in each device's primary context, the one the CUDA
// runtime (and so PyTorch) uses, so that device pointers and streams from
// PyTorch are valid in kernels the runtime launches. The entry points pick
// the device from their tensors (runtime/validate.h) and launch in that
// device's primary context, whatever context the caller has current.
#ifndef TILEC_RUNTIME_CONTEXT_H_
#define TILEC_RUNTIME_CONTEXT_H_

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "runtime/driver.h"

namespace tilec {

// The primary context of device `ordinal`, retained on first use and never
// released (it is shared with every other user of the device). Fails for an
// ordinal the driver does not know.
absl::StatusOr<CUcontext> PrimaryContext(const Driver &driver, int ordinal);

// The device of the context current on the calling thread, or -1 when none
// is current.
absl::StatusOr<int> CurrentDevice(const Driver &driver);

// Returns the context current on the calling thread. When there is none,
// retains the primary context of device 0 and makes it current first. A
// caller that picked another device (torch.cuda.set_device) already has that
// device's primary context current and keeps it.
absl::StatusOr<CUcontext> CurrentOrPrimaryContext(const Driver &driver);

// Reads an attribute of the device of the current context.
absl::StatusOr<int> CurrentDeviceAttribute(const Driver &driver,
                                           cu::CUdevice_attribute attribute);

// The device of `context` (made current for the query, then restored).
absl::StatusOr<cu::CUdevice> DeviceOfContext(const Driver &driver,
                                             CUcontext context);

// True when the driver loads and reports at least one device.
bool DeviceAvailable();

// Makes `context` current on this thread for the object's lifetime and
// restores the previous context afterwards, so a module keeps working when
// the caller switched devices in between.
class ScopedContext {
public:
  ScopedContext(const Driver &driver, CUcontext context);
  ~ScopedContext();
  ScopedContext(const ScopedContext &) = delete;
  ScopedContext &operator=(const ScopedContext &) = delete;

  // Whether `context` could be made current.
  const absl::Status &status() const { return status_; }

private:
  const Driver &driver_;
  CUcontext previous_ = nullptr;
  bool restore_ = false;
  absl::Status status_;
};

} // namespace tilec

#endif // TILEC_RUNTIME_CONTEXT_H_
