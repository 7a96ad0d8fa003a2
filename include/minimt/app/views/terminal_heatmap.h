// Attention heatmaps drawn as text for a terminal (minimt show, translate --show): the tokens as
// row and column labels, one cell of two columns per weight, coloured as the terminal allows,
// in blocks of columns that fit its width. The front end says how the terminal draws
// (TerminalStyle); this file never reads the environment.
#pragma once

#include <optional>
#include <string>

#include "minimt/app/record/dump_reader.h"
#include "minimt/base/enum_names.h"

namespace minimt {

// What the terminal can show, from the least to the most.
enum class TerminalColours {
  kPlain,       // ASCII characters, no escape sequence (not a terminal, NO_COLOR)
  kShading,     // Unicode shades (U+2591-2588), no colour
  k256,         // xterm's 256 colours
  kTrueColour,  // 24-bit colour (COLORTERM=truecolor or 24bit)
};
inline constexpr EnumName<TerminalColours> kTerminalColourNames[] = {
    {"plain", TerminalColours::kPlain},
    {"shading", TerminalColours::kShading},
    {"256", TerminalColours::k256},
    {"truecolor", TerminalColours::kTrueColour}};

struct TerminalStyle {
  TerminalColours colours = TerminalColours::kPlain;
  int width = 80;  // columns: no line drawn is wider
};

// What a heatmap's cells show (show --values): the weights; the scores softmax read
// (--dump-scores), signed, on the diverging scale up to the map's largest magnitude; weight x
// norm, ||a_ij v_j W_O|| (--dump-norms), on the sequential scale up to the map's largest; or
// the logit lens (--logit-lens), each decoder layer's most likely next piece at each position;
// or one attribution method's map (--attribute METHOD), one grid per sentence: saliency on the
// sequential scale up to the map's largest, the signed methods on the diverging scale up to its
// largest magnitude (terminal_attribution.cpp).
enum class HeatmapValues {
  kWeights,
  kScores,
  kNorms,
  kLens,
  kSaliency,
  kInputXGradient,
  kIntegratedGradients,
  kOcclusion
};
inline constexpr EnumName<HeatmapValues> kHeatmapValueNames[] = {
    {"weights", HeatmapValues::kWeights},
    {"scores", HeatmapValues::kScores},
    {"norms", HeatmapValues::kNorms},
    {"lens", HeatmapValues::kLens},
    {"saliency", HeatmapValues::kSaliency},
    {"input_x_gradient", HeatmapValues::kInputXGradient},
    {"integrated_gradients", HeatmapValues::kIntegratedGradients},
    {"occlusion", HeatmapValues::kOcclusion}};

// Whether `values` names an attribution method (its name is the method's, as the dump keeps it).
inline bool is_attribution(HeatmapValues values) {
  return values == HeatmapValues::kSaliency || values == HeatmapValues::kInputXGradient ||
         values == HeatmapValues::kIntegratedGradients || values == HeatmapValues::kOcclusion;
}

// Which heatmap of a sentence: an attention type, a layer and a head or the average.
struct HeatmapChoice {
  std::string type = "cross";
  // A layer's number; a negative one counts from the model's last layer (-1 the last), as on
  // every command, whichever layers the dump holds. Unset: the deepest layer in the dump.
  std::optional<int> layer;
  std::optional<int> head;  // unset: the average over the heads that are not masked
  HeatmapValues values = HeatmapValues::kWeights;
};

// "TYPE[:LAYER[:HEAD]]" (translate --show): TYPE encoder, decoder or cross; LAYER a number
// (negative from the end); HEAD a number or "avg". Throws Error saying what is wrong.
HeatmapChoice parse_heatmap_choice(const std::string& spec);

// One sentence's heatmap, as lines ending in '\n': a title (type, layer, head, sentence), the
// source and translation, the column labels written downwards, one line per query (its piece
// on the left; for the decoder's steps, the piece predicted and its probability on the right),
// then the legend. Columns that do not fit style.width go to further blocks under it, each
// line whole. Throws Error when the sentence lacks the type, layer or head chosen.
std::string draw_heatmap(const DumpSentence& sentence, const HeatmapChoice& choice,
                         const TerminalStyle& style);

// The same heatmap of two runs of the same sentence, B - A per cell on the diverging scale
// (red: B lower, blue: B higher), scaled to the largest change shown. `a_name` and `b_name`
// name the runs in the title and legend. The sentences must have the same tokens
// (compare_dumps checks it).
std::string draw_heatmap_difference(const DumpSentence& a, const DumpSentence& b,
                                    const HeatmapChoice& choice, const TerminalStyle& style,
                                    const std::string& a_name, const std::string& b_name);

}  // namespace minimt
