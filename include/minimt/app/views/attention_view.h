// Renders an attention dump (dump_reader.h reads it) as one self-contained HTML page: for each
// sentence, a grid of heatmaps per attention type (encoder self-attention, decoder masked
// self-attention, cross-attention), one per layer and head, drawn on canvases by the page's
// inline script. No network access, no external scripts or fonts. Also as static SVG. The page
// itself (HTML, style, script, colour scales) is src/app/views/page/; the C++ side writes its data.
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "minimt/app/record/dump_reader.h"
#include "minimt/app/views/dump_difference.h"
#include "minimt/base/half_float.h"  // encode_weights: the page's weights

namespace minimt {

struct ViewOptions {
  std::string title;           // empty: "minimt attention" and the model
  std::vector<int> sentences;  // 1-based numbers of the sentences to show; empty: all
  nlohmann::json heads;        // minimt heads' analysis, shown above the sentences (head_page.h)
  bool live = false;           // minimt serve's page: a box sends sentences to the server
  // With live: the choices of the request the page answers (dump_scores, dump_norms,
  // logit_lens, rollout, ablate_heads), for its form to show them again; null: the defaults.
  nlohmann::json live_request;
};

struct ViewSummary {
  int sentences = 0;         // shown
  int heatmaps = 0;          // per-head heatmaps in the page (averages not counted)
  int averages = 0;          // average-over-heads heatmaps
  int rollouts = 0;          // rollout heatmaps (--rollout)
  float largest_change = 0;  // view A B: the largest |B - A| of a head, the colours' end
};

// Writes the page (attention_page.cpp). Throws Error if a requested sentence number is not in
// the dump. The page's data holds each type's weights as encode_weights writes them; decoder
// self-attention keeps only the lower triangle (row i: keys 0..i), the rest being the causal mask.
ViewSummary write_attention_page(const AttentionDump& dump, std::ostream& out,
                                 const ViewOptions& options = {});

// The page of two runs of the same sentences (difference_page.cpp; minimt view A B): each
// heatmap B - A per cell on the diverging scale, one scale for the whole page (the largest
// |B - A| of a head), and above the sentences the table of each head's largest change
// (largest_changes). Throws Error as check_same_sentences and largest_changes do.
ViewSummary write_difference_page(const NamedDump& a, const NamedDump& b, std::ostream& out,
                                  const ViewOptions& options = {});

// A static SVG of one attention type of one sentence (attention_svg.cpp): a grid of heatmaps
// (rows = layers, columns = heads) with token labels, each decoder step's predicted piece and
// its probability, masked heads said so in their captions, the colour scale and the causal mask
// hatched, for documents that cannot run scripts. Throws Error if the sentence lacks that type.
void write_attention_svg(const DumpSentence& sentence, const std::string& type, std::ostream& out);

// The same for two runs of one sentence (a from A, b from B): B - A per cell on the diverging
// scale up to `scale` (the page's: the largest |B - A|), each head's caption saying where it was
// masked. Throws Error if the sentences lack that type or share no head of it.
void write_difference_svg(const DumpSentence& a, const DumpSentence& b, const std::string& type,
                          const std::string& a_name, const std::string& b_name, float scale,
                          std::ostream& out);

}  // namespace minimt
