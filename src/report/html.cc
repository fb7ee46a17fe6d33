#include "report/html.h"

#include <fmt/core.h>

#include <iterator>

#include "common/escape.h"

namespace report {
namespace {

// Colours and layout; the plan's rectangles carry their own fill.
constexpr const char* kStyle = R"css(
body { font-family: sans-serif; margin: 24px; color: #222; max-width: 1300px; }
h1 { font-size: 22px; margin-bottom: 4px; }
h2 { font-size: 18px; margin-top: 28px; border-bottom: 1px solid #ccc; }
header p { color: #555; margin-top: 0; }
nav a { margin-right: 14px; }
table { border-collapse: collapse; margin: 8px 0; }
th, td { border: 1px solid #ccc; padding: 3px 10px; }
th { background: #f0f0f0; text-align: left; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
figure { margin: 8px 0; }
svg.plan { width: 100%; height: auto; border: 1px solid #ddd; }
svg.plan rect[data-id]:hover { stroke: #000; stroke-width: 1.5; }
#tooltip { position: absolute; background: #fffbe6; border: 1px solid #999; padding: 4px 8px; font-size: 12px;
           pointer-events: none; white-space: nowrap; }
)css";

// The tooltip over plan rectangles (built with textContent: ids are never parsed as markup), and the marker
// that says the script ran to its end.
constexpr const char* kScript = R"js(
(function () {
  "use strict";
  var tip = document.getElementById("tooltip");
  function show(event) {
    var rect = event.target.closest("[data-id]");
    if (!rect) { tip.hidden = true; return; }
    var d = rect.dataset;
    tip.textContent = d.id + ": size " + d.size + " B, lifetime [" + d.lower + ", " + d.upper + "), offset " +
        d.offset;
    tip.style.left = (event.pageX + 12) + "px";
    tip.style.top = (event.pageY + 12) + "px";
    tip.hidden = false;
  }
  var plans = document.querySelectorAll("svg.plan");
  plans.forEach(function (svg) {
    svg.addEventListener("mousemove", show);
    svg.addEventListener("mouseleave", function () { tip.hidden = true; });
  });
  document.body.dataset.planRects = String(document.querySelectorAll("svg.plan rect[data-id]").length);
  document.body.dataset.ready = "1";
})();
)js";

}  // namespace

std::string Escape(std::string_view text) { return common::EscapeMarkup(text); }

void Section::Paragraph(std::string_view text) {
  fmt::format_to(std::back_inserter(body_), "<p>{}</p>\n", Escape(text));
}

void Section::AddTable(const Table& table) {
  auto emit = std::back_inserter(body_);
  fmt::format_to(emit, "<table id=\"{}\">\n<thead><tr>", Escape(table.id));
  for (const std::string& cell : table.header) fmt::format_to(emit, "<th>{}</th>", Escape(cell));
  body_ += "</tr></thead>\n<tbody>\n";
  for (const auto& row : table.rows) {
    body_ += "<tr>";
    for (size_t i = 0; i < row.size(); ++i) {
      if (i < table.column_class.size() && !table.column_class[i].empty()) {
        fmt::format_to(emit, "<td class=\"{}\">{}</td>", Escape(table.column_class[i]), Escape(row[i]));
      } else {
        fmt::format_to(emit, "<td>{}</td>", Escape(row[i]));
      }
    }
    body_ += "</tr>\n";
  }
  body_ += "</tbody>\n</table>\n";
}

void Section::Figure(const std::string& id, const std::string& markup) {
  fmt::format_to(std::back_inserter(body_), "<figure id=\"{}\">\n{}</figure>\n", Escape(id), markup);
}

Section& Page::AddSection(const std::string& id, const std::string& heading) {
  return sections_.emplace_back(id, heading);
}

std::vector<std::string> Page::SectionIds() const {
  std::vector<std::string> ids;
  for (const Section& s : sections_) ids.push_back(s.id());
  return ids;
}

std::string Page::Render() const {
  std::string out;
  auto emit = std::back_inserter(out);
  fmt::format_to(emit,
                 "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                 "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
                 "<title>{}</title>\n<style>{}</style>\n</head>\n<body>\n<header>\n<h1>{}</h1>\n<p>{}</p>\n</header>\n",
                 Escape(title_), kStyle, Escape(title_), Escape(subtitle_));
  out += "<nav>";
  for (const Section& s : sections_) {
    fmt::format_to(emit, "<a href=\"#{}\">{}</a>", Escape(s.id()), Escape(s.heading()));
  }
  out += "</nav>\n";
  for (const Section& s : sections_) {
    fmt::format_to(emit, "<section id=\"{}\">\n<h2>{}</h2>\n{}</section>\n", Escape(s.id()), Escape(s.heading()),
                   s.body());
  }
  fmt::format_to(emit, "<div id=\"tooltip\" hidden></div>\n<script>{}</script>\n</body>\n</html>\n", kScript);
  return out;
}

}  // namespace report
