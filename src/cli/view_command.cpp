// minimt view: an attention dump (translate --dump-attention) as one self-contained HTML page
// of heatmaps, and optionally as static SVGs; two dumps of the same sentences as the page of
// their difference, B - A.
#include <CLI/CLI.hpp>
#include <iostream>
#include <optional>
#include <sstream>

#include "cli/commands.h"
#include "cli/option_parsing.h"
#include "cli/path_guard.h"
#include "cli/view_svgs.h"
#include "minimt/app/io/output_file.h"
#include "minimt/app/views/attention_view.h"
#include "minimt/base/error.h"

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

Command add_view(CLI::App& app) {
  return add_command<ViewArgs>(app, "view", add_view_options, run_view);
}

}  // namespace minimt::cli
