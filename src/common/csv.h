// A small CSV reader that remembers line numbers, so that every complaint can say "file:line: what".
// Fields are separated by commas and trimmed of surrounding blanks; quoting is not part of the formats
// the project reads (MiniMalloc CSV), so a quote character is an ordinary character.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace common {

// One data row of a CSV file.
struct CsvRow {
  long line = 0;                     // 1-based line number in the file
  std::vector<std::string> fields;  // trimmed fields, in header order
};

// A parsed CSV file: header and data rows (blank lines skipped).
class CsvTable {
 public:
  // Parses `text`; `file` names the source in error messages. Throws InputError for an empty file or
  // a row whose field count differs from the header's.
  static CsvTable Parse(const std::string& file, std::string_view text);
  // Reads and parses a file.
  static CsvTable Read(const std::string& path);

  const std::string& file() const { return file_; }
  const std::vector<std::string>& header() const { return header_; }
  const std::vector<CsvRow>& rows() const { return rows_; }

  // Index of a header column, if present.
  std::optional<size_t> Column(std::string_view name) const;
  // Index of a header column; throws "file:1: missing column 'name'" when absent.
  size_t RequireColumn(std::string_view name) const;

  // Field `column` of `row` as a signed 64-bit integer; throws "file:line: <name> is not an integer: 'x'".
  int64_t Integer(const CsvRow& row, size_t column) const;

 private:
  std::string file_;
  std::vector<std::string> header_;
  std::vector<CsvRow> rows_;
};

// Parses a whole string as a base-10 int64 (optional sign, no blanks); nullopt on anything else.
std::optional<int64_t> ParseInt64(std::string_view text);

}  // namespace common
