// minimt view: an attention dump (translate --dump-attention) as one self-contained HTML page
// of heatmaps, and optionally as static SVGs; two dumps of the same sentences as the page of
// their difference, B - A.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>

#include "cli/commands.h"
#include "cli/option_parsing.h"
#include "cli/path_guard.h"
#include "minimt/app/io/output_file.h"
#include "minimt/app/views/attention_view.h"
#include "minimt/base/error.h"
#include "minimt/base/visible_text.h"

namespace minimt::cli {
namespace {

struct ViewArgs {
  std::vector<std::string> dumps;      // the attention dump ("-" for stdin), or A and B
  std::string output;                  // the page; "" for the dump's name with .html, "-" stdout
  std::string title;                   // "" for "minimt attention"
  std::vector<std::string> sentences;  // "3", "5-8"; empty: all
  std::string svg;                     // not "": also PREFIX[-N]-TYPE.svg files
};

// "attention.json" -> "attention"; anything else as it is.
std::string without_json(const std::string& dump) {
  const std::string json = ".json";
  if (dump.size() > json.size() && dump.compare(dump.size() - json.size(), json.size(), json) == 0)
    return dump.substr(0, dump.size() - json.size());
  return dump;
}

// "attention.json" -> "attention.html"; two dumps, "a.json" and "dir/b.json": "a-vs-b.html".
std::string default_output(const std::vector<std::string>& dumps) {
  if (dumps.size() == 2) {
    std::string b = dumps[1] == "-" ? "stdin" : without_json(dumps[1]);
    b = b.substr(b.find_last_of('/') + 1);
    return (dumps[0] == "-" ? "stdin" : without_json(dumps[0])) + "-vs-" + b + ".html";
  }
  if (dumps[0].empty() || dumps[0] == "-") return "attention.html";
  return without_json(dumps[0]) + ".html";
}

// PREFIX-TYPE.svg for each type of each sentence shown (PREFIX-N-TYPE.svg if several); with
// two dumps, their difference: `before` is the sentence of A.
struct SvgFile {
  std::string path;
  const DumpSentence* sentence;
  std::string type;
  const DumpSentence* before = nullptr;
};

// The runs compared, for the SVGs of a difference.
struct Comparison {
  const NamedDump* a = nullptr;
  const NamedDump* b = nullptr;
  float scale = 0;  // the page's: the largest |B - A|
};

std::vector<SvgFile> svg_files(const AttentionDump& dump, const std::string& prefix,
                               std::vector<int> numbers, const AttentionDump* before = nullptr) {
  if (numbers.empty())
    for (const DumpSentence& s : dump.sentences) numbers.push_back(s.number);
  std::vector<SvgFile> files;
  for (int n : numbers) {  // each once, and in the dump (parse_sentence_ranges)
    const DumpSentence& sentence = dump.sentences.at(n - 1);
    const DumpSentence* in_a = before ? &before->sentences.at(n - 1) : nullptr;
    for (const AttentionMatrices& m : sentence.attention) {
      if (m.layers() == 0 || m.heads.empty()) continue;
      if (in_a && !in_a->find(m.type)) continue;  // a difference needs the type in both
      files.push_back(
          {prefix + (numbers.size() > 1 ? "-" + std::to_string(n) : "") + "-" + m.type + ".svg",
           &sentence, m.type, in_a});
    }
  }
  return files;
}

void write_svg(const SvgFile& svg_file, const Comparison& runs) {
  std::ostringstream svg;
  if (svg_file.before)
    write_difference_svg(*svg_file.before, *svg_file.sentence, svg_file.type, runs.a->name,
                         runs.b->name, runs.scale, svg);
  else
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
  bool difference = false;  // of two dumps
};

RenderedView render_view(const AttentionDump& dump, const ViewOptions& options) {
  std::ostringstream page;
  RenderedView view;
  view.summary = write_attention_page(dump, page, options);
  view.text = page.str();
  return view;
}

// The page to `path` ("-": stdout), reported on stderr.
void write_view(const RenderedView& page, const std::string& path) {
  if (path == "-") {
    std::cout << page.text;
    std::cout.flush();
    if (!std::cout) throw IoError("cannot write the page to stdout");
  } else {
    OutputFile file(path);
    file.write(page.text);
    file.commit();
  }
  report_view(path, page.summary, page.text.size(), page.difference);
}

int run_view(const ViewArgs& args) {
  if (args.dumps.size() == 2 && args.dumps[0] == "-" && args.dumps[1] == "-")
    throw UsageError("only one of the two dumps can come from stdin (-)");
  const AttentionDump dump = read_dump_file(args.dumps.back());  // B, when there are two
  std::optional<AttentionDump> before;                           // A
  if (args.dumps.size() == 2) before = read_dump_file(args.dumps[0]);
  ViewOptions options;
  options.title = args.title;
  options.sentences =
      parse_sentence_ranges(args.sentences, static_cast<int>(dump.sentences.size()));
  const std::string page = args.output.empty() ? default_output(args.dumps) : args.output;

  RenderedView view;
  Comparison runs;
  std::optional<NamedDump> a, b;
  if (before) {
    a.emplace(NamedDump{*before, args.dumps[0]});
    b.emplace(NamedDump{dump, args.dumps[1]});
    std::ostringstream text;
    view.summary = write_difference_page(*a, *b, text, options);  // checks the sentences first
    view.text = text.str();
    view.difference = true;
    runs = {&*a, &*b, view.summary.largest_change};  // the SVGs' colours are the page's
  } else {
    view = render_view(dump, options);
  }
  std::vector<SvgFile> svgs;
  if (!args.svg.empty())
    svgs = svg_files(dump, args.svg, options.sentences, before ? &*before : nullptr);

  PathGuard guard;  // the dump is read already, but `view d.json -o d.json` is surely a slip
  for (const std::string& input : args.dumps) guard.input("the dump", input);
  guard.output(args.output.empty() ? "the page (default -o)" : "-o", page);
  for (const SvgFile& svg : svgs) guard.output("--svg", svg.path);
  guard.check();

  write_view(view, page);
  for (const SvgFile& svg : svgs) write_svg(svg, runs);
  return 0;
}

void add_view_options(CLI::App& command, ViewArgs& args) {
  command.description(
      "render an attention dump as one self-contained HTML page of heatmaps; two dumps of the "
      "same sentences as the page of their difference, B - A");
  command
      .add_option("dumps", args.dumps,
                  "the dump (translate --dump-attention; at most 1 GiB; - for stdin); with a "
                  "second one, B - A per cell and each head's largest change: e.g. without and "
                  "with --ablate-heads, float32 and int8, two models")
      ->check(non_empty_path())
      ->type_name("FILE")  // the completions offer file names for a FILE positional
      ->required()
      ->expected(1, 2);
  command
      .add_option("-o,--output", args.output,
                  "the page to write (default: the dump's name with .html, A-vs-B.html for "
                  "two; - for stdout)")
      ->check(non_empty_path())
      ->type_name("FILE");
  command.add_option("--title", args.title, "the page's title")->type_name("TEXT");
  command
      .add_option("--svg", args.svg,
                  "also write static SVGs, one per attention type: PREFIX-encoder.svg, "
                  "PREFIX-decoder.svg, PREFIX-cross.svg (PREFIX-N-TYPE.svg for sentence N "
                  "when several are shown); with two dumps, their difference")
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

void report_view(const std::string& path, const ViewSummary& summary, size_t bytes,
                 bool difference) {
  std::cerr << "minimt: wrote " << (path == "-" ? "the page to stdout" : visible_text(path)) << ": "
            << summary.sentences << " sentence" << (summary.sentences == 1 ? "" : "s") << ", "
            << summary.heatmaps << " heatmaps" << (difference ? " of B - A" : "") << " (+"
            << summary.averages << " head averages"
            << (summary.rollouts ? ", +" + std::to_string(summary.rollouts) + " rollouts" : "")
            << "), " << human_size(static_cast<long long>(bytes), true) << "\n";
}

Command add_view(CLI::App& app) {
  return add_command<ViewArgs>(app, "view", add_view_options, run_view);
}

}  // namespace minimt::cli
