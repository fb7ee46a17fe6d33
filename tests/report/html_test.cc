// The report's page builder and pictures: escaping, tables, sections, and the plan's rectangles with the
// attributes the page's script and the browser test rely on.
#include <gtest/gtest.h>

#include <string>

#include "alloc/problem.h"
#include "report/alloc_section.h"
#include "report/format.h"
#include "report/html.h"
#include "report/remat_section.h"

namespace {

// How often `needle` occurs in `text`.
size_t Count(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + needle.size())) ++n;
  return n;
}

// A buffer of a test problem.
alloc::Buffer MakeBuffer(const std::string& id, alloc::TimeValue lower, alloc::TimeValue upper, alloc::Bytes size) {
  alloc::Buffer b;
  b.id = id;
  b.lower = lower;
  b.upper = upper;
  b.size = size;
  return b;
}

TEST(Escape, ReplacesEveryCharacterHtmlGivesAMeaningTo) {
  EXPECT_EQ(report::Escape("<a href=\"x\">Tom & Jerry's</a>"),
            "&lt;a href=&quot;x&quot;&gt;Tom &amp; Jerry&#39;s&lt;/a&gt;");
  EXPECT_EQ(report::Escape("plain text 123"), "plain text 123");
  EXPECT_EQ(report::Escape(""), "");
}

TEST(Format, BytesPercentagesSeconds) {
  EXPECT_EQ(report::HumanBytes(512), "512 B");
  EXPECT_EQ(report::HumanBytes(210690728), "210690728 B (200.9 MiB)");
  EXPECT_EQ(report::CompactBytes(int64_t{3} << 30), "3.0 GiB");
  EXPECT_EQ(report::Percent(12.345), "12.35 %");
  EXPECT_EQ(report::Seconds(0.1234), "0.123 s");
}

TEST(Page, EscapesTextAndKeepsSectionsInOrder) {
  report::Page page("report of <evil>.csv", "input \"a&b\"");
  report::Section& first = page.AddSection("first", "First & foremost");
  first.Paragraph("x < y");
  first.AddTable({.id = "t1",
                  .header = {"method", "height"},
                  .column_class = {"", "num time"},
                  .rows = {{"<script>alert(1)</script>", "42"}, {"b", "7"}}});
  page.AddSection("second", "Second");
  const std::string html = page.Render();
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(html.find("<title>report of &lt;evil&gt;.csv</title>"), std::string::npos);
  EXPECT_NE(html.find("<p>input &quot;a&amp;b&quot;</p>"), std::string::npos);
  EXPECT_NE(html.find("<h2>First &amp; foremost</h2>"), std::string::npos);
  EXPECT_NE(html.find("<p>x &lt; y</p>"), std::string::npos);
  EXPECT_NE(html.find("<table id=\"t1\">"), std::string::npos);
  EXPECT_NE(html.find("<td>&lt;script&gt;alert(1)&lt;/script&gt;</td><td class=\"num time\">42</td>"),
            std::string::npos);
  EXPECT_EQ(html.find("<script>alert"), std::string::npos);
  EXPECT_LT(html.find("<section id=\"first\">"), html.find("<section id=\"second\">"));
  EXPECT_NE(html.find("<a href=\"#second\">Second</a>"), std::string::npos);
  EXPECT_EQ(page.SectionIds(), (std::vector<std::string>{"first", "second"}));
  // Self-contained: one inline script and style, nothing loaded from elsewhere.
  EXPECT_EQ(Count(html, "<script"), 1u);
  EXPECT_EQ(Count(html, "<style"), 1u);
  EXPECT_EQ(html.find(" src="), std::string::npos);
  EXPECT_EQ(html.find("href=\"http"), std::string::npos);
  EXPECT_NE(html.find("document.body.dataset.ready = \"1\""), std::string::npos);
}

TEST(DrawPlan, OneRectanglePerBufferWithItsFigures) {
  alloc::Problem problem;
  problem.buffers = {MakeBuffer("a<&\"b", 0, 4, 100), MakeBuffer("c", 2, 6, 50), MakeBuffer("d", 4, 8, 100)};
  const alloc::Solution solution{{0, 100, 0}};
  const report::PlanDrawing drawing = report::DrawPlan(problem, solution, 100);
  EXPECT_EQ(drawing.drawn, 3u);
  EXPECT_EQ(Count(drawing.svg, "<rect "), 3u);
  EXPECT_EQ(Count(drawing.svg, "data-id="), 3u);
  EXPECT_NE(drawing.svg.find("<svg class=\"plan\""), std::string::npos);
  EXPECT_NE(drawing.svg.find("data-id=\"a&lt;&amp;&quot;b\" data-size=\"100\" data-lower=\"0\" data-upper=\"4\" "
                             "data-offset=\"0\"><title>a&lt;&amp;&quot;b: size 100 B, lifetime [0, 4), "
                             "offset 0</title>"),
            std::string::npos);
  EXPECT_NE(drawing.svg.find("data-id=\"c\" data-size=\"50\" data-lower=\"2\" data-upper=\"6\" data-offset=\"100\""),
            std::string::npos);
  EXPECT_EQ(drawing.svg.find("a<&"), std::string::npos);
  EXPECT_NE(drawing.svg.find("class=\"lower-bound\""), std::string::npos);
  EXPECT_NE(drawing.svg.find("class=\"height\""), std::string::npos);
}

