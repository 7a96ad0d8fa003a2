#include "peak.h"

#include <cstdio>

#if defined(__x86_64__)
#include <immintrin.h>
#include <time.h>

#include <algorithm>
#include <vector>

namespace {

double thread_seconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

constexpr int kChains = 12;  // independent accumulators: more than latency x throughput
constexpr long kIterations = 20'000'000;

__attribute__((target("avx512f,avx512bw,avx512vnni"), noinline)) double vnni_seconds_for(
    long iterations) {
  __m512i acc[kChains];
  for (int c = 0; c < kChains; ++c) acc[c] = _mm512_set1_epi32(c);
  const __m512i a = _mm512_set1_epi8(3), b = _mm512_set1_epi8(-2);
  const double start = thread_seconds();
  for (long i = 0; i < iterations; ++i)
    for (int c = 0; c < kChains; ++c) acc[c] = _mm512_dpbusd_epi32(acc[c], a, b);
  const double elapsed = thread_seconds() - start;
  volatile int sink = 0;
  for (int c = 0; c < kChains; ++c) sink = sink + _mm512_reduce_add_epi32(acc[c]);
  return elapsed;
}

double vnni_seconds() {
  return vnni_seconds_for(kIterations);
}

__attribute__((target("avx512f"), noinline)) double fma_seconds() {
  __m512 acc[kChains];
  for (int c = 0; c < kChains; ++c) acc[c] = _mm512_set1_ps(static_cast<float>(c));
  const __m512 a = _mm512_set1_ps(0.999f), b = _mm512_set1_ps(1e-7f);
  const double start = thread_seconds();
  for (long i = 0; i < kIterations; ++i)
    for (int c = 0; c < kChains; ++c) acc[c] = _mm512_fmadd_ps(acc[c], a, b);
  const double elapsed = thread_seconds() - start;
  volatile float sink = 0;
  for (int c = 0; c < kChains; ++c) sink = sink + _mm512_reduce_add_ps(acc[c]);
  return elapsed;
}

double median_of(int runs, double (*run)()) {
  std::vector<double> times;
  for (int i = 0; i < runs; ++i) times.push_back(run());
  std::sort(times.begin(), times.end());
  return times[runs / 2];
}

double median_of_5(double (*run)()) {
  return median_of(5, run);
}

}  // namespace
#endif

int bench_peak() {
#if !defined(__x86_64__)
  std::fprintf(stderr, "minimt_bench peak: x86-64 only\n");
  return 1;
#else
  __builtin_cpu_init();
  if (!__builtin_cpu_supports("avx512vnni") || !__builtin_cpu_supports("avx512bw")) {
    std::fprintf(stderr, "minimt_bench peak: this CPU has no AVX512-VNNI\n");
    return 1;
  }
  const double instructions = static_cast<double>(kIterations) * kChains;
  std::printf("{\"vnni_int8_gops\": %.1f, \"fma_float_gflops\": %.1f}\n",
              instructions * 128 / median_of_5(vnni_seconds) / 1e9,
              instructions * 32 / median_of_5(fma_seconds) / 1e9);
  return 0;
#endif
}

double vnni_peak_gops() {
#if !defined(__x86_64__)
  return 0.0;
#else
  __builtin_cpu_init();
  if (!__builtin_cpu_supports("avx512vnni") || !__builtin_cpu_supports("avx512bw")) return 0.0;
  constexpr long kShort = kIterations / 4;
  const double seconds = median_of(3, [] { return vnni_seconds_for(kShort); });
  return static_cast<double>(kShort) * kChains * 128 / seconds / 1e9;
#endif
}
