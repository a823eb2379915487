// core/heads/qk_view.h — the query–key view: one head's queries and keys in a plane, moved so that
// every softmax row is unchanged.
#pragma once

#include "core/scenario.h" // core::Matrix: double, row-major

#include <Eigen/Core>

namespace core::heads {

enum class QKPlane { principal, query_and_key };

struct QKView {
    core::Matrix queries, keys;   // (t, d_head) after the moves below; q_i · k_j − q_i · k_j(before)
                                  // is the same for every j, so every softmax row is unchanged
    Eigen::RowVectorXd key_shift; // (d_head) added to every key: mean(q) − mean(k)
    double alpha = 1.0;           // queries × α, keys × 1/α: mean ‖q‖ = mean ‖k‖ afterwards
    Eigen::Matrix<double, Eigen::Dynamic, 2> basis; // (d_head, 2) orthonormal columns of the plane
    core::Matrix query_points, key_points;          // (t, 2) coordinates in the plane (about the origin)
    double variance_kept = 0.0;   // the share of the union's variance (about its mean) in the plane, 0 … 1
    QKPlane plane = QKPlane::principal;
};

// Q, K: (t, d_head) of one head, as the scores use them (after RoPE for rotary models).
// principal: the first two principal components of the 2t moved points. query_and_key: the plane
// spanned by the moved query `query` and key `key` (say, its top key), in which their dot product is
// exact; when the two are parallel the second axis is the principal one orthogonal to them.
// d_head = 1 gives a plane whose second axis is zero. Throws std::invalid_argument for mismatched
// shapes or an index out of range.
QKView query_key_view(const core::Matrix& Q, const core::Matrix& K, QKPlane plane = QKPlane::principal,
                      int query = 0, int key = 0);

} // namespace core::heads
