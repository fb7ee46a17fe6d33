#include "alloc/converter.h"

#include <fmt/core.h>

#include <limits>
#include <unordered_map>

#include "alloc/validator.h"
#include "common/atomic_file.h"
#include "common/csv.h"
#include "common/error.h"

namespace alloc {

using common::FailAt;

Problem ParseProblem(const std::string& file, std::string_view text, TimeValue period) {
  if (period < 0) FailAt(file, 0, "the period must be positive");
  const common::CsvTable table = common::CsvTable::Parse(file, text);
  const size_t id_col = table.RequireColumn("id");
  const size_t size_col = table.RequireColumn("size");
  // MiniMalloc's legacy header names an inclusive [start, end]; the modern one a half-open [lower, upper).
  const bool legacy = !table.Column("lower") && table.Column("start");
  const size_t lower_col = table.RequireColumn(legacy ? "start" : "lower");
  const size_t upper_col = table.RequireColumn(legacy ? "end" : "upper");
  const auto alignment_col = table.Column("alignment");
  const auto offset_col = table.Column("offset");

  Problem problem;
  problem.period = period;
  problem.buffers.reserve(table.rows().size());
  std::unordered_map<std::string, long> seen;
  seen.reserve(table.rows().size());
  // Sum of every size, alignment slack and fixed offset: no plan is higher, so when it fits in a signed
  // 64-bit byte count, so do every height, offset and load the planners and the validator compute.
  Bytes extent = 0;
  for (const common::CsvRow& row : table.rows()) {
    Buffer b;
    b.line = row.line;
    b.id = row.fields[id_col];
    if (b.id.empty()) FailAt(file, row.line, "empty id");
    if (auto [it, inserted] = seen.emplace(b.id, row.line); !inserted) {
      FailAt(file, row.line, fmt::format("duplicate id '{}' (first on line {})", b.id, it->second));
    }
    b.lower = table.Integer(row, lower_col);
    b.upper = table.Integer(row, upper_col);
    if (legacy) {
      if (b.upper == std::numeric_limits<TimeValue>::max()) FailAt(file, row.line, fmt::format("end {} is too large", b.upper));
      ++b.upper;
    }
    b.size = table.Integer(row, size_col);
    const char* lower_name = legacy ? "start" : "lower";
    if (b.lower < 0) FailAt(file, row.line, fmt::format("{} is negative: {}", lower_name, b.lower));
    if (b.upper <= b.lower) {
      FailAt(file, row.line,
             legacy ? fmt::format("end {} is before start {}", b.upper - 1, b.lower)
                    : fmt::format("upper {} is not greater than lower {}", b.upper, b.lower));
    }
    if (period > 0) {
      if (b.lower >= period) {
        FailAt(file, row.line, fmt::format("{} {} is not inside the period {}", lower_name, b.lower, period));
      }
      if (b.upper - b.lower > period) {
        FailAt(file, row.line,
               fmt::format("lifespan {} is longer than the period {}", b.upper - b.lower, period));
      }
    }
    if (b.size <= 0) FailAt(file, row.line, fmt::format("size must be positive, found {}", b.size));
    if (alignment_col) {
      b.alignment = table.Integer(row, *alignment_col);
      if (b.alignment <= 0) {
        FailAt(file, row.line, fmt::format("alignment must be positive, found {}", b.alignment));
      }
    }
    if (offset_col && !row.fields[*offset_col].empty()) {
      const Offset offset = table.Integer(row, *offset_col);
      if (offset < 0) FailAt(file, row.line, fmt::format("offset is negative: {}", offset));
      if (offset % b.alignment != 0) {
        FailAt(file, row.line, fmt::format("fixed offset {} is not a multiple of the alignment {}", offset,
                                           b.alignment));
      }
      b.fixed_offset = offset;
    }
    if (__builtin_add_overflow(extent, b.size, &extent) || __builtin_add_overflow(extent, b.alignment - 1, &extent) ||
        __builtin_add_overflow(extent, b.fixed_offset.value_or(0), &extent)) {
      FailAt(file, row.line, "the sizes, alignments and fixed offsets add up to more than 2^63 - 1 bytes");
    }
    problem.buffers.push_back(std::move(b));
  }
  if (problem.buffers.empty()) FailAt(file, 0, "no buffers (the file has a header but no rows)");
  // Fixed buffers that overlap each other admit no plan at all; the planners would honour both offsets
  // and write an invalid plan (found by fuzz/regressions/csv_reader).
  Problem fixed;
  fixed.period = period;
  Solution fixed_offsets;
  for (const Buffer& b : problem.buffers) {
    if (!b.fixed_offset) continue;
    fixed.buffers.push_back(b);
    fixed_offsets.offsets.push_back(*b.fixed_offset);
  }
  const ValidationReport report = Validate(fixed, fixed_offsets);
  if (!report.ok()) FailAt(file, 0, "fixed offsets conflict: " + report.errors.front());
  return problem;
}

Problem ReadProblem(const std::string& path, TimeValue period) {
  return ParseProblem(path, common::ReadFile(path), period);
}

PlanRows ReadPlanRows(const std::string& path, const Problem& problem) {
  const common::CsvTable table = common::CsvTable::Read(path);
  const size_t id_col = table.RequireColumn("id");
  const size_t offset_col = table.RequireColumn("offset");
  std::unordered_map<std::string, size_t> index;
  index.reserve(problem.buffers.size());
  for (size_t i = 0; i < problem.buffers.size(); ++i) index.emplace(problem.buffers[i].id, i);
  PlanRows rows;
  rows.offsets.assign(problem.buffers.size(), std::nullopt);
  std::vector<long> line_of(problem.buffers.size(), 0);
  for (const common::CsvRow& row : table.rows()) {
    const std::string& id = row.fields[id_col];
    auto it = index.find(id);
    if (it == index.end()) {
      rows.unknown_ids.push_back(id);
      continue;
    }
    if (line_of[it->second] != 0) {
      FailAt(path, row.line, fmt::format("duplicate id '{}' (first on line {})", id, line_of[it->second]));
    }
    line_of[it->second] = row.line;
    const Offset offset = table.Integer(row, offset_col);
    if (offset < 0) FailAt(path, row.line, fmt::format("offset is negative: {}", offset));
    rows.offsets[it->second] = offset;
  }
  return rows;
}

namespace {

// Whether any buffer needs the optional alignment column.
bool AnyAligned(const Problem& problem) {
  for (const Buffer& b : problem.buffers) {
    if (b.alignment != 1) return true;
  }
  return false;
}

std::string Format(const Problem& problem, const Solution* solution) {
  const bool aligned = AnyAligned(problem);
  bool any_fixed = false;
  for (const Buffer& b : problem.buffers) any_fixed |= b.fixed_offset.has_value();
  const bool offsets = solution != nullptr || any_fixed;
  std::string out = "id,lower,upper,size";
  if (aligned) out += ",alignment";
  if (offsets) out += ",offset";
  out += '\n';
  for (size_t i = 0; i < problem.buffers.size(); ++i) {
    const Buffer& b = problem.buffers[i];
    fmt::format_to(std::back_inserter(out), "{},{},{},{}", b.id, b.lower, b.upper, b.size);
    if (aligned) fmt::format_to(std::back_inserter(out), ",{}", b.alignment);
    if (solution) {
      fmt::format_to(std::back_inserter(out), ",{}", solution->offsets[i]);
    } else if (offsets) {
      out += ',';
      if (b.fixed_offset) out += std::to_string(*b.fixed_offset);
    }
    out += '\n';
  }
  return out;
}

}  // namespace

std::string FormatPlan(const Problem& problem, const Solution& solution) { return Format(problem, &solution); }

std::string FormatProblem(const Problem& problem) { return Format(problem, nullptr); }

}  // namespace alloc
