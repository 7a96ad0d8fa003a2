// minimt view --svg (view_svgs.h).
#include "cli/view_svgs.h"

#include <iostream>
#include <sstream>

#include "cli/option_parsing.h"
#include "minimt/app/io/output_file.h"
#include "minimt/base/visible_text.h"

namespace minimt::cli {

std::vector<SvgFile> svg_files(const AttentionDump& dump, const std::string& prefix,
                               std::vector<int> numbers, const AttentionDump* before) {
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

}  // namespace minimt::cli
