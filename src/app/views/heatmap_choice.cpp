#include "app/views/heatmap_choice.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "app/views/terminal_text.h"
#include "app/views/view_text.h"
#include "minimt/base/error.h"

namespace minimt::view {
namespace {

std::string list_numbers(const std::vector<std::string>& labels) {
  std::string text;
  for (const std::string& l : labels) text += (text.empty() ? "" : ", ") + l;
  return text;
}

// A layer's number from its label; an older dump's negative label ("-1", kept as the selection
// gave it) stands for a layer past every numbered one.
long long layer_number(const std::string& label) {
  const int number = std::stoi(label);
  return number < 0 ? (1LL << 32) + number : number;
}

// The position in m's layers of the layer `layer` names: its number, or, negative, counted from
// the model's last layer (-1 the last) as everywhere in minimt, whichever layers the dump holds.
int layer_position(const AttentionMatrices& m, int layer, const std::string& type) {
  const bool from_end = layer < 0 && m.model_layers > 0;
  const int number = from_end ? m.model_layers + layer : layer;
  const std::string label = std::to_string(number);
  auto found = std::find(m.layer_labels.begin(), m.layer_labels.end(), label);
  if (found != m.layer_labels.end()) return static_cast<int>(found - m.layer_labels.begin());
  const std::string held = " (its " + type + " layers: " + list_numbers(m.layer_labels) + ")";
  if (layer < 0 && m.model_layers == 0)
    throw Error("layer " + std::to_string(layer) +
                " counts from the model's last layer, and the dump does not say how many the "
                "model has" +
                held + ": name the layer by its number");
  if (from_end && number < 0)
    throw Error("layer " + std::to_string(layer) + " does not exist (the model has " +
                std::to_string(m.model_layers) + " " + type + " layers, -1 the last)");
  const std::string named =
      from_end ? "layer " + std::to_string(layer) + " (the model's layer " + label + ")"
               : "layer " + label;
  throw Error(named + " is not in the dump" + held);
}

}  // namespace

Chosen choose(const DumpSentence& s, const HeatmapChoice& choice) {
  Chosen c;
  c.type = dump_schema::find_attention_type(choice.type);
  if (!c.type) throw Error("'" + choice.type + "' is not encoder, decoder or cross");
  const std::string where = "sentence " + std::to_string(s.number);
  if (!s.error.empty()) throw Error(where + " was not translated: " + s.error);
  if (s.blank()) throw Error(where + " is a blank line: no attention to draw");
  c.m = s.find(choice.type);
  if (c.m && c.m->layers() == 0 && c.m->empty_layers > 0)
    throw Error(where + "'s " + type_text(choice.type).name + " has no rows to draw: " +
                (s.decoder_input_tokens.empty() ? "its translation has no tokens (--max-length 0?)"
                                                : "it has no tokens"));
  if (!c.m || c.m->layers() == 0 || c.m->heads.empty())
    throw Error(where + " has no " + type_text(choice.type).name +
                " in the dump (it was written with a selection that leaves it out)");
  const AttentionMatrices& m = *c.m;
  if (choice.layer) {
    c.layer = layer_position(m, *choice.layer, choice.type);
  } else {  // the deepest layer the dump holds, wherever its selection listed it
    for (int l = 1; l < m.layers(); ++l)
      if (layer_number(m.layer_labels[l]) > layer_number(m.layer_labels[c.layer])) c.layer = l;
  }
  if (choice.head) {
    auto found = std::find(m.heads.begin(), m.heads.end(), *choice.head);
    if (found == m.heads.end()) {
      std::vector<std::string> heads;
      for (int h : m.heads) heads.push_back(std::to_string(h));
      throw Error("head " + std::to_string(*choice.head) +
                  " is not in the dump (its heads: " + list_numbers(heads) + ")");
    }
    c.head = static_cast<int>(found - m.heads.begin());
  }
  return c;
}

std::string head_text(const Chosen& c) {
  const AttentionMatrices& m = *c.m;
  if (c.head) {
    std::string text = "head " + std::to_string(m.heads[*c.head]);
    if (m.is_masked(c.layer, *c.head)) text += " (masked by --mask-heads: every weight is 0)";
    return text;
  }
  std::vector<std::string> kept, masked;
  for (int h : m.averaged_heads(c.layer)) kept.push_back(std::to_string(m.heads[h]));
  for (size_t h = 0; h < m.heads.size(); ++h)
    if (m.is_masked(c.layer, static_cast<int>(h))) masked.push_back(std::to_string(m.heads[h]));
  std::string text =
      "average of head" + std::string(kept.size() == 1 ? " " : "s ") + list_numbers(kept);
  if (masked.size() == m.heads.size())
    text += " (all masked by --mask-heads: every weight is 0)";
  else if (!masked.empty())
    text += " (" + std::string(masked.size() == 1 ? "head " : "heads ") + list_numbers(masked) +
            " masked, left out)";
  return text;
}

std::vector<float> chosen_weights(const Chosen& c) {
  const AttentionMatrices& m = *c.m;
  if (!c.head) return m.head_average(c.layer);
  std::vector<float> w;
  for (int i = 0; i < m.rows; ++i)
    for (int j = 0; j < m.cols; ++j) w.push_back(m.at(c.layer, *c.head, i, j));
  return w;
}

std::vector<float> chosen_extra(const DumpSentence& s, const Chosen& c, const char* suffix,
                                const char* option) {
  const std::string key = dump_schema::extra_key(*c.type, suffix);
  const AttentionMatrices* x = s.find_extra(key);
  if (!x || x->layers() != c.m->layers() || x->heads != c.m->heads)
    throw Error("sentence " + std::to_string(s.number) + " has no " + key +
                " for these layers and heads in the dump (write it with " + option + ")");
  std::vector<int> heads = c.m->averaged_heads(c.layer);
  if (c.head) heads = {*c.head};
  std::vector<float> out(static_cast<size_t>(x->rows) * x->cols, 0.0f);
  for (int h : heads)
    for (int i = 0; i < x->rows; ++i)
      for (int j = 0; j < x->cols; ++j)
        out[static_cast<size_t>(i) * x->cols + j] += x->at(c.layer, h, i, j) / heads.size();
  return out;
}

float largest(const std::vector<float>& values, int cols, bool causal) {
  float scale = 0;
  for (size_t k = 0; k < values.size(); ++k)
    if (!(causal && static_cast<int>(k % cols) > static_cast<int>(k / cols)))
      scale = std::max(scale, std::fabs(values[k]));
  return scale;
}

Grid grid_for(const DumpSentence& s, const Chosen& c, const std::string& what) {
  const TypeText& text = type_text(c.type->type);
  return labelled_grid(s, *c.type,
                       std::string(text.heading) + " \u00b7 layer " + c.m->layer_labels[c.layer] +
                           " \u00b7 " + head_text(c) + " \u00b7 sentence " +
                           std::to_string(s.number) + what,
                       text.axes);
}

Grid labelled_grid(const DumpSentence& s, const dump_schema::AttentionType& type,
                   const std::string& title, const std::string& axes) {
  Grid g;
  g.heading.push_back(title);
  g.heading.push_back("source: " + terminal_escape(s.source));
  g.heading.push_back("translation: " + terminal_escape(s.translation));
  g.heading.push_back(axes);
  for (const std::string& t : s.tokens(type.rows)) g.rows.push_back(terminal_escape(t));
  for (const std::string& t : s.tokens(type.cols)) g.cols.push_back(terminal_escape(t));
  if (type.rows == dump_schema::Axis::kDecoderInput)
    for (size_t i = 0; i < s.output_tokens.size(); ++i) {
      std::string label = "\u2192 " + terminal_escape(s.output_tokens[i]);
      if (i < s.output_log_probs.size()) {
        char p[16];
        std::snprintf(p, sizeof p, " %.2f", std::exp(s.output_log_probs[i]));
        label += p;
      }
      g.right.push_back(label);
    }
  return g;
}

}  // namespace minimt::view
