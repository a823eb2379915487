// bench/bench_products.cpp — products with weights in their stored type (core/model/weight_product.h)
// at the shapes of a Llama-3.2-1B-sized forward, against the float32 kernel on weights in place.
//
//   product/TYPE/up/M    (M, 2048) · W (8192, 2048)ᵀ, as gate_proj and up_proj
//   product/TYPE/down/M  (M, 8192) · W (2048, 8192)ᵀ, as down_proj
//
// TYPE F32 is the weights in place (no panels); M = 1 is a decoding step, 128 a prompt. Counters:
// the FLOPs of one product and their rate. Run from the build directory: ./attnviz_bench_products
#include "core/model/format/weights.h"
#include "core/model/weight_product.h"

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

void product(benchmark::State& state, WeightType t, std::int64_t n, std::int64_t k) {
    const std::int64_t m = state.range(0);
    const auto w = weights(t, n, k);
    const auto& W = w->require("w", {n, k});
    std::vector<float> x(static_cast<std::size_t>(m * k), 0.5f), y(static_cast<std::size_t>(m * n)); // (m, k), (m, n)
    const core::model::WeightProduct p{x.data(), k, m, &W, core::model::Layout::out_in, y.data(), n};
    core::model::product(p);
    for (auto _ : state) {
        core::model::product(p);
        benchmark::DoNotOptimize(y.data());
        benchmark::ClobberMemory();
    }
    const double flops = 2.0 * static_cast<double>(m * n * k);
    state.counters["FLOPS"] = benchmark::Counter(flops, benchmark::Counter::kIsIterationInvariantRate, benchmark::Counter::OneK::kIs1000);
}

} // namespace

int main(int argc, char** argv) {
    for (const WeightType t : {WeightType::f32, WeightType::bf16, WeightType::f16, WeightType::q8_0, WeightType::q4_K, WeightType::q6_K})
        for (const bool up : {true, false}) {
            const std::string name = std::string("product/") + core::model::type_name(t) + (up ? "/up" : "/down");
            benchmark::RegisterBenchmark(name.c_str(), [t, up](benchmark::State& s) { product(s, t, up ? 8192 : 2048, up ? 2048 : 8192); })
                ->Arg(1)
                ->Arg(128)
                ->Unit(benchmark::kMillisecond)
                ->UseRealTime();
        }
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
