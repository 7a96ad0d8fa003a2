// Single-core peaks of the multiply instructions minimt's kernels use, from registers only
// (no memory): the ceiling a kernel's products/s can be held against.
#pragma once

// Prints {"vnni_int8_gops": ..., "fma_float_gflops": ...}; int8 ops count a multiply and an add
// per byte product (vpdpbusd on 512 bits: 64 products, 128 ops), float ops likewise (vfmadd on
// 512 bits: 16 products, 32 ops). Returns the exit status.
int bench_peak();

// The vpdpbusd peak alone, in G int8 ops/s (median of 3 shorter runs than bench_peak's), or 0
// where the CPU has no AVX512-VNNI: `minimt_bench steps` holds an int8 step against it.
double vnni_peak_gops();
