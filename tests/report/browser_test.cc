// memplan report's pages in a real browser: headless Chromium loads each page, its script must run to the end
// without a console message, the dumped DOM must hold the tables, the plan's rectangles and the memory
// curves, and a screenshot is written under the build tree (SCREENSHOT_DIR). Skipped when Chromium is not
// installed (scripts/install-deps installs Debian's `chromium`).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "support/cli_test.h"

namespace {

// How often `needle` occurs in `text`.
size_t Count(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + needle.size())) ++n;
  return n;
}

// The Chromium executable on PATH, or "" when there is none.
std::string FindChromium() {
  for (const char* name : {"chromium", "chromium-browser", "google-chrome"}) {
    if (std::system(("command -v " + std::string(name) + " >/dev/null 2>&1").c_str()) == 0) return name;
  }
  return "";
}

// What the browser made of a page.
struct Loaded {
  int status = -1;
  std::string dom;  // the DOM after the page's script ran (--dump-dom)
  std::string log;  // Chromium's log: console messages appear as "INFO:CONSOLE(line)] ..." lines
};

// Why a loaded page is not right: a browser failure, a console message (the page logs nothing on purpose,
// so any message is an error or an uncaught exception), or a script that did not run to its end.
std::vector<std::string> PageProblems(const Loaded& page) {
  std::vector<std::string> problems;
  if (page.status != 0) problems.push_back("chromium exited with status " + std::to_string(page.status));
  for (size_t at = page.log.find(":CONSOLE"); at != std::string::npos; at = page.log.find(":CONSOLE", at + 1)) {
    problems.push_back("console: " + page.log.substr(at, page.log.find('\n', at) - at));
  }
  if (page.dom.find("data-ready=\"1\"") == std::string::npos) problems.push_back("the script did not finish");
  return problems;
}

// Runs headless Chromium on files written by the real memplan executable.
class BrowserTest : public testing_support::CliTest {
 protected:
  void SetUp() override {
    CliTest::SetUp();
    chromium_ = FindChromium();
    if (chromium_.empty()) {
      GTEST_SKIP() << "chromium is not installed (Debian: apt-get install chromium, as scripts/install-deps does)";
    }
    std::filesystem::create_directories(SCREENSHOT_DIR);
  }

  // Common flags: no GPU, no sandbox (tests run as root in CI), a fresh profile, a time limit.
  std::string Browser(const std::string& flags) const {
    return "timeout 60 " + chromium_ + " --headless --disable-gpu --no-sandbox --no-first-run --user-data-dir=" +
           Path("profile") + " " + flags;
  }

  // Loads `html` and dumps its DOM, keeping the browser's log.
  Loaded Load(const std::string& html) {
    Loaded page;
    page.status = Run(Browser("--enable-logging=stderr --v=0 --dump-dom"), "file://" + html);
    page.dom = out_;
    page.log = err_;
    return page;
  }

