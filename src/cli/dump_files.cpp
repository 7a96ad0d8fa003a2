// What the commands that read a dump (view, show) and write a page (view, translate --view)
// share: --sentences, the dump read from a file or stdin, the report of a page written.
#include <CLI/CLI.hpp>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "cli/commands.h"
#include "cli/option_parsing.h"
#include "minimt/base/error.h"
#include "minimt/base/visible_text.h"

namespace minimt::cli {

CLI::Option* add_sentences_option(CLI::App& command, std::vector<std::string>& target) {
  return command
      .add_option("--sentences", target,
                  "only these sentences, e.g. 1,4-6 (numbered from 1; default: all)")
      ->type_name("LIST")
      ->allow_extra_args(false)  // one argument each time: the dump after it stays the dump
      ->delimiter(',')
      ->check(CLI::Validator(
          [](std::string& item) {
            return is_sentence_range(item) ? std::string()
                                           : "not a sentence number or range: " + item;
          },
          "N|N-M"));
}

AttentionDump read_dump_file(const std::string& path) {
  if (path == "-") return read_attention_dump(std::cin, "stdin");
  std::error_code ignored;
  if (std::filesystem::is_directory(path, ignored))
    throw IoError("cannot read " + path + ": it is a directory, not a dump");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw IoError("cannot read " + path + ": " + std::strerror(errno));
  return read_attention_dump(in, path);
}

void report_view(const std::string& path, const ViewSummary& summary, size_t bytes,
                 bool difference) {
  std::cerr << "minimt: wrote " << (path == "-" ? "the page to stdout" : visible_text(path)) << ": "
            << summary.sentences << " sentence" << (summary.sentences == 1 ? "" : "s") << ", "
            << summary.heatmaps << " heatmaps" << (difference ? " of B - A" : "") << " (+"
            << summary.averages << " head averages"
            << (summary.rollouts ? ", +" + std::to_string(summary.rollouts) + " rollouts" : "")
            << "), " << human_size(static_cast<long long>(bytes), true) << "\n";
}

}  // namespace minimt::cli
