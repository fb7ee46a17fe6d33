#include "report/alloc_section.h"

#include <fmt/core.h>

#include <algorithm>
#include <iterator>
#include <numeric>

#include "report/format.h"

namespace report {
namespace {

constexpr double kWidth = 1200, kHeight = 620, kLeft = 110, kRight = 20, kTop = 20, kBottom = 50;

// The indices of the buffers to draw: all of them, or the `max_buffers` largest, in input order.
std::vector<size_t> BuffersToDraw(const alloc::Problem& problem, size_t max_buffers) {
  std::vector<size_t> order(problem.buffers.size());
  std::iota(order.begin(), order.end(), size_t{0});
  if (order.size() <= max_buffers) return order;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return problem.buffers[a].size > problem.buffers[b].size; });
  order.resize(max_buffers);
  std::sort(order.begin(), order.end());
  return order;
}

}  // namespace

PlanDrawing DrawPlan(const alloc::Problem& problem, const alloc::Solution& solution, size_t max_buffers) {
  const alloc::Bytes height = alloc::Height(problem, solution);
  const alloc::Bytes lb = alloc::PeakLoad(problem);
  alloc::TimeValue begin = problem.period > 0 || problem.buffers.empty() ? 0 : problem.buffers.front().lower;
  alloc::TimeValue end = problem.period;
  // A repeating pattern is drawn over one period (wrapped buffers as two rectangles), else over its lifespans.
  for (const alloc::Buffer& b : problem.buffers) {
    if (problem.period > 0) continue;
    begin = std::min(begin, b.lower);
    end = std::max(end, b.upper);
  }
  const double t_span = static_cast<double>(std::max<alloc::TimeValue>(end - begin, 1));
  const double y_max = static_cast<double>(std::max<alloc::Bytes>({height, lb, 1}));
  const double plot_w = kWidth - kLeft - kRight, plot_h = kHeight - kTop - kBottom;
  auto x_of = [&](alloc::TimeValue t) { return kLeft + plot_w * static_cast<double>(t - begin) / t_span; };
  auto y_of = [&](alloc::Bytes a) { return kTop + plot_h * (1 - static_cast<double>(a) / y_max); };

  PlanDrawing drawing;
  auto emit = std::back_inserter(drawing.svg);
  fmt::format_to(emit,
                 "<svg class=\"plan\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {} {}\" "
                 "font-family=\"sans-serif\" font-size=\"12\" role=\"img\">\n",
                 kWidth, kHeight);
  for (size_t i : BuffersToDraw(problem, max_buffers)) {
    const alloc::Buffer& b = problem.buffers[i];
    // A stable colour per buffer, spread around the hue circle by the golden angle.
    const int hue = static_cast<int>(static_cast<double>(i) * 137.508) % 360;
    const alloc::Offset offset = solution.offsets[i];
    const std::string id = Escape(b.id);
    for (const alloc::TimeRange& r : problem.Lifespan(i)) {
      const double x0 = x_of(r.begin), x1 = x_of(r.end);
      const double y0 = y_of(offset + b.size), y1 = y_of(offset);
      fmt::format_to(emit,
                     "<rect x=\"{:.2f}\" y=\"{:.2f}\" width=\"{:.2f}\" height=\"{:.2f}\" fill=\"hsl({},65%,62%)\" "
                     "stroke=\"#333\" stroke-width=\"0.3\" data-id=\"{}\" data-size=\"{}\" data-lower=\"{}\" "
                     "data-upper=\"{}\" data-offset=\"{}\"><title>{}: size {} B, lifetime [{}, {}), offset {}</title>"
                     "</rect>\n",
                     x0, y0, std::max(x1 - x0, 0.5), std::max(y1 - y0, 0.5), hue, id, b.size, b.lower, b.upper, offset,
                     id, b.size, b.lower, b.upper, offset);
    }
    ++drawing.drawn;
  }
  // The height is labelled left of the axis, the lower bound inside the plot: they often coincide.
  const double lb_y = y_of(lb), height_y = y_of(height);
  fmt::format_to(emit,
                 "<line class=\"lower-bound\" x1=\"{0}\" x2=\"{1}\" y1=\"{2:.2f}\" y2=\"{2:.2f}\" stroke=\"#1565c0\" "
                 "stroke-width=\"1.5\" stroke-dasharray=\"6 4\"/>\n<text x=\"{3}\" y=\"{4:.2f}\" text-anchor=\"end\" "
                 "fill=\"#1565c0\" stroke=\"white\" stroke-width=\"3\" paint-order=\"stroke\">LB {5}</text>\n",
                 kLeft, kWidth - kRight, lb_y, kWidth - kRight - 4, lb_y + 14, CompactBytes(lb));
  fmt::format_to(emit,
                 "<line class=\"height\" x1=\"{0}\" x2=\"{1}\" y1=\"{2:.2f}\" y2=\"{2:.2f}\" stroke=\"#c62828\" "
                 "stroke-width=\"1.5\"/>\n<text x=\"{3}\" y=\"{4:.2f}\" text-anchor=\"end\" "
                 "fill=\"#c62828\">H {5}</text>\n",
                 kLeft, kWidth - kRight, height_y, kLeft - 4, height_y + 4, CompactBytes(height));
  fmt::format_to(emit, "<line x1=\"{0}\" x2=\"{0}\" y1=\"{1}\" y2=\"{2}\" stroke=\"black\"/>\n", kLeft, kTop,
                 kHeight - kBottom);
  fmt::format_to(emit, "<line x1=\"{0}\" x2=\"{1}\" y1=\"{2}\" y2=\"{2}\" stroke=\"black\"/>\n", kLeft,
                 kWidth - kRight, kHeight - kBottom);
  fmt::format_to(emit, "<text x=\"{}\" y=\"{}\" text-anchor=\"start\">{}</text>\n", kLeft, kHeight - kBottom + 16,
                 begin);
  fmt::format_to(emit, "<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>\n", kWidth - kRight,
                 kHeight - kBottom + 16, end);
  fmt::format_to(emit, "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">time</text>\n", kLeft + plot_w / 2,
                 kHeight - kBottom + 34);
  fmt::format_to(emit,
                 "<text x=\"16\" y=\"{0}\" transform=\"rotate(-90 16 {0})\" text-anchor=\"middle\">offset</text>\n"
                 "</svg>\n",
                 kTop + plot_h / 2);
  return drawing;
}

