// minimt view: an attention dump (translate --dump-attention) as one self-contained HTML page
// of heatmaps, and optionally as static SVGs.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>

#include "cli/commands.h"
#include "cli/option_parsing.h"
#include "minimt/app/attention_view.h"
#include "minimt/base/error.h"

namespace minimt::cli {
namespace {

struct ViewArgs {
  std::string dump;                    // the attention dump; "-" for stdin
  std::string output;                  // the page; "" for the dump's name with .html, "-" stdout
  std::string title;                   // "" for "minimt attention"
  std::vector<std::string> sentences;  // "3", "5-8"; empty: all
  std::string svg;                     // not "": also PREFIX[-N]-TYPE.svg files
};

// "attention.json" -> "attention.html"; anything else gets ".html" added.
std::string default_output(const std::string& dump) {
  if (dump.empty() || dump == "-") return "attention.html";
  std::string base = dump;
  const std::string json = ".json";
  if (base.size() > json.size() && base.compare(base.size() - json.size(), json.size(), json) == 0)
    base.resize(base.size() - json.size());
  return base + ".html";
}

// PREFIX-TYPE.svg for each type of each sentence shown (PREFIX-N-TYPE.svg if several).
void write_svgs(const AttentionDump& dump, const std::string& prefix, std::vector<int> numbers) {
  if (numbers.empty())
    for (const DumpSentence& s : dump.sentences) numbers.push_back(s.number);
  std::vector<int> seen;
  for (int n : numbers)
    if (std::find(seen.begin(), seen.end(), n) == seen.end()) seen.push_back(n);
  for (int n : seen) {
    const DumpSentence& sentence = dump.sentences.at(n - 1);  // checked by write_attention_page
    for (const AttentionMatrices& m : sentence.attention) {
      if (m.layers() == 0 || m.heads.empty()) continue;
      const std::string path =
          prefix + (seen.size() > 1 ? "-" + std::to_string(n) : "") + "-" + m.type + ".svg";
      std::ostringstream svg;
      write_attention_svg(sentence, m.type, svg);
      std::ofstream file(path, std::ios::binary);
      file << svg.str();
      file.close();
      if (!file) throw IoError("cannot write " + path);
      std::cerr << "minimt: wrote " << path << " (" << human_size(svg.str().size(), true) << ")\n";
    }
  }
}

int run_view(const ViewArgs& args) {
  AttentionDump dump;
  if (args.dump == "-") {
    dump = read_attention_dump(std::cin, "stdin");
  } else {
    std::ifstream in(args.dump, std::ios::binary);
    if (!in) throw IoError("cannot read " + args.dump);
    dump = read_attention_dump(in, args.dump);
  }
  ViewOptions options;
  options.title = args.title;
  options.sentences = parse_sentence_ranges(args.sentences);
  write_view(dump, args.output.empty() ? default_output(args.dump) : args.output, options);
  if (!args.svg.empty()) write_svgs(dump, args.svg, options.sentences);
  return 0;
}

}  // namespace

void write_view(const AttentionDump& dump, const std::string& path, const ViewOptions& options,
                bool report) {
  std::ostringstream page;
  ViewSummary summary = write_attention_page(dump, page, options);
  const std::string text = page.str();
  if (path == "-") {
    std::cout << text;
    std::cout.flush();
    if (!std::cout) throw IoError("cannot write the page to stdout");
  } else {
    std::ofstream file(path, std::ios::binary);
    if (!file) throw IoError("cannot write " + path);
    file << text;
    file.close();
    if (!file) throw IoError("cannot write " + path);
  }
  if (!report) return;
  std::cerr << "minimt: wrote " << (path == "-" ? "the page to stdout" : path) << ": "
            << summary.sentences << " sentence" << (summary.sentences == 1 ? "" : "s") << ", "
            << summary.heatmaps << " heatmaps (+" << summary.averages << " head averages), "
            << human_size(text.size(), true) << "\n";
}

Command add_view(CLI::App& app) {
  auto args = std::make_shared<ViewArgs>();
  CLI::App* command = app.add_subcommand(
      "view", "render an attention dump as one self-contained HTML page of heatmaps");
  command->add_option("dump", args->dump, "the dump (translate --dump-attention); - for stdin")
      ->type_name("FILE")
      ->required();
  command
      ->add_option("-o,--output", args->output,
                   "the page to write (default: the dump's name with .html; - for stdout)")
      ->type_name("FILE");
  command->add_option("--title", args->title, "the page's title")->type_name("TEXT");
  command
      ->add_option("--svg", args->svg,
                   "also write static SVGs, one per attention type: PREFIX-encoder.svg, "
                   "PREFIX-decoder.svg, PREFIX-cross.svg (PREFIX-N-TYPE.svg for sentence N "
                   "when several are shown)")
      ->type_name("PREFIX");
  command
      ->add_option("--sentences", args->sentences,
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
  return {command, [args] { return run_view(*args); }};
}

}  // namespace minimt::cli
