// run_heads and write_heads_page (heads_run.h): the lines read into pairs, the analysis, its
// table and its page.
#include "minimt/app/run/heads_run.h"

#include <algorithm>

#include "minimt/app/io/usable_cores.h"
#include "minimt/app/views/head_page.h"
#include "minimt/app/views/head_report.h"
#include "minimt/base/error.h"
#include "minimt/base/text_input.h"
#include "minimt/base/utf8.h"

namespace minimt {
namespace {

// The sentences the page draws below the grid of heads.
constexpr int kPageExamples = 3;

// source<TAB>reference lines, or sources alone (their greedy translations become the
// references). A bad line is reported with its number and left out: a reference cut short
// would be scored as if it were the whole one.
std::vector<SentencePair> read_pairs(const Translator& translator, LineReader& reader,
                                     const HeadsCallbacks& callbacks, long long& bad_lines) {
  std::vector<SentencePair> pairs;
  std::vector<size_t> untranslated;
  std::string line;
  auto refuse = [&](long long number, const std::string& error) {
    ++bad_lines;
    if (callbacks.bad_line) callbacks.bad_line(number, error + "; left out");
  };
  while (reader.next(line) == LineReader::Status::kLine) {
    if (line.size() > kMaxLineBytes) {  // LineReader keeps one byte more than a line may have
      refuse(reader.lines_read(),
             "longer than " + std::to_string(kMaxLineBytes) + " bytes (64 KiB)");
      continue;
    }
    const long long bad = find_invalid_utf8(line);
    if (bad >= 0) {
      refuse(reader.lines_read(), "invalid UTF-8 at byte " + std::to_string(bad));
      continue;
    }
    const size_t tab = line.find('\t');
    if (tab == std::string::npos) untranslated.push_back(pairs.size());
    pairs.push_back({line.substr(0, tab), tab == std::string::npos ? "" : line.substr(tab + 1),
                     reader.lines_read()});
  }
  std::vector<std::string> sources;
  for (size_t i : untranslated) sources.push_back(pairs[i].source);
  std::vector<bool> cut_at_limit(pairs.size());  // own translation stopped at the length limit
  int cut_length = 0;
  if (!sources.empty()) {
    // One position is kept for the eos the reference is scored with (and one for a forced
    // first token, format v2): a translation cut at the length limit still fits as a reference.
    const ModelConfig& c = translator.model().config();
    TranslateOptions options;
    options.max_length = std::max(1, c.max_positions - 1 - (c.forced_first_token >= 0 ? 1 : 0));
    std::vector<Translation> own = translator.translate(sources, options);
    for (size_t k = 0; k < untranslated.size(); ++k) {
      pairs[untranslated[k]].reference = own[k].text;
      cut_at_limit[untranslated[k]] = !own[k].finished && own[k].ok();
    }
    cut_length = options.max_length;
  }
  // A pair is scored as one SOURCE<TAB>REFERENCE line, which the translator cuts at 64 KiB: a
  // source alone that long, with its translation after it, would lose the reference.
  std::vector<SentencePair> kept;
  for (size_t i = 0; i < pairs.size(); ++i) {
    SentencePair& pair = pairs[i];
    if (pair.source.size() + 1 + pair.reference.size() > kMaxLineBytes) {
      refuse(pair.line, "with its greedy translation (the reference) after it, longer than " +
                            std::to_string(kMaxLineBytes) + " bytes (64 KiB)");
      continue;
    }
    if (callbacks.warning && cut_at_limit[i])
      callbacks.warning(pair.line, "its greedy translation (the reference) stopped at " +
                                       std::to_string(cut_length) +
                                       " tokens before its end (eos); scored as if it ended there");
    kept.push_back(std::move(pair));
  }
  return kept;
}

std::string table(const HeadAnalysis& analysis, HeadsFormat format) {
  switch (format) {
    case HeadsFormat::kJsonl:
      return head_table_jsonl(analysis);
    case HeadsFormat::kCsv:
      return head_table_csv(analysis);
    case HeadsFormat::kText:
      break;
  }
  return head_table_text(analysis);
}

}  // namespace

long long heads_passes(const HeadsRequest& request, const ModelConfig& c) {
  const int heads = (c.encoder_layers + 2 * c.decoder_layers) * c.num_heads;
  return 1 + heads + (request.prune_order ? heads + 1 : 0);
}

HeadsResult run_heads(std::shared_ptr<const Model> model, const HeadsRequest& request,
                      LineReader& lines, const HeadsCallbacks& callbacks) {
  const Translator translator(std::move(model));
  HeadsResult result;
  result.pairs = read_pairs(translator, lines, callbacks, result.bad_lines);
  std::vector<long long> unscored;  // lines of pairs the model cannot score, ascending
  if (result.pairs.empty()) throw InputError("minimt heads: no sentence to analyse in the input");
  HeadAnalysisOptions options;
  options.translate = request.translate;
  options.prune_order = request.prune_order;
  options.attribution = request.attribution;
  options.ig_steps = request.ig_steps;
  options.ig_rule = request.ig_rule;
  options.batch_size = request.batch_size;
  options.threads = request.threads > 0 ? request.threads : usable_cores();
  options.progress = [&](const std::string&) {
    if (callbacks.pass) callbacks.pass();
  };
  options.bad_pair = [&](const SentencePair& pair, const std::string& error) {
    ++result.bad_lines;
    unscored.push_back(pair.line);
    if (callbacks.bad_line) callbacks.bad_line(pair.line, error + "; left out");
  };
  options.source_cut = [&](const SentencePair& pair) {
    if (callbacks.warning)
      callbacks.warning(pair.line, "the source is longer than the model's max_positions (" +
                                       std::to_string(translator.model().config().max_positions) +
                                       " tokens) and was cut");
  };
  result.analysis = analyse_heads(translator, result.pairs, options);
  // The pairs as analysed, for the page's examples.
  result.pairs.erase(std::remove_if(result.pairs.begin(), result.pairs.end(),
                                    [&](const SentencePair& pair) {
                                      return std::binary_search(unscored.begin(), unscored.end(),
                                                                pair.line);
                                    }),
                     result.pairs.end());
  result.table = table(result.analysis, request.format);
  return result;
}

ViewSummary write_heads_page(std::shared_ptr<const Model> model, const HeadsResult& result,
                             std::ostream& out) {
  const Translator translator(std::move(model));
  return write_head_page(result.analysis, record_examples(translator, result.pairs, kPageExamples),
                         out);
}

}  // namespace minimt
