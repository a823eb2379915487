// core/kernels.h — the hot loops of compute_into, built once per instruction set, picked at run time.
//
// Eigen picks its SIMD width when it is compiled, so to use AVX2 or AVX-512 where the CPU has them
// without requiring them, core/kernels_impl.h is compiled several times (kernels_generic.cpp,
// kernels_x86_64_v3.cpp, kernels_x86_64_v4.cpp), each with its own -march and with Eigen's
// namespace renamed, so that no inline function of one build can stand in for another's. This
// header is the only way in: plain pointers, no Eigen types.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace core::kernels {

using Index = std::ptrdiff_t;

// One head's attention from its Q, K and V; every matrix row-major and contiguous, all sized by the caller.
struct AttendArgs {
    const double* Q;     // (n, d_k)
    const double* K;     // (n, d_k)
    const double* V;     // (n, d_v)
    Index n, d_k, d_v;
    double factor;       // 1/√d_k, 1 or the scenario's factor
    double softcap;      // > 0: scaled scores become softcap · tanh(x / softcap); 0: off
    bool causal;
    Index window;        // > 0: query i sees keys j with |i − j| < window; 0: every key
    double* scores;      // (n, n)  Q Kᵀ, every entry
    double* scaled;      // (n, n)  scores · factor, soft-capped, −∞ where masked
    double* weights;     // (n, n)  softmax of each row of `scaled`, exactly 0 where masked
    double* output;      // (n, d_v) weights V
};

struct Set {
    const char* name; // "generic", "x86-64-v3" (AVX2 + FMA), "x86-64-v4" (AVX-512)
    // C = A B with A (m, k), B (k, p), C (m, p), all row-major and contiguous.
    // With `parallel`, row blocks are shared out by core::parallel::for_each.
    void (*matmul)(const double* A, const double* B, double* C, Index m, Index k, Index p, bool parallel);
    // Scores, scaled scores, weights and output, a block of query rows at a time so that each
    // block's rows are still in cache when they are scaled, exponentiated and multiplied by V.
    void (*attend)(const AttendArgs& args, bool parallel);
};

// The builds; x86_64_v3() and x86_64_v4() exist only in x86-64 builds (ATTNVIZ_X86_KERNELS), and
// only a CPU with those instruction sets may call their functions (core/attention.cpp checks).
const Set* generic();
const Set* x86_64_v3();
const Set* x86_64_v4();

// The build compute_into uses now (core::kernel_build() names it); for benchmarks.
const Set& active();

} // namespace core::kernels

namespace core {

// The kernel level everything runs on: compute_into's loops, the model's products (core/model/ops.h,
// oneDNN's on x86-64-v4 alone), the fast products, the weight-row kernels and the dequantizers. The
// best this CPU runs, "x86-64-v4" (AVX-512), "x86-64-v3" (AVX2 + FMA) or "generic", picked on first
// use; the environment variable ATTNVIZ_KERNELS names one to use instead (ignored when this CPU
// lacks it: kernel_request_problem() says so, and the program refuses to start).
std::string kernel_build();
// Empty, or the one line that says why ATTNVIZ_KERNELS cannot be honoured: not a level, or one this
// CPU cannot run (naming what it lacks and the levels it can run).
std::string kernel_request_problem();
// kernel_build() without building a string, for the loops that ask on every call (the dequantizers).
enum class KernelLevel { generic, x86_64_v3, x86_64_v4 };
KernelLevel kernel_level();
// The builds this binary has and this CPU can run, best first; "generic" is always there.
std::vector<std::string> kernel_builds();
// Switches compute_into to one of kernel_builds() (for tests and benchmarks); false if it is not one.
bool use_kernel_build(const std::string& name);

} // namespace core
