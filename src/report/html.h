// A small builder for one self-contained HTML page (inline CSS, JavaScript and SVG; nothing fetched from
// anywhere): sections of paragraphs, tables and pictures. Every piece of text passed in is escaped; only
// markup this library builds itself (SVG pictures) goes in verbatim.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace report {

// Escapes text for HTML element content and quoted attribute values (& < > " ').
std::string Escape(std::string_view text);

// A table of text cells (escaped when rendered).
struct Table {
  std::string id;                        // element id, so that tests and links can find it
  std::vector<std::string> header;
  std::vector<std::string> column_class;  // per column ("num" right-aligns; "time" marks run times), may be short
  std::vector<std::vector<std::string>> rows;
};

// One section of the page: a heading and its content, in order.
class Section {
 public:
  Section(std::string id, std::string heading) : id_(std::move(id)), heading_(std::move(heading)) {}

  // Adds a paragraph of text.
  void Paragraph(std::string_view text);
  // Adds a table.
  void AddTable(const Table& table);
  // Adds markup built by this library (an SVG picture), wrapped in a figure with `id`.
  void Figure(const std::string& id, const std::string& markup);

  const std::string& id() const { return id_; }
  const std::string& heading() const { return heading_; }
  const std::string& body() const { return body_; }

 private:
  std::string id_;
  std::string heading_;
  std::string body_;
};

// The page: a title, a line under it, and sections.
class Page {
 public:
  Page(std::string title, std::string subtitle) : title_(std::move(title)), subtitle_(std::move(subtitle)) {}

  // Starts a new section; the reference stays valid until the next call.
  Section& AddSection(const std::string& id, const std::string& heading);
  // The ids of the sections, in order.
  std::vector<std::string> SectionIds() const;
  // The whole document. Its script shows a tooltip over plan rectangles and, when it has run without an
  // error, sets data-ready="1" on <body> (what the headless-browser test looks for).
  std::string Render() const;

 private:
  std::string title_;
  std::string subtitle_;
  std::vector<Section> sections_;
};

}  // namespace report
