// loopfuse: proves or refutes the assertions of a small C program by fusing consecutive loops and solving
// constrained Horn clauses with Z3. A thin front end over src/fusion.
#include <fmt/core.h>

#include <CLI/CLI.hpp>
#include <exception>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

#include "common/error.h"
#include "common/exit_codes.h"
#include "fusion/errors.h"
#include "fusion/fuse.h"
#include "fusion/horn.h"
#include "fusion/parser.h"
#include "fusion/printer.h"
#include "fusion/verifier.h"

namespace {

// Exit statuses of `loopfuse verify` (documented in the README): the verdict, or a failure.
constexpr int kExitTrue = 0;
constexpr int kExitFalse = 1;
constexpr int kExitUnknown = 4;

// Decimal text of a 128-bit value (the JSON holds counterexample values as numbers).
std::string Decimal(fusion::Int128 v) {
  if (v == 0) return "0";
  const bool neg = v < 0;
  std::string s;
  for (; v != 0; v /= 10) s.insert(s.begin(), static_cast<char>('0' + static_cast<int>(neg ? -(v % 10) : v % 10)));
  return neg ? "-" + s : s;
}

// The input file named by an SV-COMP task file (`input_files: 'x.c'`), relative to the task file.
std::string InputOfTask(const std::string& yml) {
  std::ifstream in(yml);
  if (!in) throw common::InputError(yml + ": cannot read the task file");
  std::string line;
  const std::regex re(R"(^\s*input_files\s*:\s*['"]?([^'"\s]+)['"]?\s*$)");
  for (long n = 1; std::getline(in, line); ++n) {
    std::smatch m;
    if (std::regex_match(line, m, re)) {
      const auto slash = yml.find_last_of('/');
      return (slash == std::string::npos ? "" : yml.substr(0, slash + 1)) + m[1].str();
    }
  }
  common::FailAt(yml, 0, "no input_files entry");
}

// Options of `loopfuse verify`.
struct VerifyArgs {
  std::string file;
  std::string yml;
  double timeout = 10;
  bool no_fusion = false;
  bool invariants = false;
  bool json = false;
};

int RunVerify(const VerifyArgs& a) {
  const std::string file = a.file.empty() ? InputOfTask(a.yml) : a.file;
  fusion::Verdict v;
  try {
    const fusion::Program prog = fusion::ParseFile(file);
    v = fusion::Verify(prog, fusion::VerifyOptions{a.timeout, !a.no_fusion});
  } catch (const fusion::UnsupportedError& e) {
    v.verdict = "unknown";
    v.reason = e.what();
  }
  if (a.json) {
    nlohmann::json j;
    j["file"] = file;
    j["verdict"] = v.verdict;
    j["reason"] = v.reason;
    j["seconds"] = v.seconds;
    j["transformations"] = v.transformations;
    j["solved_by"] = v.solved_by;
    if (v.verdict == "false") {
      std::vector<nlohmann::json> inputs;
      for (auto x : v.inputs) inputs.push_back(nlohmann::json::parse(Decimal(x)));
      j["counterexample"] = {{"inputs", inputs}};
    }
    if (a.invariants) j["invariants"] = v.invariants;
    fmt::print("{}\n", j.dump());
  } else {
    fmt::print("{}: {} ({}; {:.2f} s)\n", file, v.verdict, v.reason, v.seconds);
    for (const auto& t : v.transformations) fmt::print("  transformation: {}\n", t);
    if (!v.solved_by.empty()) fmt::print("  solved by: {}\n", v.solved_by);
    if (v.verdict == "false") {
      std::string in;
      for (auto x : v.inputs) in += (in.empty() ? "" : " ") + Decimal(x);
      fmt::print("  nondeterministic inputs ({}): {}\n", v.inputs.size(), in);
    }
    if (a.invariants) {
      for (size_t k = 0; k < v.invariants.size(); ++k) fmt::print("  invariant L{}: {}\n", k, v.invariants[k]);
    }
  }
  return v.verdict == "true" ? kExitTrue : v.verdict == "false" ? kExitFalse : kExitUnknown;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"loopfuse: verifies C programs with consecutive loops by loop fusion and Horn clauses"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "loopfuse 0.1");
  int status = common::kExitOk;
  VerifyArgs va;
  auto* verify = app.add_subcommand("verify", "prove (true) or refute (false) that no error is reachable");
  verify->add_option("file", va.file, "C file (the SV-COMP subset)");
  verify->add_option("--yml", va.yml, "SV-COMP task file naming the C file");
  verify->add_option("--timeout", va.timeout, "seconds for the whole run")->check(CLI::PositiveNumber);
  verify->add_flag("--no-fusion", va.no_fusion, "only the original program (plain Spacer)");
  verify->add_flag("--invariants", va.invariants, "print the loop invariants of a proof");
  verify->add_flag("--json", va.json, "one JSON object on stdout");
  verify->callback([&] {
    if (va.file.empty() == va.yml.empty()) throw CLI::ValidationError("give either a C file or --yml");
    status = RunVerify(va);
  });
  std::string fuse_file, mode = "all";
  auto* fuse = app.add_subcommand("fuse", "print the fused program as C");
  fuse->add_option("file", fuse_file, "C file")->required();
  fuse->add_option("--mode", mode, "aligned, guess or all")->check(CLI::IsMember({"aligned", "guess", "all"}));
  fuse->callback([&] {
    const fusion::Program prog = fusion::ParseFile(fuse_file);
    const auto m = mode == "aligned" ? fusion::FusionMode::kAligned
                   : mode == "guess" ? fusion::FusionMode::kGuess
                                     : fusion::FusionMode::kAll;
    const fusion::Variant v = fusion::Transform(prog, m);
    for (const auto& t : v.transformations) fmt::print("// {}\n", t);
    if (v.transformations.empty()) fmt::print("// no transformation applies\n");
    fmt::print("{}", fusion::PrintProgram(v.prog));
  });
  std::string horn_file, horn_mode = "none";
  auto* horn = app.add_subcommand("horn", "print the Horn clauses of the (fused) program as SMT-LIB2");
  horn->add_option("file", horn_file, "C file")->required();
  horn->add_option("--mode", horn_mode, "none, aligned, guess or all")->check(CLI::IsMember({"none", "aligned", "guess", "all"}));
  horn->callback([&] {
    fusion::Program prog = fusion::ParseFile(horn_file);
    if (horn_mode != "none") {
      prog = fusion::Transform(prog, horn_mode == "aligned" ? fusion::FusionMode::kAligned
                                     : horn_mode == "guess" ? fusion::FusionMode::kGuess
                                                            : fusion::FusionMode::kAll).prog;
    }
    fmt::print("{}", fusion::HornToSmt2(prog));
  });
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int s = app.exit(e);
    return s == 0 ? common::kExitOk : common::kExitBadInput;
  } catch (const common::InputError& e) {
    fmt::print(stderr, "loopfuse: error: {}\n", e.what());
    return common::kExitBadInput;
  } catch (const std::exception& e) {
    fmt::print(stderr, "loopfuse: internal error: {}\n", e.what());
    return common::kExitInternal;
  }
  return status;
}
