// The C API: thin wrappers that check arguments, call the C++ API and turn
// its Status into a code plus a thread-local message.
#include "runtime/tilec_c_api.h"

#include <array>
#include <exception>
#include <initializer_list>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "runtime/context.h"
#include "runtime/embedded.h"
#include "runtime/gemm.h"
#include "runtime/kda.h"
#include "runtime/module.h"
#include "runtime/paged_decode.h"
#include "runtime/softmax.h"
#include "runtime/topk.h"
#include "runtime/validate.h"

namespace {

using tilec::Kernel;
using tilec::KernelArg;
using tilec::Module;

thread_local std::string last_error;

int Report(const absl::Status &status) {
  last_error = std::string(status.message());
  return static_cast<int>(status.code());
}

// Runs `body` and reports its Status; exceptions (allocation failure) must
// not cross into C callers.
template <typename Body> int Guarded(const char *function, Body body) {
  try {
    absl::Status status = body();
    if (!status.ok())
      status = absl::Status(status.code(),
                            absl::StrCat(function, ": ", status.message()));
    return Report(status);
  } catch (const std::exception &e) {
    return Report(absl::InternalError(
        absl::StrCat(function, ": unexpected exception: ", e.what())));
  } catch (...) {
    return Report(
        absl::InternalError(absl::StrCat(function, ": unexpected exception")));
  }
}

// Checks (pointer, argument name) pairs in order.
absl::Status NotNull(
    std::initializer_list<std::pair<const void *, const char *>> arguments) {
  for (const auto &[pointer, name] : arguments)
    if (pointer == nullptr)
      return absl::InvalidArgumentError(
          absl::StrCat("argument '", name, "' is NULL"));
  return absl::OkStatus();
}

// Handles are the C++ objects themselves under opaque C names: a
// tilec_module is a Module, a tilec_kernel a Kernel.
Module *AsModule(tilec_module *handle) {
  return reinterpret_cast<Module *>(handle);
}
const Kernel *AsKernel(tilec_kernel *handle) {
  return reinterpret_cast<const Kernel *>(handle);
}

// A tilec_tensor as a TensorRef; the C struct's own fields are checked
// here, the tensor's properties by the entry point.
absl::StatusOr<tilec::TensorRef> ToTensorRef(const tilec_tensor *tensor,
                                             const char *name) {
  auto invalid = [&](const std::string &why) {
    return absl::InvalidArgumentError(
        absl::StrCat("argument '", name, "' ", why));
  };
  if (tensor == nullptr)
    return invalid("is NULL");
  std::optional<tilec::DType> dtype = tilec::DTypeFromInt(tensor->dtype);
  if (!dtype)
    return invalid(absl::StrCat("has dtype ", tensor->dtype,
                                "; expected a TILEC_DTYPE_* value (0 to ",
                                static_cast<int>(tilec::DType::kLast), ")"));
  if (tensor->ndim < 0 || tensor->ndim > TILEC_MAX_DIMS)
    return invalid(absl::StrCat("has ndim ", tensor->ndim, "; expected 0 to ",
                                TILEC_MAX_DIMS));
  if (tensor->ndim > 0 && tensor->shape == nullptr)
    return invalid("has a NULL shape");
  tilec::TensorRef ref;
  ref.data = tensor->data;
  ref.dtype = *dtype;
  ref.shape.assign(tensor->shape, tensor->shape + tensor->ndim);
  if (tensor->strides != nullptr)
    ref.strides.assign(tensor->strides, tensor->strides + tensor->ndim);
  return ref;
}

// A C tensor argument and its name in messages.
struct NamedTensor {
  const tilec_tensor *tensor;
  const char *name;
};

// The tensors as TensorRefs, in order; the first bad one's error.
template <size_t N>
absl::StatusOr<std::array<tilec::TensorRef, N>>
ToTensorRefs(const NamedTensor (&tensors)[N]) {
  std::array<tilec::TensorRef, N> refs;
  for (size_t i = 0; i < N; ++i) {
    absl::StatusOr<tilec::TensorRef> ref =
        ToTensorRef(tensors[i].tensor, tensors[i].name);
    if (!ref.ok())
      return ref.status();
    refs[i] = *std::move(ref);
  }
  return refs;
}

absl::StatusOr<KernelArg> ToKernelArg(const tilec_arg &arg, size_t index) {
  switch (arg.kind) {
  case TILEC_ARG_PTR:
    return KernelArg::Ptr(arg.v.ptr);
  case TILEC_ARG_I32:
    return KernelArg::I32(arg.v.i32);
  case TILEC_ARG_I64:
    return KernelArg::I64(arg.v.i64);
  case TILEC_ARG_F32:
    return KernelArg::F32(arg.v.f32);
  case TILEC_ARG_F64:
    return KernelArg::F64(arg.v.f64);
  case TILEC_ARG_TENSORMAP:
    return KernelArg::TensorMap(arg.v.ptr);
  default:
    return absl::InvalidArgumentError(absl::StrCat(
        "args[", index, "].kind is ", arg.kind,
        "; expected TILEC_ARG_PTR (0) through TILEC_ARG_TENSORMAP (5)"));
  }
}

absl::Status StoreModule(absl::StatusOr<std::unique_ptr<Module>> module,
                         tilec_module **out) {
  if (!module.ok())
    return module.status();
  *out = reinterpret_cast<tilec_module *>(module->release());
  return absl::OkStatus();
}

} // namespace

