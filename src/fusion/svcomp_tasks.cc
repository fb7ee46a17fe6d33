#include "fusion/svcomp_tasks.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>

#include "common/error.h"

namespace fusion {

TaskFile ReadTaskFile(const std::string& yml) {
  std::ifstream in(yml);
  if (!in) throw common::InputError(yml + ": cannot read the task file");
  TaskFile out;
  std::string line;
  const std::regex input(R"(^\s*input_files\s*:\s*['"]?([^'"\s]+)['"]?\s*$)");
  const std::regex model(R"(^\s*data_model\s*:\s*['"]?([^'"\s]*)['"]?\s*$)");
  const std::regex property(R"(^\s*-?\s*property_file\s*:\s*(\S+)\s*$)");
  const std::regex verdict(R"(^\s*expected_verdict\s*:\s*['"]?(true|false)['"]?\s*$)");
  bool in_unreach_call = false;  // the lines after unreach-call's property_file, up to the next property
  for (long n = 1; std::getline(in, line); ++n) {
    std::smatch m;
    if (std::regex_match(line, m, input) && out.file.empty()) {
      const auto slash = yml.find_last_of('/');
      out.file = (slash == std::string::npos ? "" : yml.substr(0, slash + 1)) + m[1].str();
    } else if (std::regex_match(line, m, property)) {
      const std::string name = m[1].str();
      in_unreach_call = name.size() >= 16 && name.compare(name.size() - 16, 16, "unreach-call.prp") == 0;
    } else if (in_unreach_call && std::regex_match(line, m, verdict)) {
      out.expected = m[1].str();
    } else if (std::regex_match(line, m, model)) {
      if (m[1] != "ILP32" && m[1] != "LP64") {
        common::FailAt(yml, n, "data_model '" + m[1].str() + "' is neither ILP32 nor LP64");
      }
      out.data_model = m[1] == "ILP32" ? DataModel::kILP32 : DataModel::kLP64;
    }
  }
  if (out.file.empty()) common::FailAt(yml, 0, "no input_files entry");
  return out;
}

std::vector<SvCompTask> ReadTaskDirectory(const std::string& dir) {
  std::vector<std::filesystem::path> ymls;
  std::error_code error;
  for (std::filesystem::recursive_directory_iterator it(dir, error), end; !error && it != end; it.increment(error)) {
    if (it->is_regular_file() && it->path().extension() == ".yml") ymls.push_back(it->path());
  }
  std::sort(ymls.begin(), ymls.end());
  std::vector<SvCompTask> out;
  for (const auto& yml : ymls) {
    const TaskFile task = ReadTaskFile(yml.string());
    if (task.expected.empty()) continue;
    out.push_back({std::filesystem::relative(yml, dir).replace_extension().string(), task.file, task.expected,
                   task.data_model});
  }
  return out;
}

std::vector<SvCompTask> ReadManifest(const std::string& dir) {
  std::ifstream manifest(dir + "/MANIFEST.tsv");
  std::vector<SvCompTask> out;
  std::string line;
  while (std::getline(manifest, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> cols;
    for (size_t start = 0;;) {
      const size_t tab = line.find('\t', start);
      cols.push_back(line.substr(start, tab - start));
      if (tab == std::string::npos) break;
      start = tab + 1;
    }
    if (cols.size() <= 4) continue;
    SvCompTask task{cols[0], dir + "/" + cols[0], cols[4]};
    const std::string yml = task.file.substr(0, task.file.find_last_of('.')) + ".yml";
    if (std::ifstream(yml)) task.data_model = ReadTaskFile(yml).data_model;
    out.push_back(std::move(task));
  }
  return out;
}

}  // namespace fusion
