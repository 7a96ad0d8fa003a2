#include "engine/backward/gradient_pass.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "engine/backward/stacks.h"
#include "minimt/engine/backward_ops.h"
#include "minimt/engine/ops.h"

namespace minimt::backward {
namespace {

float embedding_scale(const Architecture& c) {
  return c.scale_embeddings ? std::sqrt(static_cast<float>(c.d_model)) : 1.0f;
}

// x [V*N, d] = (alpha_v e_i) * scale + P[i + offset] (+ the embedding norm), as layers.h's
// embed() and the stacks' embedding norm: `rows` e [N, d] (or null: the rows of `table` by id),
// `positions` the position table or null (sinusoidal on the fly).
void embed_variants(const Architecture& c, const float* table, const float* rows,
                    const float* positions, const std::vector<int>& ids,
                    const std::vector<double>& alphas, const LayerNormWeights* norm, float* x,
                    NormTape& tape) {
  const int d = c.d_model, n = static_cast<int>(ids.size());
  const float scale = embedding_scale(c);
  const int zero_row_token = c.positions == Positions::kSinusoidalSplit ? c.special.pad : -1;
  std::vector<float> position_rows(static_cast<size_t>(n) * d, 0.0f);  // [N, d]
  for (int i = 0; i < n; ++i) {
    float* row = position_rows.data() + static_cast<size_t>(i) * d;
    const int position = i + c.position_offset;
    if (c.positions == Positions::kNone || ids[i] == zero_row_token) continue;
    if (positions)
      std::copy_n(positions + static_cast<size_t>(position) * d, d, row);
    else if (c.positions == Positions::kSinusoidalSplit)
      ops::add_sinusoidal_split_position(position, d, row);
    else
      ops::add_sinusoidal_position(position, d, row);
  }
  for (size_t v = 0; v < alphas.size(); ++v) {
    const auto alpha = static_cast<float>(alphas[v]);
    for (int i = 0; i < n; ++i) {
      const float* token =
          rows ? rows + static_cast<size_t>(i) * d : table + static_cast<size_t>(ids[i]) * d;
      const float* position = position_rows.data() + static_cast<size_t>(i) * d;
      float* row = x + (v * n + i) * static_cast<size_t>(d);
      for (int k = 0; k < d; ++k) row[k] = (alpha * token[k]) * scale + position[k];
    }
  }
  if (norm) norm_forward(c, *norm, x, static_cast<int64_t>(alphas.size()) * n, tape);
}

// The gradient with respect to the embedded rows dx [V*B*N, d] into the gradient with respect
// to the looked-up rows, in place.
void embed_backward(const Architecture& c, const LayerNormWeights* norm, const NormTape& tape,
                    const GradShape& shape, float* dx) {
  if (norm) norm_backward(c, *norm, tape, shape, dx);
  ops::scale_in_place(dx, embedding_scale(c), shape.gradient_rows() * c.d_model);
}

struct Workspace {
  Scratch scratch;
  NormTape source_embedding, target_embedding;
  StackTape encoder, decoder;
  std::vector<float> dy, dm;
};

// The seeds' blocks [first, last) for T output rows: a block costs its gradient rows, (last -
// first) * last per variant, and a fixed kBlockRows more (its calls, each head's small products),
// the fewest in all (dynamic programming over the last block's start). The kernels run
// near their peak from a few rows on, so a block's fixed cost is small.
constexpr int kBlockRows = 4;

std::vector<std::pair<int, int>> seed_blocks(int T) {
  std::vector<int64_t> cost(T + 1, 0);
  std::vector<int> start(T + 1, 0);
  for (int last = 1; last <= T; ++last) {
    cost[last] = -1;
    for (int first = 0; first < last; ++first) {
      const int64_t c = cost[first] + static_cast<int64_t>(last - first) * last + kBlockRows;
      if (cost[last] < 0 || c < cost[last]) cost[last] = c, start[last] = first;
    }
  }
  std::vector<std::pair<int, int>> blocks;
  for (int last = T; last > 0; last = start[last])
    blocks.insert(blocks.begin(), {start[last], last});
  return blocks;
}

}  // namespace

GradientPass gradient_pass(const DenseModel& m, const HeadMask* mask, const SentenceIds& ids,
                           const std::vector<double>& alphas, bool backward) {
  const Architecture& c = m.config();
  const ModelWeights& w = m.weights();
  const int d = c.d_model, vocab = c.target_vocab_size, V = static_cast<int>(alphas.size());
  const int S = static_cast<int>(ids.source->size()), T = static_cast<int>(ids.output->size());
  // The tapes and buffers, kept from one pass to the next on this thread: growing them again
  // for every sentence (the pages, the zeros) costs more than the elementwise work.
  thread_local Workspace work;
  Scratch& z = work.scratch;
  // The encoder, [V*S, d]
  NormTape& source_embedding = work.source_embedding;
  NormTape& target_embedding = work.target_embedding;
  StackTape& encoder = work.encoder;
  StackTape& decoder = work.decoder;
  std::vector<float> memory(static_cast<size_t>(V) * S * d);
  const LayerNormWeights* source_norm = c.embedding_norm ? &w.encoder_embedding_norm : nullptr;
  const LayerNormWeights* target_norm = c.embedding_norm ? &w.decoder_embedding_norm : nullptr;
  embed_variants(c, w.source_embeddings, ids.source_rows, w.source_positions, *ids.source, alphas,
                 source_norm, memory.data(), source_embedding);
  encoder_forward(m, mask, V, S, memory.data(), encoder, z);
  // The decoder, [V*T, d], then the logits [V*T, vocab]
  std::vector<float> y(static_cast<size_t>(V) * T * d);
  embed_variants(c, w.target_embeddings, ids.target_rows, w.target_positions, *ids.decoder_input,
                 alphas, target_norm, y.data(), target_embedding);
  decoder_forward(m, mask, V, T, memory.data(), S, y.data(), decoder, z);
  if (c.output_scale != 1.0f)
    ops::scale_in_place(y.data(), c.output_scale, static_cast<int64_t>(V) * T * d);
  std::vector<float> logits(static_cast<size_t>(V) * T * vocab);
  dense_forward(m.output(), y.data(), static_cast<int64_t>(V) * T, logits.data());

  GradientPass pass;
  pass.log_probs.resize(static_cast<size_t>(V) * T);
  std::vector<float> dlogits(logits.size());  // [V*T, vocab]: df_t/dlogits at row t
  for (int v = 0; v < V; ++v)
    for (int t = 0; t < T; ++t) {
      const size_t row = static_cast<size_t>(v) * T + t;
      float* dl = dlogits.data() + row * vocab;
      const int target = (*ids.output)[t];
      if (t == 0 && c.forced_first_token >= 0) {
        // decoder.cpp's forced first token: a constant log-probability, no gradient
        std::fill(dl, dl + vocab, 0.0f);
        pass.log_probs[row] =
            target == c.forced_first_token ? 0.0f : -std::numeric_limits<float>::infinity();
        continue;
      }
      pass.log_probs[row] = log_softmax_target(logits.data() + row * vocab, vocab, target, dl);
    }
  if (!backward) return pass;

  // Seeds: df_t/dy at decoder row t only. Nothing reaches a decoder row after t, so the seeds
  // go through the decoder in blocks [first, last) over its first `last` rows.
  std::vector<float> dh(static_cast<size_t>(V) * T * d);
  dense_backward(m.output(), dlogits.data(), static_cast<int64_t>(V) * T, dh.data(), false, z.sum);
  const GradShape source_shape{V, T, S};
  std::vector<float> dmemory(static_cast<size_t>(source_shape.gradient_rows()) * d);
  pass.target_grad.assign(static_cast<size_t>(V) * T * T * d, 0.0f);
  std::vector<float>& dy = work.dy;
  std::vector<float>& dm = work.dm;
  for (const auto& [first, last] : seed_blocks(T)) {
    const int B = last - first;
    const GradShape block{V, B, last, T};
    dy.assign(static_cast<size_t>(block.gradient_rows()) * d, 0.0f);  // [V][B][last][d]
    dm.assign(static_cast<size_t>(V) * B * S * d, 0.0f);              // [V][B][S][d]
    for (int v = 0; v < V; ++v)
      for (int b = 0; b < B; ++b) {
        const float* from = dh.data() + (static_cast<size_t>(v) * T + first + b) * d;
        float* to = dy.data() + ((static_cast<size_t>(v) * B + b) * last + first + b) * d;
        for (int k = 0; k < d; ++k) to[k] = from[k] * c.output_scale;
      }
    decoder_backward(m, decoder, block, dy.data(), dm.data(), z);
    embed_backward(c, target_norm, target_embedding, block, dy.data());
    for (int v = 0; v < V; ++v)
      for (int b = 0; b < B; ++b) {
        const size_t seed = static_cast<size_t>(v) * B + b,
                     t = static_cast<size_t>(v) * T + first + b;
        std::copy_n(dy.data() + seed * last * d, static_cast<size_t>(last) * d,
                    pass.target_grad.data() + t * T * d);
        std::copy_n(dm.data() + seed * S * d, static_cast<size_t>(S) * d,
                    dmemory.data() + t * S * d);
      }
  }
  encoder_backward(m, encoder, source_shape, dmemory.data(), z);
  embed_backward(c, source_norm, source_embedding, source_shape, dmemory.data());
  pass.source_grad = std::move(dmemory);
  return pass;
}

}  // namespace minimt::backward
