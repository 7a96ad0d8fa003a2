// MINIMT_FMA_CLONES before a portable kernel that calls std::fma: on x86-64 the compiler makes
// two copies of it, one using the FMA instruction (picked when the program loads, where the CPU
// has FMA) and one calling the C library's fma (a CPU without it). Both round each fma once, so
// they give the same bits; without the clone, a CPU with FMA would pay a library call per
// product in the portable kernel (the tests run it on every command: it was a third of their
// minimt time).
#pragma once

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define MINIMT_FMA_CLONES __attribute__((target_clones("fma", "default")))
#else
#define MINIMT_FMA_CLONES
#endif

// MINIMT_WIDE_CLONES before an element-by-element loop (an add, a scale, a ReLU: each element
// rounded alone, so the width changes no bit): copies for AVX-512 and AVX2 beside the baseline's
// SSE2, picked when the program loads.
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define MINIMT_WIDE_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define MINIMT_WIDE_CLONES
#endif
