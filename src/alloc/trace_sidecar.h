// The JSON sidecar that memplan-torch writes beside each trace it records or imports (NAME.csv ->
// NAME.meta.json, format memplan-trace/v1): the trace's period, so that a user need not repeat it, and for
// an imported CUDA memory snapshot what PyTorch's caching allocator really reserved over the iteration.
#pragma once

#include <optional>
#include <string>

#include "alloc/problem.h"

namespace alloc {

// What memplan reads from a sidecar (memplan-torch writes more: docs/pytorch.md).
struct TraceSidecar {
  std::string path;                           // the sidecar file, for messages
  TimeValue period = 0;                       // the trace repeats every `period` time units
  std::optional<Bytes> persistent_bytes;      // parameters, gradients, optimizer state: memory outside the trace
  std::optional<Bytes> recorded_reserved;     // reserved_peak_bytes: the caching allocator's real peak reservation

  // The part of the recorded reservation that the trace's buffers had (the trace leaves the persistent bytes
  // out): what a plan's arena or a simulation of the trace compares with.
  std::optional<Bytes> IterationReserved() const {
    if (!recorded_reserved) return std::nullopt;
    return *recorded_reserved - persistent_bytes.value_or(0);
  }
};

// NAME.meta.json for NAME.csv (any other name gets ".meta.json" appended), as memplan-torch names it.
std::string SidecarPath(const std::string& trace_path);

// The sidecar beside `trace_path`, or nullopt when there is none, or when it is a JSON file of another kind
// (no "format": "memplan-trace/v1"; `note` then says so). Throws common::InputError("sidecar: what") when it
// is not JSON, or when a memplan-trace/v1 sidecar's period or byte counts are missing, negative or not
// integers, or when its recorded reservation is below its persistent bytes.
std::optional<TraceSidecar> ReadTraceSidecar(const std::string& trace_path, std::string* note = nullptr);

}  // namespace alloc
