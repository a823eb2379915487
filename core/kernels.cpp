// core/kernels.cpp — which build of the kernels (core/kernels.h) compute_into runs: the best one
// the CPU and the OS support, or the one ATTNVIZ_KERNELS names, or the one a test or benchmark asks for.
#include "core/kernels.h"

#include <atomic>
#include <initializer_list>
#include <utility>
#include <cstdlib>
#include <string>
#include <vector>

#if defined(ATTNVIZ_X86_KERNELS)
#include <cpuid.h>
#endif

namespace core {

namespace {

#if defined(ATTNVIZ_X86_KERNELS)
// x86-64-v3 and -v4 as GCC and Clang's -march define them, read from cpuid, with the OS saving
// the AVX (and AVX-512) registers (xgetbv).
struct X86Levels {
    bool v3 = false, v4 = false;
    std::string v3_missing, v4_missing; // what the CPU or the OS lacks for each, in words
};

// "A, B and C" of the names whose flag is false.
std::string missing(std::initializer_list<std::pair<const char*, bool>> parts) {
    std::vector<std::string> names;
    for (const auto& [name, present] : parts)
        if (!present) names.push_back(name);
    std::string out;
    for (std::size_t i = 0; i < names.size(); ++i)
        out += (i == 0 ? "" : i + 1 == names.size() ? " and " : ", ") + names[i];
    return out;
}

X86Levels detect_x86_levels() {
    X86Levels levels;
    unsigned a = 0, b = 0, c = 0, d = 0;
    auto bit = [](unsigned reg, int n) { return (reg >> n & 1u) != 0; };
    levels.v3_missing = levels.v4_missing = "AVX";
    if (!__get_cpuid(1, &a, &b, &c, &d)) return levels;
    const bool fma = bit(c, 12), movbe = bit(c, 22), osxsave = bit(c, 27), avx = bit(c, 28), f16c = bit(c, 29);
    if (!osxsave || !avx || __get_cpuid_max(0, nullptr) < 7) return levels;
    unsigned xcr0 = 0, xcr0_high = 0;
    __asm__("xgetbv" : "=a"(xcr0), "=d"(xcr0_high) : "c"(0));
    const bool ymm_saved = (xcr0 & 0x6u) == 0x6u, zmm_saved = (xcr0 & 0xe6u) == 0xe6u;
    __cpuid_count(7, 0, a, b, c, d);
    const bool bmi1 = bit(b, 3), avx2 = bit(b, 5), bmi2 = bit(b, 8);
    const bool avx512f = bit(b, 16), avx512dq = bit(b, 17), avx512cd = bit(b, 28), avx512bw = bit(b, 30), avx512vl = bit(b, 31);
    bool lzcnt = false;
    if (__get_cpuid(0x80000001u, &a, &b, &c, &d)) lzcnt = bit(c, 5);
    levels.v3 = ymm_saved && avx2 && fma && bmi1 && bmi2 && f16c && movbe && lzcnt;
    levels.v4 = levels.v3 && zmm_saved && avx512f && avx512dq && avx512cd && avx512bw && avx512vl;
    levels.v3_missing = missing({{"AVX2", avx2}, {"FMA", fma}, {"BMI1", bmi1}, {"BMI2", bmi2}, {"F16C", f16c}, {"MOVBE", movbe},
                                 {"LZCNT", lzcnt}, {"the OS saving the AVX registers", ymm_saved}});
    levels.v4_missing = missing({{"AVX512F", avx512f}, {"AVX512DQ", avx512dq}, {"AVX512CD", avx512cd}, {"AVX512BW", avx512bw},
                                 {"AVX512VL", avx512vl}, {"the OS saving the AVX-512 registers", zmm_saved}});
    if (!levels.v3) levels.v4_missing = levels.v4_missing.empty() ? levels.v3_missing : levels.v3_missing + ", " + levels.v4_missing;
    return levels;
}
#endif

#if defined(ATTNVIZ_X86_KERNELS)
const X86Levels& x86_levels() {
    static const X86Levels levels = detect_x86_levels();
    return levels;
}
#endif

bool cpu_has(const char* build) {
    const std::string b = build;
    if (b == "generic") return true;
#if defined(ATTNVIZ_X86_KERNELS)
    if (b == "x86-64-v3") return x86_levels().v3;
    if (b == "x86-64-v4") return x86_levels().v4;
#endif
    return false;
}

// What this CPU lacks to run `build` (one of this binary's), in words.
std::string lacks(const std::string& build) {
#if defined(ATTNVIZ_X86_KERNELS)
    if (build == "x86-64-v3") return x86_levels().v3_missing;
    if (build == "x86-64-v4") return x86_levels().v4_missing;
#endif
    return "";
}

// Every build in this binary, best first.
std::vector<const kernels::Set*> all_builds() {
    std::vector<const kernels::Set*> builds;
#ifdef ATTNVIZ_X86_KERNELS
    builds.push_back(kernels::x86_64_v4());
    builds.push_back(kernels::x86_64_v3());
#endif
    builds.push_back(kernels::generic());
    return builds;
}

const kernels::Set* find_build(const std::string& name) {
    for (const kernels::Set* k : all_builds())
        if (name == k->name && cpu_has(k->name)) return k;
    return nullptr;
}

const kernels::Set* first_choice() {
    if (const char* wanted = std::getenv("ATTNVIZ_KERNELS"))
        if (const kernels::Set* k = find_build(wanted)) return k;
    for (const kernels::Set* k : all_builds())
        if (cpu_has(k->name)) return k;
    return kernels::generic();
}

std::atomic<const kernels::Set*>& active_set() {
    static std::atomic<const kernels::Set*> set{first_choice()};
    return set;
}

} // namespace

const kernels::Set& kernels::active() { return *active_set().load(); }

std::string kernel_build() { return active_set().load()->name; }

KernelLevel kernel_level() {
#if defined(ATTNVIZ_X86_KERNELS)
    const kernels::Set* k = active_set().load();
    if (k == kernels::x86_64_v4()) return KernelLevel::x86_64_v4;
    if (k == kernels::x86_64_v3()) return KernelLevel::x86_64_v3;
#endif
    return KernelLevel::generic;
}

std::vector<std::string> kernel_builds() {
    std::vector<std::string> names;
    for (const kernels::Set* k : all_builds())
        if (cpu_has(k->name)) names.push_back(k->name);
    return names;
}

std::string kernel_request_problem() {
    const char* wanted = std::getenv("ATTNVIZ_KERNELS");
    if (!wanted || find_build(wanted)) return "";
    std::string names, runnable;
    for (const kernels::Set* k : all_builds()) names += std::string(names.empty() ? "" : ", ") + k->name;
    for (const std::string& k : kernel_builds()) runnable += (runnable.empty() ? "" : ", ") + k;
    for (const kernels::Set* k : all_builds())
        if (wanted == std::string(k->name))
            return "ATTNVIZ_KERNELS=" + std::string(wanted) + ": this CPU cannot run it (it lacks " + lacks(k->name) +
                   "); it runs " + runnable;
    return "ATTNVIZ_KERNELS=" + std::string(wanted) + ": not a kernel level; this program has " + names;
}

bool use_kernel_build(const std::string& name) {
    const kernels::Set* k = find_build(name);
    if (k) active_set().store(k);
    return k != nullptr;
}

} // namespace core
