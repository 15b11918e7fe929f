//===- ResourceSummary.cpp - ptxas resource usage ------------------------===//

#include "tools/emit-ptx/ResourceSummary.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

std::optional<std::string>
tilec::getResourceSummary(StringRef ptx, StringRef target, std::string &why) {
  ErrorOr<std::string> ptxas =
      sys::findProgramByName("ptxas", {"/usr/local/cuda/bin"});
  if (!ptxas)
    ptxas = sys::findProgramByName("ptxas");
  if (!ptxas) {
    why = "ptxas not found (looked in PATH and /usr/local/cuda/bin)";
    return std::nullopt;
  }
  SmallString<128> input, log;
  if (sys::fs::createTemporaryFile("tilec", "ptx", input) ||
      sys::fs::createTemporaryFile("tilec", "log", log)) {
    why = "cannot create temporary files";
    return std::nullopt;
  }
  {
    std::error_code ec;
    raw_fd_ostream os(input, ec);
    os << ptx;
  }
  std::string arch = ("-arch=" + target).str();
  SmallVector<StringRef> args = {*ptxas, arch, "-v", input, "-o", "/dev/null"};
  std::optional<StringRef> redirects[] = {std::nullopt, StringRef(log),
                                          StringRef(log)};
  int rc = sys::ExecuteAndWait(*ptxas, args, std::nullopt, redirects);
  ErrorOr<std::unique_ptr<MemoryBuffer>> text = MemoryBuffer::getFile(log);
  std::string report = text ? (*text)->getBuffer().str() : "";
  sys::fs::remove(input);
  sys::fs::remove(log);
  if (rc != 0) {
    why = "ptxas rejected the PTX:\n" + report;
    return std::nullopt;
  }
  return report;
}
