// Reading and writing allocation problems and plans in MiniMalloc's CSV format.
//
// Problem: header `id,lower,upper,size` (any order), optional `alignment` and `offset` (a fixed
// offset; an empty field means free). The legacy header `id,start,end,size` has an inclusive end.
// Plan: the same rows plus `offset`.
#pragma once

#include <string>
#include <string_view>

#include "alloc/problem.h"

namespace alloc {

// Parses a problem. `file` names the source in messages; `period` as in Problem::period. Throws
// common::InputError ("file:line: what") on any malformed row, a negative or non-integer number,
// upper <= lower (or a lifespan longer than the period), a duplicate id, or an empty file.
Problem ParseProblem(const std::string& file, std::string_view text, TimeValue period = 0);

// Reads and parses a problem file.
Problem ReadProblem(const std::string& path, TimeValue period = 0);

// Reads the `offset` column of a plan file for the buffers of `problem`, matched by id. Throws
// common::InputError for a malformed file; buffers without a row get no offset (see ReadPlanRows).
struct PlanRows {
  std::vector<std::optional<Offset>> offsets;  // per buffer of the problem; nullopt when missing
  std::vector<std::string> unknown_ids;        // ids in the plan that the problem does not have
};
PlanRows ReadPlanRows(const std::string& path, const Problem& problem);

// Formats a plan: the problem's rows (in input order) with their offsets, in the modern header.
std::string FormatPlan(const Problem& problem, const Solution& solution);

// Formats a problem (no offsets except fixed ones), for the generator.
std::string FormatProblem(const Problem& problem);

}  // namespace alloc
