// runtime/json.h: nlohmann-json plus the metadata's rules (no duplicate
// keys, bounded nesting, no NUL bytes) and errors as absl::Status values.
#include "runtime/json.h"

#include <ostream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tilec {
namespace {

using ::testing::HasSubstr;

TEST(JsonTest, ParsesEveryValueType) {
  absl::StatusOr<Json> value = ParseJson(
      R"( {"a": [1, -2.5, 3e2, true, false, null], "b": {"c": "d"}, "e": []} )");
  ASSERT_TRUE(value.ok()) << value.status();
  ASSERT_TRUE(value->is_object());
  const Json &a = (*value)["a"];
  ASSERT_EQ(a.size(), 6u);
  EXPECT_TRUE(a[0].is_number_unsigned());
  EXPECT_EQ(a[0].get<uint64_t>(), 1u);
  EXPECT_TRUE(a[1].is_number_float());
  EXPECT_DOUBLE_EQ(a[1].get<double>(), -2.5);
  EXPECT_TRUE(a[2].is_number_float());
  EXPECT_DOUBLE_EQ(a[2].get<double>(), 300);
  EXPECT_TRUE(a[3].get<bool>());
  EXPECT_TRUE(a[4].is_boolean());
  EXPECT_FALSE(a[4].get<bool>());
  EXPECT_TRUE(a[5].is_null());
  EXPECT_EQ((*value)["b"]["c"], "d");
  EXPECT_TRUE((*value)["e"].empty());
  EXPECT_FALSE(value->contains("missing"));
  EXPECT_EQ(JsonTypeName(a), "array");
  EXPECT_EQ(JsonTypeName(a[1]), "number");
  EXPECT_EQ(JsonTypeName(a[5]), "null");
}

TEST(JsonTest, DecodesEscapes) {
  absl::StatusOr<Json> value = ParseJson(
      R"("q\" b\\ s\/ \b\f\n\r\t \u0041 \u00e9 \u20ac \ud83d\ude00")");
  ASSERT_TRUE(value.ok()) << value.status();
  EXPECT_EQ(value->get<std::string>(),
            "q\" b\\ s/ \b\f\n\r\t A \xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80");
}

TEST(JsonTest, KeepsMembersInDocumentOrder) {
  absl::StatusOr<Json> value = ParseJson(R"({"z": 1, "a": {"y": 2, "b": 3}})");
  ASSERT_TRUE(value.ok()) << value.status();
  EXPECT_EQ(value->dump(), R"({"z":1,"a":{"y":2,"b":3}})");
}

TEST(JsonTest, LargeIntegersStayExact) {
  absl::StatusOr<Json> value = ParseJson("9007199254740993");
  ASSERT_TRUE(value.ok());
  EXPECT_TRUE(value->is_number_unsigned());
  EXPECT_EQ(value->get<uint64_t>(), 9007199254740993u);
  // Beyond 64 bits: still a number, no longer an exact integer.
  value = ParseJson("99999999999999999999");
  ASSERT_TRUE(value.ok());
  EXPECT_TRUE(value->is_number_float());
}

struct MalformedCase {
  const char *text;
  const char *message; // expected substring, including the byte offset
};

// Keeps test names readable (gtest would print the struct's bytes).
void PrintTo(const MalformedCase &c, std::ostream *os) { *os << c.message; }

class MalformedJsonTest : public ::testing::TestWithParam<MalformedCase> {};

TEST_P(MalformedJsonTest, ReportsOffsetAndExpectation) {
  absl::StatusOr<Json> value = ParseJson(GetParam().text);
  ASSERT_FALSE(value.ok()) << "accepted: " << GetParam().text;
  EXPECT_EQ(value.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(value.status().message(), HasSubstr("malformed JSON"));
  EXPECT_THAT(value.status().message(), HasSubstr(GetParam().message));
}

// Offsets are 0-based, of the byte where the document went wrong.
INSTANTIATE_TEST_SUITE_P(
    Cases, MalformedJsonTest,
    ::testing::Values(
        MalformedCase{"", "byte 0: syntax error while parsing value - "
                          "unexpected end of input"},
        MalformedCase{"   ", "byte 3: syntax error while parsing value"},
        MalformedCase{"{", "byte 1: syntax error while parsing object key"},
        MalformedCase{"{\"a\" 1}", "byte 5: syntax error while parsing object "
                                   "separator - unexpected number literal; "
                                   "expected ':'"},
        MalformedCase{"{\"a\": 1,}",
                      "byte 8: syntax error while parsing object key - "
                      "unexpected '}'; expected string literal"},
        MalformedCase{"{\"a\": 1 \"b\": 2}",
                      "byte 10: syntax error while parsing object - "
                      "unexpected string literal; expected '}'"},
        MalformedCase{"{a: 1}", "byte 1: syntax error while parsing object "
                                "key - invalid literal"},
        MalformedCase{"{\"a\": 1, \"a\": 2}", "duplicate object key 'a'"},
        MalformedCase{"{\"a\": {\"b\": 1, \"b\": 2}}",
                      "duplicate object key 'b'"},
        MalformedCase{"[1, 2", "byte 5: syntax error while parsing array - "
                               "unexpected end of input; expected ']'"},
        MalformedCase{"[1,]", "byte 3: syntax error while parsing value - "
                              "unexpected ']'"},
        MalformedCase{"[1 2]", "byte 3: syntax error while parsing array"},
        MalformedCase{"\"abc", "byte 4: syntax error while parsing value - "
                               "invalid string: missing closing quote"},
        MalformedCase{"\"a\nb\"",
                      "byte 2: syntax error while parsing value - invalid "
                      "string: control character U+000A (LF) must be escaped"},
        MalformedCase{"\"\\x\"", "byte 2: syntax error while parsing value - "
                                 "invalid string: forbidden character after "
                                 "backslash"},
        MalformedCase{"\"\\u12g4\"", "byte 5: syntax error while parsing "
                                     "value - invalid string: '\\u' must be "
                                     "followed by 4 hex digits"},
        MalformedCase{"\"\\ud800\"", "surrogate U+D800..U+DBFF must be "
                                     "followed by U+DC00..U+DFFF"},
        MalformedCase{"\"\\ud800\\u0041\"", "surrogate U+D800..U+DBFF must be "
                                            "followed by U+DC00..U+DFFF"},
        MalformedCase{"\"\\udc00\"", "byte 6: syntax error while parsing "
                                     "value - invalid string: surrogate "
                                     "U+DC00..U+DFFF must follow"},
        MalformedCase{"01", "byte 1: syntax error while parsing value - "
                            "unexpected number literal; expected end of input"},
        MalformedCase{"-", "byte 1: syntax error while parsing value - "
                           "invalid number; expected digit after '-'"},
        MalformedCase{"1.", "byte 2: syntax error while parsing value - "
                            "invalid number; expected digit after '.'"},
        MalformedCase{"1e", "byte 2: syntax error while parsing value - "
                            "invalid number; expected '+', '-', or digit "
                            "after exponent"},
        MalformedCase{"1e400", "number overflow parsing '1e400'"},
        MalformedCase{"+1", "byte 0: syntax error while parsing value - "
                            "invalid literal; last read: '+'"},
        MalformedCase{"NaN", "byte 0: syntax error while parsing value - "
                             "invalid literal; last read: 'N'"},
        MalformedCase{"tru", "byte 3: syntax error while parsing value - "
                             "invalid literal; last read: 'tru'"},
        MalformedCase{"nul", "invalid literal; last read: 'nul'"},
        MalformedCase{"{} x", "byte 3: syntax error while parsing value - "
                              "invalid literal; last read: '{} x'; expected "
                              "end of input"},
        MalformedCase{"// c\n{}", "byte 0: syntax error while parsing value "
                                  "- invalid literal; last read: '/'"},
        MalformedCase{"\x01", "byte 0: syntax error while parsing value - "
                              "invalid literal; last read: '<U+0001>'"}));

TEST(JsonTest, RejectsDeepNesting) {
  std::string deep(200, '[');
  absl::StatusOr<Json> value = ParseJson(deep);
  ASSERT_FALSE(value.ok());
  EXPECT_THAT(value.status().message(),
              HasSubstr("nesting deeper than 64 levels"));
  // 64 levels are fine.
  EXPECT_TRUE(ParseJson(std::string(64, '[') + std::string(64, ']')).ok());
}

TEST(JsonTest, RejectsEmbeddedNul) {
  // nlohmann alone would stop at the NUL and accept "[1]".
  absl::StatusOr<Json> value = ParseJson(std::string("[1]\0x", 5));
  ASSERT_FALSE(value.ok());
  EXPECT_THAT(value.status().message(),
              HasSubstr("malformed JSON at byte 3: unexpected NUL byte"));
}

} // namespace
} // namespace tilec
