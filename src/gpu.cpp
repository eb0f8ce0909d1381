#include "llmsize/gpu.hpp"

namespace llmsize {
namespace {

// The catalog's words, in enum order (data/gpus.json "vendor", "class", "form_factor",
// "interconnect.kind").
constexpr const char* kVendors[] = {"other", "nvidia", "amd", "intel", "apple"};
constexpr const char* kClasses[] = {"", "consumer", "workstation", "datacenter", "soc"};
constexpr const char* kFormFactors[] = {"", "pcie", "sxm", "oam", "superchip", "soc"};
constexpr const char* kInterconnects[] = {
    "none", "nvlink", "nvlink-bridge", "infinity-fabric", "xgmi", "ethernet-roce"};

template <class E, size_t N>
std::optional<E> find_word(const char* const (&words)[N], std::string_view name) {
  for (size_t i = 0; i < N; ++i)
    if (name == words[i]) return static_cast<E>(i);
  return std::nullopt;
}

}  // namespace

const char* to_string(GpuVendor v) {
  return kVendors[static_cast<size_t>(v)];
}
const char* to_string(GpuClass c) {
  return kClasses[static_cast<size_t>(c)];
}
const char* to_string(FormFactor f) {
  return kFormFactors[static_cast<size_t>(f)];
}
const char* to_string(GpuInterconnect i) {
  return kInterconnects[static_cast<size_t>(i)];
}

GpuVendor gpu_vendor_from_name(std::string_view name) {
  const auto v = find_word<GpuVendor>(kVendors, name);
  return v ? *v : GpuVendor::other;
}
std::optional<GpuClass> gpu_class_from_name(std::string_view name) {
  return find_word<GpuClass>(kClasses, name);
}
std::optional<FormFactor> form_factor_from_name(std::string_view name) {
  return find_word<FormFactor>(kFormFactors, name);
}
std::optional<GpuInterconnect> interconnect_from_name(std::string_view name) {
  return find_word<GpuInterconnect>(kInterconnects, name);
}

}  // namespace llmsize