  // Takes a 1400x2000 screenshot of `html` into SCREENSHOT_DIR/`name` and checks it is a real picture.
  void Screenshot(const std::string& html, const std::string& name) {
    const std::string png = std::string(SCREENSHOT_DIR) + "/" + name;
    std::filesystem::remove(png);
    ASSERT_EQ(Run(Browser("--hide-scrollbars --window-size=1400,2000 --screenshot=" + png), "file://" + html), 0)
        << err_;
    const std::string bytes = Slurp(png);
    ASSERT_GT(bytes.size(), 24u) << png;
    EXPECT_EQ(bytes.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
    // IHDR: width and height, big-endian, at bytes 16 and 20.
    const auto be32 = [&](size_t at) {
      return (static_cast<unsigned char>(bytes[at]) << 24) | (static_cast<unsigned char>(bytes[at + 1]) << 16) |
             (static_cast<unsigned char>(bytes[at + 2]) << 8) | static_cast<unsigned char>(bytes[at + 3]);
    };
    EXPECT_EQ(be32(16), 1400);
    EXPECT_EQ(be32(20), 2000);
    // A blank 1400x2000 page compresses to a few KB; tables and a plan drawing do not.
    EXPECT_GT(bytes.size(), 30000u) << png;
  }

  std::string chromium_;
};

TEST_F(BrowserTest, AllocationReportLoadsWithoutErrors) {
  const std::string html = std::string(SCREENSHOT_DIR) + "/report_alloc.html";
  ASSERT_EQ(Memplan("report " + std::string(DATA_DIR) + "/torch/resnet18_bs8.csv --period 540 -q -o " + html), 0)
      << err_;
  const size_t rects = Count(Slurp(html), "<rect x=");
  const Loaded page = Load(html);
  EXPECT_EQ(PageProblems(page), std::vector<std::string>{}) << page.log;
  EXPECT_NE(page.dom.find("<table id=\"alloc-methods\">"), std::string::npos);
  EXPECT_NE(page.dom.find("<svg class=\"plan\""), std::string::npos);
  // The script counted the plan's rectangles in the live DOM: all of them were parsed as SVG.
  EXPECT_NE(page.dom.find("data-plan-rects=\"" + std::to_string(rects) + "\""), std::string::npos) << rects;
  EXPECT_EQ(Count(page.dom, "data-id="), rects);
  EXPECT_NE(page.dom.find("<div id=\"tooltip\" hidden=\"\">"), std::string::npos);
  Screenshot(html, "report_alloc.png");
}

TEST_F(BrowserTest, HoveringARectangleShowsItsBuffer) {
  const std::string html = Path("report.html");
  ASSERT_EQ(Memplan("report " + std::string(DATA_DIR) + "/torch/resnet18_bs8.csv --period 540 -q -o " + html), 0)
      << err_;
  // A copy of the page with one more script at the end, which moves the mouse over the first rectangle.
  std::string text = Slurp(html);
  const std::string probe =
      "<script>var r = document.querySelector('svg.plan rect[data-id]'); var b = r.getBoundingClientRect();"
      "r.dispatchEvent(new MouseEvent('mousemove', {bubbles: true, clientX: b.left + 1, clientY: b.top + 1}));"
      "</script>";
  text.insert(text.rfind("</body>"), probe);
  const std::string probed = Write("probed.html", text);
  // What the tooltip must say, from the first rectangle's attributes in the file.
  const size_t rect = text.find("<rect x=");
  const auto attribute = [&](const std::string& name) {
    const size_t at = text.find(name + "=\"", rect) + name.size() + 2;
    return text.substr(at, text.find('"', at) - at);
  };
  const std::string expected = attribute("data-id") + ": size " + attribute("data-size") + " B, lifetime [" +
                               attribute("data-lower") + ", " + attribute("data-upper") + "), offset " +
                               attribute("data-offset") + "</div>";
  const Loaded page = Load(probed);
  EXPECT_EQ(PageProblems(page), std::vector<std::string>{}) << page.log;
  const size_t tooltip = page.dom.find("<div id=\"tooltip\"");
  ASSERT_NE(tooltip, std::string::npos);
  const std::string shown = page.dom.substr(tooltip, page.dom.find("</div>", tooltip) + 6 - tooltip);
  EXPECT_EQ(shown.find("hidden"), std::string::npos) << shown;
  EXPECT_NE(shown.find(">" + expected), std::string::npos) << shown << " expected " << expected;
}

TEST_F(BrowserTest, GraphReportLoadsWithoutErrors) {
  const std::string html = std::string(SCREENSHOT_DIR) + "/report_graph.html";
  ASSERT_EQ(Memplan("report " + std::string(EXAMPLES_DIR) + "/remat/mlp_train.json --time-limit 1 -q -o " + html), 0)
      << err_;
  const Loaded page = Load(html);
  EXPECT_EQ(PageProblems(page), std::vector<std::string>{}) << page.log;
  for (const char* element : {"<table id=\"remat-methods\">", "<table id=\"alloc-methods\">",
                              "<figure id=\"memory-curve-figure\">", "<svg class=\"plan\""}) {
    EXPECT_NE(page.dom.find(element), std::string::npos) << element;
  }
  EXPECT_EQ(Count(page.dom, "<polyline"), 2u);
  EXPECT_GT(Count(page.dom, "data-id="), 0u);
  Screenshot(html, "report_graph.png");
}

TEST_F(BrowserTest, AScriptErrorIsCaught) {
  // The checks above would notice a page whose script throws: a console message and no data-ready.
  const std::string html = Write("broken.html", "<!DOCTYPE html><html><body><script>"
                                                "undefinedFunction(); document.body.dataset.ready = '1';"
                                                "</script></body></html>");
  const std::vector<std::string> problems = PageProblems(Load(html));
  ASSERT_EQ(problems.size(), 2u) << ::testing::PrintToString(problems);
  EXPECT_NE(problems[0].find("undefinedFunction is not defined"), std::string::npos) << problems[0];
  EXPECT_EQ(problems[1], "the script did not finish");
}

}  // namespace
