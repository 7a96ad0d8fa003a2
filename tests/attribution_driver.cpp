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
//
// Timing the engine alone, as docs/performance-history.md ("What attribution costs") did before
// `minimt score --attribute` existed, on one thread:
//   minimt_attribution_driver --bench MODEL PAIRS.tsv METHODS [IG_STEPS [BATCH]]
// scores the SOURCE<TAB>TARGET lines BATCH at a time (default 16) as minimt score does, then
// attributes each pair with METHODS (comma-separated, or none); prints the sum of the
// log-probabilities and of every finite attribution.
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "minimt/base/text_input.h"
#include "minimt/engine/attribution.h"
#include "minimt/engine/decoder.h"
#include "minimt/engine/encoder.h"
#include "minimt/engine/ops.h"
#include "minimt/engine/teacher_forcing.h"
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

std::vector<AttributionMethod> methods_of(const std::string& list) {
  std::vector<AttributionMethod> out;
  std::stringstream names(list);
  for (std::string name; std::getline(names, name, ',');) {
    AttributionMethod method{};
    if (name == "none") continue;
    if (!enum_value(kAttributionMethodNames, name, method))
      throw std::runtime_error("unknown method " + name);
    out.push_back(method);
  }
  return out;
}

int bench(int argc, char** argv) {
  const auto model = Model::load(argv[2]);
  const ModelConfig& c = model->config();
  const Attributor attributor(c, model->weights());
  AttributionRequest base;
  base.methods = methods_of(argv[4]);
  base.ig_steps = argc > 5 ? std::stoi(argv[5]) : 32;
  const size_t batch = argc > 6 ? std::stoul(argv[6]) : 16;
  std::vector<AttributionRequest> pairs;
  std::ifstream in(argv[3]);
  for (std::string line; std::getline(in, line);) {
    const size_t tab = line.find('\t');
    AttributionRequest r = base;
    r.source = c.source_prefix;
    for (int id : model->source_tokenizer().encode(normalize_input(line.substr(0, tab))))
      r.source.push_back(id);
    r.source.insert(r.source.end(), c.source_suffix.begin(), c.source_suffix.end());
    if (c.forced_first_token >= 0) r.output.push_back(c.forced_first_token);
    for (int id : model->target_tokenizer().encode(normalize_input(line.substr(tab + 1))))
      r.output.push_back(id);
    r.output.push_back(c.special.eos);
    r.decoder_input = {c.decoder_start_token};
    r.decoder_input.insert(r.decoder_input.end(), r.output.begin(), r.output.end() - 1);
    pairs.push_back(std::move(r));
  }
  Encoder encoder(c, model->weights());
  Decoder decoder(c, model->weights());
  double log_probs = 0.0, attributions = 0.0;
  for (size_t first = 0; first < pairs.size(); first += batch) {
    const size_t last = std::min(pairs.size(), first + batch);
    std::vector<std::vector<int>> sources;
    std::vector<const std::vector<int>*> outputs;
    for (size_t i = first; i < last; ++i) {
      sources.push_back(pairs[i].source);
      outputs.push_back(&pairs[i].output);
    }
    std::vector<DecoderState> states = decoder.start(encoder.forward(sources));
    std::vector<DecoderState*> pointers;
    for (DecoderState& state : states) pointers.push_back(&state);
    for (const ForcedOutput& scored :
         teacher_force(decoder, pointers, outputs, c.decoder_start_token, 0, c.target_vocab_size))
      for (float f : scored.log_probs) log_probs += f;
    for (size_t i = first; i < last; ++i) {
      if (base.methods.empty()) continue;
      const AttributionResult result = attributor.attribute(pairs[i]);
      for (const AttributionMap& map : result.maps)
        for (const std::vector<float>* values : {&map.source, &map.target, &map.completeness_gap})
          for (float x : *values)
            if (std::isfinite(x)) attributions += x;
    }
  }
  std::printf("%zu pairs, log-probabilities %.6f, attributions %.6f\n", pairs.size(), log_probs,
              attributions);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    if (argc >= 5 && std::string(argv[1]) == "--bench") return bench(argc, argv);
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
    for (const json& name : request["methods"])
      for (AttributionMethod method : methods_of(name.get<std::string>()))
        base.methods.push_back(method);
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
