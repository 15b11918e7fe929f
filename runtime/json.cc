#include "runtime/json.h"

#include <limits>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace tilec {
namespace {

// Deep enough for any metadata, shallow enough to bound recursion.
constexpr int kMaxDepth = 64;

class Parser {
public:
  explicit Parser(absl::string_view text) : text_(text) {}

  absl::StatusOr<JsonValue> ParseDocument() {
    JsonValue value;
    SkipWhitespace();
    if (absl::Status status = ParseValue(value, 0); !status.ok())
      return status;
    SkipWhitespace();
    if (pos_ != text_.size())
      return Expected("end of document");
    return value;
  }

private:
  bool AtEnd() const { return pos_ >= text_.size(); }
  char Peek() const { return AtEnd() ? '\0' : text_[pos_]; }

  void SkipWhitespace() {
    while (!AtEnd() && (Peek() == ' ' || Peek() == '\t' || Peek() == '\n' ||
                        Peek() == '\r'))
      ++pos_;
  }

  absl::Status ErrorAt(size_t pos, absl::string_view message) const {
    return absl::InvalidArgumentError(
        absl::StrCat("malformed JSON at byte ", pos, ": ", message));
  }

  // "expected <what>, got <the character at the current position>".
  absl::Status Expected(absl::string_view what) const {
    std::string got;
    if (AtEnd()) {
      got = "end of input";
    } else {
      unsigned char c = static_cast<unsigned char>(Peek());
      got = (c >= 0x20 && c < 0x7f) ? absl::StrFormat("'%c'", c)
                                    : absl::StrFormat("byte 0x%02x", c);
    }
    return ErrorAt(pos_, absl::StrCat("expected ", what, ", got ", got));
  }

  bool Consume(char c) {
    if (AtEnd() || text_[pos_] != c)
      return false;
    ++pos_;
    return true;
  }

  absl::Status ParseValue(JsonValue &out, int depth) {
    if (depth > kMaxDepth)
      return ErrorAt(
          pos_, absl::StrCat("nesting deeper than ", kMaxDepth, " levels"));
    out.begin = pos_;
    absl::Status status;
    switch (Peek()) {
    case '{':
      status = ParseObject(out, depth);
      break;
    case '[':
      status = ParseArray(out, depth);
      break;
    case '"':
      out.type = JsonValue::Type::kString;
      status = ParseString(out.string);
      break;
    case 't':
      status = ParseLiteral("true", out);
      break;
    case 'f':
      status = ParseLiteral("false", out);
      break;
    case 'n':
      status = ParseLiteral("null", out);
      break;
    default:
      if (Peek() == '-' || (Peek() >= '0' && Peek() <= '9'))
        status = ParseNumber(out);
      else
        status = Expected("a value");
    }
    out.end = pos_;
    return status;
  }

  absl::Status ParseLiteral(absl::string_view word, JsonValue &out) {
    if (text_.substr(pos_, word.size()) != word)
      return Expected("a value");
    pos_ += word.size();
    out.type = word == "null" ? JsonValue::Type::kNull : JsonValue::Type::kBool;
    out.boolean = word == "true";
    return absl::OkStatus();
  }

  absl::Status ParseObject(JsonValue &out, int depth) {
    out.type = JsonValue::Type::kObject;
    ++pos_; // '{'
    SkipWhitespace();
    if (Consume('}'))
      return absl::OkStatus();
    while (true) {
      if (Peek() != '"')
        return Expected(out.object.empty() ? "a string key or '}'"
                                           : "a string key");
      size_t key_pos = pos_;
      std::string key;
      if (absl::Status status = ParseString(key); !status.ok())
        return status;
      for (const auto &member : out.object)
        if (member.first == key)
          return ErrorAt(key_pos,
                         absl::StrCat("duplicate object key '", key, "'"));
      SkipWhitespace();
      if (!Consume(':'))
        return Expected("':' after object key");
      SkipWhitespace();
      JsonValue value;
      if (absl::Status status = ParseValue(value, depth + 1); !status.ok())
        return status;
      out.object.emplace_back(std::move(key), std::move(value));
      SkipWhitespace();
      if (Consume('}'))
        return absl::OkStatus();
      if (!Consume(','))
        return Expected("',' or '}' after object member");
      SkipWhitespace();
    }
  }

  absl::Status ParseArray(JsonValue &out, int depth) {
    out.type = JsonValue::Type::kArray;
    ++pos_; // '['
    SkipWhitespace();
    if (Consume(']'))
      return absl::OkStatus();
    while (true) {
      JsonValue element;
      if (absl::Status status = ParseValue(element, depth + 1); !status.ok())
        return status;
      out.array.push_back(std::move(element));
      SkipWhitespace();
      if (Consume(']'))
        return absl::OkStatus();
      if (!Consume(','))
        return Expected("',' or ']' after array element");
      SkipWhitespace();
    }
  }

  // Reads four hex digits of a \u escape.
  absl::Status ParseHex4(uint32_t &out) {
    out = 0;
    for (int i = 0; i < 4; ++i) {
      char c = Peek();
      uint32_t digit;
      if (c >= '0' && c <= '9')
        digit = c - '0';
      else if (c >= 'a' && c <= 'f')
        digit = c - 'a' + 10;
      else if (c >= 'A' && c <= 'F')
        digit = c - 'A' + 10;
      else
        return Expected("a hex digit in \\u escape");
      out = out * 16 + digit;
      ++pos_;
    }
    return absl::OkStatus();
  }

