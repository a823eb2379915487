// core/model/fast_product.cpp — the fast products' checks, the activations' rounding, the weights'
// packing and the panels shared out across the cores.
#include "core/model/fast_product.h"

#include "core/kernels.h"
#include "core/parallel.h"

#if defined(ATTNVIZ_X86_KERNELS)
#include "core/model/fast_product_avx2.h"
#include "core/model/fast_product_avx512.h"

#include <cpuid.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <stdexcept>

namespace core::model::fast {

namespace {

using ops::Index;

struct Instructions {
    bool int8 = false;     // x86-64-v3's int8 kernel (AVX2)
    bool avx_vnni = false; // its AVX-VNNI kernel
    bool vnni = false, bf16 = false, amx = false;
};

// use_avx_vnni(false) turns the AVX-VNNI kernel off, for tests and benchmarks.
std::atomic<bool> avx_vnni_allowed{true};

#if defined(ATTNVIZ_X86_KERNELS)
// AMX-TILE and AMX-BF16 (leaf 7, edx bits 24 and 22), the OS saving the tiles (XCR0 bits 17 and
// 18), and Linux letting this process use them (arch_prctl ARCH_REQ_XCOMP_PERM for XTILEDATA).
bool amx_bf16(unsigned edx) {
    if ((edx >> 24 & 1u) == 0 || (edx >> 22 & 1u) == 0) return false;
    unsigned xcr0 = 0, xcr0_high = 0;
    __asm__("xgetbv" : "=a"(xcr0), "=d"(xcr0_high) : "c"(0));
    constexpr long request_permission = 0x1023, tile_data = 18;
    return (xcr0 & 0x60000u) == 0x60000u && syscall(SYS_arch_prctl, request_permission, tile_data) == 0;
}

bool cpu_runs(const char* level) {
    const std::vector<std::string> builds = core::kernel_builds();
    return std::find(builds.begin(), builds.end(), level) != builds.end();
}

// The CPU's: AVX2 (x86-64-v3) for the int8 kernel, and AVX-VNNI (cpuid leaf 7 subleaf 1, eax bit 4)
// on top of it; AVX512-VNNI (leaf 7, ecx bit 11), AVX512-BF16 (leaf 7 subleaf 1, eax bit 5) and
// AMX-BF16 on top of x86-64-v4, whose check includes the OS saving the zmm registers.
Instructions cpu_instructions() {
    Instructions has;
    has.int8 = cpu_runs("x86-64-v3");
    if (!has.int8) return has;
    unsigned a = 0, b = 0, c = 0, d = 0;
    __cpuid_count(7, 0, a, b, c, d);
    const unsigned subleaves = a, features = d, features_c = c;
    unsigned extended = 0; // leaf 7 subleaf 1's eax
    if (subleaves >= 1) {
        __cpuid_count(7, 1, a, b, c, d);
        extended = a;
    }
    has.avx_vnni = (extended >> 4 & 1u) != 0;
    if (!cpu_runs("x86-64-v4")) return has;
    has.vnni = (features_c >> 11 & 1u) != 0;
    has.bf16 = (extended >> 5 & 1u) != 0;
    has.amx = has.bf16 && amx_bf16(features);
    return has;
}

const Instructions& cpu() {
    static const Instructions has = cpu_instructions();
    return has;
}
#endif

// What runs now: the CPU's instructions that the kernel level in use (core::kernel_build) allows.
Instructions usable() {
#if defined(ATTNVIZ_X86_KERNELS)
    Instructions has;
    const KernelLevel level = core::kernel_level();
    if (level == KernelLevel::x86_64_v4) has = cpu();
    if (level == KernelLevel::x86_64_v3) {
        has.int8 = cpu().int8;
        has.avx_vnni = cpu().avx_vnni;
    }
    has.avx_vnni = has.avx_vnni && avx_vnni_allowed.load();
    return has;
#else
    return {};
#endif
}

// The int8 kernel that runs: AVX512-VNNI, AVX-VNNI or AVX2.
const char* int8_kernel(const Instructions& has) { return has.vnni ? "AVX512-VNNI" : has.avx_vnni ? "AVX-VNNI" : "AVX2"; }

bool sixteen_or_thirty_two(WeightType t) { return t == WeightType::f32 || t == WeightType::f16 || t == WeightType::bf16; }

// Output columns per task: four packed groups.
constexpr Index panel = 4 * 16;

} // namespace

#if defined(ATTNVIZ_X86_KERNELS)
int weight_offset(WeightType t) { return t == WeightType::q4_0 ? 8 : 128; }

void QuantizedRows::resize(Index rows, Index k) {
    m = rows;
    blocks = k / 32;
    q.resize(static_cast<std::size_t>(rows * k));
    d.resize(static_cast<std::size_t>(rows * blocks));
    bias.resize(d.size());
}
#endif

bool available() { return usable().int8; }

bool bf16_available() { return usable().bf16; }

bool tiles_available() { return bf16_available() && usable().amx; }

bool use_avx_vnni(bool on) { return avx_vnni_allowed.exchange(on); }

std::string unavailable_reason() {
#if defined(ATTNVIZ_X86_KERNELS)
    if (available()) return "";
    if (!cpu().int8) return "this CPU lacks AVX2 (x86-64-v3), which the fast products need";
    return "the kernels in use are " + core::kernel_build() + " (ATTNVIZ_KERNELS), which have no fast products";
#else
    return "the fast products are built for x86-64 only";
#endif
}

std::string bf16_unavailable_reason() {
    if (!available()) return unavailable_reason();
    if (bf16_available()) return "";
#if defined(ATTNVIZ_X86_KERNELS)
    if (cpu().bf16) return "F32, F16 and BF16 weights need AVX512-BF16 for a fast product, and the kernels in use are " + core::kernel_build() +
                           " (ATTNVIZ_KERNELS)";
#endif
    return "F32, F16 and BF16 weights need AVX512-BF16 for a fast product, which this CPU lacks";
}

std::string summary() {
    if (!available()) return "exact products only: " + unavailable_reason();
    std::string s = std::string("Q8_0 and Q4_0 weights times int8 activations on ") + int8_kernel(usable());
    if (bf16_available()) return s + "; F32, F16 and BF16 weights in bf16 on " + (tiles_available() ? "AMX-BF16" : "AVX512-BF16");
    return s + "; " + bf16_unavailable_reason() + ", so they run exact";
}

bool covers(const Weights::Tensor& W, bool out_in, Index m) {
    if (!available() || W.shape().size() != 2) return false;
    if (W.type() == WeightType::q8_0 || W.type() == WeightType::q4_0) return out_in && W.row_values() % 32 == 0;
    return sixteen_or_thirty_two(W.type()) && usable().bf16 && m >= 2;
}

#if defined(ATTNVIZ_X86_KERNELS)
namespace {

struct Job {
    const Product* p;
    const QuantizedRows* q8; // for Q8_0 and Q4_0 weights
    const Bf16Rows* bf16;    // for the others
    Index c0, c1;            // the columns this job covers; y points at c0
};

unsigned char* aligned(std::vector<unsigned char>& buffer, std::size_t bytes) {
    if (buffer.size() < bytes + 64) buffer.resize(bytes + 64);
    return buffer.data() + (64 - reinterpret_cast<std::uintptr_t>(buffer.data()) % 64) % 64;
}

// A group of columns c … c+cols−1: Q8_0 and Q4_0 packed as they lie, others read as float32 and rounded.
void group_product(const Job& j, Index c, int cols, unsigned char* group) {
    const Product& p = *j.p;
    float* y = p.y + (c - j.c0);
    const Instructions has = usable();
    if (j.q8 && has.vnni) {
        pack_group(*p.W, c, cols, j.q8->blocks, group);
        return vnni_group(*j.q8, 0, j.q8->m, group, j.q8->blocks, y, p.ldy, cols, p.accumulate);
    }
    if (j.q8 && has.avx_vnni) {
        avx2::pack_group(*p.W, c, cols, j.q8->blocks, weight_offset(p.W->type()), group);
        return avx2::avx_vnni_group(*j.q8, 0, j.q8->m, group, j.q8->blocks, y, p.ldy, cols, p.accumulate);
    }
    if (j.q8) {
        avx2::pack_group(*p.W, c, cols, j.q8->blocks, 0, group);
        return avx2::int8_group(*j.q8, 0, j.q8->m, group, j.q8->blocks, y, p.ldy, cols, p.accumulate);
    }
    thread_local std::vector<float> values;
    const Index k = p.out_in ? p.W->row_values() : p.W->shape()[0], n = p.out_in ? p.W->shape()[0] : p.W->row_values();
    if (const float* w = p.W->in_place()) { // read where it lies
        pack_bf16_group(p.out_in ? w + c * k : w + c, p.out_in ? k : 1, p.out_in ? 1 : n, cols, k, group);
    } else {
        values.resize(static_cast<std::size_t>(k * cols));
        if (p.out_in) p.W->rows(c, cols, values.data());  // (cols, k)
        else p.W->columns(0, k, c, cols, values.data()); // (k, cols)
        pack_bf16_group(values.data(), p.out_in ? k : 1, p.out_in ? 1 : cols, cols, k, group);
    }
    bf16_group(*j.bf16, 0, j.bf16->m, group, (k + 1) / 2, y, p.ldy, cols, p.accumulate, has.amx);
}

// One panel of up to 64 columns starting at c0 + i · panel.
void one_panel(const Job& j, Index i) {
    thread_local std::vector<unsigned char> packed;
    const Index first = j.c0 + i * panel, last = std::min(j.c1, first + panel);
    const Index bytes = j.q8 ? j.q8->blocks * packed_block_bytes : (j.bf16->width / 2) * 64;
    unsigned char* group = aligned(packed, static_cast<std::size_t>(bytes));
    for (Index c = first; c < last; c += group_columns) group_product(j, c, static_cast<int>(std::min<Index>(group_columns, last - c)), group);
}

void panel_body(void* context, std::ptrdiff_t i) { one_panel(*static_cast<const Job*>(context), i); }

// The activations rounded as the weight's kernel takes them (core/model/fast_product_avx512.cpp).
Job job_of(const Product& p, Index c0, Index c1) {
    thread_local QuantizedRows q8;
    thread_local Bf16Rows bf16;
    const Index k = p.out_in ? p.W->row_values() : p.W->shape()[0];
    if (p.W->type() == WeightType::q8_0 || p.W->type() == WeightType::q4_0) {
        if (usable().vnni) quantize_rows(p.x, p.ldx, p.m, k, weight_offset(p.W->type()), q8);
        else avx2::quantize_rows(p.x, p.ldx, p.m, k, weight_offset(p.W->type()), q8);
        return {&p, &q8, nullptr, c0, c1};
    }
    bf16_rows(p.x, p.ldx, p.m, k, bf16);
    return {&p, nullptr, &bf16, c0, c1};
}

} // namespace

void product(const Product& p) {
    const Job job = job_of(p, 0, p.out_in ? p.W->shape()[0] : p.W->row_values());
    core::parallel::for_each((job.c1 + panel - 1) / panel, &panel_body, const_cast<Job*>(&job));
}

void product_columns(const Product& p, Index c0, Index c1) {
    const Job job = job_of(p, c0, c1);
    for (Index i = 0; i * panel < c1 - c0; ++i) one_panel(job, i);
}
#else
void product(const Product&) { throw std::logic_error("fast products on a build without them"); }
void product_columns(const Product&, Index, Index) { throw std::logic_error("fast products on a build without them"); }
#endif

} // namespace core::model::fast
