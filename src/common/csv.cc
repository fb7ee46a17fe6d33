#include "common/csv.h"

#include <charconv>

#include "common/atomic_file.h"
#include "common/error.h"

namespace common {
namespace {

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

std::vector<std::string> Split(std::string_view line) {
  std::vector<std::string> fields;
  size_t start = 0;
  while (true) {
    size_t comma = line.find(',', start);
    fields.emplace_back(Trim(line.substr(start, comma == std::string_view::npos ? line.npos : comma - start)));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return fields;
}

}  // namespace

std::optional<int64_t> ParseInt64(std::string_view text) {
  if (!text.empty() && text.front() == '+') text.remove_prefix(1);
  if (text.empty()) return std::nullopt;
  int64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

CsvTable CsvTable::Parse(const std::string& file, std::string_view text) {
  CsvTable table;
  table.file_ = file;
  long line_number = 0;
  size_t pos = 0;
  bool have_header = false;
  // Skip a UTF-8 byte-order mark, which spreadsheet programs like to write.
  if (text.substr(0, 3) == "\xEF\xBB\xBF") pos = 3;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    std::string_view line = text.substr(pos, end == text.npos ? text.npos : end - pos);
    pos = end == text.npos ? text.size() : end + 1;
    ++line_number;
    if (Trim(line).empty()) continue;
    std::vector<std::string> fields = Split(line);
    if (!have_header) {
      table.header_ = std::move(fields);
      have_header = true;
      continue;
    }
    if (fields.size() != table.header_.size()) {
      FailAt(file, line_number, "expected " + std::to_string(table.header_.size()) + " fields, found " +
                                    std::to_string(fields.size()));
    }
    table.rows_.push_back({line_number, std::move(fields)});
  }
  if (!have_header) FailAt(file, 0, "empty file (expected a header line)");
  return table;
}

CsvTable CsvTable::Read(const std::string& path) { return Parse(path, ReadFile(path)); }

std::optional<size_t> CsvTable::Column(std::string_view name) const {
  for (size_t i = 0; i < header_.size(); ++i) {
    if (header_[i] == name) return i;
  }
  return std::nullopt;
}

size_t CsvTable::RequireColumn(std::string_view name) const {
  if (auto column = Column(name)) return *column;
  FailAt(file_, 1, "missing column '" + std::string(name) + "'");
}

int64_t CsvTable::Integer(const CsvRow& row, size_t column) const {
  const std::string& text = row.fields[column];
  if (auto value = ParseInt64(text)) return *value;
  FailAt(file_, row.line, header_[column] + " is not an integer: '" + text + "'");
}

}  // namespace common
