// Which kernels exist, and how to build one for a node.
//
// A kernel is registered under a KernelDef: op name, device type, type
// constraints ("T" in {float, double}) and the arguments it wants in host
// memory. Definitions are metadata: the placer asks "which device types
// have a kernel for this node?" through SupportedDeviceTypes() without
// building anything. Registration, in a kernels/ file:
//
//   DFLOW_REGISTER_KERNEL(
//       KernelDefBuilder("MatMul").Device(kDeviceCpu).TypeConstraint<float>("T"),
//       MatMulOp<float>);
//
// A definition may be registered without an implementation:
//
//   DFLOW_REGISTER_KERNEL_DEF(
//       KernelDefBuilder("Reshape").Device(kDeviceGpu).HostMemory("shape"));
//
// kernels/gpu/kernel_defs*.cc declares every GPU kernel that way and is
// linked into every build, so a CPU-only binary knows exactly which ops
// have GPU kernels and places against (fake) GPUs as a CUDA build would.
// A CUDA build attaches the implementations to those definitions:
//
//   DFLOW_REGISTER_GPU_KERNEL(
//       KernelDefBuilder("MatMul").Device(kDeviceGpu).TypeConstraint<float>("T"),
//       MatMulGpuOp<float>);
//
// An implementation names the same op and device type and the same
// host-memory args as a definition, and constrains the same attrs to some
// of the definition's dtypes (one class per dtype is fine: the definition
// says which dtypes a GPU kernel must eventually cover, the implementations
// which ones it covers today). Validate() reports an implementation that
// no definition covers, so a kernel can never drift from its contract.
// Running a node on a device whose kernel is defined but not implemented is
// an Unimplemented error naming the op and dtype, never a silent run on the
// CPU; sessions with real GPUs place such nodes on the CPU under soft
// placement (see SupportedDeviceTypes).
//
// Devices run the kernels of their `kernel_device_type()`: a fake GPU
// (runtime/device.h) is placed as a "GPU" and needs a GPU definition, but
// computes with the CPU implementation.
#ifndef DFLOW_RUNTIME_KERNEL_REGISTRY_H_
#define DFLOW_RUNTIME_KERNEL_REGISTRY_H_

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "graph/graph.h"
#include "graph/types.h"
#include "runtime/op_kernel.h"

namespace dflow {

inline constexpr char kDeviceCpu[] = "CPU";
inline constexpr char kDeviceGpu[] = "GPU";

struct KernelDef {
  std::string op;
  std::string device_type;
  // Attr name -> allowed dtypes.
  std::vector<std::pair<std::string, std::vector<DataType>>> type_constraints;
  // Input/output argument names kept in host memory on a GPU (shape inputs).
  std::vector<std::string> host_memory_args;

  std::string DebugString() const;
};

class KernelDefBuilder {
 public:
  explicit KernelDefBuilder(std::string op) { def_.op = std::move(op); }
  KernelDefBuilder& Device(std::string type) {
    def_.device_type = std::move(type);
    return *this;
  }
  KernelDefBuilder& TypeConstraint(std::string attr,
                                   std::vector<DataType> allowed) {
    def_.type_constraints.emplace_back(std::move(attr), std::move(allowed));
    return *this;
  }
  template <typename T>
  KernelDefBuilder& TypeConstraint(std::string attr) {
    return TypeConstraint(std::move(attr), {DataTypeToEnum<T>::value});
  }
  KernelDefBuilder& HostMemory(std::string arg) {
    def_.host_memory_args.push_back(std::move(arg));
    return *this;
  }
  const KernelDef& def() const { return def_; }

 private:
  KernelDef def_;
};

using KernelFactory =
    std::function<std::unique_ptr<OpKernel>(OpKernelConstruction*)>;

// Where a kernel wants an input or output: in the device's own memory or
// in host memory (shape arguments of GPU kernels). On a CPU both are host
// memory; CPU kernels declare nothing.
enum class MemoryType { kDevice, kHost };

class KernelRegistry {
 public:
  static KernelRegistry* Global();

  // A definition with its implementation. A definition may also be
  // registered alone (factory null): the kernel exists, but not in this
  // build (e.g. GPU kernels in a CPU-only binary). Registering a definition
  // equal to one already present (same op, device type, type constraints
  // and host-memory args) merges the two, keeping the implementation; the
  // same op, device and constraints with other host-memory args is a
  // conflict reported by Validate().
  void Register(KernelDef def, KernelFactory factory);

  // An implementation of an existing definition (DFLOW_REGISTER_GPU_KERNEL;
  // see the top): `def` names the op, the device type, the host-memory args
  // of the definition it implements, and constrains the same attrs to a
  // subset of that definition's dtypes. Registration order does not
  // matter: the definition may come later (static initialization order);
  // Validate() reports an implementation no definition covers, and two
  // implementations accepting the same dtypes.
  void RegisterImplementation(KernelDef def, KernelFactory factory);

