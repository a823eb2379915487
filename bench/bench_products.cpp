// bench/bench_products.cpp — the forwards' products (core/model/weight_product.h, on core/model/sgemm.h)
// at their own shapes, and the machine's memory bandwidth.
//
//   forward/gpt2/NAME/T      GPT-2 small's c_attn, attn.c_proj, mlp.c_fc, mlp.c_proj (Conv1D, (in, out))
//                            and one 2048-id block of the LM head (wte, (out, in)), F32, T = 1, 32, 128, 1024
//   forward/gpt2/stack/T     those four products of all 12 layers in turn, each layer its own F32
//                            weights (340 MB): as a forward reads them, from memory, T = 128, 1024
//   forward/gpt2/Q8_0/NAME/T  the same four in a GGUF's Q8_0 blocks (out, in), T = 1, 128, 1024
//   forward/llama/TYPE/NAME/T  a Llama-1B-sized layer's q_proj, k_proj (= v_proj), gate_proj (= up_proj),
//                            down_proj ((out, in)), F32 in place and BF16 through panels, T = 1, 32, 128
//   product/TYPE/up/M        (M, 2048) · W (8192, 2048)ᵀ, as gate_proj and up_proj, every stored type
//   product/TYPE/down/M      (M, 8192) · W (2048, 8192)ᵀ, as down_proj
//   fast/TYPE/up|down/M      the same with --fast's products: F32 and BF16 in bf16 with float32 sums
//                            (AMX or vdpbf16ps), Q8_0 and Q4_0 times int8 (AVX512-VNNI, or at
//                            ATTNVIZ_KERNELS=x86-64-v3 AVX-VNNI or AVX2), where the CPU has them
//   fast-avx2/TYPE/up|down/M  Q8_0 and Q4_0 as fast/, AVX-VNNI turned off (at x86-64-v3: AVX2's kernel)
//   memory/read              the sum of 1 GiB of floats, shared between the cores as the products are
//
// The products run as the forward runs them (core::model::product, shared out by core::parallel;
// ATTNVIZ_THREADS=1 for one thread). Counters: FLOPS (2 a multiply-add) or bytes_per_second. Run
// from the build directory: ./attnviz_bench_products [--benchmark_filter=REGEX]
#include "core/model/fast_product.h"
#include "core/model/format/weights.h"
#include "core/model/weight_product.h"
#include "core/parallel.h"

#include <benchmark/benchmark.h>

#include <cstdio>
#include <fstream>
#include <random>
#include <string>
#include <unistd.h>
#include <vector>

