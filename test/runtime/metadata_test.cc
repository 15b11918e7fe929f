#include "runtime/metadata.h"

#include <ostream>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tilec {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// The example of docs/metadata.md.
constexpr char kSoftmaxKernel[] = R"({
      "name": "softmax_f32",
      "block": [256, 1, 1],
      "shared_bytes": 2048,
      "cluster": [1, 1, 1],
      "params": [
        {"name": "x",    "kind": "ptr", "elem": "f32"},
        {"name": "y",    "kind": "ptr", "elem": "f32"},
        {"name": "rows", "kind": "i32"},
        {"name": "cols", "kind": "i32"}
      ],
      "tensor_maps": []
    })";

std::string Document(absl::string_view kernels,
                     absl::string_view format = kMetadataFormat) {
  return absl::StrCat(R"({"format": ")", format, R"(", "target": "sm_90a",)",
                      R"( "kernels": [)", kernels, "]}");
}

// A kernel of a pointer and an i32 m whose one tensor map (hidden
// parameter 2, 2-D bf16 over m-sized rows) has the given sizes and box rows.
std::string KernelWithMap(absl::string_view sizes, int box_rows) {
  return absl::StrCat(R"({"name": "g", "block": [128, 1, 1], )",
                      R"("shared_bytes": 0, "cluster": [1, 1, 1], )",
                      R"("params": [{"name": "a", "kind": "ptr", )",
                      R"("elem": "bf16"}, {"name": "m", "kind": "i32"}], )",
                      R"("tensor_maps": [{"param": 2, "elem": "bf16", )",
                      R"("base": 0, "sizes": )", sizes,
                      R"(, "strides": [{"arg": 1}, {"value": 1}], "box": [)",
                      box_rows, R"(, 64], "swizzle": 128}]})");
}

// The softmax kernel with one piece of text replaced.
std::string WithSoftmax(absl::string_view from, absl::string_view to) {
  std::string kernel = kSoftmaxKernel;
  EXPECT_TRUE(absl::StrContains(kernel, from)) << from;
  return Document(absl::StrReplaceAll(kernel, {{from, to}}));
}

TEST(MetadataTest, ParsesTheDocumentedExample) {
  absl::StatusOr<ModuleInfo> info = ParseMetadata(Document(kSoftmaxKernel));
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_EQ(info->format, "tilec-metadata-v2");
  // Documents of the first format still load.
  absl::StatusOr<ModuleInfo> v1 =
      ParseMetadata(Document(kSoftmaxKernel, kMetadataFormatV1));
  ASSERT_TRUE(v1.ok()) << v1.status();
  EXPECT_EQ(v1->format, "tilec-metadata-v1");
  EXPECT_EQ(info->target, "sm_90a");
  ASSERT_EQ(info->kernels.size(), 1u);
  const KernelInfo &kernel = info->kernels[0];
  EXPECT_EQ(kernel.name, "softmax_f32");
  EXPECT_EQ(kernel.target, "sm_90a");
  EXPECT_THAT(kernel.block, ElementsAre(256, 1, 1));
  EXPECT_EQ(kernel.shared_bytes, 2048u);
  EXPECT_THAT(kernel.cluster, ElementsAre(1, 1, 1));
  EXPECT_FALSE(kernel.HasCluster());
  ASSERT_EQ(kernel.params.size(), 4u);
  EXPECT_EQ(kernel.params[0].name, "x");
  EXPECT_EQ(kernel.params[0].kind, ParamKind::kPtr);
  EXPECT_EQ(kernel.params[0].elem, "f32");
  EXPECT_EQ(kernel.params[2].name, "rows");
  EXPECT_EQ(kernel.params[2].kind, ParamKind::kI32);
  EXPECT_EQ(kernel.params[2].elem, "");
  EXPECT_TRUE(kernel.tensor_maps.empty());
  // The record comes back compact, members in document order.
  EXPECT_EQ(kernel.json,
            R"({"name":"softmax_f32","block":[256,1,1],"shared_bytes":2048,)"
            R"("cluster":[1,1,1],"params":[{"name":"x","kind":"ptr",)"
            R"("elem":"f32"},{"name":"y","kind":"ptr","elem":"f32"},)"
            R"({"name":"rows","kind":"i32"},{"name":"cols","kind":"i32"}],)"
            R"("tensor_maps":[]})");
}

