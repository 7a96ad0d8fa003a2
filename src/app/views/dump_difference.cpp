#include "minimt/app/views/dump_difference.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <utility>

#include "app/views/terminal_text.h"
#include "app/views/view_text.h"
#include "minimt/base/error.h"

namespace minimt {
namespace {

// The first position where two token lists differ, or -1.
long long first_difference(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  const size_t common = std::min(a.size(), b.size());
  for (size_t i = 0; i < common; ++i)
    if (a[i] != b[i]) return static_cast<long long>(i);
  return a.size() == b.size() ? -1 : static_cast<long long>(common);
}

std::string token_or_end(const std::vector<std::string>& tokens, long long i) {
  return i < static_cast<long long>(tokens.size()) ? "'" + tokens[i] + "'" : "nothing (it ends)";
}

std::string fixed(double x, const char* format) {
  char text[32];
  std::snprintf(text, sizeof text, format, x);
  return text;
}

}  // namespace

void check_same_sentences(const NamedDump& a, const NamedDump& b) {
  const auto& sa = a.dump.sentences;
  const auto& sb = b.dump.sentences;
  const std::string both = a.name + " and " + b.name;
  if (sa.size() != sb.size())
    throw Error("cannot compare " + both + ": " + a.name + " holds " + std::to_string(sa.size()) +
                " sentences, " + b.name + " " + std::to_string(sb.size()));
  for (size_t n = 0; n < sa.size(); ++n) {
    const std::string where = "cannot compare " + both + ": sentence " + std::to_string(n + 1);
    if (!sa[n].error.empty() || !sb[n].error.empty()) {
      if (sa[n].error.empty() != sb[n].error.empty())
        throw Error(where + " failed in " + (sa[n].error.empty() ? b.name : a.name) + " only");
      continue;
    }
    struct Axis {
      const char* what;
      const std::vector<std::string>& a;
      const std::vector<std::string>& b;
    };
    for (const Axis& axis :
         {Axis{"source token", sa[n].source_tokens, sb[n].source_tokens},
          Axis{"decoder input token", sa[n].decoder_input_tokens, sb[n].decoder_input_tokens}}) {
      const long long i = first_difference(axis.a, axis.b);
      if (i >= 0)
        throw Error(where + ", " + axis.what + " " + std::to_string(i) +
                    " (from 0): " + token_or_end(axis.a, i) + " in " + a.name + ", " +
                    token_or_end(axis.b, i) + " in " + b.name +
                    " (the runs translated differently; compare dumps of "
                    "the same translations, e.g. from minimt score)");
    }
  }
}

MatricesDifference matrices_difference(const AttentionMatrices& a, const AttentionMatrices& b) {
  MatricesDifference d;
  // Positions in a and in b of the layers and heads both hold, in A's order.
  std::vector<std::pair<int, int>> layers, heads;
  for (int la = 0; la < a.layers(); ++la) {
    auto lb = std::find(b.layer_labels.begin(), b.layer_labels.end(), a.layer_labels[la]);
    if (lb != b.layer_labels.end())
      layers.emplace_back(la, static_cast<int>(lb - b.layer_labels.begin()));
  }
  for (size_t ha = 0; ha < a.heads.size(); ++ha) {
    auto hb = std::find(b.heads.begin(), b.heads.end(), a.heads[ha]);
    if (hb != b.heads.end())
      heads.emplace_back(static_cast<int>(ha), static_cast<int>(hb - b.heads.begin()));
  }
  if (a.rows != b.rows || a.cols != b.cols)  // the same tokens make the same shapes
    throw Error("the " + a.type + " attention of the two dumps has different shapes");
  for (AttentionMatrices* m : {&d.a, &d.b, &d.change}) {
    m->type = a.type;
    m->rows = a.rows;
    m->cols = a.cols;
    if (layers.empty() || heads.empty()) continue;
    for (const auto& l : layers) m->layer_labels.push_back(a.layer_labels[l.first]);
    for (const auto& h : heads) m->heads.push_back(a.heads[h.first]);
  }
  if (d.change.layer_labels.empty()) return d;
  const bool causal = dump_schema::causal_matrices(a.type);
  const bool any_masked = !a.masked.empty() || !b.masked.empty();
  for (const auto& [la, lb] : layers)
    for (const auto& [ha, hb] : heads) {
      if (any_masked) {
        d.a.masked.push_back(a.is_masked(la, ha));
        d.b.masked.push_back(b.is_masked(lb, hb));
      }
      for (int i = 0; i < a.rows; ++i)
        for (int j = 0; j < a.cols; ++j) {
          const float va = a.at(la, ha, i, j), vb = b.at(lb, hb, i, j);
          d.a.values.push_back(va);
          d.b.values.push_back(vb);
          d.change.values.push_back(causal && j > i ? 0.0f : vb - va);
        }
    }
  return d;
}

std::vector<HeadChange> largest_changes(const NamedDump& a, const NamedDump& b,
                                        const std::vector<int>& sentences, const char* suffix) {
  check_same_sentences(a, b);
  std::vector<int> numbers = sentences;
  if (numbers.empty())
    for (size_t n = 1; n <= a.dump.sentences.size(); ++n) numbers.push_back(static_cast<int>(n));
  std::vector<HeadChange> changes;
  bool shared = false;
  auto find = [&](const HeadChange& key) {
    return std::find_if(changes.begin(), changes.end(), [&](const HeadChange& c) {
      return c.type == key.type && c.layer == key.layer && c.head == key.head;
    });
  };
  // A head of the weights `m` masked (--mask-heads), by its layer's label and its number.
  auto masked = [](const AttentionMatrices& m, const std::string& layer, int head) {
    const auto l = std::find(m.layer_labels.begin(), m.layer_labels.end(), layer);
    const auto h = std::find(m.heads.begin(), m.heads.end(), head);
    return l != m.layer_labels.end() && h != m.heads.end() &&
           m.is_masked(static_cast<int>(l - m.layer_labels.begin()),
                       static_cast<int>(h - m.heads.begin()));
  };
  // One value per query (the head norms): no key token, no causal mask over the columns.
  const bool per_row = suffix && std::string(suffix) == dump_schema::kHeadNormsSuffix;
  for (int n : numbers) {
    const DumpSentence& sa = a.dump.sentences.at(n - 1);
    const DumpSentence& sb = b.dump.sentences.at(n - 1);
    for (const AttentionMatrices& ma : sa.attention) {
      const AttentionMatrices* mb = sb.find(ma.type);
      if (!mb) continue;
      const auto& axes = *dump_schema::find_attention_type(ma.type);
      const AttentionMatrices* xa = &ma;
      const AttentionMatrices* xb = mb;
      if (suffix) {
        xa = sa.find_extra(dump_schema::extra_key(axes, suffix));
        xb = sb.find_extra(dump_schema::extra_key(axes, suffix));
        if (!xa || !xb) continue;
      }
      const MatricesDifference d = matrices_difference(*xa, *xb);
      if (d.change.layers() == 0) continue;
      shared = true;
      const std::vector<std::string>& rows = sa.tokens(axes.rows);
      const std::vector<std::string>& cols = sa.tokens(axes.cols);
      for (int l = 0; l < d.change.layers(); ++l)
        for (int h = 0; h < static_cast<int>(d.change.heads.size()); ++h) {
          HeadChange key;
          key.type = ma.type;
          key.layer = d.change.layer_labels[l];
          key.head = d.change.heads[h];
          key.masked_a = masked(ma, key.layer, key.head);
          key.masked_b = masked(*mb, key.layer, key.head);
          auto it = find(key);
          if (it == changes.end()) {
            changes.push_back(key);
            it = changes.end() - 1;
          }
          for (int i = 0; i < d.change.rows; ++i)
            for (int j = 0; j < d.change.cols; ++j) {
              if (axes.causal && !per_row && j > i) continue;
              const float change = d.change.at(l, h, i, j);
              if (it->sentence != 0 && std::fabs(change) <= std::fabs(it->change)) continue;
              it->change = change;
              it->a = d.a.at(l, h, i, j);
              it->b = d.b.at(l, h, i, j);
              it->sentence = n;
              it->row = i;
              it->col = j;
              it->query = rows[i];
              it->key = per_row ? "" : cols[j];
            }
        }
    }
  }
  if (!shared && !numbers.empty())
    throw Error(
        "cannot compare " + a.name + " and " + b.name + ": they hold no " +
        (suffix ? std::string("head with ") + (suffix + 1) : std::string("attention head")) +
        " in common (types, layers and heads)");
  std::stable_sort(changes.begin(), changes.end(), [](const HeadChange& x, const HeadChange& y) {
    return std::fabs(x.change) > std::fabs(y.change);
  });
  return changes;
}

bool is_unchanged(const HeadChange& c) {
  return c.change == 0 && c.sentence != 0 && c.masked_a == c.masked_b;
}

std::string change_table(const std::vector<HeadChange>& changes, const NamedDump& a,
                         const NamedDump& b, const std::string& what, bool per_row) {
  // The numbers' columns: as wide as the widest (scores and norms may pass 9.9999), at least 8.
  int width = 8;
  for (const HeadChange& c : changes)
    for (double x :
         {static_cast<double>(c.change), static_cast<double>(c.a), static_cast<double>(c.b)})
      width = std::max(width, static_cast<int>(fixed(x, "%+.4f").size()) + 1);
  std::string out = "largest change per head" + (what.empty() ? "" : " " + what) +
                    ", B - A (B = " + view::terminal_escape(b.name) +
                    ", A = " + view::terminal_escape(a.name) + "), most changed first:\n" +
                    view::pad_width("type", 9, false) + "layer head" +
                    view::pad_width("B - A", width, true) + view::pad_width("A", width, true) +
                    view::pad_width("B", width, true) + "  sentence  " +
                    (per_row ? "query" : "query -> key") + "\n";
  int unchanged = 0;
  for (const HeadChange& c : changes) {
    // Heads equal in every cell make one line: the table is about what changed.
    if (is_unchanged(c)) {
      ++unchanged;
      continue;
    }
    std::string row = view::pad_width(c.type, 9, false) + view::pad_width(c.layer, 5, true) +
                      view::pad_width(std::to_string(c.head), 5, true) +
                      view::pad_width(fixed(c.change, "%+.4f"), width, true) +
                      view::pad_width(fixed(c.a, "%.4f"), width, true) +
                      view::pad_width(fixed(c.b, "%.4f"), width, true) +
                      view::pad_width(std::to_string(c.sentence), 10, true) + "  ";
    if (c.sentence == 0)
      row += "(no cells)";
    else if (per_row)
      row += view::terminal_escape(c.query);
    else
      row += view::terminal_escape(c.query) + " -> " + view::terminal_escape(c.key);
    if (c.masked_a || c.masked_b)
      row += std::string("  ablated in ") + (c.masked_a && c.masked_b ? "both"
                                             : c.masked_a             ? "A"
                                                                      : "B");
    out += row + "\n";
  }
  if (unchanged > 0)
    out += "and " + std::to_string(unchanged) + " head" + (unchanged == 1 ? "" : "s") +
           " with B - A = 0 in every cell\n";
  return out;
}

}  // namespace minimt
