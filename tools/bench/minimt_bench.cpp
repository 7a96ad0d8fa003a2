// minimt_bench: measures this machine's limits and minimt's decoder against them.
//   minimt_bench sgemm [SIZE]                     single-thread sgemm GFLOP/s (SIZE^3)
//   minimt_bench bandwidth                        single-thread memory read GB/s
//   minimt_bench steps MODEL_DIR BATCH STEPS [TYPE]
//                                                 decoder steps/s at a batch size, compute type
//                                                 TYPE (float32, int8, bf16; $MINIMT_KERNELS picks
//                                                 the kernel, as for minimt); for int8 also
//                                                 the vpdpbusd peak measured right after, the
//                                                 step's share of it (products over the whole
//                                                 step) and the products' own share
//   minimt_bench linear KERNEL M N K [cold]       one Linear layer y[M,N] = x[M,K] W^T + b,
//                                                 GFLOP/s of a kernel (avx512, avx2, generic,
//                                                 openblas, int8-vnni, int8-avx2, int8-generic,
//                                                 bf16); weights in cache, or with `cold` read
//                                                 from memory (a new copy each call, as in a
//                                                 decoder step)
//   minimt_bench peak                             single-core peak of vpdpbusd (int8 products/s)
//                                                 and of vfmadd (float32), registers only
//   minimt_bench work MODEL_DIR FILE BATCH [TYPE] [BEAM] [MAX_LENGTH]
//                                                 translates FILE's lines BATCH at a time as
//                                                 `minimt translate` does, and prints the products'
//                                                 operations, their time and the rest's (thread
//                                                 CPU), and for int8 each against the vpdpbusd peak
// Each prints one JSON object on stdout; tools/bench/run collects them into a table. Timings are
// medians of several repeats.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <memory>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include "cli/blas_setup.h"
#include "cli/memory_setup.h"
#include "minimt/app/translate/translator.h"
#include "minimt/engine/bf16_gemm.h"
#include "minimt/engine/blas_runtime.h"
#include "minimt/engine/decoder.h"
#include "minimt/engine/encoder.h"
#include "minimt/engine/int8_gemm.h"
#include "minimt/engine/ops.h"
#include "minimt/engine/packed_gemm.h"
#include "minimt/engine/weights.h"
#include "minimt/model/model.h"
#include "peak.h"

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// CPU time of this thread: on a busy machine it shows what the work costs, wall time does not.
double thread_cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

int bench_sgemm(int n) {
  std::vector<float> a(static_cast<size_t>(n) * n, 0.5f), b(a.size(), 0.25f), c(a.size());
  std::vector<double> rates;
  for (int repeat = 0; repeat < 7; ++repeat) {
    auto start = Clock::now();
    minimt::ops::gemm(n, n, n, 1.0f, a.data(), n, b.data(), n, true, 0.0f, c.data(), n);
    rates.push_back(2.0 * n * n * n / seconds_since(start) / 1e9);
  }
  std::printf("{\"sgemm_size\": %d, \"sgemm_gflops\": %.2f, \"blas_core\": \"%s\"}\n", n,
              median(rates), minimt::blas_core_name().c_str());
  return 0;
}

int bench_bandwidth() {
  // 512 MiB, far larger than any cache: each pass reads it all from memory.
  const size_t count = (512ull << 20) / sizeof(float);
  std::vector<float> data(count, 1.0f);
  std::vector<double> rates;
  volatile float sink = 0.0f;
  for (int repeat = 0; repeat < 5; ++repeat) {
    auto start = Clock::now();
    float sums[16] = {};
    for (size_t i = 0; i < count; i += 16)
      for (int j = 0; j < 16; ++j) sums[j] += data[i + j];
    double elapsed = seconds_since(start);
    sink = sink + std::accumulate(sums, sums + 16, 0.0f);
    rates.push_back(count * sizeof(float) / elapsed / 1e9);
  }
  std::printf("{\"read_bandwidth_gbs\": %.2f}\n", median(rates));
  return 0;
}

