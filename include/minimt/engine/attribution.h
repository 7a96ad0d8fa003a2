// Attribution: which input tokens moved each output token (issue 39; the definitions are in
// docs/model-format.md, "Attributions"). For one sentence, teacher-forced: source ids x (S),
// decoder input ids (T: the start token, then the outputs but the last) and output ids y (T),
// f_t = log p(y_t | x, y_<t). The inputs are the embedding rows as looked up (e_i for source
// token i, d_j for decoder input j), before the embedding scale, the positions and an embedding
// norm.
//
//   saliency              ||df_t/de_i||_2
//   input_x_gradient      e_i . df_t/de_i
//   integrated_gradients  e_i . sum_k w_k df_t/de_i at every source and decoder input row times
//                         alpha_k (baseline: all rows 0, positions unchanged); Gauss-Legendre
//                         nodes on [0, 1] or riemann_right (alpha_k = k/m, w_k = 1/m); with the
//                         completeness gap sum(attributions) - (f_t(rows) - f_t(zero rows))
//   occlusion             f_t - f_t with that one token replaced by unk (the length unchanged)
//
// The gradients come from minimt's own backward pass (engine/backward/), in float32 whatever
// the compute type: on each Linear layer's float32 weight where the engine still holds it, else
// on its packed copy dequantized (an int8 file, or an F16/BF16 file loaded for int8 or bf16
// compute: the weights that compute the translation), batched: the T output
// rows (and the m steps of integrated gradients) go through each product of the backward
// together. Occlusion runs the engine's own forward (the model's compute type), so its f_t are
// the token log-probabilities minimt reports. Ablated heads stay ablated in every pass.
#pragma once

#include <array>
#include <memory>
#include <vector>

#include "minimt/base/enum_names.h"
#include "minimt/engine/architecture.h"
#include "minimt/engine/head_mask.h"
#include "minimt/engine/weights.h"

namespace minimt {

enum class AttributionMethod { kSaliency, kInputXGradient, kIntegratedGradients, kOcclusion };
inline constexpr int kAttributionMethods = 4;
inline constexpr EnumName<AttributionMethod> kAttributionMethodNames[] = {
    {"saliency", AttributionMethod::kSaliency},
    {"input_x_gradient", AttributionMethod::kInputXGradient},
    {"integrated_gradients", AttributionMethod::kIntegratedGradients},
    {"occlusion", AttributionMethod::kOcclusion}};

enum class IgRule { kGaussLegendre, kRiemannRight };
inline constexpr EnumName<IgRule> kIgRuleNames[] = {{"gauss_legendre", IgRule::kGaussLegendre},
                                                    {"riemann_right", IgRule::kRiemannRight}};

struct AttributionRequest {
  std::vector<int> source;         // S ids, as the encoder reads them (suffix/eos included)
  std::vector<int> decoder_input;  // T ids
  std::vector<int> output;         // T ids
  std::vector<AttributionMethod> methods;
  int ig_steps = 32;  // m, at least 1
  IgRule ig_rule = IgRule::kGaussLegendre;
  const HeadMask* head_mask = nullptr;  // not owned; null: none
};

// One method's numbers. NaN marks the entries that do not exist (j > t in target).
struct AttributionMap {
  bool present = false;
  std::vector<float> source;            // [T][S]
  std::vector<float> target;            // [T][T], NaN for j > t
  std::vector<float> completeness_gap;  // [T], integrated gradients only
};

struct AttributionResult {
  int source_length = 0, target_length = 0;  // S, T
  // f_t of the float32 forward the gradients differentiate (within float rounding of the
  // engine's token log-probabilities in float32).
  std::vector<float> log_probs;                          // [T]
  std::array<AttributionMap, kAttributionMethods> maps;  // indexed by AttributionMethod
  const AttributionMap& operator[](AttributionMethod m) const { return maps[static_cast<int>(m)]; }
};

// The m nodes alpha_k in (0, 1] and weights w_k of an integration rule (sum w_k = 1).
void integration_rule(IgRule rule, int steps, std::vector<double>& alphas,
                      std::vector<double>& weights);

namespace backward {
class DenseModel;
}

// Made once per loaded model: on minimt's kernels it packs each Linear weight transposed for the
// backward (4 bytes per weight), and for int8 or bf16 compute the float32 weight as well (4 more);
// under MINIMT_KERNELS=openblas it adds nothing. config and weights must outlive it.
// attribute() may then run on several threads at once.
class Attributor {
 public:
  Attributor(const Architecture& config, const ModelWeights& weights);
  ~Attributor();
  Attributor(const Attributor&) = delete;
  Attributor& operator=(const Attributor&) = delete;

  // Throws Error for ids outside the vocabularies, lengths that differ or pass max_positions.
  AttributionResult attribute(const AttributionRequest& request) const;

 private:
  const Architecture& config_;
  const ModelWeights& weights_;
  std::unique_ptr<backward::DenseModel> dense_;
};

}  // namespace minimt