  // Checks every registration against the op registry: the op exists, each
  // constrained attr is a type attr of the op, each host-memory arg names an
  // input or output of the op, no two definitions for one op and device type
  // accept the same dtypes, no conflicting duplicates, every implementation
  // covered by a definition and no two implementations overlapping. OK, or
  // every problem found, one per line.
  absl::Status Validate() const;

  // The definition matching `node` on `device_type`, or NotFound listing the
  // dtypes that do have kernels.
  absl::StatusOr<const KernelDef*> FindKernelDef(
      const Node& node, absl::string_view device_type) const;
  // Every definition registered for `op`, in registration order (for
  // messages and tests; copies).
  std::vector<KernelDef> DefinitionsForOp(absl::string_view op) const;
  // Device types with a kernel definition for `node` (built into this
  // binary or not), in registration order.
  std::vector<std::string> SupportedDeviceTypes(const Node& node) const;
  // The same, except that the types in `implemented_only` are listed only
  // when IsKernelBuilt: a session with real GPUs places against the GPU
  // kernels that exist, so soft placement keeps a node whose GPU kernel is
  // defined but not yet written on the CPU (fake GPUs run the CPU kernels
  // and keep the definitions-only answer).
  std::vector<std::string> SupportedDeviceTypes(
      const Node& node, const std::vector<std::string>& implemented_only) const;
  // True if `device_type` has a definition for `node` with its
  // implementation linked into this binary (registered with the definition
  // or attached to it by RegisterImplementation).
  bool IsKernelBuilt(const Node& node, absl::string_view device_type) const;

  // The argument names (OpDef input/output names: "shape", "output") that
  // the kernel for `node` on `device_type` declares in host memory; empty
  // when none, or when there is no such kernel.
  std::vector<std::string> HostMemoryArgs(const Node& node,
                                          absl::string_view device_type) const;
  // Whether argument `arg_name` (an input or output name of the op) of
  // `node` lives in host memory on `device_type`: declared by the kernel,
  // or of a type that is always on the host (string, resource). See
  // MemoryTypesForNode.
  bool IsHostMemoryArg(const Node& node, absl::string_view device_type,
                       absl::string_view arg_name) const;
  // The same for data input / output `index` of `node` (flat index, as in
  // edges); false for an index out of range.
  bool IsHostMemoryInput(const Node& node, absl::string_view device_type,
                         int index) const;
  bool IsHostMemoryOutput(const Node& node, absl::string_view device_type,
                          int index) const;
  // One memory type per data input and output of `node` on `device_type`,
  // as TensorFlow's MemoryTypesForNode: the kernel's declared host-memory
  // args, plus string and resource values always; with no kernel for the
  // node, int32 values are on the host too (TensorFlow's fallback).
  absl::Status MemoryTypesForNode(const Node& node,
                                  absl::string_view device_type,
                                  std::vector<MemoryType>* inputs,
                                  std::vector<MemoryType>* outputs) const;

  // Builds the kernel for `node` on `device`: the definition for the
  // device's type must exist (NotFound otherwise), and the implementation
  // comes from the device's kernel_device_type() (a fake GPU runs the CPU
  // kernel, a real GPU the GPU implementation). A definition without an
  // implementation is Unimplemented, naming the node, the op's dtypes and
  // what to do. Errors name the node. The kernel is told which of its
  // outputs live in host memory (OpKernelConstruction::host_memory_outputs)
  // on devices with memory of their own.
  absl::StatusOr<std::unique_ptr<OpKernel>> CreateKernel(const Node& node,
                                                         Device* device) const;
  // OK when `device_type` has a definition for `node` and this binary an
  // implementation of it; else CreateKernel's error for a device of that
  // type running its own kernels, named `device_name` in the message
  // (NotFound without a definition, Unimplemented without an
  // implementation).
  absl::Status CheckImplemented(const Node& node, absl::string_view device_type,
                                absl::string_view device_name) const;

 private:
  struct Entry {
    KernelDef def;
    KernelFactory factory;
  };
  // The entry for `node` on `device_type` (first match), or null.
  const Entry* FindEntry(const Node& node, absl::string_view device_type) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The factory for `node` under `definition` (an entry of `device_type`):
  // the definition's own, else the first implementation it covers that
  // accepts the node; null when there is none.
  KernelFactory FindFactory(const Node& node, const Entry& definition) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Unimplemented for `node` defined on `type` and implemented by no
  // `impl_type` kernel of this binary.
  absl::Status NotImplementedError(const Node& node, absl::string_view type,
                                   absl::string_view impl_type,
                                   absl::string_view device_name) const
      ABSL_LOCKS_EXCLUDED(mu_);

