// Request: one run of minimt translate or minimt score as plain data: what to translate, how to
// search, what to record and how to write it. A front end fills it (the CLI from its flags; a
// server from JSON whose fields are named like the long flags: beam_size, n_best, ...), then
// check_request and plan_request (request_plan.h) validate it and derive the run's options,
// each once, and run_request (request_run.h) runs it. The lines themselves come from a
// LineSource (batch_runner.h), not from the request.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "minimt/base/enum_names.h"
#include "minimt/base/error.h"

namespace minimt {

// What a line is: a source to translate, or SOURCE<TAB>TARGET to score (teacher forcing).
enum class RequestKind { kTranslate, kScore };

// The records: text (a translation, or a score, per line) or JSON Lines (output_record.h).
enum class OutputFormat { kText, kJsonl };
inline constexpr EnumName<OutputFormat> kOutputFormatNames[] = {{"text", OutputFormat::kText},
                                                                {"jsonl", OutputFormat::kJsonl}};

// How to search (translate only: score feeds the given target).
struct SearchSettings {
  int max_length = 256;         // output tokens, eos included; capped at max_positions
  int beam_size = 1;            // 1: greedy search (or sampling)
  std::optional<int> n_best;    // set: every record lists this many hypotheses, best first
  float length_penalty = 0.0f;  // rank finished hypotheses by score / length^length_penalty
  std::string prefix;           // forced start of every translation (target text)
  bool prefix_column = false;   // lines are SOURCE<TAB>PREFIX: a line's own start wins
  bool sample = false;          // draw each token instead of searching
  float temperature = 1.0f;
  int top_k = 0;                    // 0: every token
  float top_p = 1.0f;               // 1: no cut
  std::optional<uint64_t> seed;     // sampling; unset: complete_seed draws one
  int no_repeat_ngram_size = 0;     // > 0: no n-gram of this size twice in an output
  float repetition_penalty = 1.0f;  // tokens already there: scores / it (or * it if negative)
  std::string task;                 // a task of the model's (T5's prefixes); "": none
};

// What to record besides the translation.
struct RecordSettings {
  bool dump_attention = false;          // the attention as a dump, streamed (dump_schema.h)
  bool view = false;                    // the attention as a page, rendered at the end
  std::vector<std::string> dump_types;  // of the dump and page: encoder, decoder, cross; empty: all
  std::vector<int> dump_layers;         // negative counts from the end; empty: all
  std::vector<int> dump_heads;          // empty: all
  bool rollout = false;                 // attention rollout in the dump and page
  bool dump_scores = false;             // the softmax's input beside each type's weights
  bool dump_vectors = false;            // each head's queries, keys and values
  bool dump_norms = false;              // ||a_ij v_j W_O^h|| and each head's whole contribution
  int logit_lens = 0;                   // > 0: that many tokens per decoder layer and position
  bool align = false;                   // each record gets its word alignment
  int align_layer = -1;                 // the decoder layer it reads; negative from the end
  std::vector<int> align_heads;         // the heads it averages; empty: all
  std::string align_rule;               // alignment.h's names; empty: the default rule
  int alternatives = 0;                 // the K most likely tokens at each output position
  std::optional<std::string> mask_heads;  // TYPE:LAYER:HEAD,... (head_mask_spec.h); set: masked
  // TYPE[:LAYER[:HEAD]] (terminal_heatmap.h): each line's heatmap, drawn for a terminal and
  // handed to RecordSink::picture; unset: none.
  std::optional<std::string> show;
  // Attribution (engine/attribution.h) of each output token, teacher-forced on the output: the
  // methods' names, or "all"; empty: none. ig_steps and ig_rule: integrated gradients' m and
  // rule (kIgRuleNames).
  std::vector<std::string> attribute;
  int ig_steps = 32;
  std::string ig_rule = "gauss_legendre";
};

struct Request {
  RequestKind kind = RequestKind::kTranslate;
  // Which model: the front end loads it (where models live is its business, the CLI reads
  // --model and the environment); compute_type is float32, int8, bf16 or "" (the file's).
  std::string model;
  std::string compute_type;
  SearchSettings search;
  RecordSettings record;
  OutputFormat format = OutputFormat::kText;
  int threads = 0;         // worker threads; 0: one per core
  int batch_size = 16;     // consecutive lines per batch, a thread's unit of work
  bool fail_fast = false;  // stop after the first line that fails
  // How the user named record.mask_heads ("--mask-heads", "ablate_heads"...), so that a message
  // about it repeats the name they typed; "": the front end's main name.
  std::string mask_heads_named;
};

// The values the fields may take: the ranges of the options' table (request_options.h) and
// the checks of combinations read them.
namespace request_limits {
inline constexpr int kMaxLength = 1 << 20;
inline constexpr int kMaxBeamSize = 256;                // also the most n_best
inline constexpr float kMaxLengthPenalty = 10.0f;       // and -10
inline constexpr int kMaxNgram = 1024;                  // no_repeat_ngram_size
inline constexpr float kMaxRepetitionPenalty = 100.0f;  // above 0
inline constexpr float kMinTemperature = 1e-3f, kMaxTemperature = 1e3f;
inline constexpr int kMaxTopK = 1 << 20;
inline constexpr float kMinTopP = 1e-6f;
inline constexpr int kMaxAlternatives = 1000;  // also the most logit_lens
inline constexpr int kMaxThreads = 1024;
inline constexpr int kMaxBatchSize = 65536;
inline constexpr int kMaxIgSteps = 1024;               // integrated gradients' steps (a pass each)
inline constexpr long long kMaxLinesPerRound = 65536;  // threads times batch_size
inline constexpr long long kMaxBeamsPerBatch = 65536;  // batch_size times beam_size
}  // namespace request_limits

// How messages name a field: as the CLI's option (--beam-size) or as a JSON field (beam_size).
enum class FieldSpelling { kOption, kJson };
std::string field_name(const std::string& field, FieldSpelling spelling);

// A request that cannot run as given; field() is the field at fault, as Request names it
// ("beam_size", "mask_heads"), and the message names it as the front end spells it.
class RequestError : public Error {
 public:
  RequestError(std::string field, const std::string& message)
      : Error(message), field_(std::move(field)) {}
  const std::string& field() const { return field_; }

 private:
  std::string field_;
};

// Everything that can be checked without the model: each value as its option in the table of
// request options says (request_options.h: its range, its items, its text), the combinations
// that cannot run (n_best above beam_size, sampling with a beam, rollout with nothing to add
// it to, too many lines or hypotheses at once). Throws RequestError.
// (rollout, dump_scores, dump_vectors, dump_norms and logit_lens add to a dump or a page.)
void check_request(const Request& request, FieldSpelling spelling = FieldSpelling::kOption);

// A sampling request without a seed gets a fresh random one; true when it did, so that the
// front end can tell the user (a run they liked can then be repeated).
bool complete_seed(Request& request);

// The worker threads a request runs: its own number, or one per core this process may use.
int request_threads(const Request& request);

}  // namespace minimt
