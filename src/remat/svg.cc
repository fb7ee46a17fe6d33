#include "remat/svg.h"

#include <fmt/core.h>

#include <algorithm>

namespace remat {
namespace {

constexpr double kWidth = 800;
constexpr double kHeight = 300;
constexpr double kMargin = 40;

// "x,y" points of a step-wise curve, memory scaled so that `top` reaches the top of the plot.
std::string Points(const std::vector<Bytes>& memory, double top) {
  std::string points;
  const double steps = std::max<double>(1, static_cast<double>(memory.size()));
  for (size_t i = 0; i < memory.size(); ++i) {
    const double y = kMargin + kHeight * (1 - static_cast<double>(memory[i]) / top);
    const double x0 = kMargin + kWidth * static_cast<double>(i) / steps;
    const double x1 = kMargin + kWidth * static_cast<double>(i + 1) / steps;
    points += fmt::format("{:.1f},{:.1f} {:.1f},{:.1f} ", x0, y, x1, y);
  }
  return points;
}

// Escapes the characters XML gives a meaning to.
std::string Escape(const std::string& text) {
  std::string escaped;
  for (char c : text) {
    if (c == '&') escaped += "&amp;";
    else if (c == '<') escaped += "&lt;";
    else if (c == '>') escaped += "&gt;";
    else escaped += c;
  }
  return escaped;
}

}  // namespace

std::string MemoryCurveSvg(const std::string& title, const std::vector<Bytes>& before, const std::vector<Bytes>& after,
                           Bytes budget) {
  Bytes top = std::max<Bytes>(budget, 1);
  for (Bytes m : before) top = std::max(top, m);
  for (Bytes m : after) top = std::max(top, m);
  const double scale = static_cast<double>(top) * 1.05;
  const auto peak = [](const std::vector<Bytes>& m) { return m.empty() ? 0 : *std::max_element(m.begin(), m.end()); };
  const double budget_y = kMargin + kHeight * (1 - static_cast<double>(budget) / scale);
  std::string svg = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" font-family=\"sans-serif\" "
      "font-size=\"12\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
      "<text x=\"{}\" y=\"20\" font-size=\"14\">{}</text>\n",
      kWidth + 2 * kMargin, kHeight + 2 * kMargin + 20, kMargin, Escape(title));
  svg += fmt::format("<line x1=\"{0}\" y1=\"{1:.1f}\" x2=\"{2}\" y2=\"{1:.1f}\" stroke=\"black\" "
                     "stroke-dasharray=\"4 3\"/>\n",
                     kMargin, budget_y, kMargin + kWidth);
  svg += fmt::format("<polyline fill=\"none\" stroke=\"#999999\" stroke-width=\"1.5\" points=\"{}\"/>\n",
                     Points(before, scale));
  svg += fmt::format("<polyline fill=\"none\" stroke=\"#d62728\" stroke-width=\"1.5\" points=\"{}\"/>\n",
                     Points(after, scale));
  const double legend_y = kMargin + kHeight + 25;
  svg += fmt::format("<text x=\"{}\" y=\"{}\" fill=\"#777777\">reference order: peak {} over {} steps</text>\n",
                     kMargin, legend_y, peak(before), before.size());
  svg += fmt::format("<text x=\"{}\" y=\"{}\" fill=\"#d62728\">schedule: peak {} over {} steps</text>\n",
                     kMargin + 300, legend_y, peak(after), after.size());
  svg += fmt::format("<text x=\"{}\" y=\"{}\">- - budget {}</text>\n</svg>\n", kMargin + 580, legend_y, budget);
  return svg;
}

}  // namespace remat