// Bytes of weights one decoder step reads: every decoder layer but the cross-attention keys
// and values (projected once per sentence), the output projection, and the final norms.
double decoder_step_weight_bytes(const minimt::ModelConfig& c, minimt::ComputeType type) {
  const double d = c.d_model, w = c.attention_width(), ff = c.d_ff;
  double self_attention = 3 * (w * d + w) + (d * w + d);
  double cross_attention = (w * d + w) + (d * w + d);  // q and out only
  double ffn = (ff * d + ff) + (d * ff + d);
  double norms = 3 * 2 * d;
  double per_layer = self_attention + cross_attention + ffn + norms;
  double output = static_cast<double>(c.target_vocab_size) * d;
  // Linear weights take 1 byte in int8 and 2 in bf16; biases and norms stay float.
  const double weight_bytes = type == minimt::ComputeType::kInt8   ? 1.0
                              : type == minimt::ComputeType::kBf16 ? 2.0
                                                                   : 4.0;
  const double matrices =
      (4 * w * d + 2 * w * d + 2 * ff * d) * c.decoder_layers + static_cast<double>(output);
  return weight_bytes * matrices + 4.0 * (per_layer * c.decoder_layers + output - matrices);
}

minimt::LoadOptions load_options(const std::string& compute_type) {
  minimt::LoadOptions options;
  const char* kernel = std::getenv("MINIMT_KERNELS");
  options.kernel = minimt::choose_linear_kernel(kernel ? kernel : "");
  options.compute_type = minimt::parse_compute_type(compute_type);
  options.int8_kernel = minimt::int8_kernel_matching(options.kernel);
  return options;
}

// The layer's weight packed for `kernel_name`: a float kernel, int8-vnni, int8-avx2,
// int8-generic or bf16 ("openblas" packs nothing).
struct BenchLayer {
  std::unique_ptr<minimt::PackedArena> arena;
  std::unique_ptr<minimt::PackedMatrix> packed;
  std::unique_ptr<minimt::Int8Matrix> int8;
  std::unique_ptr<minimt::Bf16Matrix> bf16;
};

void pack_for(const std::string& kernel_name, minimt::Linear& layer, BenchLayer& out) {
  const int n = layer.out, k = layer.in;
  auto arena = [&](size_t bytes) {
    out.arena = std::make_unique<minimt::PackedArena>(bytes / sizeof(float) + 1);
    return reinterpret_cast<uint8_t*>(out.arena->data());
  };
  for (minimt::Int8Kernel kernel :
       {minimt::Int8Kernel::kAvx512Vnni, minimt::Int8Kernel::kAvx2, minimt::Int8Kernel::kGeneric})
    if (kernel_name == "int8-" + (kernel == minimt::Int8Kernel::kAvx512Vnni
                                      ? std::string("vnni")
                                      : minimt::to_string(kernel))) {
      out.int8 = std::make_unique<minimt::Int8Matrix>(minimt::Int8Matrix::from_float(
          layer.weight, n, k, arena(minimt::Int8Matrix::bytes_needed(n, k)), kernel));
      layer.int8 = out.int8.get();
      return;
    }
  if (kernel_name == "bf16") {
    out.bf16 = std::make_unique<minimt::Bf16Matrix>(layer.weight, n, k,
                                                    arena(minimt::Bf16Matrix::bytes_needed(n, k)));
    layer.bf16 = out.bf16.get();
    return;
  }
  const minimt::LinearKernel kernel = minimt::parse_linear_kernel(kernel_name);
  if (kernel == minimt::LinearKernel::kOpenblas) return;
  out.arena = std::make_unique<minimt::PackedArena>(minimt::PackedMatrix::floats_needed(n, k));
  out.packed =
      std::make_unique<minimt::PackedMatrix>(layer.weight, n, k, out.arena->data(), kernel);
  layer.packed = out.packed.get();
}

int bench_linear(const std::string& kernel_name, int m, int n, int k, bool cold) {
  std::vector<float> weight(static_cast<size_t>(n) * k), x(static_cast<size_t>(m) * k),
      bias(n, 0.5f), y(static_cast<size_t>(m) * n);
  for (size_t i = 0; i < weight.size(); ++i) weight[i] = static_cast<float>(i % 17) * 0.01f - 0.08f;
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i % 13) * 0.02f - 0.12f;
  // Cold: enough packed copies of the layer (256 MB of weights in float32, a quarter of that in
  // int8) that each call finds its copy in memory, not in any cache.
  const int copies =
      cold ? std::max(2, static_cast<int>((256u << 20) / (sizeof(float) * weight.size()))) : 1;
  std::vector<minimt::Linear> layers(copies);
  std::vector<BenchLayer> packed(copies);
  for (int c = 0; c < copies; ++c) {
    layers[c].weight = weight.data();
    layers[c].bias = bias.data();
    layers[c].out = n;
    layers[c].in = k;
    pack_for(kernel_name, layers[c], packed[c]);
  }
  // Enough calls for ~0.2 s per repeat. Warm, the weight stays in cache, as in a decoder step's
  // panel loop: this measures the kernel, not memory.
  const double flops = 2.0 * m * n * k;
  const int calls = std::max(1, static_cast<int>(4e9 / flops / 20));
  std::vector<double> rates;
  int next = 0;
  for (int repeat = 0; repeat < 7; ++repeat) {
    const double start = thread_cpu_seconds();
    for (int c = 0; c < calls; ++c) {
      minimt::ops::linear(layers[next], x.data(), m, y.data());
      next = (next + 1) % copies;
    }
    rates.push_back(flops * calls / (thread_cpu_seconds() - start) / 1e9);
  }
  std::printf(
      "{\"kernel\": \"%s\", \"m\": %d, \"n\": %d, \"k\": %d, \"cold\": %s, \"gflops\": %.2f, "
      "\"blas_core\": \"%s\"}\n",
      kernel_name.c_str(), m, n, k, cold ? "true" : "false", median(rates),
      minimt::blas_core_name().c_str());
  return 0;
}

