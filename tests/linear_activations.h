// tests/linear_activations.h — a linear layer's inputs (core/model/activations.h) as JSON lists for
// the NumPy recurrences the tests write: q, k stacked (Hk·t, dk), v (Hv·t, dv), β and g (Hv, t).
#pragma once

#include "core/model/activations.h"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <vector>

inline nlohmann::json linear_activations_json(const core::model::Model& model, const std::vector<int>& ids, int layer) {
    const core::model::LayerActivations a = core::model::layer_activations(model, ids, layer);
    REQUIRE(a.linear);
    auto rows = [](const core::model::MatrixF& m) {
        std::vector<std::vector<double>> out(static_cast<std::size_t>(m.rows()));
        for (Eigen::Index i = 0; i < m.rows(); ++i) out[static_cast<std::size_t>(i)].assign(m.row(i).data(), m.row(i).data() + m.cols());
        return out;
    };
    return {{"q", rows(a.q)}, {"k", rows(a.k)}, {"v", rows(a.v)}, {"beta", rows(a.beta)}, {"g", rows(a.g)}, {"k_heads", a.q_heads}, {"v_heads", a.v_heads}};
}