size_t AddAllocSections(Page& page, const std::string& what, const alloc::Problem& problem,
                        const AllocFigures& figures, size_t max_buffers) {
  const alloc::Bytes lb = alloc::PeakLoad(problem);
  Table table{.id = "alloc-methods",
              .header = {"method", "arena height", "lower bound (peak load)", "fragmentation H/LB-1", "time"},
              .column_class = {"", "num", "num", "num", "num time"},
              .rows = {}};
  for (const alloc::PlanResult& r : figures.plans) {
    table.rows.push_back({r.method, HumanBytes(r.height), HumanBytes(r.lower_bound),
                          Percent(100 * alloc::Fragmentation(r.height, r.lower_bound)), Seconds(r.seconds)});
  }
  if (figures.caching && figures.caching->out_of_memory) {
    table.rows.push_back({"pytorch-caching (simulated)", "out of memory at " + figures.caching->oom_buffer,
                          HumanBytes(figures.caching->lower_bound), "", Seconds(figures.caching_seconds)});
  } else if (figures.caching) {
    table.rows.push_back({"pytorch-caching (simulated)", HumanBytes(figures.caching->peak_reserved),
                          HumanBytes(figures.caching->lower_bound), Percent(100 * figures.caching->Fragmentation()),
                          Seconds(figures.caching_seconds)});
  }
  Section& methods = page.AddSection("alloc-table", what + ": planners compared");
  methods.Paragraph(fmt::format("{} buffers; lower bound (the most bytes alive at one moment) {}.",
                                problem.buffers.size(), HumanBytes(lb)));
  methods.AddTable(table);
  methods.Paragraph(
      "Every plan was checked by the independent validator (no two buffers alive at the same time overlap). "
      "The caching-allocator row is a simulation of PyTorch's CUDA caching allocator replaying the same pattern: "
      "its height is the peak reserved memory.");

  if (figures.plans.empty()) return 0;
  const alloc::PlanResult& best = figures.plans.front();
  const PlanDrawing drawing = DrawPlan(problem, best.solution, max_buffers);
  Section& plan = page.AddSection("alloc-plan", what + ": the " + best.method + " plan");
  if (drawing.drawn < problem.buffers.size()) {
    plan.Paragraph(fmt::format("Showing the {} largest of {} buffers (the others are left out to keep the page "
                               "light); the lines and the table cover all of them.",
                               drawing.drawn, problem.buffers.size()));
  }
  plan.Paragraph(fmt::format("Time across, offset up; height {}, lower bound {}. Hover over a buffer for its id, "
                             "size, lifetime and offset.",
                             HumanBytes(best.height), HumanBytes(lb)));
  plan.Figure("plan-figure", drawing.svg);
  return drawing.drawn;
}

}  // namespace report
