//===- TargetInfo.cpp - what each GPU target offers -----------------------===//

#include "dialect/TargetInfo.h"

using namespace mlir::tile;

llvm::ArrayRef<llvm::StringRef> TargetInfo::getNames() {
  static const llvm::StringRef names[] = {"sm_80", "sm_90a", "sm_100a"};
  return names;
}

std::optional<TargetInfo> TargetInfo::get(llvm::StringRef name) {
  if (name == "sm_80")
    return TargetInfo(getNames()[0], 80);
  if (name == "sm_90a")
    return TargetInfo(getNames()[1], 90);
  if (name == "sm_100a")
    return TargetInfo(getNames()[2], 100);
  return std::nullopt;
}

llvm::StringRef TargetInfo::getPTXFeature() const {
  // sm_90a features arrived in PTX 8.0 and its fp8 mma.sync (m16n8k32
  // e4m3/e5m2) in 8.4; sm_100a needs 8.6.
  if (version >= 100)
    return "+ptx86";
  if (version >= 90)
    return "+ptx84";
  return "+ptx80";
}
