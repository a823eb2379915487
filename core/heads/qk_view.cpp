// core/heads/qk_view.cpp — the query–key view.
#include "core/heads/qk_view.h"

#include "core/heads/head.h"

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace core::heads {

namespace {

using Basis = Eigen::Matrix<double, Eigen::Dynamic, 2>;

// Unit vector, its sign chosen so that its largest component is positive: the picture does not flip
// between two frames whose eigen solver happened to pick the other sign.
Eigen::VectorXd oriented(Eigen::VectorXd v) {
    Eigen::Index top = 0;
    v.cwiseAbs().maxCoeff(&top);
    if (v(top) < 0) v = -v;
    return v;
}

// The covariance's eigenvectors, largest eigenvalue first (d, d).
Eigen::MatrixXd principal_axes(const Eigen::MatrixXd& covariance) {
    Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(covariance);
    return eig.eigenvectors().rowwise().reverse();
}

Basis principal_plane(const Eigen::MatrixXd& axes) {
    Basis B = Basis::Zero(axes.rows(), 2);
    for (Eigen::Index c = 0; c < std::min<Eigen::Index>(2, axes.cols()); ++c) B.col(c) = oriented(axes.col(c));
    return B;
}

// The plane of q and k; when k adds no direction, the first principal axis orthogonal to q.
Basis query_key_plane(const Eigen::VectorXd& q, const Eigen::VectorXd& k, const Eigen::MatrixXd& axes) {
    const double qn = q.norm();
    if (!(qn > 0.0)) return principal_plane(axes);
    Basis B = Basis::Zero(q.size(), 2);
    B.col(0) = q / qn;
    Eigen::VectorXd second = k - k.dot(B.col(0)) * B.col(0);
    for (Eigen::Index c = 0; c < axes.cols() && !(second.norm() > 1e-9 * std::max(1.0, k.norm())); ++c)
        second = axes.col(c) - axes.col(c).dot(B.col(0)) * B.col(0);
    if (second.norm() > 1e-9) B.col(1) = second.normalized();
    return B;
}

} // namespace

QKView query_key_view(const core::Matrix& Q, const core::Matrix& K, QKPlane plane, int query, int key) {
    if (Q.cols() != K.cols() || Q.rows() < 1 || K.rows() < 1 || Q.cols() < 1)
        throw std::invalid_argument("query–key view: queries " + shape_text(Q.rows(), Q.cols()) + " and keys " + shape_text(K.rows(), K.cols()) +
                                    " need the same width and at least one row each");
    if (plane == QKPlane::query_and_key && (query < 0 || query >= Q.rows() || key < 0 || key >= K.rows()))
        throw std::invalid_argument("query–key view: query " + std::to_string(query + 1) + " or key " + std::to_string(key + 1) + " is out of range");
    QKView v;
    v.plane = plane;
    // 1. keys translated to the queries' mean: q_i · (k_j + c) = q_i · k_j + q_i · c, the same for every j.
    v.key_shift = Q.colwise().mean() - K.colwise().mean();               // (d)
    core::Matrix keys = K.rowwise() + v.key_shift;                       // (t_k, d)
    // 2. α q and k / α keep every q · k and give both the same mean norm.
    const double mq = Q.rowwise().norm().mean(), mk = keys.rowwise().norm().mean();
    v.alpha = mq > 0.0 && mk > 0.0 ? std::sqrt(mk / mq) : 1.0;
    v.queries = Q * v.alpha;                                             // (t_q, d)
    v.keys = keys / v.alpha;                                             // (t_k, d)
    // 3. the union's covariance about its mean, and the plane.
    Eigen::MatrixXd all(Q.rows() + K.rows(), Q.cols());                  // (t_q + t_k, d)
    all << v.queries, v.keys;
    const Eigen::MatrixXd centred = all.rowwise() - all.colwise().mean();
    const Eigen::MatrixXd covariance = centred.transpose() * centred / static_cast<double>(all.rows()); // (d, d)
    const Eigen::MatrixXd axes = principal_axes(covariance);
    v.basis = plane == QKPlane::principal ? principal_plane(axes)
                                          : query_key_plane(v.queries.row(query).transpose(), v.keys.row(key).transpose(), axes);
    const double total = covariance.trace();
    v.variance_kept = total > 0.0 ? (v.basis.transpose() * covariance * v.basis).trace() / total : 1.0;
    v.query_points = v.queries * v.basis;                                // (t_q, 2)
    v.key_points = v.keys * v.basis;                                     // (t_k, 2)
    return v;
}

} // namespace core::heads
