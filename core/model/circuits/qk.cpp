// core/model/circuits/qk.cpp — a head's scores as sums over pairs of components (qk.h).
#include "core/model/circuits/qk.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>

namespace core::model {

namespace {

using MatrixD = Eigen::MatrixXd;
using RowD = Eigen::RowVectorXd;

RowD row_of(const std::vector<float>& v) { return Eigen::Map<const Eigen::RowVectorXf>(v.data(), static_cast<Eigen::Index>(v.size())).cast<double>(); }

// Row p of every part through the norm before the attention, frozen at their sum's scale: (C, D).
MatrixD normed(const QkStream& s, int p) {
    const NormWeights& n = s.weights.norm;
    MatrixD X(static_cast<Eigen::Index>(s.parts.parts.size()), s.parts.parts.empty() ? 0 : s.parts.parts[0].cols()); // (C, D)
    for (Eigen::Index c = 0; c < X.rows(); ++c) X.row(c) = s.parts.parts[static_cast<std::size_t>(c)].row(p).cast<double>();
    if (n.kind == NormWeights::Kind::none) return X;
    const bool centre = n.kind == NormWeights::Kind::layer;
    const RowD x = X.colwise().sum();
    const double mean = centre ? x.mean() : 0.0;
    const double inverse = 1.0 / std::sqrt((x.array() - mean).square().mean() + n.eps);
    const RowD gain = row_of(n.scale) * inverse;
    for (Eigen::Index c = 0; c < X.rows(); ++c) {
        if (centre) X.row(c).array() -= X.row(c).mean();
        X.row(c) = X.row(c).cwiseProduct(gain);
    }
    if (!n.shift.empty()) X.row(part_index(s.parts, "biases")) += row_of(n.shift);
    return X;
}

// One side at position p: each component's q (or k) and the bias's, (C, dh) and (dh), through the
// frozen q/k norm and RoPE.
struct Side {
    MatrixD rows;
    RowD bias;
};

// The frozen q/k norm's gain (dh) on head `head`'s values: the RMS of the real q (or k) over the
// head's own dh values (Qwen3, Gemma 3), or over every head's (OLMo 2, NormWeights::whole), whose
// rows all (heads × (D, dh)) and biases (heads, dh) give it from the normed stream x (D).
RowD qk_gain(const NormWeights& n, const RowD& x, const std::vector<MatrixF>& all, const MatrixF& biases, int head) {
    const Eigen::Index dh = all[0].cols();
    double squares = 0.0, count = 0.0;
    for (int h = 0; h < static_cast<int>(all.size()); ++h) {
        if (!n.whole && h != head) continue;
        RowD values = x * all[static_cast<std::size_t>(h)].cast<double>(); // (dh)
        if (biases.size()) values += biases.row(h).cast<double>();
        squares += values.squaredNorm();
        count += static_cast<double>(dh);
    }
    const RowD scale = row_of(n.scale).segment(n.whole ? head * dh : 0, dh);
    return scale / std::sqrt(squares / count + n.eps);
}

Side side(const QkStream& s, const std::vector<MatrixF>& all, const MatrixF& biases, int head, const NormWeights& qk_norm, int p) {
    const MatrixF& W = all[static_cast<std::size_t>(head)];
    const Eigen::Index dh = W.cols();
    const MatrixD X = normed(s, p); // (C, D)
    Side out{X * W.cast<double>(), biases.size() ? RowD(biases.row(head).cast<double>()) : RowD::Zero(dh)};
    if (qk_norm.kind != NormWeights::Kind::none) {
        const RowD gain = qk_gain(qk_norm, X.colwise().sum(), all, biases, head);
        out.rows = out.rows * gain.asDiagonal();
        out.bias = out.bias.cwiseProduct(gain);
    }
    if (s.weights.rotation) {
        const MatrixD R = s.weights.rotation(p).cast<double>(); // (dh, dh)
        out.rows = out.rows * R;
        out.bias = out.bias * R;
    }
    return out;
}

// "output of head 1.3" for a head's or an MLP's part, else the part's own name.
std::string in_words(const std::string& name) {
    return name.rfind("head ", 0) == 0 || name.rfind("MLP ", 0) == 0 ? "output of " + name : name;
}

std::string number(double v, int decimals) {
    char text[32];
    std::snprintf(text, sizeof text, "%+.*f", decimals, v);
    return text;
}

} // namespace

QkStream qk_stream(const Model& model, const std::vector<int>& ids, int layer) {
    const ModelConfig& c = model.config();
    if (layer < 0 || layer >= c.layers)
        throw InputError("layer " + std::to_string(layer + 1) + ": " + c.name + " has " + std::to_string(c.layers) + " layers");
    QkStream s{layer, stream_parts(model, ids, layer), model.attention_weights(layer)};
    if (!s.weights.norm.shift.empty() && part_index(s.parts, "biases") < 0) {
        s.parts.names.push_back("biases");
        s.parts.parts.push_back(MatrixF::Zero(static_cast<Eigen::Index>(ids.size()), c.d_model));
    }
    return s;
}

QkAttribution qk_attribution(const QkStream& s, int head, int query, int key) {
    const LayerAttention& w = s.weights;
    const int kv = w.kv_of(head);
    const Side q = side(s, w.q, w.q_bias, head, w.q_norm, query);
    const Side k = side(s, w.k, w.k_bias, kv, w.k_norm, key);
    const double scale = w.score_scale;
    QkAttribution a{head, query, key, s.parts.names, scale * q.rows * k.rows.transpose(), 0.0, 0.0};
    a.bias = scale * (q.bias.dot(k.rows.colwise().sum()) + q.rows.colwise().sum().dot(k.bias) + q.bias.dot(k.bias));
    a.score = a.pairs.sum() + a.bias;
    return a;
}

std::vector<int> visible_keys(const QkStream& s, int query) {
    std::vector<int> keys;
    const int t = s.parts.parts.empty() ? 0 : static_cast<int>(s.parts.parts[0].rows());
    for (int j = 0; j < t; ++j)
        if (s.weights.visible(query, j)) keys.push_back(j);
    return keys;
}

std::vector<std::string> top_pairs_in_words(const QkAttribution& a, int count) {
    std::vector<Eigen::Index> order(static_cast<std::size_t>(a.pairs.size()));
    std::iota(order.begin(), order.end(), Eigen::Index{0});
    const auto size = [&](Eigen::Index k) { return std::abs(a.pairs(k / a.pairs.cols(), k % a.pairs.cols())); };
    std::stable_sort(order.begin(), order.end(), [&](Eigen::Index x, Eigen::Index y) { return size(x) > size(y); });
    const int decimals = std::abs(a.score) >= 1.0 ? 1 : 3;
    std::vector<std::string> lines;
    for (std::size_t n = 0; n < order.size() && static_cast<int>(n) < count; ++n) {
        const Eigen::Index qa = order[n] / a.pairs.cols(), kb = order[n] % a.pairs.cols();
        lines.push_back("query's " + in_words(a.components[static_cast<std::size_t>(qa)]) + " × key's " +
                        in_words(a.components[static_cast<std::size_t>(kb)]) + ": " + number(a.pairs(qa, kb), decimals) + " of " +
                        number(a.score, decimals).substr(a.score >= 0 ? 1 : 0));
    }
    return lines;
}

} // namespace core::model
