//===- TargetInfo.h - what each GPU target offers ---------------*- C++ -*-===//
//
// One place that says what a target has, so that passes and lowerings ask
// a question ("does it run wgmma?") instead of comparing target names.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_DIALECT_TARGETINFO_H
#define TILEC_DIALECT_TARGETINFO_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>

namespace mlir::tile {

class TargetInfo {
public:
  /// The target named `name` (sm_80, sm_90a, sm_100a), if supported.
  static std::optional<TargetInfo> get(llvm::StringRef name);
  /// Every supported target's name.
  static llvm::ArrayRef<llvm::StringRef> getNames();

  llvm::StringRef getName() const { return name; }
  /// Compute capability times ten: 80, 90, 100.
  unsigned getVersion() const { return version; }

  /// Thread-block clusters and distributed shared memory (sm_90+).
  bool hasClusters() const { return version >= 90; }
  /// fp8 (e4m3/e5m2) mma.sync m16n8k32 (sm_89+).
  bool hasFp8MmaSync() const { return version >= 89; }
  /// Warpgroup wgmma.mma_async (sm_90a only).
  bool hasWgmma() const { return version == 90; }
  /// Tensor cores read shared memory through the async proxy, which
  /// needs fence.proxy.async after generic-proxy writes (sm_90+).
  bool hasAsyncProxy() const { return version >= 90; }
  /// Programmatic dependent launch: griddepcontrol (sm_90+).
  bool hasDependentLaunch() const { return version >= 90; }
  /// TMA bulk tensor copies completing on mbarriers (sm_90+).
  bool hasTma() const { return version >= 90; }
  /// Single-thread tcgen05.mma with accumulators in tensor memory
  /// (sm_100a only: the "a" features are not forward compatible).
  bool hasTcgen05() const { return version == 100; }
  /// The most dynamic shared memory one CTA may opt into, in bytes.
  int64_t getMaxSharedBytes() const {
    return version >= 90 ? 227 * 1024 : 163 * 1024;
  }
  /// The NVPTX feature naming the PTX ISA the target's code needs.
  llvm::StringRef getPTXFeature() const;

private:
  TargetInfo(llvm::StringRef name, unsigned version)
      : name(name), version(version) {}
  llvm::StringRef name;
  unsigned version;
};

} // namespace mlir::tile

#endif // TILEC_DIALECT_TARGETINFO_H