namespace {

using core::model::WeightType;

// A (n, k) tensor of type t with random blocks in a mapped scratch file, or from memory for F32.
std::shared_ptr<core::model::Weights> weights(WeightType t, std::int64_t n, std::int64_t k) {
    std::mt19937 rng(1);
    if (t == WeightType::f32) {
        std::vector<float> v(static_cast<std::size_t>(n * k));
        for (float& x : v) x = std::uniform_real_distribution<float>(-0.05f, 0.05f)(rng);
        return core::model::Weights::from_memory({{"w", {{n, k}, std::move(v)}}}, "memory");
    }
    const auto s = core::model::block_shape(t);
    std::vector<unsigned char> b(static_cast<std::size_t>(n * k / s.values * s.bytes));
    for (auto& byte : b) byte = static_cast<unsigned char>(rng() & 0xff);
    // Every 16-bit value and scale normal, |v| near 2⁻⁴ … 2⁻¹: no subnormal to slow the kernel down.
    auto half = [&](std::size_t at) { b[at + 1] = static_cast<unsigned char>((rng() & 0x83) | ((11 + rng() % 3) << 2)); };
    for (std::size_t at = 0; at < b.size(); at += static_cast<std::size_t>(s.bytes)) {
        if (t == WeightType::bf16) b[at + 1] = static_cast<unsigned char>(0x3d + rng() % 2 + (rng() & 0x80));
        if (t == WeightType::f16 || t == WeightType::q8_0 || t == WeightType::q4_0 || t == WeightType::q4_K || t == WeightType::q5_K) half(at);
        if (t == WeightType::q4_K || t == WeightType::q5_K) half(at + 2);
        if (t == WeightType::q6_K) half(at + 208);
    }
    char name[] = "/tmp/attnviz-bench-XXXXXX";
    const int fd = ::mkstemp(name);
    if (fd < 0) return nullptr;
    ::close(fd);
    std::ofstream(name, std::ios::binary).write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
    auto w = core::model::Weights::open_mapped(name, [&](const unsigned char*, std::size_t) {
        return std::vector<core::model::MappedTensor>{{"w", {n, k}, t, 0, {}}};
    });
    std::remove(name); // the mapping stays
    return w;
}

// (m, k) · W, W of type t stored (n, k) for out_in or (k, n) for in_out.
void product(benchmark::State& state, WeightType t, std::int64_t n, std::int64_t k, core::model::Layout layout, bool fast = false) {
    const std::int64_t m = state.range(0);
    const bool out_in = layout == core::model::Layout::out_in;
    const auto w = out_in ? weights(t, n, k) : weights(t, k, n);
    const auto& W = out_in ? w->require("w", {n, k}) : w->require("w", {k, n});
    std::vector<float> x(static_cast<std::size_t>(m * k), 0.5f), y(static_cast<std::size_t>(m * n)); // (m, k), (m, n)
    const core::model::WeightProduct p{x.data(), k, m, &W, layout, y.data(), n, false, fast};
    core::model::product(p);
    for (auto _ : state) {
        core::model::product(p);
        benchmark::DoNotOptimize(y.data());
        benchmark::ClobberMemory();
    }
    const double flops = 2.0 * static_cast<double>(m * n * k);
    state.counters["FLOPS"] = benchmark::Counter(flops, benchmark::Counter::kIsIterationInvariantRate, benchmark::Counter::OneK::kIs1000);
}

void product(benchmark::State& state, WeightType t, std::int64_t n, std::int64_t k) { product(state, t, n, k, core::model::Layout::out_in); }

// Reads 1 GiB once per iteration, 4 MiB blocks shared out as the products' column blocks are.
void memory_read(benchmark::State& state) {
    static std::vector<float> data(std::size_t{1} << 28, 1.0f);
    constexpr std::ptrdiff_t block = std::ptrdiff_t{1} << 20; // floats
    struct Job {
        const float* data;
        std::vector<double> sums; // (blocks)
        static void one(void* context, std::ptrdiff_t i) {
            auto& j = *static_cast<Job*>(context);
            float s[16] = {};
            const float* at = j.data + i * block;
            for (std::ptrdiff_t v = 0; v < block; v += 16)
                for (int l = 0; l < 16; ++l) s[l] += at[v + l];
            double sum = 0.0;
            for (float x : s) sum += x;
            j.sums[static_cast<std::size_t>(i)] = sum;
        }
    };
    const std::ptrdiff_t blocks = static_cast<std::ptrdiff_t>(data.size()) / block;
    for (auto _ : state) {
        Job job{data.data(), std::vector<double>(static_cast<std::size_t>(blocks))};
        core::parallel::for_each(blocks, &Job::one, &job);
        benchmark::DoNotOptimize(job.sums.data());
    }
    state.counters["bytes_per_second"] = benchmark::Counter(static_cast<double>(data.size() * sizeof(float)),
                                                            benchmark::Counter::kIsIterationInvariantRate, benchmark::Counter::OneK::kIs1024);
}

struct Shape {
    const char* name;
    std::int64_t k, n;
};

// GPT-2 small's four products of every layer in turn, each with its own weights, so that B comes
// from memory as in a forward (one shape's weights alone stay in a large L3 from one run to the next).
void stack(benchmark::State& state, const Shape* shapes, int count) {
    constexpr int layers = 12;
    const std::int64_t m = state.range(0);
    std::vector<std::shared_ptr<core::model::Weights>> w;
    std::vector<core::model::WeightProduct> products;
    std::vector<float> x(static_cast<std::size_t>(m * 3072), 0.5f), y(static_cast<std::size_t>(m * 3072)); // (m, ≤ 3072) each
    double flops = 0.0;
    for (int l = 0; l < layers; ++l)
        for (int i = 0; i < count; ++i) {
            const Shape& s = shapes[i];
            w.push_back(weights(WeightType::f32, s.k, s.n));
            products.push_back({x.data(), s.k, m, &w.back()->require("w", {s.k, s.n}), core::model::Layout::in_out, y.data(), s.n});
            flops += 2.0 * static_cast<double>(m * s.k * s.n);
        }
    for (const auto& p : products) core::model::product(p); // every page touched once
    for (auto _ : state) {
        for (const auto& p : products) core::model::product(p);
        benchmark::DoNotOptimize(y.data());
        benchmark::ClobberMemory();
    }
    state.counters["FLOPS"] = benchmark::Counter(flops, benchmark::Counter::kIsIterationInvariantRate, benchmark::Counter::OneK::kIs1000);
}

void register_forwards() {
    using core::model::Layout;
    static const Shape gpt2[] = {{"c_attn", 768, 2304}, {"attn.c_proj", 768, 768}, {"mlp.c_fc", 768, 3072}, {"mlp.c_proj", 3072, 768}};
    for (const Shape& s : gpt2)
        benchmark::RegisterBenchmark((std::string("forward/gpt2/") + s.name).c_str(), [s](benchmark::State& st) {
            product(st, WeightType::f32, s.n, s.k, Layout::in_out);
        })->Arg(1)->Arg(32)->Arg(128)->Arg(1024)->Unit(benchmark::kMillisecond)->UseRealTime();
    benchmark::RegisterBenchmark("forward/gpt2/stack", [](benchmark::State& st) { stack(st, gpt2, 4); })
        ->Arg(128)->Arg(1024)->Unit(benchmark::kMillisecond)->UseRealTime();
    for (const Shape& s : gpt2) // a GGUF's Q8_0 blocks, stored (out, in)
        benchmark::RegisterBenchmark((std::string("forward/gpt2/Q8_0/") + s.name).c_str(), [s](benchmark::State& st) {
            product(st, WeightType::q8_0, s.n, s.k, Layout::out_in);
        })->Arg(1)->Arg(128)->Arg(1024)->Unit(benchmark::kMillisecond)->UseRealTime();
    benchmark::RegisterBenchmark("forward/gpt2/lm_head_block", [](benchmark::State& st) {
        product(st, WeightType::f32, 2048, 768, Layout::out_in);
    })->Arg(1)->Arg(32)->Arg(128)->Arg(1024)->Unit(benchmark::kMillisecond)->UseRealTime();
    const Shape llama[] = {{"q_proj", 2048, 2048}, {"k_proj", 2048, 512}, {"up_proj", 2048, 8192}, {"down_proj", 8192, 2048}};
    for (const WeightType t : {WeightType::f32, WeightType::bf16})
        for (const Shape& s : llama)
            benchmark::RegisterBenchmark((std::string("forward/llama/") + core::model::type_name(t) + "/" + s.name).c_str(),
                                         [s, t](benchmark::State& st) { product(st, t, s.n, s.k, Layout::out_in); })
                ->Arg(1)->Arg(32)->Arg(128)->Unit(benchmark::kMillisecond)->UseRealTime();
}

} // namespace

