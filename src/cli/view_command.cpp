#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>

#include "cli/commands.h"
#include "minimt/attention_view.h"
#include "minimt/error.h"

namespace minimt::cli {
namespace {

std::string human_size(size_t bytes) {
  char text[32];
  if (bytes >= (1u << 20))
    std::snprintf(text, sizeof text, "%.1f MB", bytes / 1048576.0);
  else
    std::snprintf(text, sizeof text, "%.0f KB", bytes / 1024.0);
  return text;
}

// "attention.json" -> "attention.html"; anything else gets ".html" added.
std::string default_output(const std::string& dump) {
  if (dump.empty() || dump == "-") return "attention.html";
  std::string base = dump;
  const std::string json = ".json";
  if (base.size() > json.size() && base.compare(base.size() - json.size(), json.size(), json) == 0)
    base.resize(base.size() - json.size());
  return base + ".html";
}

}  // namespace

bool is_sentence_range(const std::string& text) {
  try {
    parse_sentence_ranges({text});
    return true;
  } catch (const Error&) {
    return false;
  }
}

std::vector<int> parse_sentence_ranges(const std::vector<std::string>& items) {
  std::vector<int> numbers;
  auto number = [](const std::string& text, const std::string& item) {
    if (text.empty() || text.size() > 9 ||
        text.find_first_not_of("0123456789") != std::string::npos || std::stoi(text) < 1)
      throw Error("'" + item + "' is not a sentence number or range like 3-5 (numbered from 1)");
    return std::stoi(text);
  };
  for (const std::string& item : items) {
    size_t dash = item.find('-');
    int first = number(item.substr(0, dash), item);
    int last = dash == std::string::npos ? first : number(item.substr(dash + 1), item);
    if (last < first) throw Error("'" + item + "' is an empty range");
    if (last - first > 100000) throw Error("'" + item + "' is too long a range");
    for (int n = first; n <= last; ++n) numbers.push_back(n);
  }
  return numbers;
}

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
            << human_size(text.size()) << "\n";
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
      std::cerr << "minimt: wrote " << path << " (" << human_size(svg.str().size()) << ")\n";
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

}  // namespace minimt::cli