TEST(MetadataTest, ParsesEveryKindClustersAndTensorMaps) {
  absl::StatusOr<ModuleInfo> info = ParseMetadata(Document(R"({
      "name": "gemm", "block": [128, 1, 1], "shared_bytes": 200000,
      "cluster": [2, 1, 1],
      "params": [
        {"name": "a", "kind": "tensormap", "elem": "f8e4m3"},
        {"name": "c", "kind": "ptr", "elem": "bf16"},
        {"name": "m", "kind": "i32"}, {"name": "k", "kind": "i64"},
        {"name": "alpha", "kind": "f32"}, {"name": "beta", "kind": "f64"}],
      "tensor_maps": [{"param": 6, "elem": "bf16", "base": 1,
                       "sizes": [{"arg": 2}, {"arg": 3}],
                       "strides": [{"arg": 3}, {"value": 1}],
                       "box": [8, 64], "swizzle": 128, "required": true}],
      "registers": 168
    }, {"name": "empty", "block": [32, 1, 1], "shared_bytes": 0,
        "cluster": [1, 1, 1], "params": [], "tensor_maps": []})"));
  ASSERT_TRUE(info.ok()) << info.status();
  ASSERT_EQ(info->kernels.size(), 2u);
  const KernelInfo &gemm = info->kernels[0];
  EXPECT_TRUE(gemm.HasCluster());
  EXPECT_EQ(gemm.shared_bytes, 200000u);
  ASSERT_EQ(gemm.params.size(), 6u);
  EXPECT_EQ(gemm.params[0].kind, ParamKind::kTensorMap);
  EXPECT_EQ(gemm.params[3].kind, ParamKind::kI64);
  EXPECT_EQ(gemm.params[4].kind, ParamKind::kF32);
  EXPECT_EQ(gemm.params[5].kind, ParamKind::kF64);
  ASSERT_EQ(gemm.tensor_maps.size(), 1u);
  const TensorMapInfo &map = gemm.tensor_maps[0];
  EXPECT_EQ(map.param, 6);
  EXPECT_EQ(map.elem, "bf16");
  EXPECT_EQ(map.base, 1);
  ASSERT_EQ(map.sizes.size(), 2u);
  EXPECT_EQ(map.sizes[0].arg, 2);
  EXPECT_EQ(map.sizes[1].arg, 3);
  EXPECT_EQ(map.strides[0].arg, 3);
  EXPECT_EQ(map.strides[1].arg, -1);
  EXPECT_EQ(map.strides[1].value, 1);
  EXPECT_THAT(map.box, ElementsAre(8u, 64u));
  EXPECT_EQ(map.swizzle, 128u);
  EXPECT_TRUE(map.required);
  EXPECT_TRUE(info->kernels[1].params.empty());

  // "required" is optional (false) and, when present, a boolean.
  absl::StatusOr<ModuleInfo> bad = ParseMetadata(Document(R"({
      "name": "g", "block": [128, 1, 1], "shared_bytes": 0,
      "cluster": [1, 2, 1],
      "params": [{"name": "a", "kind": "ptr", "elem": "bf16"},
                 {"name": "m", "kind": "i32"}],
      "tensor_maps": [{"param": 2, "elem": "bf16", "base": 0,
                       "sizes": [{"arg": 1}, {"arg": 1}],
                       "strides": [{"arg": 1}, {"value": 1}],
                       "box": [8, 64], "swizzle": 128, "required": 1}]})"));
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(std::string(bad.status().message()),
              HasSubstr("tensor_maps[0].required: expected a boolean"));
}