int main(int argc, char** argv) {
    register_forwards();
    for (const WeightType t : {WeightType::f32, WeightType::bf16, WeightType::f16, WeightType::q8_0, WeightType::q4_K, WeightType::q6_K})
        for (const bool up : {true, false}) {
            const std::string name = std::string("product/") + core::model::type_name(t) + (up ? "/up" : "/down");
            benchmark::RegisterBenchmark(name.c_str(), [t, up](benchmark::State& s) { product(s, t, up ? 8192 : 2048, up ? 2048 : 8192); })
                ->Arg(1)
                ->Arg(128)
                ->Unit(benchmark::kMillisecond)
                ->UseRealTime();
        }
    for (const WeightType t : {WeightType::f32, WeightType::bf16, WeightType::q8_0, WeightType::q4_0})
        for (const bool up : {true, false})
            for (const bool avx_vnni : {true, false}) {
                const bool int8 = t == WeightType::q8_0 || t == WeightType::q4_0;
                if (!avx_vnni && !int8) continue;
                const std::string name = std::string(avx_vnni ? "fast/" : "fast-avx2/") + core::model::type_name(t) + (up ? "/up" : "/down");
                benchmark::RegisterBenchmark(name.c_str(), [t, up, avx_vnni](benchmark::State& s) {
                    const bool was = core::model::fast::use_avx_vnni(avx_vnni);
                    product(s, t, up ? 8192 : 2048, up ? 2048 : 8192, core::model::Layout::out_in, true);
                    core::model::fast::use_avx_vnni(was);
                })->Arg(32)->Arg(128)->Unit(benchmark::kMillisecond)->UseRealTime();
            }
    benchmark::RegisterBenchmark("memory/read", memory_read)->Unit(benchmark::kMillisecond)->UseRealTime();
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
