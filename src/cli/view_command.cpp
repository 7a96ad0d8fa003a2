// minimt view: an attention dump (translate --dump-attention) as one self-contained HTML page
// of heatmaps, and optionally as static SVGs.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>

#include "cli/commands.h"
#include "cli/option_parsing.h"
#include "cli/path_guard.h"
#include "minimt/app/attention_view.h"
#include "minimt/app/output_file.h"
#include "minimt/base/error.h"
#include "minimt/base/visible_text.h"

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
struct SvgFile {
  std::string path;
  const DumpSentence* sentence;
  std::string type;
};

std::vector<SvgFile> svg_files(const AttentionDump& dump, const std::string& prefix,
                               std::vector<int> numbers) {
  if (numbers.empty())
    for (const DumpSentence& s : dump.sentences) numbers.push_back(s.number);
  std::vector<SvgFile> files;
  for (int n : numbers) {  // each once, and in the dump (parse_sentence_ranges)
    const DumpSentence& sentence = dump.sentences.at(n - 1);
    for (const AttentionMatrices& m : sentence.attention) {
      if (m.layers() == 0 || m.heads.empty()) continue;
      files.push_back(
          {prefix + (numbers.size() > 1 ? "-" + std::to_string(n) : "") + "-" + m.type + ".svg",
           &sentence, m.type});
    }
  }
  return files;
}

void write_svg(const SvgFile& svg_file) {
  std::ostringstream svg;
  write_attention_svg(*svg_file.sentence, svg_file.type, svg);
  OutputFile file(svg_file.path);
  file.write(svg.str());
  file.commit();
  std::cerr << "minimt: wrote " << visible_text(svg_file.path) << " ("
            << human_size(svg.str().size(), true) << ")\n";
}

// The page for `dump` and what it holds.
struct RenderedView {
  std::string text;
  ViewSummary summary;
};

RenderedView render_view(const AttentionDump& dump, const ViewOptions& options) {
  std::ostringstream page;
  RenderedView view;
  view.summary = write_attention_page(dump, page, options);
  view.text = page.str();
  return view;
}

// The page for `dump` to `path` ("-": stdout), reported on stderr.
void write_view(const AttentionDump& dump, const std::string& path, const ViewOptions& options) {
  const RenderedView page = render_view(dump, options);
  if (path == "-") {
    std::cout << page.text;
    std::cout.flush();
    if (!std::cout) throw IoError("cannot write the page to stdout");
  } else {
    OutputFile file(path);
    file.write(page.text);
    file.commit();
  }
  report_view(path, page.summary, page.text.size());
}

int run_view(const ViewArgs& args) {
  const AttentionDump dump = read_dump_file(args.dump);
  ViewOptions options;
  options.title = args.title;
  options.sentences =
      parse_sentence_ranges(args.sentences, static_cast<int>(dump.sentences.size()));
  const std::string page = args.output.empty() ? default_output(args.dump) : args.output;
  std::vector<SvgFile> svgs;
  if (!args.svg.empty()) svgs = svg_files(dump, args.svg, options.sentences);

  PathGuard guard;  // the dump is read already, but `view d.json -o d.json` is surely a slip
  guard.input("the dump", args.dump);
  guard.output(args.output.empty() ? "the page (default -o)" : "-o", page);
  for (const SvgFile& svg : svgs) guard.output("--svg", svg.path);
  guard.check();

  write_view(dump, page, options);
  for (const SvgFile& svg : svgs) write_svg(svg);
  return 0;
}

void add_view_options(CLI::App& command, ViewArgs& args) {
  command.description("render an attention dump as one self-contained HTML page of heatmaps");
  command
      .add_option("dump", args.dump,
                  "the dump (translate --dump-attention; at most 1 GiB); - for stdin")
      ->check(non_empty_path())
      ->type_name("FILE")
      ->required();
  command
      .add_option("-o,--output", args.output,
                  "the page to write (default: the dump's name with .html; - for stdout)")
      ->check(non_empty_path())
      ->type_name("FILE");
  command.add_option("--title", args.title, "the page's title")->type_name("TEXT");
  command
      .add_option("--svg", args.svg,
                  "also write static SVGs, one per attention type: PREFIX-encoder.svg, "
                  "PREFIX-decoder.svg, PREFIX-cross.svg (PREFIX-N-TYPE.svg for sentence N "
                  "when several are shown)")
      ->check(non_empty_path())
      ->type_name("PREFIX");
  add_sentences_option(command, args.sentences);
}

}  // namespace

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

void report_view(const std::string& path, const ViewSummary& summary, size_t bytes) {
  std::cerr << "minimt: wrote " << (path == "-" ? "the page to stdout" : visible_text(path)) << ": "
            << summary.sentences << " sentence" << (summary.sentences == 1 ? "" : "s") << ", "
            << summary.heatmaps << " heatmaps (+" << summary.averages << " head averages"
            << (summary.rollouts ? ", +" + std::to_string(summary.rollouts) + " rollouts" : "")
            << "), " << human_size(static_cast<long long>(bytes), true) << "\n";
}

Command add_view(CLI::App& app) {
  return add_command<ViewArgs>(app, "view", add_view_options, run_view);
}

}  // namespace minimt::cli
