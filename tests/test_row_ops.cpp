// ops::Set's element-wise and per-row passes (the activations, the SwiGLU gate, LayerNorm, RMSNorm)
// on every build against formulas in double written here, and their sharing between the cores: a
// call on many rows or values, shared out in pieces, gives the bits of the same rows or values
// computed alone on the calling thread.
#include "core/model/ops.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

namespace {

using core::model::ops::Activation;
using core::model::ops::Index;

const core::model::ops::Set* kRowOpBuilds[] = {core::model::ops::generic(), &core::model::ops::active()};

std::vector<float> normal_values(Index n, float mean, float spread, std::mt19937& rng) {
    std::normal_distribution<float> u(mean, spread);
    std::vector<float> out(static_cast<std::size_t>(n));
    for (float& x : out) x = u(rng);
    return out;
}

double activation(Activation act, double x) {
    switch (act) {
    case Activation::gelu_tanh: return 0.5 * x * (1.0 + std::tanh(std::sqrt(2.0 / M_PI) * (x + 0.044715 * x * x * x)));
    case Activation::gelu_erf: return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0)));
    case Activation::relu: return x > 0 ? x : 0.0;
    case Activation::silu: return x / (1.0 + std::exp(-x));
    case Activation::quick_gelu: return x / (1.0 + std::exp(-1.702 * x));
    }
    return 0.0;
}

// Within float32's rounding of a few operations on values of this size.
bool close(double got, double want) { return std::abs(got - want) <= 4e-6 * std::max(1.0, std::abs(want)); }

constexpr Index kValues = 4096 * 4 + 1000; // four whole pieces and a short one
constexpr Index kRows = 200, kWidth = 771;   // more rows than one piece, a width no packet divides

} // namespace

TEST_CASE("row ops: every build's activations and SwiGLU gate match double, shared or a slice at a time") {
    std::mt19937 rng(13);
    const std::vector<float> x = normal_values(kValues, 0.0f, 3.0f, rng), up = normal_values(kValues, 0.5f, 1.0f, rng);
    for (const core::model::ops::Set* ops : kRowOpBuilds) {
        CAPTURE(ops->name);
        for (Activation act : {Activation::gelu_tanh, Activation::gelu_erf, Activation::relu, Activation::silu, Activation::quick_gelu}) {
            CAPTURE(static_cast<int>(act));
            std::vector<float> shared = x, sliced = x, gate = x, gate_sliced = x;
            ops->activate(shared.data(), kValues, act);
            ops->gated(gate.data(), up.data(), kValues, act);
            for (Index i0 = 0; i0 < kValues; i0 += 999) { // slices smaller than a piece: each on this thread
                const Index n = std::min<Index>(999, kValues - i0);
                ops->activate(sliced.data() + i0, n, act);
                ops->gated(gate_sliced.data() + i0, up.data() + i0, n, act);
            }
            CHECK(shared == sliced);
            CHECK(gate == gate_sliced);
            int wrong = 0;
            for (Index i = 0; i < kValues; ++i) {
                const double a = activation(act, x[static_cast<std::size_t>(i)]);
                wrong += !close(shared[static_cast<std::size_t>(i)], a) + !close(gate[static_cast<std::size_t>(i)], a * up[static_cast<std::size_t>(i)]);
            }
            CHECK(wrong == 0);
        }
    }
}

TEST_CASE("row ops: every build's LayerNorm and RMSNorm match double, shared or a row at a time, in place or not") {
    std::mt19937 rng(17);
    const std::vector<float> x = normal_values(kRows * kWidth, 1.0f, 2.0f, rng), w = normal_values(kWidth, 1.0f, 0.2f, rng),
                             b = normal_values(kWidth, 0.0f, 0.1f, rng);
    const float eps = 1e-5f;
    for (const core::model::ops::Set* ops : kRowOpBuilds) {
        CAPTURE(ops->name);
        std::vector<float> layer(x.size()), rms(x.size()), layer_rows(x.size()), rms_rows(x.size()), in_place = x;
        ops->layer_norm(x.data(), layer.data(), kRows, kWidth, w.data(), b.data(), eps);
        ops->rms_norm(x.data(), rms.data(), kRows, kWidth, w.data(), eps);
        ops->layer_norm(in_place.data(), in_place.data(), kRows, kWidth, w.data(), b.data(), eps);
        for (Index r = 0; r < kRows; ++r) {
            ops->layer_norm(x.data() + r * kWidth, layer_rows.data() + r * kWidth, 1, kWidth, w.data(), b.data(), eps);
            ops->rms_norm(x.data() + r * kWidth, rms_rows.data() + r * kWidth, 1, kWidth, w.data(), eps);
        }
        CHECK(layer == layer_rows);
        CHECK(rms == rms_rows);
        CHECK(in_place == layer);
        int wrong = 0;
        for (Index r = 0; r < kRows; ++r) {
            const float* row = x.data() + r * kWidth;
            double mean = 0, var = 0, square = 0;
            for (Index j = 0; j < kWidth; ++j) mean += row[j], square += static_cast<double>(row[j]) * row[j];
            mean /= kWidth;
            for (Index j = 0; j < kWidth; ++j) var += (row[j] - mean) * (row[j] - mean);
            var /= kWidth;
            for (Index j = 0; j < kWidth; ++j) {
                const auto at = static_cast<std::size_t>(r * kWidth + j);
                wrong += !close(layer[at], (row[j] - mean) / std::sqrt(var + eps) * w[static_cast<std::size_t>(j)] + b[static_cast<std::size_t>(j)]);
                wrong += !close(rms[at], row[j] / std::sqrt(square / kWidth + eps) * w[static_cast<std::size_t>(j)]);
            }
        }
        CHECK(wrong == 0);
    }
}