int bench_steps(const std::string& dir, int batch, int steps, const std::string& compute_type) {
  auto model = minimt::Model::load(dir, load_options(compute_type));
  const minimt::ModelConfig& c = model->config();
  if (steps + 1 > c.max_positions) steps = c.max_positions - 1;
  // A 12-token source per sentence; each step feeds a fixed token so no sentence stops.
  std::vector<std::vector<int>> sources(batch);
  for (int b = 0; b < batch; ++b) {
    for (int i = 0; i < 11; ++i) sources[b].push_back(4 + (b + i) % (c.source_vocab_size - 4));
    sources[b].push_back(c.special.eos);
  }
  std::vector<double> rates, cpu_rates, flops, product_rates;
  minimt::ops::time_linear(true);
  for (int repeat = 0; repeat < 5; ++repeat) {
    minimt::Encoder encoder(c, model->weights());
    minimt::Decoder decoder(c, model->weights());
    auto encoded = encoder.forward(sources);
    auto states = decoder.start(encoded);
    std::vector<minimt::DecoderState*> pointers;
    for (auto& state : states) pointers.push_back(&state);
    std::vector<int> tokens(batch, c.decoder_start_token);
    uint64_t flops_before = minimt::ops::gemm_flops();
    const uint64_t linear_before = minimt::ops::linear_nanoseconds();
    auto start = Clock::now();
    double cpu_start = thread_cpu_seconds();
    for (int step = 0; step < steps; ++step) {
      const std::vector<float>& logits = decoder.step(tokens, pointers);
      for (int b = 0; b < batch; ++b)
        tokens[b] = minimt::ops::argmax(
            logits.data() + static_cast<size_t>(b) * c.target_vocab_size, c.target_vocab_size);
    }
    double elapsed = seconds_since(start);
    rates.push_back(steps / elapsed);
    cpu_rates.push_back(steps / (thread_cpu_seconds() - cpu_start));
    flops.push_back(static_cast<double>(minimt::ops::gemm_flops() - flops_before) / steps);
    product_rates.push_back(static_cast<double>(minimt::ops::gemm_flops() - flops_before) /
                            static_cast<double>(minimt::ops::linear_nanoseconds() - linear_before));
  }
  double steps_per_second = median(rates);
  // The products' own rate inside the step (the thread CPU time of the linear() calls alone), and
  // for int8 that and the rate over the whole step (thread CPU time) against the vpdpbusd peak,
  // measured on the same core right after.
  const double product_gops = median(product_rates);
  char text[256];
  std::snprintf(text, sizeof text, "\"products_gops\": %.1f, ", product_gops);
  std::string share = text;
  if (model->compute_type() == minimt::ComputeType::kInt8) {
    const double peak = vnni_peak_gops();
    if (peak > 0) {
      const double gops = median(flops) * median(cpu_rates) / 1e9;
      std::snprintf(text, sizeof text,
                    "\"int8_gops\": %.1f, \"vnni_peak_gops\": %.1f, \"share_of_vnni_peak\": %.3f, "
                    "\"products_share_of_vnni_peak\": %.3f, ",
                    gops, peak, gops / peak, product_gops / peak);
      share += text;
    }
  }
  std::printf(
      "{\"batch\": %d, \"steps\": %d, \"steps_per_second\": %.2f, \"ms_per_step\": %.3f, "
      "\"cpu_steps_per_second\": %.2f, "
      "\"gemm_flops_per_step\": %.0f, \"weight_bytes_per_step\": %.0f, %s\"compute_type\": "
      "\"%s\", \"blas_core\": \"%s\"}\n",
      batch, steps, steps_per_second, 1000.0 / steps_per_second, median(cpu_rates), median(flops),
      decoder_step_weight_bytes(c, model->compute_type()), share.c_str(), compute_type.c_str(),
      minimt::blas_core_name().c_str());
  return 0;
}

