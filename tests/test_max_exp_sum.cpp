// ops::Set::max_exp_sum (one vocabulary block's share of the LM head's softmax) on every build
// against std::exp summed in long double: ordinary logits, a spread that reaches past exp's range,
// lengths that are no multiple of a packet, and NaN.
#include "core/model/ops.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

namespace {

const core::model::ops::Set* kBuilds[] = {core::model::ops::generic(), &core::model::ops::active()};

// Σ exp(x − max x) in long double.
long double exp_sum(const std::vector<float>& x) {
    float top = -std::numeric_limits<float>::infinity();
    for (float v : x) top = std::max(top, v);
    long double s = 0;
    for (float v : x) s += std::exp(static_cast<long double>(v) - static_cast<long double>(top));
    return s;
}

} // namespace

TEST_CASE("max_exp_sum: every build's largest value and Σ exp(x − largest) agree with long double to 1e-14") {
    std::mt19937 rng(7);
    for (const core::model::ops::Set* ops : kBuilds) {
        CAPTURE(ops->name);
        for (float spread : {1.0f, 8.0f, 300.0f}) { // at 300, many values fall below exp's range (−708)
            for (int n : {1, 7, 16, 33, 2048, 2047}) {
                CAPTURE(spread);
                CAPTURE(n);
                std::normal_distribution<float> logit(2.0f, spread);
                std::vector<float> x(static_cast<std::size_t>(n));
                for (float& v : x) v = logit(rng);
                float top = 0;
                double sum = 0;
                ops->max_exp_sum(x.data(), n, &top, &sum);
                CHECK(top == *std::max_element(x.begin(), x.end()));
                CHECK(sum >= 1.0);
                CHECK(std::abs(static_cast<long double>(sum) / exp_sum(x) - 1) < 1e-14L);
            }
        }
        std::vector<float> x = {1.0f, std::numeric_limits<float>::quiet_NaN(), 2.0f};
        float top = 0;
        double sum = 0;
        ops->max_exp_sum(x.data(), 3, &top, &sum);
        CHECK(std::isnan(sum));
    }
}