  mutable absl::Mutex mu_;
  absl::flat_hash_map<std::string, std::vector<Entry>> by_op_
      ABSL_GUARDED_BY(mu_);
  // RegisterImplementation's, by op, in registration order.
  absl::flat_hash_map<std::string, std::vector<Entry>> implementations_
      ABSL_GUARDED_BY(mu_);
  std::vector<std::string> conflicts_ ABSL_GUARDED_BY(mu_);
  // SupportedDeviceTypes' answers. The answer depends only on the op, the
  // node's values of the attrs the op's kernels constrain, and
  // `implemented_only`, so the placer's question for a million nodes of a
  // handful of (op, dtype) kinds is answered a handful of times. Cleared by
  // every registration.
  mutable absl::flat_hash_map<std::string, std::vector<std::string>> supported_
      ABSL_GUARDED_BY(mu_);
};

namespace kernel_registry_internal {
struct KernelRegistrar {
  KernelRegistrar(const KernelDefBuilder& b, KernelFactory f) {
    KernelRegistry::Global()->Register(b.def(), std::move(f));
  }
};
struct KernelDefRegistrar {
  explicit KernelDefRegistrar(const KernelDefBuilder& b) {
    KernelRegistry::Global()->Register(b.def(), nullptr);
  }
};
struct KernelImplementationRegistrar {
  KernelImplementationRegistrar(const KernelDefBuilder& b, KernelFactory f) {
    KernelRegistry::Global()->RegisterImplementation(b.def(), std::move(f));
  }
};
}  // namespace kernel_registry_internal

// Attaches a kernel class to an existing GPU kernel definition (see the
// top): the builder names the op, Device(kDeviceGpu), the type constraints
// it implements and the definition's host-memory args.
#define DFLOW_REGISTER_GPU_KERNEL(builder, ...) \
  DFLOW_REGISTER_GPU_KERNEL_UNIQ_HELPER(__COUNTER__, builder, __VA_ARGS__)
#define DFLOW_REGISTER_GPU_KERNEL_UNIQ_HELPER(ctr, builder, ...) \
  DFLOW_REGISTER_GPU_KERNEL_UNIQ(ctr, builder, __VA_ARGS__)
#define DFLOW_REGISTER_GPU_KERNEL_UNIQ(ctr, builder, ...)                \
  static const ::dflow::kernel_registry_internal::                       \
      KernelImplementationRegistrar dflow_gpu_kernel_registrar_##ctr     \
      ABSL_ATTRIBUTE_UNUSED(builder,                                     \
                            [](::dflow::OpKernelConstruction* ctx)       \
                                -> std::unique_ptr<::dflow::OpKernel> {  \
                              return std::make_unique<__VA_ARGS__>(ctx); \
                            })

// Registers a kernel definition with no implementation (see the top).
#define DFLOW_REGISTER_KERNEL_DEF(builder) \
  DFLOW_REGISTER_KERNEL_DEF_UNIQ_HELPER(__COUNTER__, builder)
#define DFLOW_REGISTER_KERNEL_DEF_UNIQ_HELPER(ctr, builder) \
  DFLOW_REGISTER_KERNEL_DEF_UNIQ(ctr, builder)
#define DFLOW_REGISTER_KERNEL_DEF_UNIQ(ctr, builder)                 \
  static const ::dflow::kernel_registry_internal::KernelDefRegistrar \
      dflow_kernel_def_registrar_##ctr                               \
      ABSL_ATTRIBUTE_UNUSED(builder)

#define DFLOW_REGISTER_KERNEL(builder, ...) \
  DFLOW_REGISTER_KERNEL_UNIQ_HELPER(__COUNTER__, builder, __VA_ARGS__)
#define DFLOW_REGISTER_KERNEL_UNIQ_HELPER(ctr, builder, ...) \
  DFLOW_REGISTER_KERNEL_UNIQ(ctr, builder, __VA_ARGS__)
#define DFLOW_REGISTER_KERNEL_UNIQ(ctr, builder, ...)                    \
  static const ::dflow::kernel_registry_internal::KernelRegistrar        \
      dflow_kernel_registrar_##ctr                                       \
      ABSL_ATTRIBUTE_UNUSED(builder,                                     \
                            [](::dflow::OpKernelConstruction* ctx)       \
                                -> std::unique_ptr<::dflow::OpKernel> {  \
                              return std::make_unique<__VA_ARGS__>(ctx); \
                            })

}  // namespace dflow

#endif  // DFLOW_RUNTIME_KERNEL_REGISTRY_H_
