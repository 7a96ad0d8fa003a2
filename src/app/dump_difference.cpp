#include "minimt/app/dump_difference.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "app/terminal_text.h"
#include "app/view_text.h"
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

std::vector<HeadChange> largest_changes(const NamedDump& a, const NamedDump& b,
                                        const std::vector<int>& sentences) {
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
  for (int n : numbers) {
    const DumpSentence& sa = a.dump.sentences.at(n - 1);
    const DumpSentence& sb = b.dump.sentences.at(n - 1);
    for (const AttentionMatrices& ma : sa.attention) {
      const AttentionMatrices* mb = sb.find(ma.type);
      if (!mb) continue;
      const auto& axes = *dump_schema::find_attention_type(ma.type);
      const std::vector<std::string>& rows = sa.tokens(axes.rows);
      const std::vector<std::string>& cols = sa.tokens(axes.cols);
      for (int la = 0; la < ma.layers(); ++la) {
        auto lb = std::find(mb->layer_labels.begin(), mb->layer_labels.end(), ma.layer_labels[la]);
        if (lb == mb->layer_labels.end()) continue;
        const int l = static_cast<int>(lb - mb->layer_labels.begin());
        for (size_t ha = 0; ha < ma.heads.size(); ++ha) {
          auto hb = std::find(mb->heads.begin(), mb->heads.end(), ma.heads[ha]);
          if (hb == mb->heads.end()) continue;
          shared = true;
          const int h = static_cast<int>(hb - mb->heads.begin());
          HeadChange key{ma.type, ma.layer_labels[la], ma.heads[ha]};
          key.masked_a = ma.is_masked(la, static_cast<int>(ha));
          key.masked_b = mb->is_masked(l, h);
          auto it = find(key);
          if (it == changes.end()) {
            changes.push_back(key);
            it = changes.end() - 1;
          }
          for (int i = 0; i < ma.rows; ++i)
            for (int j = 0; j < ma.cols; ++j) {
              if (axes.causal && j > i) continue;
              const float va = ma.at(la, static_cast<int>(ha), i, j), vb = mb->at(l, h, i, j);
              if (it->sentence != 0 && std::fabs(vb - va) <= std::fabs(it->change)) continue;
              it->change = vb - va;
              it->a = va;
              it->b = vb;
              it->sentence = n;
              it->query = rows[i];
              it->key = cols[j];
            }
        }
      }
    }
  }
  if (!shared && !numbers.empty())
    throw Error("cannot compare " + a.name + " and " + b.name +
                ": they hold no attention head in common (types, layers and heads)");
  std::stable_sort(changes.begin(), changes.end(), [](const HeadChange& x, const HeadChange& y) {
    return std::fabs(x.change) > std::fabs(y.change);
  });
  return changes;
}

std::string change_table(const std::vector<HeadChange>& changes, const NamedDump& a,
                         const NamedDump& b) {
  std::string out = "largest change per head, B - A (B = " + view::terminal_escape(b.name) +
                    ", A = " + view::terminal_escape(a.name) + "), most changed first:\n" +
                    "type     layer head   B - A       A       B  sentence  query -> key\n";
  int unchanged = 0;
  for (const HeadChange& c : changes) {
    // Heads equal in every cell make one line: the table is about what changed.
    if (c.change == 0 && c.sentence != 0 && c.masked_a == c.masked_b) {
      ++unchanged;
      continue;
    }
    std::string row = view::pad_width(c.type, 9, false) + view::pad_width(c.layer, 5, true) +
                      view::pad_width(std::to_string(c.head), 5, true) +
                      view::pad_width(fixed(c.change, "%+.4f"), 8, true) +
                      view::pad_width(fixed(c.a, "%.4f"), 8, true) +
                      view::pad_width(fixed(c.b, "%.4f"), 8, true) +
                      view::pad_width(std::to_string(c.sentence), 10, true) + "  ";
    if (c.sentence == 0)
      row += "(no cells)";
    else
      row += view::terminal_escape(c.query) + " -> " + view::terminal_escape(c.key);
    if (c.masked_a || c.masked_b)
      row += std::string("  masked in ") + (c.masked_a && c.masked_b ? "both"
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