TEST(DrawPlan, ScalesTimeAcrossAndOffsetsUp) {
  alloc::Problem problem;
  problem.buffers = {MakeBuffer("low", 0, 5, 10), MakeBuffer("high", 5, 10, 10)};
  // Both at time halves; "high" sits above "low" in the arena, so it is drawn higher (smaller y).
  const report::PlanDrawing drawing = report::DrawPlan(problem, alloc::Solution{{0, 10}}, 10);
  const auto attribute = [&](const std::string& id, const std::string& name) {
    const size_t rect = drawing.svg.rfind("<rect ", drawing.svg.find("data-id=\"" + id + "\""));
    const size_t at = drawing.svg.find(name + "=\"", rect) + name.size() + 2;
    return std::stod(drawing.svg.substr(at, drawing.svg.find('"', at) - at));
  };
  EXPECT_LT(attribute("low", "x"), attribute("high", "x"));
  EXPECT_NEAR(attribute("low", "width"), attribute("high", "width"), 1e-9);
  EXPECT_GT(attribute("low", "y"), attribute("high", "y"));
  EXPECT_NEAR(attribute("low", "y") - attribute("high", "y"), attribute("low", "height"), 0.01);
}

TEST(DrawPlan, WrappedBufferIsTwoRectanglesAndLargeProblemsKeepTheLargest) {
  alloc::Problem problem;
  problem.period = 10;
  problem.buffers = {MakeBuffer("wraps", 8, 12, 30), MakeBuffer("small", 0, 4, 1), MakeBuffer("mid", 3, 7, 20)};
  const alloc::Solution solution{{0, 30, 30}};
  const report::PlanDrawing all = report::DrawPlan(problem, solution, 3);
  EXPECT_EQ(all.drawn, 3u);
  EXPECT_EQ(Count(all.svg, "data-id=\"wraps\""), 2u);
  const report::PlanDrawing two = report::DrawPlan(problem, solution, 2);
  EXPECT_EQ(two.drawn, 2u);
  EXPECT_EQ(Count(two.svg, "data-id=\"small\""), 0u);
  EXPECT_EQ(Count(two.svg, "data-id=\"mid\""), 1u);
}

TEST(AllocSections, TableRowsAndTheNoteWhenBuffersAreLeftOut) {
  alloc::Problem problem;
  problem.buffers = {MakeBuffer("a", 0, 2, 8), MakeBuffer("b", 1, 3, 4), MakeBuffer("c", 2, 4, 2)};
  report::AllocFigures figures;
  alloc::PlanResult sa;
  sa.method = "sa";
  sa.solution = alloc::Solution{{0, 8, 0}};
  sa.lower_bound = 12;
  sa.height = 12;
  figures.plans = {sa};
  figures.caching = alloc::CachingAllocatorResult{};
  figures.caching->lower_bound = 12;
  figures.caching->peak_reserved = 24;
  report::Page page("t", "s");
  EXPECT_EQ(report::AddAllocSections(page, "Allocation", problem, figures, 2), 2u);
  const std::string html = page.Render();
  EXPECT_EQ(page.SectionIds(), (std::vector<std::string>{"alloc-table", "alloc-plan"}));
  EXPECT_NE(html.find("<td>sa</td><td class=\"num\">12 B</td><td class=\"num\">12 B</td><td class=\"num\">0.00 %</td>"),
            std::string::npos);
  EXPECT_NE(html.find("<td>pytorch-caching (simulated)</td><td class=\"num\">24 B</td>"), std::string::npos);
  EXPECT_NE(html.find("100.00 %"), std::string::npos);
  EXPECT_NE(html.find("Showing the 2 largest of 3 buffers"), std::string::npos);
}

TEST(RematSections, ComparisonCurveAndReservedLine) {
  remat::RematResult none, fastsa;
  none.method = "none";
  none.reference_peak = none.peak = 100;
  none.reference_cost = none.cost = 10;
  fastsa = none;
  fastsa.method = "fastsa";
  fastsa.peak = 70;
  fastsa.cost = 12;
  fastsa.budget_met = true;
  report::Page page("t", "s");
  report::AddRematSections(page, {.graph_name = "g<1>",
                                  .rows = {none, fastsa},
                                  .memory_before = {10, 100, 40},
                                  .memory_after = {10, 70, 60, 40},
                                  .budget = 75,
                                  .arena_height = 72,
                                  .reserved_reference = 2 << 20,
                                  .reserved_schedule = 1 << 20});
  const std::string html = page.Render();
  EXPECT_EQ(page.SectionIds(), (std::vector<std::string>{"remat-table", "memory-curve"}));
  EXPECT_NE(html.find("<td>fastsa</td><td class=\"num\">70 B</td><td class=\"num\">70.00 %</td>"
                      "<td class=\"num\">20.00 %</td><td>yes</td>"),
            std::string::npos);
  EXPECT_NE(html.find("<td>none</td><td class=\"num\">100 B</td><td class=\"num\">100.00 %</td>"
                      "<td class=\"num\">0.00 %</td><td>no</td>"),
            std::string::npos);
  EXPECT_EQ(Count(html, "<polyline"), 2u);
  EXPECT_NE(html.find("<figure id=\"memory-curve-figure\">"), std::string::npos);
  EXPECT_NE(html.find("g&lt;1&gt;"), std::string::npos);
  EXPECT_NE(html.find("would reserve 2097152 B (2.0 MiB) for the reference order and 1048576 B (1.0 MiB) for this "
                      "schedule; the planned arena needs 72 B (0.0 % of the reference reservation)"),
            std::string::npos);
}

}  // namespace
