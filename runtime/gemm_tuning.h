// Autotuning of the GEMM configuration, opt-in, with a cache on disk.
//
// Without it, runtime/gemm_configs.h's table picks the configuration: the
// same answer on every run. With TILEC_GEMM_AUTOTUNE=1 in the environment,
// tilec::Gemm looks the shape up in a cache file; on a miss it times every
// configuration of the dtype on the call's own operands (CUDA events, after
// a warm-up), uses the fastest and records it. The key names the GPU, the
// kernels (the digest of the embedded PTX, so a rebuilt library never
// trusts an older one's timings) and the shape, so later processes on the
// same GPU and build reuse the answer.
#ifndef TILEC_RUNTIME_GEMM_TUNING_H_
#define TILEC_RUNTIME_GEMM_TUNING_H_

#include <cstdint>
#include <optional>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/container/btree_map.h"
#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "runtime/validate.h"

namespace tilec {

struct GemmTuningKey {
  std::string gpu;     // device name, e.g. "NVIDIA H200"
  std::string kernels; // digest of the GEMM module the choice is among
  DType dtype;
  int64_t m, n, k;
};

// "<gpu>|<kernels>|<dtype>|<m>x<n>x<k>": one entry of the cache file.
std::string GemmTuningKeyString(const GemmTuningKey &key);

// Whether TILEC_GEMM_AUTOTUNE asks for tuning ("1", "true" or "on").
bool GemmAutotuneEnabled();

// The cache file: $TILEC_CACHE_DIR/gemm_tuning.json, else
// $XDG_CACHE_HOME/tilec/gemm_tuning.json, else
// $HOME/.cache/tilec/gemm_tuning.json; empty when none of them is set.
std::string DefaultGemmTuningPath();

// The winners recorded in one JSON file,
//   {"version": 1, "entries": {"<key>": "<kernel name>", ...}}.
// Thread-safe. Each Record rewrites the file whole, through a temporary
// file renamed over it, so that a reader never sees half of it.
class GemmTuningCache {
public:
  explicit GemmTuningCache(std::string path) : path_(std::move(path)) {}

  // Reads the file. A missing file is an empty cache (OK); an unreadable or
  // malformed one leaves the cache empty and says why (the next Record
  // replaces it).
  absl::Status Load();

  std::optional<std::string> Find(const GemmTuningKey &key) const;

  // Records `kernel` for `key` and writes the file (creating its folder).
  absl::Status Record(const GemmTuningKey &key, absl::string_view kernel);

  const std::string &path() const { return path_; }

private:
  const std::string path_;
  mutable absl::Mutex mutex_;
  absl::btree_map<std::string, std::string> entries_ ABSL_GUARDED_BY(mutex_);
};

// The process's cache at DefaultGemmTuningPath(), loaded on first use; null
// when no path can be formed.
GemmTuningCache *ProcessGemmTuningCache();

} // namespace tilec

#endif // TILEC_RUNTIME_GEMM_TUNING_H_
