// A sentence's attention as numpy arrays (sentence_arrays.h).
#include "python/sentence_arrays.h"

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <cstring>

#include "minimt/app/record/dump_schema.h"

namespace py = pybind11;

namespace minimt::python {
namespace {

// A float32 array of `shape` holding a copy of `values` (row-major, as the dump's nesting).
py::array_t<float> float_array(const std::vector<float>& values, std::vector<py::ssize_t> shape) {
  py::array_t<float> array(shape);
  if (!values.empty())
    std::memcpy(array.mutable_data(), values.data(), values.size() * sizeof(float));
  return array;
}

bool ends_with(const std::string& text, const char* suffix) {
  const size_t n = std::strlen(suffix);
  return text.size() >= n && text.compare(text.size() - n, n, suffix) == 0;
}

// [layer, head, rows, cols]; a head norm, one number per row: [layer, head, rows].
py::array_t<float> matrices_array(const AttentionMatrices& m) {
  const auto layers = static_cast<py::ssize_t>(m.layers());
  const auto heads = static_cast<py::ssize_t>(m.heads.size());
  const py::ssize_t cols = std::max(m.cols, 0);  // -1: a width never seen (no layer)
  if (ends_with(m.type, dump_schema::kHeadNormsSuffix))
    return float_array(m.values, {layers, heads, m.rows});
  return float_array(m.values, {layers, heads, m.rows, cols});
}

std::string attention_key(const AttentionMatrices& m) {
  const dump_schema::AttentionType* type = dump_schema::find_attention_type(m.type);
  return type ? type->key : m.type;
}

std::vector<int> layer_numbers(const AttentionMatrices& m) {
  std::vector<int> numbers;
  for (const std::string& label : m.layer_labels) numbers.push_back(std::stoi(label));
  return numbers;
}

}  // namespace

py::dict sentence_arrays(const DumpSentence& s) {
  py::dict arrays;
  for (const AttentionMatrices& m : s.attention)
    arrays[py::str(attention_key(m))] = matrices_array(m);
  for (const AttentionMatrices& m : s.extras) arrays[py::str(m.type)] = matrices_array(m);
  if (s.encoder_rollout.present)
    arrays[dump_schema::kEncoderRollout] =
        float_array(s.encoder_rollout.values, {s.encoder_rollout.rows, s.encoder_rollout.cols});
  if (s.cross_rollout.present)
    arrays[dump_schema::kCrossRollout] =
        float_array(s.cross_rollout.values, {s.cross_rollout.rows, s.cross_rollout.cols});
  return arrays;
}

py::dict sentence_labels(const DumpSentence& s) {
  py::dict labels;
  labels["source_tokens"] = s.source_tokens;
  labels["decoder_input_tokens"] = s.decoder_input_tokens;
  labels["output_tokens"] = s.output_tokens;
  labels["given_tokens"] = s.given_tokens;
  py::dict layers, heads, masked;
  for (const auto* group : {&s.attention, &s.extras})
    for (const AttentionMatrices& m : *group) {
      const std::string key = attention_key(m);
      layers[py::str(key)] = layer_numbers(m);
      heads[py::str(key)] = m.heads;
      if (!m.masked.empty()) {
        py::array_t<bool> flags(
            {static_cast<py::ssize_t>(m.layers()), static_cast<py::ssize_t>(m.heads.size())});
        for (size_t i = 0; i < m.masked.size(); ++i) flags.mutable_data()[i] = m.masked[i] != 0;
        masked[py::str(key)] = flags;
      }
    }
  labels["layers"] = layers;
  labels["heads"] = heads;
  labels["masked"] = masked;
  if (!s.layer_predictions.empty()) {
    labels["decoder_layer_predictions"] = s.layer_predictions;
    std::vector<int> lens_layers;
    for (const std::string& label : s.lens_layer_labels) lens_layers.push_back(std::stoi(label));
    labels["lens_layers"] = lens_layers;
  }
  if (!s.alternatives.empty()) labels["alternatives"] = s.alternatives;
  if (!s.attributions.empty()) {
    // {method: {"source": [T, S], "target": [T, T] (NaN for j > t), "completeness_gap": [T]}}
    const auto S = static_cast<py::ssize_t>(s.source_tokens.size());
    const auto T = static_cast<py::ssize_t>(s.output_tokens.size());
    py::dict methods;
    for (const DumpAttribution& a : s.attributions) {
      py::dict maps;
      maps["source"] = float_array(a.source, {T, S});
      maps["target"] = float_array(a.target, {T, T});
      if (!a.rule.empty()) {
        maps["completeness_gap"] = float_array(a.completeness_gap, {T});
        maps["steps"] = a.steps;
        maps["rule"] = a.rule;
      }
      methods[py::str(a.method)] = maps;
    }
    labels["attributions"] = methods;
  }
  return labels;
}

}  // namespace minimt::python
