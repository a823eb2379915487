// core/model/weight_product.cpp — weight panels dequantized into a thread-local buffer, then the
// float32 kernel; or one row's dot products over 16-bit weight rows.
#include "core/model/weight_product.h"

#include "core/model/fast_product.h"
#include "core/kernels.h"
#include "core/model/format/blocks.h"
#include "core/model/weight_rows.h"
#include "core/parallel.h"

#include <algorithm>
#include <vector>

namespace core::model {

namespace {

using ops::Index;

Index stored_rows(const Weights::Tensor& W) { return W.shape().empty() ? 1 : W.shape()[0]; }
Index depth(const WeightProduct& p) { return p.layout == Layout::out_in ? p.W->row_values() : stored_rows(*p.W); }
Index width(const WeightProduct& p) { return p.layout == Layout::out_in ? stored_rows(*p.W) : p.W->row_values(); }

// The product of columns c0 … c1−1 with float32 weights w (the whole matrix, as stored).
ops::Gemm gemm_of(const WeightProduct& p, const float* w, Index c0, Index c1) {
    const bool transposed = p.layout == Layout::out_in;
    const Index k = depth(p), ld = transposed ? k : width(p);
    return {p.x, p.ldx, transposed ? w + c0 * ld : w + c0, ld, transposed, p.y, p.ldy, p.m, k, c1 - c0, p.accumulate};
}

// One panel: columns c0 … c1−1 dequantized into `panel`, then the float32 kernel on it.
void panel_product(const WeightProduct& p, Index c0, Index c1) {
    thread_local std::vector<float> panel;
    const Index k = depth(p), cols = c1 - c0;
    panel.resize(static_cast<std::size_t>(k * cols));
    if (p.layout == Layout::out_in) p.W->rows(c0, cols, panel.data()); // (cols, k)
    else p.W->columns(0, k, c0, cols, panel.data());                  // (k, cols)
    const bool transposed = p.layout == Layout::out_in;
    ops::active().gemm({p.x, p.ldx, panel.data(), transposed ? k : cols, transposed, p.y, p.ldy, p.m, k, cols, p.accumulate}, false);
}

// Blocks of `width` output columns shared out between the cores, each as product_columns takes it.
struct ColumnBlocks {
    const WeightProduct* p;
    Index n, width;
    static void one(void* context, std::ptrdiff_t i) {
        const auto& c = *static_cast<ColumnBlocks*>(context);
        const Index c0 = i * c.width;
        WeightProduct part = *c.p;
        part.y += c0;
        product_columns(part, c0, std::min(c.n, c0 + c.width));
    }
};

// One row of x times 16-bit weights stored (out, in): each output a dot product over its weight row
// as it lies, widened in registers, instead of a panel widened into memory and read again. (Block
// weights at any row count take ops::Set::block_product, whose rows have the same bits at any m.)
bool by_rows(const WeightProduct& p) {
    return p.m == 1 && p.layout == Layout::out_in && (p.W->type() == WeightType::bf16 || p.W->type() == WeightType::f16);
}

// Outputs c0 … c1−1 of a by_rows product, y pointing at c0's.
void row_dots(const WeightProduct& p, Index c0, Index c1) {
    const Index k = depth(p);
    for (Index j = c0; j < c1; ++j) {
        const float d = dot_row(p.W->type(), p.W->stored_row(j), p.x, k);
        float& out = p.y[j - c0];
        out = p.accumulate ? out + d : d;
    }
}

thread_local bool fast_scope = false;

bool wants_fast(const WeightProduct& p) { return p.fast || fast_scope; }

// Two or more rows of x times weights stored (out, in), where the AVX-512 build runs.
bool row_kernel_takes(const WeightProduct& p) {
#if defined(ATTNVIZ_X86_KERNELS)
    return p.m >= 2 && depth(p) > 0 && p.ldx < (Index{1} << 26) && p.layout == Layout::out_in && core::kernel_build() == "x86-64-v4";
#else
    (void)p;
    return false;
#endif
}

// The fast products' bf16 on weight_rows's kernel: F32, F16 or BF16 weights where the CPU has
// AVX512-BF16 without AMX's tiles. fast::product's kernel packs every weight into a panel first: on
// AMD's Zen 4 it ran 32 rows of a Llama-1B-sized MLP at 138–148 GFLOP/s, this one at 230–300.
bool fast_rows(const WeightProduct& p) {
    const WeightType t = p.W->type();
    return wants_fast(p) && (t == WeightType::f32 || t == WeightType::f16 || t == WeightType::bf16) && fast::bf16_available() &&
           !fast::tiles_available() && row_kernel_takes(p);
}

// F16 or BF16 weights: weight_rows's kernel widens each weight as it multiplies (float32 in place
// stays on oneDNN's; ggml's blocks go by_blocks).
bool by_weight_rows(const WeightProduct& p) { return (p.W->type() == WeightType::f16 || p.W->type() == WeightType::bf16) && row_kernel_takes(p); }

// ggml's blocks (always stored (out, in)), any number of rows, at every level: dequantized a block
// at a time into L1 for the dot products of ops::Set::block_product.
bool by_blocks(const WeightProduct& p) { return p.layout == Layout::out_in && block_shape(p.W->type()).values > 1 && depth(p) > 0; }

void read_rows(const void* tensor, Index j, Index count, Index k0, Index kc, float* dst, Index ld) {
    const auto& W = *static_cast<const Weights::Tensor*>(tensor);
    for (Index r = 0; r < count; ++r) W.row_into(j + r, k0, kc, dst + r * ld);
}

weight_rows::Product weight_rows_of(const WeightProduct& p) {
    using Stored = weight_rows::Product::Stored;
    const WeightType t = p.W->type();
    const BlockShape b = block_shape(t);
    const Stored stored = t == WeightType::bf16 ? Stored::bf16 : t == WeightType::f16 ? Stored::f16 : Stored::f32;
    const auto row = [](const void* W, Index j) { return static_cast<const Weights::Tensor*>(W)->stored_row(j); };
    return {p.x, p.ldx, p.m, depth(p), stored, row, b.values, b.bytes, p.W, p.y, p.ldy, p.accumulate, fast_rows(p)};
}

ops::BlockProduct blocks_of(const WeightProduct& p) {
    using Fused = ops::BlockProduct::Fused;
    const WeightType t = p.W->type();
    const BlockShape b = p.W->stored_block(); // a row's run: MXFP4 with its scales apart (the Hub's) has 16 bytes a block
    const bool ggml_layout = b.bytes == block_shape(t).bytes;
    const Fused fused = t == WeightType::q8_0 ? Fused::q8_0 : t == WeightType::mxfp4 && ggml_layout ? Fused::mxfp4 : Fused::none;
    const auto row = [](const void* W, Index j) { return static_cast<const Weights::Tensor*>(W)->stored_row(j); };
    return {p.x, p.ldx, p.m, depth(p), read_rows, p.W, b.values, b.bytes, row, p.y, p.ldy, p.accumulate, fused};
}

bool runs_fast(const WeightProduct& p) { return wants_fast(p) && fast::covers(*p.W, p.layout == Layout::out_in, p.m) && !fast_rows(p); }

fast::Product fast_of(const WeightProduct& p) { return {p.x, p.ldx, p.m, p.W, p.y, p.ldy, p.accumulate, p.layout == Layout::out_in}; }

} // namespace

FastScope::FastScope(bool on) : before_(fast_scope) { fast_scope = on; }
FastScope::~FastScope() { fast_scope = before_; }
bool FastScope::open() { return fast_scope; }

void product_columns(const WeightProduct& p, Index c0, Index c1) {
    if (runs_fast(p)) return fast::product_columns(fast_of(p), c0, c1);
    if (fast_rows(p)) return weight_rows::product_columns(weight_rows_of(p), c0, c1);
    if (const float* w = p.W->in_place()) return ops::active().gemm(gemm_of(p, w, c0, c1), false);
    if (by_rows(p)) return row_dots(p, c0, c1);
    if (by_blocks(p)) return ops::active().block_product(blocks_of(p), c0, c1);
    if (by_weight_rows(p)) return weight_rows::product_columns(weight_rows_of(p), c0, c1);
    const Index step = panel_columns;
    for (Index c = c0; c < c1; c += step) {
        WeightProduct part = p;
        part.y += c - c0;
        panel_product(part, c, std::min(c1, c + step));
    }
}

void product(const WeightProduct& p) {
    if (runs_fast(p)) return fast::product(fast_of(p));
    const Index n = width(p);
    if (const float* w = p.W->in_place(); w && !fast_rows(p)) return ops::active().gemm(gemm_of(p, w, 0, n), true); // shares its own blocks out
    // weight_rows packs x once per block: a block per thread. Otherwise by rows or by panels. The
    // helper threads see no FastScope: the job says fast itself.
    const Index threads = core::parallel::threads();
    WeightProduct q = p;
    q.fast = wants_fast(p);
    ColumnBlocks job{&q, n, by_weight_rows(q) || fast_rows(q) ? (n + threads - 1) / threads : panel_columns};
    core::parallel::for_each((n + job.width - 1) / job.width, &ColumnBlocks::one, &job);
}

} // namespace core::model
