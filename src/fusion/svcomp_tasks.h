// The list of SV-COMP tasks in a MANIFEST.tsv (as in ../shared/data/fusion/svcomp), for the benchmark
// and the tests.
#pragma once

#include <string>
#include <vector>

#include "fusion/parser.h"

namespace fusion {

// One task: its name as listed, its C file (full path), its expected verdict ("true"/"false") and the data
// model of its task file.
struct SvCompTask {
  std::string name;
  std::string file;
  std::string expected;
  DataModel data_model = DataModel::kLP64;
};

// What an SV-COMP task file (.yml) says: the C file (`input_files`, relative to the task file), `data_model`
// (ILP32 or LP64; LP64 when absent, as in format 1.0 files) and the expected verdict of its unreach-call
// property ("true", "false", or empty when it has none).
struct TaskFile {
  std::string file;
  DataModel data_model = DataModel::kLP64;
  std::string expected;
};

// Reads a task file. Throws common::InputError when it cannot be read, names no input file, or names a
// data model other than ILP32 and LP64.
TaskFile ReadTaskFile(const std::string& yml);

// The task files (.yml) under dir, in any subfolder, that give an unreach-call verdict, in path order, named
// by their path below dir (for a checkout of sv-benchmarks' folders, where there is no manifest). Throws
// common::InputError for a task file that ReadTaskFile refuses.
std::vector<SvCompTask> ReadTaskDirectory(const std::string& dir);

// The tasks listed in dir/MANIFEST.tsv (tab-separated: file, upstream path, commits, verdict, ...), each
// with the data model of the task file beside it (same name, .yml); empty when there is no such file.
std::vector<SvCompTask> ReadManifest(const std::string& dir);

}  // namespace fusion
