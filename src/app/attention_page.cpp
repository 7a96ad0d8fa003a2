// The page `minimt view` writes: the template src/view/attention_page.html with its markers
// filled in. C++ writes the sections, headings and one empty figure per heatmap; the page's
// script draws the heatmaps from the data (tokens and weights) in the page.
#include "minimt/app/attention_page.h"  // generated from src/view/attention_page.html

#include <algorithm>
#include <set>
#include <sstream>

#include "app/view_text.h"
#include "minimt/app/attention_view.h"
#include "minimt/base/error.h"
#include "minimt/base/json_writer.h"

namespace minimt {
namespace {

using nlohmann::json;
using view::html_escape;

// The template with each {{name}} marker replaced by its value, in one pass (values are not
// searched for markers).
std::string fill_template(const std::string& text,
                          const std::vector<std::pair<std::string, std::string>>& values) {
  std::string out;
  size_t at = 0;
  std::set<std::string> used;
  while (true) {
    size_t open = text.find("{{", at);
    if (open == std::string::npos) break;
    size_t close = text.find("}}", open);
    if (close == std::string::npos) break;
    std::string name = text.substr(open + 2, close - open - 2);
    auto it = std::find_if(values.begin(), values.end(),
                           [&](const auto& value) { return value.first == name; });
    if (it == values.end()) {  // not a marker: keep the text
      out.append(text, at, open + 2 - at);
      at = open + 2;
      continue;
    }
    out.append(text, at, open - at);
    out += it->second;
    used.insert(name);
    at = close + 2;
  }
  out.append(text, at, std::string::npos);
  for (const auto& value : values)
    if (!used.count(value.first))
      throw Error("attention view: the page template lacks {{" + value.first + "}}");
  return out;
}

std::vector<const DumpSentence*> chosen_sentences(const AttentionDump& dump,
                                                  const std::vector<int>& numbers) {
  std::vector<const DumpSentence*> shown;
  if (numbers.empty()) {
    for (const DumpSentence& s : dump.sentences) shown.push_back(&s);
    return shown;
  }
  std::set<int> seen;
  for (int number : numbers) {
    if (number < 1 || number > static_cast<int>(dump.sentences.size()))
      throw Error("attention view: sentence " + std::to_string(number) +
                  " is not in the dump (it holds " + std::to_string(dump.sentences.size()) +
                  " sentences, numbered from 1)");
    if (seen.insert(number).second) shown.push_back(&dump.sentences[number - 1]);
  }
  return shown;
}

// The weights as the page's script reads them (matrices() there): for a causal type only the
// lower triangle, since the rest is masked.
json packed_weights(const AttentionMatrices& m, bool lower) {
  std::vector<float> kept;
  kept.reserve(m.values.size());
  for (int l = 0; l < m.layers(); ++l)
    for (size_t h = 0; h < m.heads.size(); ++h)
      for (int i = 0; i < m.rows; ++i)
        for (int j = 0; j < (lower ? std::min(i + 1, m.cols) : m.cols); ++j)
          kept.push_back(m.at(l, static_cast<int>(h), i, j));
  return {{"layers", m.layer_labels}, {"heads", m.heads}, {"rows", m.rows},
          {"cols", m.cols},           {"lower", lower},   {"w", encode_weights(kept)}};
}

// One row of figures per layer: each head, then the average over heads (hidden at first).
void write_layers(std::ostream& body, const AttentionMatrices& m, ViewSummary& summary) {
  for (int l = 0; l < m.layers(); ++l) {
    const std::string label = html_escape(m.layer_labels[l]);
    body << "<div class=\"layer\" data-layer=\"" << l << "\" data-label=\"" << label
         << "\"><div class=\"heads\">\n";
    for (size_t h = 0; h <= m.heads.size(); ++h) {
      const bool average = h == m.heads.size();
      body << "<figure class=\"heatmap" << (average ? " average" : "") << "\" data-type=\""
           << m.type << "\" data-layer=\"" << l << "\" data-head=\""
           << (average ? std::string("avg") : std::to_string(h)) << "\""
           << (average ? " hidden" : "") << "><figcaption title=\"show only this heatmap\">"
           << "layer " << label << " &middot; ";
      if (average)
        body << "average of " << m.heads.size() << " head" << (m.heads.size() == 1 ? "" : "s");
      else
        body << "head " << m.heads[h];
      body << "</figcaption><div class=\"plot\"><canvas class=\"cells\"></canvas>"
           << "<canvas class=\"overlay\"></canvas></div></figure>\n";
      if (average)
        ++summary.averages;
      else
        ++summary.heatmaps;
    }
    body << "</div></div>\n";
  }
}

// The weights of a rollout as packed_weights gives them: one layer, one head, "rollout": true.
json packed_rollout(const DumpRollout& r) {
  return {{"layers", json::array({"rollout"})},
          {"heads", json::array({0})},
          {"rows", r.rows},
          {"cols", r.cols},
          {"lower", false},
          {"rollout", true},
          {"w", encode_weights(r.values)}};
}

const DumpRollout& rollout_of(const DumpSentence& s, const std::string& type) {
  static const DumpRollout none;
  return type == "encoder" ? s.encoder_rollout : type == "cross" ? s.cross_rollout : none;
}

// A type's rollout, when the dump has one: a row of its own under the layers, labelled as a
// heuristic. Its weights go into `entry`.
void write_rollout(std::ostream& body, const DumpSentence& s, const std::string& type, json& entry,
                   ViewSummary& summary) {
  const DumpRollout& r = rollout_of(s, type);
  for (const view::RolloutText& text : view::kRolloutTexts) {
    if (type != text.of || !r.present) continue;
    entry["attention"][text.key] = packed_rollout(r);
    body << "<div class=\"layer rollout\" data-layer=\"0\" data-rollout=\"" << text.key
         << "\"><p class=\"heuristic\"><strong>" << view::kRolloutLabel << ".</strong> "
         << text.note << "</p><div class=\"heads\">\n<figure class=\"heatmap rollout\" "
         << "data-type=\"" << text.key << "\" data-layer=\"0\" data-head=\"0\"><figcaption "
         << "title=\"show only the rollouts\">" << text.caption << "</figcaption><div "
         << "class=\"plot\"><canvas class=\"cells\"></canvas><canvas class=\"overlay\">"
         << "</canvas></div></figure>\n</div></div>\n";
    ++summary.rollouts;
  }
}

// The section of one sentence; its weights go into `entry` (the page's data).
void write_sentence(std::ostream& body, const DumpSentence& s, size_t index, json& entry,
                    ViewSummary& summary) {
  body << "<section class=\"sentence\" id=\"sentence-" << s.number << "\" data-index=\"" << index
       << "\"" << (index ? " hidden" : "") << ">\n<h2>Sentence " << s.number << "</h2>\n"
       << "<dl class=\"texts\"><dt>source</dt><dd>" << html_escape(s.source)
       << "</dd><dt>translation</dt><dd>" << html_escape(s.translation) << "</dd></dl>\n";
  if (!s.error.empty()) {
    body << "<p class=\"note error\">This sentence was not translated: " << html_escape(s.error)
         << "</p>\n</section>\n";
    return;
  }
  if (s.blank()) {
    body << "<p class=\"note\">A blank line: no tokens, no attention to show.</p>\n"
         << "</section>\n";
    return;
  }
  for (const dump_schema::AttentionType& type : dump_schema::kAttentionTypes) {
    const view::TypeText& text = view::type_text(type.type);
    const AttentionMatrices* m = s.find(type.type);
    body << "<section class=\"attention\" data-type=\"" << type.type << "\">\n<h3>" << text.heading
         << "</h3>\n";
    const bool raw = m && m->layers() > 0 && !m->heads.empty();
    if (raw || rollout_of(s, type.type).present)
      body << "<p class=\"axes\">" << text.axes << "</p>\n";
    if (!raw) {
      body << "<p class=\"note\">Not in the dump (it was written with a selection that "
           << "leaves this out).</p>\n";
    } else {
      entry["attention"][m->type] = packed_weights(*m, type.causal);
      write_layers(body, *m, summary);
    }
    write_rollout(body, s, type.type, entry, summary);
    body << "</section>\n";
  }
  body << "</section>\n";
}

// Per output position, [{"token", "probability"}, ...] as in the dump.
json alternatives_json(const DumpSentence& s) {
  json out = json::array();
  for (const auto& position : s.alternatives) {
    json list = json::array();
    for (const auto& [token, probability] : position)
      list.push_back({{"token", token}, {"probability", probability}});
    out.push_back(std::move(list));
  }
  return out;
}

// What the page's script knows of each type: its name, and the keys of the sentence's token
// lists along its rows and columns ("right": the pieces predicted, beside decoder rows).
// Rollouts ("rollout": true) share the axes of the type they extend ("of").
json kinds() {
  auto tokens = [](dump_schema::Axis axis) {
    return axis == dump_schema::Axis::kSource ? "source_tokens" : "decoder_input_tokens";
  };
  json out = json::array();
  for (const dump_schema::AttentionType& type : dump_schema::kAttentionTypes) {
    const bool predicted = type.rows == dump_schema::Axis::kDecoderInput;
    out.push_back({{"type", type.type},
                   {"name", view::type_text(type.type).name},
                   {"rows", tokens(type.rows)},
                   {"cols", tokens(type.cols)},
                   {"right", predicted ? json("output_tokens") : json()}});
  }
  for (const view::RolloutText& text : view::kRolloutTexts) {
    json kind =
        *std::find_if(out.begin(), out.end(), [&](const json& k) { return k["type"] == text.of; });
    kind["type"] = text.key;
    kind["name"] = text.name;
    kind["rollout"] = true;
    kind["of"] = text.of;
    out.push_back(std::move(kind));
  }
  return out;
}

}  // namespace

ViewSummary write_attention_page(const AttentionDump& dump, std::ostream& out,
                                 const ViewOptions& options) {
  const std::vector<const DumpSentence*> shown = chosen_sentences(dump, options.sentences);
  ViewSummary summary;
  summary.sentences = static_cast<int>(shown.size());
  std::ostringstream body;
  body << options.preface;
  json data_sentences = json::array();
  for (size_t k = 0; k < shown.size(); ++k) {
    const DumpSentence& s = *shown[k];
    json entry = {{"number", s.number},
                  {"source", s.source},
                  {"translation", s.translation},
                  {"error", s.error},
                  {"source_tokens", s.source_tokens},
                  {"decoder_input_tokens", s.decoder_input_tokens},
                  {"output_tokens", s.output_tokens},
                  {"output_log_probs", s.output_log_probs},
                  {"alternatives", alternatives_json(s)},
                  {"attention", json::object()}};
    write_sentence(body, s, k, entry, summary);
    data_sentences.push_back(std::move(entry));
  }
  if (shown.empty()) body << "<p class=\"note\">The dump holds no sentences.</p>\n";

  const std::string title = options.title.empty() ? "minimt attention" : options.title;
  json data = {{"title", title},
               {"model", dump.model},
               {"types", dump.types},
               {"kinds", kinds()},
               {"sentences", std::move(data_sentences)}};
  const std::string subtitle = dump.model.empty() ? "" : "model " + dump.model;
  out << fill_template(kAttentionPageTemplate, {{"title", html_escape(title)},
                                                {"subtitle", html_escape(subtitle)},
                                                {"body", body.str()},
                                                {"data", json_for_script(data)}});
  return summary;
}

}  // namespace minimt