TEST(MetadataTest, ParsesScaledSizesAndWholeOuterMaps) {
  // A map that lands rows in wgmma order: sizes and strides scaled from
  // arguments ("mul", "div"), copied only where whole outer boxes fit.
  absl::StatusOr<ModuleInfo> info = ParseMetadata(Document(R"({
      "name": "g", "block": [384, 1, 1], "shared_bytes": 0,
      "cluster": [1, 1, 1],
      "params": [{"name": "x", "kind": "ptr", "elem": "f8e4m3"},
                 {"name": "m", "kind": "i32"}, {"name": "k", "kind": "i32"}],
      "tensor_maps": [{"param": 3, "elem": "f8e4m3", "base": 0,
                       "sizes": [{"arg": 1, "div": 128}, {"value": 8},
                                 {"value": 2}, {"value": 8}, {"arg": 2}],
                       "strides": [{"arg": 2, "mul": 128}, {"arg": 2, "mul": 8},
                                   {"arg": 2, "mul": 64}, {"arg": 2},
                                   {"value": 1}],
                       "box": [1, 8, 2, 8, 128], "swizzle": 128,
                       "whole_outer": true}]})"));
  ASSERT_TRUE(info.ok()) << info.status();
  const TensorMapInfo &map = info->kernels[0].tensor_maps[0];
  EXPECT_TRUE(map.whole_outer);
  EXPECT_EQ(map.sizes[0].arg, 1);
  EXPECT_EQ(map.sizes[0].div, 128);
  EXPECT_EQ(map.sizes[0].mul, 1);
  EXPECT_EQ(map.strides[2].mul, 64);
  EXPECT_EQ(map.strides[2].div, 1);
  EXPECT_THAT(map.box, ElementsAre(1u, 8u, 2u, 8u, 128u));

  // Factors are positive.
  absl::StatusOr<ModuleInfo> bad = ParseMetadata(
      Document(KernelWithMap(R"([{"arg": 1, "div": 0}, {"arg": 1}])", 8)));
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(std::string(bad.status().message()),
              HasSubstr("sizes[0].div: expected 1 to 2^16, got 0"));

  // Constants are written scaled; a factor next to one is an error.
  bad = ParseMetadata(
      Document(KernelWithMap(R"([{"value": 8, "mul": 2}, {"arg": 1}])", 8)));
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(std::string(bad.status().message()),
              HasSubstr("sizes[0].mul: scales an argument"));

  // A v1 document cannot use them: a runtime that knows only v1 would
  // encode such a map wrong, so the compiler writes v2 for them.
  const std::string scaled =
      KernelWithMap(R"([{"arg": 1, "div": 128}, {"arg": 1}])", 1);
  ASSERT_TRUE(ParseMetadata(Document(scaled)).ok());
  bad = ParseMetadata(Document(scaled, kMetadataFormatV1));
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(std::string(bad.status().message()),
              HasSubstr("tensor map 2 uses mul, div or whole_outer, which "
                        "need format 'tilec-metadata-v2'"));
}

TEST(MetadataTest, ReadsDependentLaunch) {
  absl::StatusOr<ModuleInfo> plain = ParseMetadata(Document(kSoftmaxKernel));
  ASSERT_TRUE(plain.ok()) << plain.status();
  EXPECT_FALSE(plain->kernels[0].dependent_launch);
  absl::StatusOr<ModuleInfo> info = ParseMetadata(
      WithSoftmax(R"("tensor_maps": [])",
                  R"("tensor_maps": [], "dependent_launch": true)"));
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_TRUE(info->kernels[0].dependent_launch);
  absl::StatusOr<ModuleInfo> bad = ParseMetadata(WithSoftmax(
      R"("tensor_maps": [])", R"("tensor_maps": [], "dependent_launch": 1)"));
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(
      std::string(bad.status().message()),
      HasSubstr("('softmax_f32').dependent_launch: expected a boolean"));
}

