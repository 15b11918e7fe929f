#include "runtime/json.h"

#include <ostream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tilec {
namespace {

using ::testing::HasSubstr;

TEST(JsonTest, ParsesEveryValueType) {
  absl::StatusOr<JsonValue> value = ParseJson(
      R"( {"a": [1, -2.5, 3e2, true, false, null], "b": {"c": "d"}, "e": []} )");
  ASSERT_TRUE(value.ok()) << value.status();
  ASSERT_EQ(value->type, JsonValue::Type::kObject);
  const JsonValue *a = value->Find("a");
  ASSERT_NE(a, nullptr);
  ASSERT_EQ(a->array.size(), 6u);
  EXPECT_TRUE(a->array[0].is_integer);
  EXPECT_EQ(a->array[0].integer, 1);
  EXPECT_FALSE(a->array[1].is_integer);
  EXPECT_DOUBLE_EQ(a->array[1].number, -2.5);
  EXPECT_FALSE(a->array[2].is_integer);
  EXPECT_DOUBLE_EQ(a->array[2].number, 300);
  EXPECT_TRUE(a->array[3].boolean);
  EXPECT_EQ(a->array[4].type, JsonValue::Type::kBool);
  EXPECT_FALSE(a->array[4].boolean);
  EXPECT_EQ(a->array[5].type, JsonValue::Type::kNull);
  EXPECT_EQ(value->Find("b")->Find("c")->string, "d");
  EXPECT_TRUE(value->Find("e")->array.empty());
  EXPECT_EQ(value->Find("missing"), nullptr);
}

TEST(JsonTest, DecodesEscapes) {
  absl::StatusOr<JsonValue> value = ParseJson(
      R"("q\" b\\ s\/ \b\f\n\r\t \u0041 \u00e9 \u20ac \ud83d\ude00")");
  ASSERT_TRUE(value.ok()) << value.status();
  EXPECT_EQ(value->string,
            "q\" b\\ s/ \b\f\n\r\t A \xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80");
}

TEST(JsonTest, RecordsByteRanges) {
  std::string text = R"({"k": {"x": 1}})";
  absl::StatusOr<JsonValue> value = ParseJson(text);
  ASSERT_TRUE(value.ok()) << value.status();
  const JsonValue *k = value->Find("k");
  EXPECT_EQ(text.substr(k->begin, k->end - k->begin), R"({"x": 1})");
}

TEST(JsonTest, LargeIntegersStayExact) {
  absl::StatusOr<JsonValue> value = ParseJson("9007199254740993");
  ASSERT_TRUE(value.ok());
  EXPECT_TRUE(value->is_integer);
  EXPECT_EQ(value->integer, 9007199254740993);
  // Beyond int64: still a number, no longer an exact integer.
  value = ParseJson("99999999999999999999");
  ASSERT_TRUE(value.ok());
  EXPECT_FALSE(value->is_integer);
}

struct MalformedCase {
  const char *text;
  const char *message; // expected substring, including the byte offset
};

// Keeps test names readable (gtest would print the struct's bytes).
void PrintTo(const MalformedCase &c, std::ostream *os) { *os << c.message; }

class MalformedJsonTest : public ::testing::TestWithParam<MalformedCase> {};

TEST_P(MalformedJsonTest, ReportsOffsetAndExpectation) {
  absl::StatusOr<JsonValue> value = ParseJson(GetParam().text);
  ASSERT_FALSE(value.ok()) << "accepted: " << GetParam().text;
  EXPECT_EQ(value.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(value.status().message(), HasSubstr("malformed JSON at byte "));
  EXPECT_THAT(value.status().message(), HasSubstr(GetParam().message));
}

INSTANTIATE_TEST_SUITE_P(
    Cases, MalformedJsonTest,
    ::testing::Values(
        MalformedCase{"", "byte 0: expected a value, got end of input"},
        MalformedCase{"   ", "byte 3: expected a value"},
        MalformedCase{"{", "byte 1: expected a string key or '}'"},
        MalformedCase{"{\"a\" 1}", "byte 5: expected ':' after object key"},
        MalformedCase{"{\"a\": 1,}", "byte 8: expected a string key, got '}'"},
        MalformedCase{"{\"a\": 1 \"b\": 2}",
                      "byte 8: expected ',' or '}' after object member"},
        MalformedCase{"{a: 1}",
                      "byte 1: expected a string key or '}', got 'a'"},
        MalformedCase{"{\"a\": 1, \"a\": 2}",
                      "byte 9: duplicate object key 'a'"},
        MalformedCase{"[1, 2", "byte 5: expected ',' or ']' after array "
                               "element, got end of input"},
        MalformedCase{"[1,]", "byte 3: expected a value, got ']'"},
        MalformedCase{"[1 2]", "byte 3: expected ',' or ']'"},
        MalformedCase{"\"abc", "byte 4: expected '\"' to close the string"},
        MalformedCase{"\"a\nb\"", "byte 2: control character 0x0a"},
        MalformedCase{"\"\\x\"", "byte 2: expected an escape character"},
        MalformedCase{"\"\\u12g4\"", "byte 5: expected a hex digit"},
        MalformedCase{"\"\\ud800\"", "expected a \\u low surrogate"},
        MalformedCase{"\"\\ud800\\u0041\"", "expected a low surrogate"},
        MalformedCase{"\"\\udc00\"", "byte 1: lone low surrogate"},
        MalformedCase{"01", "byte 0: numbers must not have leading zeros"},
        MalformedCase{"-", "byte 1: expected a digit, got end of input"},
        MalformedCase{"1.", "byte 2: expected a digit after '.'"},
        MalformedCase{"1e", "byte 2: expected a digit in the exponent"},
        MalformedCase{"1e400", "byte 0: number 1e400 is out of range"},
        MalformedCase{"+1", "byte 0: expected a value, got '+'"},
        MalformedCase{"NaN", "byte 0: expected a value, got 'N'"},
        MalformedCase{"tru", "byte 0: expected a value"},
        MalformedCase{"nul", "byte 0: expected a value"},
        MalformedCase{"{} x", "byte 3: expected end of document, got 'x'"},
        MalformedCase{"// c\n{}", "byte 0: expected a value, got '/'"},
        MalformedCase{"\x01", "byte 0: expected a value, got byte 0x01"}));

TEST(JsonTest, RejectsDeepNesting) {
  std::string deep(200, '[');
  absl::StatusOr<JsonValue> value = ParseJson(deep);
  ASSERT_FALSE(value.ok());
  EXPECT_THAT(value.status().message(), HasSubstr("nesting deeper than"));
}

TEST(JsonTest, RejectsEmbeddedNul) {
  absl::StatusOr<JsonValue> value = ParseJson(std::string("[1]\0", 4));
  ASSERT_FALSE(value.ok());
  EXPECT_THAT(value.status().message(),
              HasSubstr("byte 3: expected end of document, got byte 0x00"));
}

} // namespace
} // namespace tilec
