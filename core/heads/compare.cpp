// core/heads/compare.cpp — the Jensen–Shannon divergence of two maps and the prompt loss.
#include "core/heads/compare.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace core::heads {

namespace {

template <class Ref>
Eigen::VectorXd js_rows(const Ref& P, const Ref& Q) {
    if (P.rows() != Q.rows() || P.cols() != Q.cols())
        throw std::invalid_argument("Jensen–Shannon divergence: the maps are " + shape_text(P.rows(), P.cols()) + " and " + shape_text(Q.rows(), Q.cols()));
    Eigen::VectorXd out(P.rows());
    auto kl_term = [](double a, double m) { return a > 0.0 ? a * std::log(a / m) : 0.0; };
    for (Eigen::Index i = 0; i < P.rows(); ++i) {
        const double sp = static_cast<double>(P.row(i).sum()), sq = static_cast<double>(Q.row(i).sum());
        if (!(sp > 0.0 && sq > 0.0)) {
            out(i) = std::numeric_limits<double>::quiet_NaN();
            continue;
        }
        double js = 0.0;
        for (Eigen::Index j = 0; j < P.cols(); ++j) {
            const double p = static_cast<double>(P(i, j)) / sp, q = static_cast<double>(Q(i, j)) / sq, m = 0.5 * (p + q);
            js += 0.5 * (kl_term(p, m) + kl_term(q, m));
        }
        out(i) = std::max(0.0, js);
    }
    return out;
}

} // namespace

Eigen::VectorXd js_divergence_rows(const AttentionRefF& P, const AttentionRefF& Q) { return js_rows(P, Q); }
Eigen::VectorXd js_divergence_rows(const AttentionRefD& P, const AttentionRefD& Q) { return js_rows(P, Q); }

// [SECTION] loss on a prompt ----------------------------------------------------------------------

namespace {

template <class Ref>
std::optional<double> loss_of(const Ref& logits, const std::vector<int>& ids) {
    if (logits.rows() != static_cast<Eigen::Index>(ids.size()))
        throw std::invalid_argument("prompt loss: " + std::to_string(logits.rows()) + " rows of logits for " + std::to_string(ids.size()) + " tokens");
    if (ids.size() < 2) return std::nullopt;
    double total = 0.0;
    for (size_t i = 0; i + 1 < ids.size(); ++i) {
        const int target = ids[i + 1];
        if (target < 0 || target >= logits.cols())
            throw std::invalid_argument("prompt loss: token " + std::to_string(i + 2) + " is id " + std::to_string(target) + ", outside the vocabulary of " +
                                        std::to_string(logits.cols()));
        const auto row = logits.row(static_cast<Eigen::Index>(i)).template cast<double>();
        const double top = row.maxCoeff();
        total += top + std::log((row.array() - top).exp().sum()) - row(target);
    }
    return total / static_cast<double>(ids.size() - 1);
}

} // namespace

std::optional<double> prompt_loss(const Eigen::Ref<const MatrixF>& logits, const std::vector<int>& ids) { return loss_of(logits, ids); }
std::optional<double> prompt_loss(const Eigen::Ref<const core::Matrix>& logits, const std::vector<int>& ids) { return loss_of(logits, ids); }

} // namespace core::heads
