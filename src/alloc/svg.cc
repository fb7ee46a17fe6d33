#include "alloc/svg.h"

#include <fmt/core.h>

#include <algorithm>
#include <iterator>

#include "common/escape.h"

namespace alloc {

std::string RenderSvg(const Problem& problem, const Solution& solution, const std::string& title) {
  constexpr double kWidth = 1200, kHeight = 700, kLeft = 90, kRight = 20, kTop = 50, kBottom = 50;
  const Bytes height = Height(problem, solution);
  const Bytes lb = PeakLoad(problem);
  TimeValue end = problem.period;
  for (const Buffer& b : problem.buffers) end = std::max(end, problem.period > 0 ? problem.period : b.upper);
  const double y_max = static_cast<double>(std::max<Bytes>({height, lb, 1}));
  const double t_max = static_cast<double>(std::max<TimeValue>(end, 1));
  const double plot_w = kWidth - kLeft - kRight, plot_h = kHeight - kTop - kBottom;
  auto x_of = [&](double t) { return kLeft + plot_w * t / t_max; };
  auto y_of = [&](double a) { return kTop + plot_h * (1 - a / y_max); };

  std::string out;
  auto emit = std::back_inserter(out);
  fmt::format_to(emit,
                 "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\" "
                 "font-family=\"sans-serif\" font-size=\"12\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n",
                 kWidth, kHeight);
  fmt::format_to(emit, "<text x=\"{}\" y=\"22\" font-size=\"15\">{}: {} buffers, height {} B, LB {} B, "
                 "fragmentation {:.2f} %</text>\n",
                 kLeft, common::EscapeMarkup(title), problem.buffers.size(), height, lb,
                 lb > 0 ? 100.0 * (static_cast<double>(height) / static_cast<double>(lb) - 1) : 0.0);
  for (size_t i = 0; i < problem.buffers.size(); ++i) {
    const Buffer& b = problem.buffers[i];
    // A stable colour per buffer index, spread around the hue circle by the golden angle.
    const int hue = static_cast<int>((i * 137.508)) % 360;
    for (const TimeRange& r : problem.Lifespan(i)) {
      const double x0 = x_of(static_cast<double>(r.begin)), x1 = x_of(static_cast<double>(r.end));
      const double y1 = y_of(static_cast<double>(solution.offsets[i]));
      const double y0 = y_of(static_cast<double>(solution.offsets[i] + b.size));
      fmt::format_to(emit,
                     "<rect x=\"{:.2f}\" y=\"{:.2f}\" width=\"{:.2f}\" height=\"{:.2f}\" fill=\"hsl({},65%,62%)\" "
                     "stroke=\"#333\" stroke-width=\"0.3\"><title>{}: size {} B, time [{}, {}), offset {}</title></rect>\n",
                     x0, y0, std::max(x1 - x0, 0.5), std::max(y1 - y0, 0.5), hue, common::EscapeMarkup(b.id), b.size,
                     b.lower, b.upper, solution.offsets[i]);
    }
  }
  auto hline = [&](double value, const char* colour, const char* dash, const std::string& label) {
    const double y = y_of(value);
    fmt::format_to(emit, "<line x1=\"{}\" x2=\"{}\" y1=\"{:.2f}\" y2=\"{:.2f}\" stroke=\"{}\" stroke-width=\"1.5\" "
                   "stroke-dasharray=\"{}\"/>\n<text x=\"{}\" y=\"{:.2f}\" text-anchor=\"end\" fill=\"{}\">{}</text>\n",
                   kLeft, kWidth - kRight, y, y, colour, dash, kLeft - 4, y + 4, colour, label);
  };
  hline(static_cast<double>(lb), "#1565c0", "6 4", fmt::format("LB {}", lb));
  hline(static_cast<double>(height), "#c62828", "none", fmt::format("H {}", height));
  // Axes.
  fmt::format_to(emit, "<line x1=\"{0}\" x2=\"{0}\" y1=\"{1}\" y2=\"{2}\" stroke=\"black\"/>\n", kLeft, kTop,
                 kHeight - kBottom);
  fmt::format_to(emit, "<line x1=\"{0}\" x2=\"{1}\" y1=\"{2}\" y2=\"{2}\" stroke=\"black\"/>\n", kLeft,
                 kWidth - kRight, kHeight - kBottom);
  fmt::format_to(emit, "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">time (0 to {})</text>\n",
                 kLeft + plot_w / 2, kHeight - kBottom + 30, end);
  fmt::format_to(emit, "<text x=\"16\" y=\"{}\" transform=\"rotate(-90 16 {})\" text-anchor=\"middle\">address "
                 "(bytes)</text>\n</svg>\n",
                 kTop + plot_h / 2, kTop + plot_h / 2);
  return out;
}

}  // namespace alloc
