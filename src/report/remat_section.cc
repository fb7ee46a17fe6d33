#include "report/remat_section.h"

#include <fmt/core.h>

#include "remat/svg.h"
#include "report/format.h"

namespace report {

std::string ReservedLine(alloc::Bytes reserved_reference, alloc::Bytes reserved_schedule, alloc::Bytes arena_height) {
  return fmt::format(
      "PyTorch's caching allocator (simulated) would reserve {} for the reference order and {} for this schedule; "
      "the planned arena needs {} ({:.1f} % of the reference reservation).",
      HumanBytes(reserved_reference), HumanBytes(reserved_schedule), HumanBytes(arena_height),
      reserved_reference > 0 ? 100.0 * static_cast<double>(arena_height) / static_cast<double>(reserved_reference)
                             : 0.0);
}

void AddRematSections(Page& page, const RematFigures& figures) {
  Table table{.id = "remat-methods",
              .header = {"method", "peak", "memory (% of reference peak)", "cost increase", "budget met", "time"},
              .column_class = {"", "num", "num", "num", "", "num time"},
              .rows = {}};
  for (const remat::RematResult& r : figures.rows) {
    const double memory = r.reference_peak > 0 ? 100.0 * static_cast<double>(r.peak) / r.reference_peak : 0.0;
    const double cost = r.reference_cost > 0 ? 100.0 * (r.cost - r.reference_cost) / r.reference_cost : 0.0;
    table.rows.push_back({r.method, HumanBytes(r.peak), Percent(memory), Percent(cost), r.budget_met ? "yes" : "no",
                          Seconds(r.seconds)});
  }
  Section& methods = page.AddSection("remat-table", "Recomputation: planners compared");
  const remat::Bytes reference_peak = figures.rows.empty() ? 0 : figures.rows.front().reference_peak;
  methods.Paragraph(fmt::format("Budget {} ({:.1f} % of the reference order's peak {}).", HumanBytes(figures.budget),
                                reference_peak > 0 ? 100.0 * static_cast<double>(figures.budget) / reference_peak : 0.0,
                                HumanBytes(reference_peak)));
  methods.AddTable(table);
  methods.Paragraph(
      "none is the reference order without recomputation; chen is Chen et al.'s square-root checkpointing; the "
      "last row is the chosen schedule, whose budget counts as met only when the arena holding all its buffers "
      "fits the budget.");
  methods.Paragraph(ReservedLine(figures.reserved_reference, figures.reserved_schedule, figures.arena_height));

  Section& curve = page.AddSection("memory-curve", "Memory over the iteration, before and after recomputation");
  curve.Paragraph("Bytes alive at each step (each curve stretched over the full width, as schedules differ in "
                  "length); the dashed line is the budget.");
  curve.Figure("memory-curve-figure", remat::MemoryCurveSvg(figures.graph_name, figures.memory_before,
                                                            figures.memory_after, figures.budget));
}

}  // namespace report
