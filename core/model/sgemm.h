// core/model/sgemm.h — the float32 products behind every build of core/model/ops.h: oneDNN's sgemm
// (Debian: libdnnl-dev), one call per column block of C on one thread, the blocks shared out by
// core::parallel. Plain pointers only, as ops.h.
//
// Chosen by bench/bench_products.cpp at the forward's shapes (GPT-2 small at t = 1, 32, 128, 1024
// and a Llama-1B-sized layer at t = 128) on a Sapphire-Rapids-class Xeon against Eigen's GEMM,
// BLIS 0.9.0 (serial) and OpenBLAS 0.3.21: oneDNN picks its AVX-512 kernels at run time whatever
// -march this file has, and was the fastest at every shape with m > 1. An AVX-512 kernel of our own
// for up to 32 rows that skips the packing was slower at every forward shape (bench/RESULTS.md).
#pragma once

#include "core/model/ops.h"

namespace core::model::ops {

// C (+)= A · B as ops::Gemm says; with `parallel`, column blocks of C on core::parallel's threads.
// The blocks depend on the shape alone, so the bits do not depend on the number of threads.
void sgemm(const Gemm& g, bool parallel);

} // namespace core::model::ops
