#include "runtime/json.h"

#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace tilec {

namespace {

// what() of a nlohmann exception without its "[json.exception.parse_error.
// 101] parse error at line 1, column 4: " prefix: the byte offset says more
// than line and column for one-line documents.
std::string Detail(const Json::exception &error) {
  std::string what = error.what();
  size_t prefix = what.find("] ");
  if (prefix != std::string::npos)
    what = what.substr(prefix + 2);
  if (size_t at = what.find(": ");
      absl::StartsWith(what, "parse error") && at != std::string::npos)
    what = what.substr(at + 2);
  return what;
}

} // namespace

absl::string_view JsonTypeName(const Json &value) {
  switch (value.type()) {
  case Json::value_t::object:
    return "object";
  case Json::value_t::array:
    return "array";
  case Json::value_t::string:
    return "string";
  case Json::value_t::number_integer:
  case Json::value_t::number_unsigned:
  case Json::value_t::number_float:
    return "number";
  case Json::value_t::boolean:
    return "boolean";
  default:
    return "null";
  }
}

absl::StatusOr<Json> ParseJson(absl::string_view text) {
  // The parser callback sees each key with the depth of its object; the
  // first rule broken is remembered and the parse stopped by an exception
  // (the callback itself cannot fail the parse).
  std::vector<absl::flat_hash_set<std::string>> keys;
  std::string broken;
  struct Stop {};
  Json::parser_callback_t check = [&](int depth, Json::parse_event_t event,
                                      Json &parsed) {
    switch (event) {
    case Json::parse_event_t::object_start:
    case Json::parse_event_t::array_start:
      if (depth >= kMaxJsonDepth) {
        broken = absl::StrCat("nesting deeper than ", kMaxJsonDepth, " levels");
        throw Stop{};
      }
      if (event == Json::parse_event_t::object_start)
        keys.emplace_back();
      break;
    case Json::parse_event_t::object_end:
      keys.pop_back();
      break;
    case Json::parse_event_t::key: {
      std::string key = parsed.get<std::string>();
      if (!keys.back().insert(key).second) {
        broken = absl::StrCat("duplicate object key '", key, "'");
        throw Stop{};
      }
      break;
    }
    default:
      break;
    }
    return true;
  };
  // nlohmann takes a NUL byte for the end of the input and would ignore
  // what follows it.
  if (size_t nul = text.find('\0'); nul != absl::string_view::npos)
    return absl::InvalidArgumentError(
        absl::StrCat("malformed JSON at byte ", nul, ": unexpected NUL byte"));
  try {
    return Json::parse(text.begin(), text.end(), check);
  } catch (const Stop &) {
    return absl::InvalidArgumentError(absl::StrCat("malformed JSON: ", broken));
  } catch (const Json::parse_error &error) {
    // nlohmann counts the bytes read, the offending one included; report
    // its 0-based offset.
    return absl::InvalidArgumentError(
        absl::StrCat("malformed JSON at byte ",
                     error.byte > 0 ? error.byte - 1 : 0, ": ", Detail(error)));
  } catch (const Json::exception &error) {
    // Numbers out of range (out_of_range.406) carry no position.
    return absl::InvalidArgumentError(
        absl::StrCat("malformed JSON: ", Detail(error)));
  }
}

} // namespace tilec
