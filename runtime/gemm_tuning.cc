#include "runtime/gemm_tuning.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>

#include <unistd.h>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "runtime/json.h"

namespace tilec {
namespace {

constexpr int kFormatVersion = 1;
constexpr char kFileName[] = "gemm_tuning.json";

std::string Env(const char *name) {
  const char *value = std::getenv(name);
  return value ? value : "";
}

} // namespace

std::string GemmTuningKeyString(const GemmTuningKey &key) {
  return absl::StrCat(key.gpu, "|", key.kernels, "|", DTypeName(key.dtype), "|",
                      key.m, "x", key.n, "x", key.k);
}

bool GemmAutotuneEnabled() {
  const std::string value = absl::AsciiStrToLower(Env("TILEC_GEMM_AUTOTUNE"));
  return value == "1" || value == "true" || value == "on";
}

std::string DefaultGemmTuningPath() {
  namespace fs = std::filesystem;
  if (std::string dir = Env("TILEC_CACHE_DIR"); !dir.empty())
    return (fs::path(dir) / kFileName).string();
  if (std::string dir = Env("XDG_CACHE_HOME"); !dir.empty())
    return (fs::path(dir) / "tilec" / kFileName).string();
  if (std::string home = Env("HOME"); !home.empty())
    return (fs::path(home) / ".cache" / "tilec" / kFileName).string();
  return "";
}

absl::Status GemmTuningCache::Load() {
  absl::MutexLock lock(&mutex_);
  entries_.clear();
  std::ifstream in(path_);
  if (!in) {
    std::error_code error;
    if (!std::filesystem::exists(path_, error))
      return absl::OkStatus();
    return absl::UnavailableError(
        absl::StrCat("GEMM tuning cache ", path_, " cannot be read"));
  }
  std::stringstream text;
  text << in.rdbuf();
  absl::StatusOr<Json> json = ParseJson(text.str());
  auto malformed = [&](absl::string_view why) {
    return absl::DataLossError(
        absl::StrCat("GEMM tuning cache ", path_, " is ignored: ", why));
  };
  if (!json.ok())
    return malformed(json.status().message());
  if (!json->is_object() || !json->contains("version") ||
      (*json)["version"] != kFormatVersion || !json->contains("entries") ||
      !(*json)["entries"].is_object())
    return malformed(absl::StrCat("expected {\"version\": ", kFormatVersion,
                                  ", \"entries\": {...}}"));
  for (const auto &[key, value] : (*json)["entries"].items()) {
    if (!value.is_string()) {
      entries_.clear();
      return malformed(absl::StrCat("entry '", key, "' is not a kernel name"));
    }
    entries_[key] = value.get<std::string>();
  }
  return absl::OkStatus();
}

std::optional<std::string>
GemmTuningCache::Find(const GemmTuningKey &key) const {
  absl::MutexLock lock(&mutex_);
  auto it = entries_.find(GemmTuningKeyString(key));
  if (it == entries_.end())
    return std::nullopt;
  return it->second;
}

absl::Status GemmTuningCache::Record(const GemmTuningKey &key,
                                     absl::string_view kernel) {
  namespace fs = std::filesystem;
  absl::MutexLock lock(&mutex_);
  entries_[GemmTuningKeyString(key)] = std::string(kernel);
  Json json;
  json["version"] = kFormatVersion;
  json["entries"] = Json::object();
  for (const auto &[name, value] : entries_)
    json["entries"][name] = value;
  std::error_code error;
  const fs::path path(path_);
  if (path.has_parent_path())
    fs::create_directories(path.parent_path(), error);
  // One temporary per process: two processes recording at once each
  // replace the file whole, and the last rename wins.
  const std::string temporary = absl::StrCat(path_, ".", getpid(), ".tmp");
  {
    std::ofstream out(temporary, std::ios::trunc);
    out << json.dump(1) << "\n";
    if (!out.flush())
      return absl::UnavailableError(
          absl::StrCat("GEMM tuning cache ", temporary, " cannot be written"));
  }
  fs::rename(temporary, path, error);
  if (error)
    return absl::UnavailableError(absl::StrCat(
        "GEMM tuning cache ", path_, " cannot be replaced: ", error.message()));
  return absl::OkStatus();
}

GemmTuningCache *ProcessGemmTuningCache() {
  static GemmTuningCache *const cache = []() -> GemmTuningCache * {
    std::string path = DefaultGemmTuningPath();
    if (path.empty())
      return nullptr;
    auto *cache = new GemmTuningCache(std::move(path));
    // A malformed file reads as empty and is replaced by the next record.
    (void)cache->Load();
    return cache;
  }();
  return cache;
}

} // namespace tilec