// One pass over a file's lines, as `minimt translate -i FILE --threads 1 --batch-size BATCH`
// runs them (the load not counted): what the run's products cost against everything else.
int bench_work(const std::string& dir, const std::string& path, int batch,
               const std::string& compute_type, int beam, int max_length) {
  if (batch < 1 || beam < 1) throw std::runtime_error("BATCH and BEAM must be at least 1");
  std::ifstream file(path);
  if (!file) throw std::runtime_error("cannot read " + path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(file, line);) lines.push_back(line);
  const minimt::Translator translator(minimt::Model::load(dir, load_options(compute_type)));
  minimt::TranslateOptions options;
  options.beam_size = beam;
  if (max_length > 0) options.max_length = max_length;
  minimt::ops::time_linear(true);
  const uint64_t flops_before = minimt::ops::gemm_flops();
  const uint64_t linear_before = minimt::ops::linear_nanoseconds();
  const double cpu_start = thread_cpu_seconds();
  size_t failed = 0;
  for (size_t first = 0; first < lines.size(); first += batch) {
    const std::vector<std::string> part(lines.begin() + first,
                                        lines.begin() + std::min(lines.size(), first + batch));
    for (const auto& t : translator.translate(part, options)) failed += !t.ok();
  }
  const double cpu = thread_cpu_seconds() - cpu_start;
  const double ops = static_cast<double>(minimt::ops::gemm_flops() - flops_before);
  const double products = (minimt::ops::linear_nanoseconds() - linear_before) * 1e-9;
  std::string share;
  const double peak =
      translator.model().compute_type() == minimt::ComputeType::kInt8 ? vnni_peak_gops() : 0.0;
  if (peak > 0) {
    char text[256];
    std::snprintf(text, sizeof text,
                  "\"vnni_peak_gops\": %.1f, \"share_of_vnni_peak\": %.4f, "
                  "\"products_share_of_vnni_peak\": %.4f, ",
                  peak, ops / cpu / 1e9 / peak, ops / products / 1e9 / peak);
    share = text;
  }
  std::printf(
      "{\"lines\": %zu, \"failed\": %zu, \"batch\": %d, \"beam\": %d, \"gemm_ops\": %.0f, "
      "\"cpu_seconds\": %.6f, \"products_seconds\": %.6f, \"rest_seconds\": %.6f, "
      "\"products_gops\": %.1f, %s\"compute_type\": \"%s\"}\n",
      lines.size(), failed, batch, beam, ops, cpu, products, cpu - products, ops / products / 1e9,
      share.c_str(), compute_type.c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  minimt::cli::prepare_blas_environment();
  minimt::cli::keep_freed_memory();
  std::string command = argc > 1 ? argv[1] : "";
  try {
    if (command == "sgemm") return bench_sgemm(argc > 2 ? std::atoi(argv[2]) : 512);
    if (command == "bandwidth") return bench_bandwidth();
    if (command == "linear" && (argc == 6 || (argc == 7 && std::string(argv[6]) == "cold")))
      return bench_linear(argv[2], std::atoi(argv[3]), std::atoi(argv[4]), std::atoi(argv[5]),
                          argc == 7);
    if (command == "steps" && (argc == 5 || argc == 6))
      return bench_steps(argv[2], std::atoi(argv[3]), std::atoi(argv[4]),
                         argc == 6 ? argv[5] : "float32");
    if (command == "peak") return bench_peak();
    if (command == "work" && argc >= 5 && argc <= 8)
      return bench_work(argv[2], argv[3], std::atoi(argv[4]), argc > 5 ? argv[5] : "float32",
                        argc > 6 ? std::atoi(argv[6]) : 1, argc > 7 ? std::atoi(argv[7]) : 0);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "minimt_bench: %s\n", e.what());
    return 1;
  }
  std::fprintf(
      stderr,
      "usage: minimt_bench sgemm [SIZE] | bandwidth | steps MODEL_DIR BATCH STEPS [TYPE] | linear "
      "KERNEL M N K [cold] | peak | work MODEL_DIR FILE BATCH [TYPE] [BEAM] [MAX_LENGTH]\n");
  return 2;
}
