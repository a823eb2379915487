// core/model/circuits/lens.cpp — the logit lens from the stream kept entering each layer.
#include "core/model/circuits/lens.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace core::model {

namespace {

// Row ℓ of the lens from logits (t, V).
void fill_row(LogitLens& lens, int l, const MatrixF& logits, const std::vector<int>& ids) {
    const int V = static_cast<int>(logits.cols());
    std::vector<int> order(static_cast<std::size_t>(V));
    for (int i = 0; i < lens.t; ++i) {
        const auto row = logits.row(i).cast<double>();
        const double top = row.maxCoeff(), z = (row.array() - top).exp().sum();
        std::iota(order.begin(), order.end(), 0);
        std::partial_sort(order.begin(), order.begin() + lens.k, order.end(), [&](int a, int b) { return row(a) > row(b) || (row(a) == row(b) && a < b); });
        const std::size_t at = (static_cast<std::size_t>(l) * static_cast<std::size_t>(lens.t) + static_cast<std::size_t>(i));
        for (int j = 0; j < lens.k; ++j) {
            lens.top[at * static_cast<std::size_t>(lens.k) + static_cast<std::size_t>(j)] = order[static_cast<std::size_t>(j)];
            lens.p[at * static_cast<std::size_t>(lens.k) + static_cast<std::size_t>(j)] = std::exp(row(order[static_cast<std::size_t>(j)]) - top) / z;
        }
        if (i + 1 >= lens.t) continue;
        const int next = ids[static_cast<std::size_t>(i) + 1];
        lens.p_next[at] = std::exp(row(next) - top) / z;
        lens.rank_next[at] = 1 + static_cast<int>((row.array() > row(next)).count());
    }
}

} // namespace

LogitLens logit_lens(const Model& model, const std::vector<int>& ids, int k) {
    const ModelConfig& c = model.config();
    if (!model.unembedding().weight) throw InputError(c.name + " has no LM head: there are no logits to read the layers through");
    if (k < 1 || k > c.vocab) throw InputError("the lens's top " + std::to_string(k) + ": " + c.name + " has " + std::to_string(c.vocab) + " ids");
    std::vector<MatrixF> residuals; // (layers) × (t, D): the stream entering each layer
    ForwardOptions o;
    o.attention = false;
    o.residuals = &residuals;
    ForwardResult last = model.forward(ids, o);
    LogitLens lens;
    lens.layers = c.layers;
    lens.t = static_cast<int>(ids.size());
    lens.k = k;
    const std::size_t cells = static_cast<std::size_t>(lens.layers) * static_cast<std::size_t>(lens.t);
    lens.top.assign(cells * static_cast<std::size_t>(k), 0);
    lens.p.assign(cells * static_cast<std::size_t>(k), 0.0);
    lens.p_next.assign(cells, std::numeric_limits<double>::quiet_NaN());
    lens.rank_next.assign(cells, 0);
    ForwardOptions all;
    for (int l = 1; l < c.layers; ++l) { // after layer l = entering layer l + 1
        ForwardResult r;
        r.hidden = std::move(residuals[static_cast<std::size_t>(l)]);
        model.apply_final_norm(r.hidden);
        model.fill_logits(r, all);
        fill_row(lens, l - 1, r.logits, ids);
    }
    fill_row(lens, c.layers - 1, last.logits, ids);
    return lens;
}

} // namespace core::model
