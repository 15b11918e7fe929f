// Strict JSON parsing for kernel metadata, on nlohmann-json.
//
// nlohmann-json already rejects what RFC 8259 forbids (comments, trailing
// commas, leading zeros, NaN/Infinity, unescaped control characters, lone
// surrogates, numbers out of range). This adds the rules the metadata
// relies on: no duplicate object keys (nlohmann would keep one silently)
// and bounded nesting, and turns parse errors into absl::Status values.
#ifndef TILEC_RUNTIME_JSON_H_
#define TILEC_RUNTIME_JSON_H_

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "nlohmann/json.hpp"

namespace tilec {

// Objects keep their members in document order, so a record written back
// out (KernelInfo::json) reads like the original.
using Json = nlohmann::ordered_json;

// Deep enough for any metadata.
inline constexpr int kMaxJsonDepth = 64;

// "object", "array", "string", "number", "boolean" or "null".
absl::string_view JsonTypeName(const Json &value);

// Parses a complete document. Errors are InvalidArgument and read
// "malformed JSON at byte N: <what is wrong>".
absl::StatusOr<Json> ParseJson(absl::string_view text);

} // namespace tilec

#endif // TILEC_RUNTIME_JSON_H_
