// A test-only driver of the engine's attribution (minimt/engine/attribution.h), until the
// command line has --attribute: reads one JSON request on stdin, writes the results as JSON on
// stdout (NaN as null). tests/pytorch/compare_attribution.py runs it.
//
//   {"model": DIR, "compute_type": "float32" (optional), "methods": ["saliency", ...],
//    "ig_steps": 32, "ig_rule": "gauss_legendre", "ablate": [["cross", 0, 1], ...],
//    "sentences": [{"source": [ids], "decoder_input": [ids], "output": [ids]}, ...]}
//   -> {"sentences": [{"log_probs": [T], "METHOD": {"source": [T][S], "target": [T][T],
//                      "completeness_gap": [T]}, ...}, ...]}
// With "engine": true, each sentence's "engine_log_probs" [T] too: the engine's own
// teacher-forced pass (encoder, decoder, the model's compute type), one sentence at a time.
#include <cmath>
#include <iostream>
#include <nlohmann/json.hpp>

#include "minimt/engine/attribution.h"
#include "minimt/engine/decoder.h"
#include "minimt/engine/encoder.h"
#include "minimt/engine/ops.h"
#include "minimt/model/model.h"

using namespace minimt;
using nlohmann::json;

namespace {

json number(float x) {
  return std::isnan(x) ? json(nullptr) : json(x);
}

json matrix(const std::vector<float>& values, int rows, int cols) {
  json out = json::array();
  for (int r = 0; r < rows; ++r) {
    json row = json::array();
    for (int c = 0; c < cols; ++c) row.push_back(number(values[r * cols + c]));
    out.push_back(row);
  }
  return out;
}

}  // namespace

int main() {
  try {
    const json request = json::parse(std::cin);
    LoadOptions options;
    if (request.contains("compute_type"))
      options.compute_type = parse_compute_type(request["compute_type"].get<std::string>());
    const auto model = Model::load(request["model"].get<std::string>(), options);
    const ModelConfig& c = model->config();
    HeadMask mask(c.encoder_layers, c.decoder_layers, c.num_heads);
    for (const json& head : request.value("ablate", json::array())) {
      AttentionKind kind{};
      if (!enum_value(kAttentionKindNames, head[0].get<std::string>(), kind))
        throw std::runtime_error("unknown attention kind");
      mask.mask(kind, head[1].get<int>(), head[2].get<int>());
    }
    const Attributor attributor(c, model->weights());
    AttributionRequest base;
    for (const json& name : request["methods"]) {
      AttributionMethod method{};
      if (!enum_value(kAttributionMethodNames, name.get<std::string>(), method))
        throw std::runtime_error("unknown method " + name.get<std::string>());
      base.methods.push_back(method);
    }
    base.ig_steps = request.value("ig_steps", 32);
    if (!enum_value(kIgRuleNames, request.value("ig_rule", std::string("gauss_legendre")),
                    base.ig_rule))
      throw std::runtime_error("unknown ig_rule");
    base.head_mask = mask.empty() ? nullptr : &mask;
    json out = {{"sentences", json::array()}};
    for (const json& sentence : request["sentences"]) {
      AttributionRequest r = base;
      r.source = sentence["source"].get<std::vector<int>>();
      r.decoder_input = sentence["decoder_input"].get<std::vector<int>>();
      r.output = sentence["output"].get<std::vector<int>>();
      const AttributionResult result = attributor.attribute(r);
      const int S = result.source_length, T = result.target_length;
      json record = {{"log_probs", json::array()}};
      for (float f : result.log_probs) record["log_probs"].push_back(number(f));
      if (request.value("engine", false)) {
        Encoder encoder(c, model->weights());
        Decoder decoder(c, model->weights());
        encoder.set_head_mask(base.head_mask);
        decoder.set_head_mask(base.head_mask);
        std::vector<DecoderState> states = decoder.start(encoder.forward({r.source}));
        const std::vector<float>& logits = decoder.run({r.decoder_input}, {&states[0]});
        json engine = json::array();
        for (int t = 0; t < T; ++t) {
          const float* row = logits.data() + static_cast<size_t>(t) * c.target_vocab_size;
          engine.push_back(row[r.output[t]] - ops::log_sum_exp(row, c.target_vocab_size));
        }
        record["engine_log_probs"] = engine;
      }
      for (const auto& [name, method] : kAttributionMethodNames) {
        const AttributionMap& map = result[method];
        if (!map.present) continue;
        json entry = {{"source", matrix(map.source, T, S)}, {"target", matrix(map.target, T, T)}};
        if (!map.completeness_gap.empty())
          entry["completeness_gap"] = matrix(map.completeness_gap, 1, T)[0];
        record[name] = entry;
      }
      out["sentences"].push_back(record);
    }
    std::cout << out.dump() << "\n";
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "attribution_driver: " << e.what() << "\n";
    return 1;
  }
}
