#include "core/decoder.h"

#include <cmath>
#include <limits>

namespace core {

Decoder::Decoder(Scenario s) : scenario_(std::move(s)) {
    require_valid(scenario_);
    x_in_ = scenario_.X;
    if (scenario_.positional == Positional::sinusoidal)
        x_in_ += sinusoidal_positions(scenario_.n(), scenario_.d_model());
    for (size_t h = 0; h < scenario_.heads.size(); ++h) {
        k_cache_.emplace_back(scenario_.n(), scenario_.d_k());
        v_cache_.emplace_back(scenario_.n(), scenario_.d_v());
    }
}

long long Decoder::cache_bytes_per_head() const {
    return static_cast<long long>(t_) * (scenario_.d_k() + scenario_.d_v()) * static_cast<long long>(sizeof(double));
}

DecodeStep Decoder::step() {
    const int i = t_; // 0-based index of the new token
    DecodeStep out;
    out.t = i + 1;
    out.token = scenario_.tokens[i];
    out.kv_rows_without_cache = i + 1;
    const Eigen::Index first = visible_keys(scenario_, i).lo; // the sliding window's first key
    const Eigen::Index d_v = scenario_.d_v();
    Eigen::RowVectorXd concat(static_cast<Eigen::Index>(scenario_.heads.size()) * d_v); // (H·d_v)
    for (size_t h = 0; h < scenario_.heads.size(); ++h) {
        const Head& w = scenario_.heads[h];
        Eigen::RowVectorXd q;                                          // (d_k)
        if (scenario_.direct) {                                        // Q, K, V given: the new rows as they are
            q = w.Q.row(i);
            k_cache_[h].row(i) = w.K.row(i);
            v_cache_[h].row(i) = w.V.row(i);
        } else {
            const auto x = x_in_.row(i);                               // (d_model)
            q = x * w.W_Q;
            k_cache_[h].row(i).noalias() = x * w.W_K;                  // the one new K row
            v_cache_[h].row(i).noalias() = x * w.W_V;                  // the one new V row
        }
        if (scenario_.pin && scenario_.pin->head == static_cast<int>(h) && scenario_.pin->row == i)
            q = scenario_.pin->q.transpose();
        const auto keys = k_cache_[h].topRows(i + 1);                  // (t, d_k)
        const auto values = v_cache_[h].topRows(i + 1);                // (t, d_v)
        Vector scores = keys * q.transpose();                          // (t)
        for (Eigen::Index j = 0; j < scores.size(); ++j)
            scores[j] = j < first ? -std::numeric_limits<double>::infinity() : logit(scenario_, scores[j]);
        softmax_prefix(scores.data(), scores.size(), scores.size());
        concat.segment(static_cast<Eigen::Index>(h) * d_v, d_v).noalias() = scores.transpose() * values;
        out.weights.push_back(std::move(scores));
    }
    if (scenario_.W_O.size() != 0) out.output = (concat * scenario_.W_O).transpose(); // (d_model)
    else out.output = concat.transpose();                                              // (H·d_v)
    ++t_;
    return out;
}

std::vector<DecodeStep> decode_all(const Scenario& s) {
    Decoder decoder(s);
    std::vector<DecodeStep> steps;
    while (!decoder.done()) steps.push_back(decoder.step());
    return steps;
}

} // namespace core