TEST(MetadataTest, ParsesAPersistentKernel) {
  absl::StatusOr<ModuleInfo> info = ParseMetadata(WithSoftmax(
      R"("tensor_maps": [])", R"("tensor_maps": [], "persistent": 8)"));
  ASSERT_FALSE(info.ok()) << "a persistent kernel without tile counts";
  EXPECT_THAT(info.status().message(),
              HasSubstr("kernels[0] ('softmax_f32').persistent: a persistent "
                        "kernel's last two params must be the i32 tile counts "
                        "'tiles_x' and 'tiles_y'"));
  info = ParseMetadata(WithSoftmax(
      R"({"name": "cols", "kind": "i32"}
      ],
      "tensor_maps": [])",
      R"({"name": "cols", "kind": "i32"},
        {"name": "tiles_x", "kind": "i32"}, {"name": "tiles_y", "kind": "i32"}
      ],
      "tensor_maps": [], "persistent": 8)"));
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_EQ(info->kernels[0].persistent_group, 8u);
  // Without the field: 0.
  info = ParseMetadata(Document(kSoftmaxKernel));
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_EQ(info->kernels[0].persistent_group, 0u);
  info = ParseMetadata(WithSoftmax(R"("tensor_maps": [])",
                                   R"("tensor_maps": [], "persistent": 0)"));
  ASSERT_FALSE(info.ok());
  EXPECT_THAT(info.status().message(),
              HasSubstr("persistent: expected an integer in [1, "));
}

TEST(MetadataTest, ParsesASplitKernel) {
  absl::StatusOr<ModuleInfo> info = ParseMetadata(
      WithSoftmax(R"("tensor_maps": [])",
                  R"("tensor_maps": [], "split_k": {"partial_bytes": 16384})"));
  ASSERT_FALSE(info.ok()) << "a split kernel without its scratch params";
  EXPECT_THAT(info.status().message(),
              HasSubstr("kernels[0] ('softmax_f32').split_k: a split kernel's "
                        "last two params must be the f32 pointer "
                        "'split_partials' and the i32 pointer "
                        "'split_tickets'"));
  const std::string params = R"({"name": "cols", "kind": "i32"},
        {"name": "split_partials", "kind": "ptr", "elem": "f32"},
        {"name": "split_tickets", "kind": "ptr", "elem": "i32"}
      ],)";
  info = ParseMetadata(WithSoftmax(
      R"({"name": "cols", "kind": "i32"}
      ],
      "tensor_maps": [])",
      params + R"(
      "tensor_maps": [], "split_k": {"partial_bytes": 16384})"));
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_EQ(info->kernels[0].split_k_partial_bytes, 16384u);
  // Without the field: 0.
  info = ParseMetadata(Document(kSoftmaxKernel));
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_EQ(info->kernels[0].split_k_partial_bytes, 0u);
  // Malformed: not an object; no or too few bytes.
  for (const char *field : {R"("split_k": 4)", R"("split_k": {})",
                            R"("split_k": {"partial_bytes": 2})"}) {
    info = ParseMetadata(WithSoftmax(
        R"({"name": "cols", "kind": "i32"}
      ],
      "tensor_maps": [])",
        params + R"(
      "tensor_maps": [], )" +
            field));
    EXPECT_FALSE(info.ok()) << field;
    EXPECT_THAT(info.status().message(), HasSubstr("split_k")) << field;
  }
}

TEST(MetadataTest, KindNamesRoundTrip) {
  for (ParamKind kind :
       {ParamKind::kPtr, ParamKind::kI32, ParamKind::kI64, ParamKind::kF32,
        ParamKind::kF64, ParamKind::kTensorMap})
    EXPECT_EQ(ParamKindFromName(ParamKindName(kind)), kind);
  EXPECT_EQ(ParamKindFromName("f16"), std::nullopt);
}

struct BadCase {
  std::string name;
  std::string document;
  std::string message;
};

// Keeps test names readable (gtest would print the struct's bytes).
void PrintTo(const BadCase &c, std::ostream *os) { *os << c.name; }

class BadMetadataTest : public ::testing::TestWithParam<BadCase> {};

