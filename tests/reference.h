// tests/reference.h — attention written as plain loops, the way a textbook does it, to check
// core::compute against something that shares none of its code.
#pragma once

#include "core/scenario.h"

#include <cmath>
#include <limits>
#include <vector>

namespace reference {

using Grid = std::vector<std::vector<double>>;

inline Grid matmul(const Grid& a, const Grid& b) {
    Grid c(a.size(), std::vector<double>(b[0].size(), 0.0));
    for (size_t i = 0; i < a.size(); ++i)
        for (size_t j = 0; j < b[0].size(); ++j)
            for (size_t k = 0; k < b.size(); ++k) c[i][j] += a[i][k] * b[k][j];
    return c;
}

inline Grid grid(const core::Matrix& m) {
    Grid g(m.rows(), std::vector<double>(m.cols()));
    for (Eigen::Index r = 0; r < m.rows(); ++r)
        for (Eigen::Index c = 0; c < m.cols(); ++c) g[r][c] = m(r, c);
    return g;
}

struct Head {
    Grid Q, K, V, scores, scaled, weights, output;
};

inline Head attention_head(const Grid& X, const core::Head& w, bool causal, bool scale) {
    Head h;
    h.Q = matmul(X, grid(w.W_Q));
    h.K = matmul(X, grid(w.W_K));
    h.V = matmul(X, grid(w.W_V));
    const size_t n = X.size(), d_k = h.Q[0].size();
    h.scores = h.scaled = h.weights = Grid(n, std::vector<double>(n));
    for (size_t i = 0; i < n; ++i) {
        double top = -std::numeric_limits<double>::infinity();
        for (size_t j = 0; j < n; ++j) {
            double dot = 0;
            for (size_t c = 0; c < d_k; ++c) dot += h.Q[i][c] * h.K[j][c];
            h.scores[i][j] = dot;
            h.scaled[i][j] = causal && j > i ? -std::numeric_limits<double>::infinity()
                                             : (scale ? dot / std::sqrt(double(d_k)) : dot);
            top = std::max(top, h.scaled[i][j]);
        }
        double sum = 0;
        for (size_t j = 0; j < n; ++j) sum += (h.weights[i][j] = std::exp(h.scaled[i][j] - top));
        for (size_t j = 0; j < n; ++j) h.weights[i][j] /= sum;
    }
    h.output = matmul(h.weights, h.V);
    return h;
}

} // namespace reference
