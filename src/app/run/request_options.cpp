// The table of request options (request_options.h).
#include "minimt/app/run/request_options.h"

namespace minimt {
namespace {

int integer(const OptionValue& value) {
  return static_cast<int>(std::get<long long>(value));
}
double number(const OptionValue& value) {
  return std::get<double>(value);
}
bool boolean(const OptionValue& value) {
  return std::get<bool>(value);
}
const std::string& text(const OptionValue& value) {
  return std::get<std::string>(value);
}
std::vector<int> integers(const OptionValue& value) {
  const auto& items = std::get<std::vector<long long>>(value);
  return std::vector<int>(items.begin(), items.end());
}
const std::vector<std::string>& texts(const OptionValue& value) {
  return std::get<std::vector<std::string>>(value);
}

constexpr unsigned kLines = kForTranslate | kForScore;

std::vector<RequestOption> make_options() {
  using T = OptionType;
  return {
      {"compute_type", "", T::kText, kLines, R"({"compute_type": "int8"})",
       "the loaded copy of the model to run: float32, int8 or bf16",
       [](Request& r, const OptionValue& v) { r.compute_type = text(v); }},
      {"beam_size", "", T::kInteger, kForTranslate, R"({"beam_size": 4})",
       "hypotheses kept at each step (1: greedy search)",
       [](Request& r, const OptionValue& v) { r.search.beam_size = integer(v); }},
      {"n_best", "", T::kInteger, kForTranslate, R"({"beam_size": 4, "n_best": 2})",
       "the K best hypotheses of the beam, best first (K <= beam_size)",
       [](Request& r, const OptionValue& v) { r.search.n_best = integer(v); }},
      {"length_penalty", "", T::kNumber, kForTranslate, R"({"beam_size": 4, "length_penalty": 1})",
       "rank finished hypotheses by score / length^A",
       [](Request& r, const OptionValue& v) {
         r.search.length_penalty = static_cast<float>(number(v));
       }},
      {"prefix", "", T::kText, kForTranslate, R"({"prefix": "Le"})",
       "force every translation to start with TEXT, then go on",
       [](Request& r, const OptionValue& v) { r.search.prefix = text(v); }},
      {"max_length", "", T::kInteger, kForTranslate, R"({"max_length": 4})",
       "most tokens to generate per sentence, eos included",
       [](Request& r, const OptionValue& v) { r.search.max_length = integer(v); }},
      {"alternatives", "", T::kInteger, kForTranslate, R"({"alternatives": 3})",
       "the K most likely tokens and their probabilities at every output position",
       [](Request& r, const OptionValue& v) { r.record.alternatives = integer(v); }},
      {"sample", "", T::kBoolean, kForTranslate, R"({"sample": true, "seed": 7})",
       "draw each token at random from the model's distribution instead of searching",
       [](Request& r, const OptionValue& v) { r.search.sample = boolean(v); }},
      {"temperature", "", T::kNumber, kForTranslate,
       R"({"sample": true, "seed": 7, "temperature": 0.5})", "with sample: divide the logits by T",
       [](Request& r, const OptionValue& v) {
         r.search.temperature = static_cast<float>(number(v));
       }},
      {"top_k", "", T::kInteger, kForTranslate, R"({"sample": true, "seed": 7, "top_k": 5})",
       "with sample: draw among the K most likely tokens only (0: all)",
       [](Request& r, const OptionValue& v) { r.search.top_k = integer(v); }},
      {"top_p", "", T::kNumber, kForTranslate, R"({"sample": true, "seed": 7, "top_p": 0.9})",
       "with sample: draw among the fewest most likely tokens whose probability reaches P",
       [](Request& r, const OptionValue& v) { r.search.top_p = static_cast<float>(number(v)); }},
      {"seed", "", T::kUnsigned, kForTranslate, R"({"sample": true, "seed": 7})",
       "with sample: the seed (line L draws from its own generator seeded by it and L)",
       [](Request& r, const OptionValue& v) { r.search.seed = std::get<uint64_t>(v); }},
      {"no_repeat_ngram_size", "", T::kInteger, kForTranslate, R"({"no_repeat_ngram_size": 2})",
       "no N-gram twice in a translation (0: no rule)",
       [](Request& r, const OptionValue& v) { r.search.no_repeat_ngram_size = integer(v); }},
      {"repetition_penalty", "", T::kNumber, kForTranslate, R"({"repetition_penalty": 1.5})",
       "a token already in the translation: its score / P (* P if negative)",
       [](Request& r, const OptionValue& v) {
         r.search.repetition_penalty = static_cast<float>(number(v));
       }},
      {"task", "", T::kText, kForTranslate, R"({"task": "translate_en_to_de"})",
       "a task of the model (T5's task_specific_params): its prefix and settings",
       [](Request& r, const OptionValue& v) { r.search.task = text(v); }},
      {"ablate_heads", "mask_heads", T::kText, kLines, R"({"ablate_heads": "cross:-1:0"})",
       "ablate heads, TYPE:LAYER:HEAD,...: their weights set to 0 after the softmax",
       [](Request& r, const OptionValue& v) { r.record.mask_heads = text(v); }},
      {"align", "", T::kBoolean, kLines, R"({"align": true})",
       "each record's word alignment, from cross-attention",
       [](Request& r, const OptionValue& v) { r.record.align = boolean(v); }},
      {"align_layer", "", T::kInteger, kLines, R"({"align": true, "align_layer": 0})",
       "the decoder layer the alignment reads (negative from the end)",
       [](Request& r, const OptionValue& v) { r.record.align_layer = integer(v); }},
      {"align_heads", "", T::kIntegerList, kLines, R"({"align": true, "align_heads": [0, 2]})",
       "the heads whose cross-attention the alignment averages",
       [](Request& r, const OptionValue& v) { r.record.align_heads = integers(v); }},
      {"align_rule", "", T::kText, kLines, R"({"align": true, "align_rule": "intersection"})",
       "union, best-source, best-target, intersection or grow-diag-final",
       [](Request& r, const OptionValue& v) { r.record.align_rule = text(v); }},
      {"dump_types", "", T::kTextList, kForAttention, R"({"dump_types": ["cross"]})",
       "attention types in the dump: any of encoder, decoder, cross",
       [](Request& r, const OptionValue& v) { r.record.dump_types = texts(v); }},
      {"dump_layers", "", T::kIntegerList, kForAttention, R"({"dump_layers": [0, -1]})",
       "layers in the dump (negative counts from the end)",
       [](Request& r, const OptionValue& v) { r.record.dump_layers = integers(v); }},
      {"dump_heads", "", T::kIntegerList, kForAttention, R"({"dump_heads": [1, 3]})",
       "heads in the dump (numbered from 0)",
       [](Request& r, const OptionValue& v) { r.record.dump_heads = integers(v); }},
      {"rollout", "", T::kBoolean, kForAttention, R"({"rollout": true})",
       "attention rollout (encoder_rollout, cross_rollout)",
       [](Request& r, const OptionValue& v) { r.record.rollout = boolean(v); }},
      {"dump_scores", "", T::kBoolean, kForAttention, R"({"dump_scores": true})",
       "each type's scores, the softmax's input",
       [](Request& r, const OptionValue& v) { r.record.dump_scores = boolean(v); }},
      {"dump_vectors", "", T::kBoolean, kForAttention, R"({"dump_vectors": true})",
       "each head's query, key and value vectors",
       [](Request& r, const OptionValue& v) { r.record.dump_vectors = boolean(v); }},
      {"dump_norms", "", T::kBoolean, kForAttention, R"({"dump_norms": true})",
       "||a_ij v_j W_O^h|| and each head's whole contribution",
       [](Request& r, const OptionValue& v) { r.record.dump_norms = boolean(v); }},
      {"logit_lens", "", T::kInteger, kForAttention, R"({"logit_lens": 3})",
       "the K most likely tokens had the output layer read each decoder layer's output",
       [](Request& r, const OptionValue& v) { r.record.logit_lens = integer(v); }},
      {"view", "", T::kBoolean, kForAttention, R"({"view": true})",
       "the attention page instead of the dump",
       [](Request& r, const OptionValue& v) { r.record.view = boolean(v); }},
  };
}

}  // namespace

const std::vector<RequestOption>& request_options() {
  static const std::vector<RequestOption> options = make_options();
  return options;
}

const RequestOption* find_request_option(const std::string& name, OptionUse use) {
  for (const RequestOption& option : request_options()) {
    const bool applies =
        (option.uses & use) != 0 || (use == kForAttention && (option.uses & kForTranslate) != 0);
    if (applies && (option.name == name || (!option.alias.empty() && option.alias == name)))
      return &option;
  }
  return nullptr;
}

const char* option_type_name(OptionType type) {
  switch (type) {
    case OptionType::kInteger:
      return "integer";
    case OptionType::kUnsigned:
      return "unsigned integer";
    case OptionType::kNumber:
      return "number";
    case OptionType::kBoolean:
      return "boolean";
    case OptionType::kText:
      return "string";
    case OptionType::kIntegerList:
      return "list of integers";
    case OptionType::kTextList:
      return "list of strings";
  }
  return "?";
}

}  // namespace minimt
