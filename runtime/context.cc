#include "runtime/context.h"

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"

namespace tilec {

absl::StatusOr<CUcontext> PrimaryContext(const Driver &driver, int ordinal) {
  // One retain per device for the process: releasing it would let the
  // driver destroy the context under modules loaded in it.
  static absl::Mutex mutex(absl::kConstInit);
  static auto *primaries ABSL_GUARDED_BY(mutex) =
      new absl::flat_hash_map<int, CUcontext>();
  absl::MutexLock lock(&mutex);
  auto it = primaries->find(ordinal);
  if (it != primaries->end())
    return it->second;
  cu::CUdevice device = 0;
  absl::Status status =
      driver.Check(driver.api().cuDeviceGet(&device, ordinal),
                   absl::StrCat("cuDeviceGet(", ordinal, ")"));
  if (!status.ok())
    return status;
  CUcontext context = nullptr;
  status = driver.Check(driver.api().cuDevicePrimaryCtxRetain(&context, device),
                        "cuDevicePrimaryCtxRetain");
  if (!status.ok())
    return status;
  primaries->emplace(ordinal, context);
  return context;
}

absl::StatusOr<int> CurrentDevice(const Driver &driver) {
  CUcontext current = nullptr;
  absl::Status status =
      driver.Check(driver.api().cuCtxGetCurrent(&current), "cuCtxGetCurrent");
  if (!status.ok())
    return status;
  if (current == nullptr)
    return -1;
  cu::CUdevice device = 0;
  status = driver.Check(driver.api().cuCtxGetDevice(&device), "cuCtxGetDevice");
  if (!status.ok())
    return status;
  return device;
}

absl::StatusOr<CUcontext> CurrentOrPrimaryContext(const Driver &driver) {
  CUcontext current = nullptr;
  absl::Status status =
      driver.Check(driver.api().cuCtxGetCurrent(&current), "cuCtxGetCurrent");
  if (!status.ok())
    return status;
  if (current != nullptr)
    return current;
  absl::StatusOr<CUcontext> primary = PrimaryContext(driver, 0);
  if (!primary.ok())
    return primary.status();
  status =
      driver.Check(driver.api().cuCtxSetCurrent(*primary), "cuCtxSetCurrent");
  if (!status.ok())
    return status;
  return *primary;
}

absl::StatusOr<int> CurrentDeviceAttribute(const Driver &driver,
                                           cu::CUdevice_attribute attribute) {
  if (absl::StatusOr<CUcontext> context = CurrentOrPrimaryContext(driver);
      !context.ok())
    return context.status();
  cu::CUdevice device = 0;
  absl::Status status =
      driver.Check(driver.api().cuCtxGetDevice(&device), "cuCtxGetDevice");
  if (!status.ok())
    return status;
  int value = 0;
  status =
      driver.Check(driver.api().cuDeviceGetAttribute(&value, attribute, device),
                   "cuDeviceGetAttribute");
  if (!status.ok())
    return status;
  return value;
}

absl::StatusOr<cu::CUdevice> DeviceOfContext(const Driver &driver,
                                             CUcontext context) {
  ScopedContext scope(driver, context);
  if (!scope.status().ok())
    return scope.status();
  cu::CUdevice device = 0;
  absl::Status status =
      driver.Check(driver.api().cuCtxGetDevice(&device), "cuCtxGetDevice");
  if (!status.ok())
    return status;
  return device;
}

bool DeviceAvailable() {
  absl::StatusOr<const Driver *> driver = Driver::Get();
  if (!driver.ok())
    return false;
  int count = 0;
  return (*driver)->api().cuDeviceGetCount(&count) == cu::CUDA_SUCCESS &&
         count > 0;
}

ScopedContext::ScopedContext(const Driver &driver, CUcontext context)
    : driver_(driver) {
  status_ =
      driver.Check(driver.api().cuCtxGetCurrent(&previous_), "cuCtxGetCurrent");
  if (!status_.ok() || previous_ == context)
    return;
  status_ =
      driver.Check(driver.api().cuCtxSetCurrent(context), "cuCtxSetCurrent");
  restore_ = status_.ok();
}

ScopedContext::~ScopedContext() {
  if (restore_)
    driver_.api().cuCtxSetCurrent(previous_);
}

} // namespace tilec
