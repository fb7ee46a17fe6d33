#include "alloc/caching_replay.h"

#include <fmt/core.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "common/atomic_file.h"
#include "common/error.h"
#include "common/json_text.h"

namespace alloc {
namespace {

// The field `key` of the object `object`; InputError naming it when it is missing.
const nlohmann::json& Field(const nlohmann::json& object, const char* key, const std::string& path,
                            const std::string& where) {
  if (!object.is_object() || !object.contains(key)) {
    common::FailAt(path, 0, fmt::format("{}: no '{}'", where, key));
  }
  return object.at(key);
}

// The field `key` of `object` when it is an array, or InputError (found by fuzz/regressions/caching_replay).
const nlohmann::json& ArrayField(const nlohmann::json& object, const char* key, const std::string& path,
                                 const std::string& where) {
  const nlohmann::json& value = Field(object, key, path, where);
  if (!value.is_array()) {
    common::FailAt(path, 0, fmt::format("{}: '{}' is not an array", where, key));
  }
  return value;
}

// Addresses, sizes and their sums stay below this, far above any device's (2^62 bytes), so that the replay's
// sums of bytes cannot overflow.
constexpr Bytes kLimit = Bytes{1} << 62;

// Adds `size` to `total`; InputError when the sum, or `address` + `size`, reaches kLimit.
void Tally(Bytes& total, Bytes address, Bytes size, const std::string& path, const std::string& where) {
  if (address >= kLimit - size || size >= kLimit - total) {
    common::FailAt(path, 0, fmt::format("{}: addresses and sizes beyond 2^62 bytes", where));
  }
  total += size;
}

}  // namespace

CachingReplay ParseCachingReplay(const std::string& path, std::string_view text) {
  const nlohmann::json doc = common::ParseJson(path, text);
  if (!doc.is_object() || doc.value("format", nlohmann::json()) != "caching-replay/v1") {
    common::FailAt(path, 0, "not a caching-replay/v1 file (memplan-torch import-snapshot --replay writes them)");
  }
  CachingReplay replay;
  Bytes total = 0;  // every size in the file
  const nlohmann::json& conf = Field(doc, "conf", path, "the file");
  if (!conf.is_string()) common::FailAt(path, 0, "'conf' is not a string");
  replay.conf = conf.get<std::string>();
  const nlohmann::json& segments = ArrayField(doc, "segments", path, "the file");
  for (size_t k = 0; k < segments.size(); ++k) {
    const std::string where = fmt::format("segments[{}]", k);
    CachingReplay::Segment s;
    s.address = common::NonNegativeInteger(Field(segments[k], "address", path, where), path, where + ".address");
    s.size = common::NonNegativeInteger(Field(segments[k], "size", path, where), path, where + ".size");
    Tally(total, s.address, s.size, path, where);
    const nlohmann::json& pool = Field(segments[k], "pool", path, where);
    if (pool != "small" && pool != "large") {
      common::FailAt(path, 0, fmt::format("{}.pool is {}, not \"small\" or \"large\"", where, pool.dump()));
    }
    s.small = pool == "small";
    const nlohmann::json& live = ArrayField(segments[k], "live", path, where);
    for (size_t b = 0; b < live.size(); ++b) {
      const std::string block = fmt::format("{}.live[{}]", where, b);
      if (!live[b].is_array() || live[b].size() != 2) {
        common::FailAt(path, 0, block + " is not [address, size]");
      }
      const Bytes address = common::NonNegativeInteger(live[b][0], path, block + " address");
      const Bytes size = common::NonNegativeInteger(live[b][1], path, block + " size");
      if (size == 0 || address < s.address || address + size > s.address + s.size) {
        common::FailAt(path, 0, block + " lies outside its segment");
      }
      s.live.emplace_back(address, size);
    }
    std::sort(s.live.begin(), s.live.end());
    for (size_t b = 1; b < s.live.size(); ++b) {
      if (s.live[b - 1].first + s.live[b - 1].second > s.live[b].first) {
        common::FailAt(path, 0, where + ": two live blocks overlap");
      }
    }
    replay.segments.push_back(std::move(s));
  }
  const nlohmann::json& events = ArrayField(doc, "events", path, "the file");
  for (size_t i = 0; i < events.size(); ++i) {
    const std::string where = fmt::format("events[{}]", i);
    const nlohmann::json& e = events[i];
    if (!e.is_array() || e.size() != 3 || !e[0].is_string()) {
      common::FailAt(path, 0, where + " is not [action, address, size]");
    }
    CachingReplay::Event event;
    const std::string action = e[0].get<std::string>();
    if (action == "alloc") {
      event.action = CachingReplay::Action::kAlloc;
    } else if (action == "free") {
      event.action = CachingReplay::Action::kFree;
    } else if (action == "segment_alloc") {
      event.action = CachingReplay::Action::kSegmentAlloc;
    } else if (action == "segment_free") {
      event.action = CachingReplay::Action::kSegmentFree;
    } else {
      common::FailAt(path, 0, fmt::format("{}: unknown action '{}'", where, action));
    }
    event.address = common::NonNegativeInteger(e[1], path, where + " address");
    event.size = common::NonNegativeInteger(e[2], path, where + " size");
    Tally(total, event.address, event.size, path, where);
    replay.events.push_back(event);
  }
  return replay;
}

CachingReplay ReadCachingReplay(const std::string& path) { return ParseCachingReplay(path, common::ReadFile(path)); }

}  // namespace alloc
