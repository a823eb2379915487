// core/model/fast_product.cpp — the fast products' checks, the activations' quantization, the
// weights' packing and the panels shared out across the cores.
#include "core/model/fast_product.h"

#include "core/kernels.h"
#include "core/parallel.h"

#if defined(ATTNVIZ_X86_KERNELS)
#include "core/model/fast_product_avx512.h"

#include <cpuid.h>
#endif

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>

namespace core::model::fast {

namespace {

using ops::Index;

#if defined(ATTNVIZ_X86_KERNELS)
// AVX512-VNNI (cpuid leaf 7, ecx bit 11) on top of x86-64-v4, whose check includes the OS saving
// the zmm registers.
bool cpu_has_vnni() {
    const std::vector<std::string> builds = core::kernel_builds();
    if (std::find(builds.begin(), builds.end(), "x86-64-v4") == builds.end()) return false;
    unsigned a = 0, b = 0, c = 0, d = 0;
    __cpuid_count(7, 0, a, b, c, d);
    return (c >> 11 & 1u) != 0;
}
#endif

// Output columns per task: four packed groups.
constexpr Index panel = 4 * 16;

} // namespace

bool available() { return unavailable_reason().empty(); }

std::string unavailable_reason() {
#if defined(ATTNVIZ_X86_KERNELS)
    static const bool has = cpu_has_vnni();
    if (!has) return "this CPU lacks AVX512-VNNI (or the OS does not save the AVX-512 registers)";
    const std::string build = core::kernel_build();
    if (build != "x86-64-v4") return "the kernels in use are " + build + " (ATTNVIZ_KERNELS), not x86-64-v4's AVX-512";
    return "";
#else
    return "the fast products are built for x86-64 only";
#endif
}

bool covers(const Weights::Tensor& W) { return available() && W.type() == WeightType::q8_0 && W.shape().size() == 2 && W.row_values() % 32 == 0; }

#if defined(ATTNVIZ_X86_KERNELS)
namespace {

struct Job {
    const Product* p;
    const QuantizedRows* x;
    Index c0, c1; // the columns this job covers; y points at c0
};

// One panel of up to 64 columns starting at c0 + i · panel.
void one_panel(const Job& j, Index i) {
    thread_local std::vector<unsigned char> packed; // aligned to 64 below
    const Index blocks = j.x->blocks, first = j.c0 + i * panel, last = std::min(j.c1, first + panel);
    const auto bytes = static_cast<std::size_t>(blocks * packed_block_bytes);
    if (packed.size() < bytes + 64) packed.resize(bytes + 64);
    unsigned char* group = packed.data() + (64 - reinterpret_cast<std::uintptr_t>(packed.data()) % 64) % 64;
    for (Index c = first; c < last; c += group_columns) {
        const int cols = static_cast<int>(std::min<Index>(group_columns, last - c));
        pack_group(*j.p->W, c, cols, blocks, group);
        vnni_group(*j.x, 0, j.x->m, group, blocks, j.p->y + (c - j.c0), j.p->ldy, cols, j.p->accumulate);
    }
}

void panel_body(void* context, std::ptrdiff_t i) { one_panel(*static_cast<const Job*>(context), i); }

QuantizedRows& quantized(const Product& p) {
    thread_local QuantizedRows x;
    quantize_rows(p.x, p.ldx, p.m, p.W->row_values(), x); // core/model/fast_product_avx512.cpp
    return x;
}

} // namespace

void product(const Product& p) {
    const Job job{&p, &quantized(p), 0, p.W->shape()[0]};
    core::parallel::for_each((job.c1 + panel - 1) / panel, &panel_body, const_cast<Job*>(&job));
}

void product_columns(const Product& p, Index c0, Index c1) {
    const Job job{&p, &quantized(p), c0, c1};
    for (Index i = 0; i * panel < c1 - c0; ++i) one_panel(job, i);
}
#else
void product(const Product&) { throw std::logic_error("fast products on a build without them"); }
void product_columns(const Product&, Index, Index) { throw std::logic_error("fast products on a build without them"); }
#endif

} // namespace core::model::fast