TEST_P(BadMetadataTest, NamesTheProblem) {
  absl::StatusOr<ModuleInfo> info = ParseMetadata(GetParam().document);
  ASSERT_FALSE(info.ok()) << "accepted: " << GetParam().document;
  EXPECT_EQ(info.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(info.status().message(), HasSubstr("metadata: "));
  EXPECT_THAT(info.status().message(), HasSubstr(GetParam().message));
}

INSTANTIATE_TEST_SUITE_P(
    Cases, BadMetadataTest,
    ::testing::Values(
        BadCase{"MalformedJson", R"({"format": })",
                "malformed JSON at byte 11: syntax error while parsing value "
                "- unexpected '}'"},
        BadCase{"NotAnObject", "[]",
                "expected a JSON object at the top level, got array"},
        BadCase{"MissingFormat", R"({"target": "sm_80", "kernels": []})",
                "missing required field 'format'"},
        BadCase{"FormatNotString", R"({"format": 1})",
                "format: expected string, got number"},
        BadCase{"WrongFormat",
                R"({"format": "tilec-metadata-v3", "target": "sm_80",
                    "kernels": []})",
                "format: unsupported format 'tilec-metadata-v3'; expected "
                "'tilec-metadata-v2' or 'tilec-metadata-v1'"},
        BadCase{"MissingTarget", R"({"format": "tilec-metadata-v1"})",
                "missing required field 'target'"},
        BadCase{"EmptyTarget",
                R"({"format": "tilec-metadata-v1", "target": ""})",
                "target: must not be empty"},
        BadCase{"KernelsNotArray",
                R"({"format": "tilec-metadata-v1", "target": "sm_80",
                    "kernels": {}})",
                "kernels: expected array, got object"},
        BadCase{"KernelNotObject", Document("3"),
                "kernels[0]: expected object, got number"},
        BadCase{"MissingName", WithSoftmax(R"("name": "softmax_f32",)", ""),
                "kernels[0]: missing required field 'name'"},
        BadCase{"EmptyName", WithSoftmax("softmax_f32", ""),
                "kernels[0].name: must not be empty"},
        BadCase{"MissingBlock", WithSoftmax(R"("block": [256, 1, 1],)", ""),
                "kernels[0] ('softmax_f32'): missing required field 'block'"},
        BadCase{"BlockTooShort", WithSoftmax("[256, 1, 1]", "[256, 1]"),
                "kernels[0] ('softmax_f32').block: expected 3 elements, got 2"},
        BadCase{"BlockZero", WithSoftmax("[256, 1, 1]", "[256, 0, 1]"),
                "block[1]: expected an integer in [1, 4294967295], got 0"},
        BadCase{"BlockFraction", WithSoftmax("[256, 1, 1]", "[25.5, 1, 1]"),
                "block[0]: expected an integer in [1, 4294967295], got 25.5"},
        BadCase{"BlockString", WithSoftmax("[256, 1, 1]", R"(["256", 1, 1])"),
                "block[0]: expected an integer in [1, 4294967295], got string"},
        BadCase{"BlockTooLarge", WithSoftmax("[256, 1, 1]", "[256, 8, 1]"),
                "block: 2048 threads per block; at most 1024"},
        BadCase{"SharedNegative", WithSoftmax("2048", "-1"),
                "shared_bytes: expected an integer in [0, 4294967295], got -1"},
        BadCase{"SharedNotNumber", WithSoftmax("2048", "null"),
                "shared_bytes: expected number, got null"},
        BadCase{"MissingCluster", WithSoftmax(R"("cluster": [1, 1, 1],)", ""),
                "missing required field 'cluster'"},
        BadCase{"ClusterZero", WithSoftmax("[1, 1, 1]", "[0, 1, 1]"),
                "cluster[0]: expected an integer in [1, 4294967295], got 0"},
        BadCase{"ParamsNotArray",
                WithSoftmax(R"("params": [)", R"("params": 1, "x": [)"),
                "params: expected array, got number"},
        BadCase{"ParamNotObject",
                WithSoftmax(R"({"name": "x",    "kind": "ptr", "elem": "f32"})",
                            R"("x")"),
                "params[0]: expected object, got string"},
        BadCase{"ParamMissingName", WithSoftmax(R"("name": "rows", )", ""),
                "params[2]: missing required field 'name'"},
        BadCase{"ParamMissingKind", WithSoftmax(R"(, "kind": "i32"})", "}"),
                "params[2] ('rows'): missing required field 'kind'"},
        BadCase{"UnknownKind",
                WithSoftmax(R"("kind": "i32"})", R"("kind": "int"})"),
                "params[2] ('rows'): unknown kind 'int'; expected one of "
                "ptr, i32, i64, f32, f64, tensormap"},
        BadCase{"ElemNotString",
                WithSoftmax(R"("elem": "f32"})", R"("elem": 32})"),
                "params[0] ('x').elem: expected string, got number"},
        BadCase{"DuplicateParam",
                WithSoftmax(R"("name": "cols")", R"("name": "rows")"),
                "params[3]: duplicate parameter name 'rows'"},
        BadCase{"MissingTensorMaps",
                WithSoftmax(R"(,
      "tensor_maps": [])",
                            ""),
                "missing required field 'tensor_maps'"},
        BadCase{"TensorMapNotObject",
                WithSoftmax(R"("tensor_maps": [])", R"("tensor_maps": [1])"),
                "tensor_maps[0]: expected object, got number"},
        BadCase{"TensorMapNotHidden",
                WithSoftmax(R"("tensor_maps": [])",
                            R"("tensor_maps": [{"param": 1, "elem": "f32",
                               "base": 0, "sizes": [{"arg": 2}, {"arg": 3}],
                               "strides": [{"arg": 3}, {"value": 1}],
                               "box": [8, 32], "swizzle": 128}])"),
                "tensor_maps[0].param: tensor map 0 must be parameter 4 "
                "(hidden parameters follow the declared ones), got 1"},
        BadCase{"TensorMapBaseNotPtr",
                WithSoftmax(R"("tensor_maps": [])",
                            R"("tensor_maps": [{"param": 4, "elem": "f32",
                               "base": 2, "sizes": [{"arg": 2}, {"arg": 3}],
                               "strides": [{"arg": 3}, {"value": 1}],
                               "box": [8, 32], "swizzle": 128}])"),
                "tensor_maps[0].base: 2 is not a ptr parameter"},
        BadCase{"TensorMapSizeNotInteger",
                WithSoftmax(R"("tensor_maps": [])",
                            R"("tensor_maps": [{"param": 4, "elem": "f32",
                               "base": 0, "sizes": [{"arg": 1}, {"arg": 3}],
                               "strides": [{"arg": 3}, {"value": 1}],
                               "box": [8, 32], "swizzle": 128}])"),
                "tensor_maps[0].sizes[0].arg: 1 is not an i32 or i64 "
                "parameter"},
        BadCase{"TensorMapRankMismatch",
                WithSoftmax(R"("tensor_maps": [])",
                            R"("tensor_maps": [{"param": 4, "elem": "f32",
                               "base": 0, "sizes": [{"arg": 2}],
                               "strides": [{"arg": 3}, {"value": 1}],
                               "box": [8, 32], "swizzle": 128}])"),
                "sizes, strides and box must have one entry per dimension"},
        BadCase{"TensorMapInnerStride",
                WithSoftmax(R"("tensor_maps": [])",
                            R"("tensor_maps": [{"param": 4, "elem": "f32",
                               "base": 0, "sizes": [{"arg": 2}, {"arg": 3}],
                               "strides": [{"arg": 3}, {"arg": 2}],
                               "box": [8, 32], "swizzle": 128}])"),
                "tensor_maps[0].strides: the last stride must be 1"},
        BadCase{"TensorMapBoxTooLarge",
                WithSoftmax(R"("tensor_maps": [])",
                            R"("tensor_maps": [{"param": 4, "elem": "f32",
                               "base": 0, "sizes": [{"arg": 2}, {"arg": 3}],
                               "strides": [{"arg": 3}, {"value": 1}],
                               "box": [512, 32], "swizzle": 128}])"),
                "tensor_maps[0].box[0]: a TMA box holds at most 256 per "
                "dimension"},
        BadCase{"TensorMapSwizzle",
                WithSoftmax(R"("tensor_maps": [])",
                            R"("tensor_maps": [{"param": 4, "elem": "f32",
                               "base": 0, "sizes": [{"arg": 2}, {"arg": 3}],
                               "strides": [{"arg": 3}, {"value": 1}],
                               "box": [8, 32], "swizzle": 48}])"),
                "tensor_maps[0].swizzle: expected 0, 32, 64 or 128, got 48"},
        BadCase{"DuplicateKernel",
                Document(absl::StrCat(kSoftmaxKernel, ",", kSoftmaxKernel)),
                "kernels[1]: duplicate kernel name 'softmax_f32'"}),
    [](const ::testing::TestParamInfo<BadCase> &info) {
      return info.param.name;
    });

} // namespace
} // namespace tilec
