// A small strict JSON parser (RFC 8259) for kernel metadata.
//
// The runtime takes no dependency beyond abseil, and metadata is small, so a
// tree of values is enough. Strict: no comments, trailing commas, leading
// zeros, NaN/Infinity, unescaped control characters, lone surrogates or
// duplicate object keys.
#ifndef TILEC_RUNTIME_JSON_H_
#define TILEC_RUNTIME_JSON_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace tilec {

struct JsonValue {
  enum class Type { kNull, kBool, kNumber, kString, kArray, kObject };

  Type type = Type::kNull;
  bool boolean = false;
  double number = 0;
  // Set for numbers written without fraction or exponent that fit in int64.
  bool is_integer = false;
  int64_t integer = 0;
  std::string string;
  std::vector<JsonValue> array;
  // Members in document order; keys are unique.
  std::vector<std::pair<std::string, JsonValue>> object;
  // Byte range [begin, end) of the value's text in the parsed document.
  size_t begin = 0;
  size_t end = 0;

  // The member named `key` of an object, or null.
  const JsonValue *Find(absl::string_view key) const;
};

// Human-readable type name ("object", "number", ...) for error messages.
absl::string_view JsonTypeName(JsonValue::Type type);

// Parses a complete document. Errors are InvalidArgument and read
// "malformed JSON at byte N: expected X, got Y".
absl::StatusOr<JsonValue> ParseJson(absl::string_view text);

} // namespace tilec

#endif // TILEC_RUNTIME_JSON_H_