extern "C" {

const char *tilec_last_error(void) { return last_error.c_str(); }

int tilec_device_available(int *out) {
  return Guarded(__func__, [&] {
    if (absl::Status s = NotNull({{out, "out"}}); !s.ok())
      return s;
    *out = tilec::DeviceAvailable() ? 1 : 0;
    return absl::OkStatus();
  });
}

int tilec_default_target(const char **out) {
  return Guarded(__func__, [&] {
    if (absl::Status s = NotNull({{out, "out"}}); !s.ok())
      return s;
    absl::StatusOr<std::string> target = tilec::DefaultTarget();
    if (!target.ok())
      return target.status();
    // Targets are a small fixed set; hand out static strings.
    for (const char *known : {"sm_80", "sm_90a", "sm_100a"}) {
      if (*target == known) {
        *out = known;
        return absl::OkStatus();
      }
    }
    return absl::InternalError(absl::StrCat("unexpected target ", *target));
  });
}

int tilec_module_load(const char *ptx, const char *metadata_json,
                      tilec_module **out) {
  return Guarded(__func__, [&] {
    if (absl::Status s = NotNull(
            {{ptx, "ptx"}, {metadata_json, "metadata_json"}, {out, "out"}});
        !s.ok())
      return s;
    return StoreModule(Module::Load(ptx, metadata_json), out);
  });
}

int tilec_module_load_embedded(const char *name, const char *target,
                               tilec_module **out) {
  return Guarded(__func__, [&] {
    if (absl::Status s = NotNull({{name, "name"}, {out, "out"}}); !s.ok())
      return s;
    return StoreModule(tilec::LoadEmbedded(name, target ? target : ""), out);
  });
}

int tilec_embedded_count(size_t *out) {
  return Guarded(__func__, [&] {
    if (absl::Status s = NotNull({{out, "out"}}); !s.ok())
      return s;
    *out = tilec::ListEmbedded().size();
    return absl::OkStatus();
  });
}

int tilec_embedded_entry(size_t index, const char **name, const char **target) {
  return Guarded(__func__, [&] {
    if (absl::Status s = NotNull({{name, "name"}, {target, "target"}}); !s.ok())
      return s;
    absl::Span<const tilec::EmbeddedModule> table = tilec::ListEmbedded();
    if (index >= table.size())
      return absl::InvalidArgumentError(
          absl::StrCat("index ", index, " is out of range; ", table.size(),
                       " modules are embedded"));
    *name = table[index].name;
    *target = table[index].target;
    return absl::OkStatus();
  });
}

int tilec_module_unload(tilec_module *module) {
  return Guarded(__func__, [&] {
    if (absl::Status s = NotNull({{module, "module"}}); !s.ok())
      return s;
    delete AsModule(module);
    return absl::OkStatus();
  });
}

int tilec_module_get_kernel(tilec_module *module, const char *name,
                            tilec_kernel **out) {
  return Guarded(__func__, [&] {
    if (absl::Status s =
            NotNull({{module, "module"}, {name, "name"}, {out, "out"}});
        !s.ok())
      return s;
    absl::StatusOr<const Kernel *> kernel = AsModule(module)->GetKernel(name);
    if (!kernel.ok())
      return kernel.status();
    *out = reinterpret_cast<tilec_kernel *>(const_cast<Kernel *>(*kernel));
    return absl::OkStatus();
  });
}

int tilec_kernel_info_json(tilec_kernel *kernel, const char **out) {
  return Guarded(__func__, [&] {
    if (absl::Status s = NotNull({{kernel, "kernel"}, {out, "out"}}); !s.ok())
      return s;
    *out = AsKernel(kernel)->info().json.c_str();
    return absl::OkStatus();
  });
}

namespace {
absl::StatusOr<std::vector<KernelArg>> ToKernelArgs(const tilec_arg *args,
                                                    size_t nargs) {
  if (nargs > 0 && args == nullptr) // NULL is fine when there are none
    return NotNull({{args, "args"}});
  std::vector<KernelArg> converted;
  converted.reserve(nargs);
  for (size_t i = 0; i < nargs; ++i) {
    absl::StatusOr<KernelArg> arg = ToKernelArg(args[i], i);
    if (!arg.ok())
      return arg.status();
    converted.push_back(*arg);
  }
  return converted;
}
} // namespace

int tilec_kernel_launch(tilec_kernel *kernel, const unsigned grid[3],
                        const tilec_arg *args, size_t nargs, void *stream) {
  return Guarded(__func__, [&] {
    if (absl::Status s = NotNull({{kernel, "kernel"}, {grid, "grid"}}); !s.ok())
      return s;
    absl::StatusOr<std::vector<KernelArg>> converted =
        ToKernelArgs(args, nargs);
    if (!converted.ok())
      return converted.status();
    return AsKernel(kernel)->Launch({grid[0], grid[1], grid[2]}, *converted,
                                    static_cast<CUstream>(stream));
  });
}

int tilec_kernel_launch_tiles(tilec_kernel *kernel, const unsigned tiles[3],
                              const tilec_arg *args, size_t nargs,
                              void *stream) {
  return Guarded(__func__, [&] {
    if (absl::Status s = NotNull({{kernel, "kernel"}, {tiles, "tiles"}});
        !s.ok())
      return s;
    absl::StatusOr<std::vector<KernelArg>> converted =
        ToKernelArgs(args, nargs);
    if (!converted.ok())
      return converted.status();
    return AsKernel(kernel)->LaunchTiles({tiles[0], tiles[1], tiles[2]},
                                         *converted,
                                         static_cast<CUstream>(stream));
  });
}

int tilec_kernel_launch_clusters(tilec_kernel *kernel, const unsigned grid[3],
                                 const unsigned cluster[3],
                                 const tilec_arg *args, size_t nargs,
                                 void *stream) {
  return Guarded(__func__, [&] {
    if (absl::Status s =
            NotNull({{kernel, "kernel"}, {grid, "grid"}, {cluster, "cluster"}});
        !s.ok())
      return s;
    absl::StatusOr<std::vector<KernelArg>> converted =
        ToKernelArgs(args, nargs);
    if (!converted.ok())
      return converted.status();
    return AsKernel(kernel)->LaunchInClusters(
        {grid[0], grid[1], grid[2]}, {cluster[0], cluster[1], cluster[2]},
        *converted, static_cast<CUstream>(stream));
  });
}

int tilec_kernel_max_active_clusters(tilec_kernel *kernel,
                                     const unsigned cluster[3], int *out) {
  return Guarded(__func__, [&] {
    if (absl::Status s =
            NotNull({{kernel, "kernel"}, {cluster, "cluster"}, {out, "out"}});
        !s.ok())
      return s;
    absl::StatusOr<int> clusters = AsKernel(kernel)->MaxActiveClusters(
        {cluster[0], cluster[1], cluster[2]});
    if (!clusters.ok())
      return clusters.status();
    *out = *clusters;
    return absl::OkStatus();
  });
}

int tilec_softmax(const void *x, void *y, int64_t rows, int64_t cols, int dtype,
                  void *stream) {
  return Guarded(__func__, [&]() -> absl::Status {
    if (dtype != TILEC_DTYPE_F32 && dtype != TILEC_DTYPE_BF16)
      return absl::InvalidArgumentError(absl::StrCat(
          "argument 'dtype' must be TILEC_DTYPE_F32 (0) or TILEC_DTYPE_BF16 "
          "(1), got ",
          dtype));
    return tilec::Softmax(x, y, rows, cols,
                          dtype == TILEC_DTYPE_F32 ? tilec::SoftmaxType::kF32
                                                   : tilec::SoftmaxType::kBF16,
                          static_cast<CUstream>(stream));
  });
}

int tilec_softmax_tensor(const tilec_tensor *x, const tilec_tensor *y,
                         void *stream) {
  return Guarded(__func__, [&]() -> absl::Status {
    absl::StatusOr<std::array<tilec::TensorRef, 2>> refs =
        ToTensorRefs({{x, "x"}, {y, "y"}});
    if (!refs.ok())
      return refs.status();
    const auto &[x_ref, y_ref] = *refs;
    return tilec::Softmax(x_ref, y_ref, static_cast<CUstream>(stream));
  });
}

int tilec_topk_tensor(const tilec_tensor *x, int64_t k,
                      const tilec_tensor *values, const tilec_tensor *indices,
                      void *stream) {
  return Guarded(__func__, [&]() -> absl::Status {
    absl::StatusOr<std::array<tilec::TensorRef, 3>> refs =
        ToTensorRefs({{x, "x"}, {values, "values"}, {indices, "indices"}});
    if (!refs.ok())
      return refs.status();
    const auto &[x_ref, values_ref, indices_ref] = *refs;
    return tilec::TopK(x_ref, k, values_ref, indices_ref,
                       static_cast<CUstream>(stream));
  });
}

int tilec_gemm_tensor(const tilec_tensor *x, const tilec_tensor *w,
                      const tilec_tensor *scale, const tilec_tensor *y,
                      void *stream) {
  return Guarded(__func__, [&]() -> absl::Status {
    absl::StatusOr<std::array<tilec::TensorRef, 4>> refs =
        ToTensorRefs({{x, "x"}, {w, "w"}, {scale, "scale"}, {y, "y"}});
    if (!refs.ok())
      return refs.status();
    const auto &[x_ref, w_ref, scale_ref, y_ref] = *refs;
    return tilec::Gemm(x_ref, w_ref, scale_ref, y_ref,
                       static_cast<CUstream>(stream));
  });
}

int tilec_paged_decode_tensor(const tilec_tensor *query,
                              const tilec_tensor *kv_cache,
                              const tilec_tensor *block_table,
                              const tilec_tensor *seq_lens,
                              const tilec_tensor *out, void *stream) {
  return Guarded(__func__, [&]() -> absl::Status {
    absl::StatusOr<std::array<tilec::TensorRef, 5>> refs =
        ToTensorRefs({{query, "query"},
                      {kv_cache, "kv_cache"},
                      {block_table, "block_table"},
                      {seq_lens, "seq_lens"},
                      {out, "out"}});
    if (!refs.ok())
      return refs.status();
    const auto &[query_ref, kv_ref, table_ref, lens_ref, out_ref] = *refs;
    return tilec::PagedDecode(query_ref, kv_ref, table_ref, lens_ref, out_ref,
                              static_cast<CUstream>(stream));
  });
}

int tilec_kda_forward_tensor(const tilec_tensor *q, const tilec_tensor *k,
                             const tilec_tensor *v, const tilec_tensor *g,
                             const tilec_tensor *beta, float scale,
                             const tilec_tensor *o,
                             const tilec_tensor *initial_state,
                             const tilec_tensor *final_state,
                             const tilec_tensor *cu_seqlens, int schedule,
                             int64_t segment_chunks, void *stream) {
  return Guarded(__func__, [&]() -> absl::Status {
    absl::StatusOr<std::array<tilec::TensorRef, 6>> refs = ToTensorRefs(
        {{q, "q"}, {k, "k"}, {v, "v"}, {g, "g"}, {beta, "beta"}, {o, "o"}});
    if (!refs.ok())
      return refs.status();
    const NamedTensor optional[] = {{initial_state, "initial_state"},
                                    {final_state, "final_state"},
                                    {cu_seqlens, "cu_seqlens"}};
    tilec::TensorRef optional_refs[3];
    const tilec::TensorRef *present[3] = {nullptr, nullptr, nullptr};
    for (int i = 0; i < 3; ++i) {
      if (optional[i].tensor == nullptr)
        continue;
      absl::StatusOr<tilec::TensorRef> ref =
          ToTensorRef(optional[i].tensor, optional[i].name);
      if (!ref.ok())
        return ref.status();
      optional_refs[i] = *std::move(ref);
      present[i] = &optional_refs[i];
    }
    tilec::KdaOptions options;
    options.schedule = static_cast<tilec::KdaSchedule>(schedule);
    options.initial_state = present[0];
    options.final_state = present[1];
    options.cu_seqlens = present[2];
    options.segment_chunks = segment_chunks;
    const auto &[q_ref, k_ref, v_ref, g_ref, beta_ref, o_ref] = *refs;
    return tilec::KdaForward(q_ref, k_ref, v_ref, g_ref, beta_ref, scale, o_ref,
                             options, static_cast<CUstream>(stream));
  });
}

int tilec_topk(const void *x, int64_t batch, int64_t n, int64_t k, void *values,
               void *indices, void *stream) {
  return Guarded(__func__, [&] {
    return tilec::TopK(static_cast<const float *>(x), batch, n, k,
                       static_cast<float *>(values),
                       static_cast<int64_t *>(indices),
                       static_cast<CUstream>(stream));
  });
}

const char *tilec_topk_strategy(int64_t batch, int64_t n, int64_t k) {
  return tilec::TopKStrategyName(tilec::ChooseTopKStrategy(batch, n, k));
}

const char *tilec_paged_decode_plan(int64_t batch, int64_t heads,
                                    int64_t kv_heads, int64_t head_dim,
                                    int64_t width, int *pages_per_split) {
  constexpr int64_t kMax = std::numeric_limits<int32_t>::max();
  if (batch < 1 || batch > kMax || kv_heads < 1 || heads < kv_heads ||
      heads > kMax || heads % kv_heads || width < 1 || width > kMax ||
      (head_dim != 64 && head_dim != 128))
    return nullptr;
  const tilec::PagedDecodePlan plan =
      tilec::PlanPagedDecode(batch, heads, kv_heads, width, head_dim);
  if (pages_per_split)
    *pages_per_split = plan.pages_per_split;
  return plan.kernel;
}

int tilec_synchronize(void) {
  return Guarded(__func__, [&] {
    absl::StatusOr<const tilec::Driver *> driver = tilec::Driver::Get();
    if (!driver.ok())
      return driver.status();
    absl::StatusOr<CUcontext> context =
        tilec::CurrentOrPrimaryContext(**driver);
    if (!context.ok())
      return context.status();
    return (*driver)->Check((*driver)->api().cuCtxSynchronize(),
                            "cuCtxSynchronize");
  });
}

} // extern "C"
