#include "alloc/trace_sidecar.h"

#include <fmt/core.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "common/atomic_file.h"
#include "common/error.h"
#include "common/json_text.h"

namespace alloc {
namespace {

constexpr const char* kFormat = "memplan-trace/v1";

// A non-negative integer field; nullopt when absent.
std::optional<int64_t> Count(const nlohmann::json& meta, const char* key, const std::string& path) {
  const auto it = meta.find(key);
  if (it == meta.end()) return std::nullopt;
  return common::NonNegativeInteger(*it, path, fmt::format("'{}'", key));
}

}  // namespace

std::string SidecarPath(const std::string& trace_path) {
  const std::string suffix = ".csv";
  const bool csv = trace_path.size() > suffix.size() &&
                   trace_path.compare(trace_path.size() - suffix.size(), suffix.size(), suffix) == 0;
  return (csv ? trace_path.substr(0, trace_path.size() - suffix.size()) : trace_path) + ".meta.json";
}

std::optional<TraceSidecar> ReadTraceSidecar(const std::string& trace_path, std::string* note) {
  const std::string path = SidecarPath(trace_path);
  if (!std::filesystem::exists(path)) return std::nullopt;
  const nlohmann::json meta = common::ParseJson(path, common::ReadFile(path));
  if (!meta.is_object() || meta.value("format", nlohmann::json()) != kFormat) {
    if (note) *note = fmt::format("{} is not a {} sidecar (no \"format\": \"{}\"); ignored", path, kFormat, kFormat);
    return std::nullopt;
  }
  TraceSidecar sidecar;
  sidecar.path = path;
  const std::optional<int64_t> period = Count(meta, "period", path);
  if (!period) common::FailAt(path, 0, "no 'period'");
  sidecar.period = *period;
  sidecar.persistent_bytes = Count(meta, "persistent_bytes", path);
  sidecar.recorded_reserved = Count(meta, "reserved_peak_bytes", path);
  // The caching allocator reserved the persistent tensors too, so a smaller reservation is a broken sidecar,
  // and the iteration's share of it would be negative.
  if (sidecar.recorded_reserved && *sidecar.recorded_reserved < sidecar.persistent_bytes.value_or(0)) {
    common::FailAt(path, 0, fmt::format("'reserved_peak_bytes' is {}, below 'persistent_bytes' {}, which it holds",
                                        *sidecar.recorded_reserved, *sidecar.persistent_bytes));
  }
  return sidecar;
}

}  // namespace alloc