  static void AppendUtf8(uint32_t code_point, std::string &out) {
    if (code_point < 0x80) {
      out += static_cast<char>(code_point);
    } else if (code_point < 0x800) {
      out += static_cast<char>(0xC0 | (code_point >> 6));
      out += static_cast<char>(0x80 | (code_point & 0x3F));
    } else if (code_point < 0x10000) {
      out += static_cast<char>(0xE0 | (code_point >> 12));
      out += static_cast<char>(0x80 | ((code_point >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (code_point & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (code_point >> 18));
      out += static_cast<char>(0x80 | ((code_point >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((code_point >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (code_point & 0x3F));
    }
  }

  // Parses the \u escape whose 'u' was just consumed.
  absl::Status ParseUnicodeEscape(size_t escape_pos, std::string &out) {
    uint32_t unit;
    if (absl::Status status = ParseHex4(unit); !status.ok())
      return status;
    if (unit >= 0xDC00 && unit <= 0xDFFF)
      return ErrorAt(escape_pos, "lone low surrogate in \\u escape");
    if (unit >= 0xD800 && unit <= 0xDBFF) {
      if (!Consume('\\') || !Consume('u'))
        return Expected("a \\u low surrogate after a high surrogate");
      uint32_t low;
      if (absl::Status status = ParseHex4(low); !status.ok())
        return status;
      if (low < 0xDC00 || low > 0xDFFF)
        return ErrorAt(pos_ - 6, "expected a low surrogate \\uDC00-\\uDFFF "
                                 "after a high surrogate");
      unit = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00);
    }
    AppendUtf8(unit, out);
    return absl::OkStatus();
  }

  absl::Status ParseString(std::string &out) {
    ++pos_; // opening quote
    while (true) {
      if (AtEnd())
        return Expected("'\"' to close the string");
      unsigned char c = static_cast<unsigned char>(Peek());
      if (c == '"') {
        ++pos_;
        return absl::OkStatus();
      }
      if (c < 0x20)
        return ErrorAt(pos_, absl::StrFormat("control character 0x%02x must "
                                             "be escaped in a string",
                                             c));
      if (c != '\\') {
        out += static_cast<char>(c);
        ++pos_;
        continue;
      }
      size_t escape_pos = pos_++;
      char e = Peek();
      ++pos_;
      switch (e) {
      case '"':
      case '\\':
      case '/':
        out += e;
        break;
      case 'b':
        out += '\b';
        break;
      case 'f':
        out += '\f';
        break;
      case 'n':
        out += '\n';
        break;
      case 'r':
        out += '\r';
        break;
      case 't':
        out += '\t';
        break;
      case 'u':
        if (absl::Status status = ParseUnicodeEscape(escape_pos, out);
            !status.ok())
          return status;
        break;
      default:
        --pos_;
        return Expected("an escape character (one of \" \\ / b f n r t u)");
      }
    }
  }

  absl::Status ConsumeDigits(absl::string_view what) {
    if (AtEnd() || Peek() < '0' || Peek() > '9')
      return Expected(what);
    while (!AtEnd() && Peek() >= '0' && Peek() <= '9')
      ++pos_;
    return absl::OkStatus();
  }

  absl::Status ParseNumber(JsonValue &out) {
    size_t start = pos_;
    Consume('-');
    if (Consume('0')) {
      if (!AtEnd() && Peek() >= '0' && Peek() <= '9')
        return ErrorAt(pos_ - 1, "numbers must not have leading zeros");
    } else if (absl::Status status = ConsumeDigits("a digit"); !status.ok()) {
      return status;
    }
    bool integral = true;
    if (Consume('.')) {
      integral = false;
      if (absl::Status status = ConsumeDigits("a digit after '.'");
          !status.ok())
        return status;
    }
    if (Consume('e') || Consume('E')) {
      integral = false;
      if (!Consume('+'))
        Consume('-');
      if (absl::Status status = ConsumeDigits("a digit in the exponent");
          !status.ok())
        return status;
    }
    absl::string_view literal = text_.substr(start, pos_ - start);
    out.type = JsonValue::Type::kNumber;
    if (!absl::SimpleAtod(literal, &out.number) ||
        out.number == std::numeric_limits<double>::infinity() ||
        out.number == -std::numeric_limits<double>::infinity())
      return ErrorAt(start,
                     absl::StrCat("number ", literal, " is out of range"));
    out.is_integer = integral && absl::SimpleAtoi(literal, &out.integer);
    return absl::OkStatus();
  }

  absl::string_view text_;
  size_t pos_ = 0;
};

} // namespace

const JsonValue *JsonValue::Find(absl::string_view key) const {
  for (const auto &member : object)
    if (member.first == key)
      return &member.second;
  return nullptr;
}

absl::string_view JsonTypeName(JsonValue::Type type) {
  switch (type) {
  case JsonValue::Type::kNull:
    return "null";
  case JsonValue::Type::kBool:
    return "boolean";
  case JsonValue::Type::kNumber:
    return "number";
  case JsonValue::Type::kString:
    return "string";
  case JsonValue::Type::kArray:
    return "array";
  case JsonValue::Type::kObject:
    return "object";
  }
  return "unknown";
}

absl::StatusOr<JsonValue> ParseJson(absl::string_view text) {
  return Parser(text).ParseDocument();
}

} // namespace tilec
