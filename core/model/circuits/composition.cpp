// core/model/circuits/composition.cpp — composition scores from the weights (composition.h).
#include "core/model/circuits/composition.h"

#include "core/model/attention_weights.h"
#include "core/model/ops.h"

#include <Eigen/QR>

#include <algorithm>
#include <limits>

namespace core::model {

namespace {

using MatrixD = Eigen::MatrixXd;

// R (r, dh), r = min(D, dh), with Rᵀ R = Xᵀ X for X (D, dh): the triangle of X's QR.
MatrixD triangle(const MatrixD& X) {
    const Eigen::Index r = std::min(X.rows(), X.cols());
    const Eigen::HouseholderQR<MatrixD> qr(X);
    return qr.matrixQR().topRows(r).triangularView<Eigen::Upper>();
}

// X (D, dh) with row d times γ_d, in double.
MatrixD folded(const MatrixF& X, const std::vector<float>& gamma) {
    MatrixD out = X.cast<double>();
    for (Eigen::Index d = 0; d < out.rows(); ++d) out.row(d) *= gamma[static_cast<std::size_t>(d)];
    return out;
}

// One layer's heads as the products take them: head h's rows h·r … h·r + r − 1 of `writers` are
// R_V W_O, of `readers` R_Y Xᵀ, where the kind reads through X and Y is X's partner
// (K: X = W_K, Y = W_Q; Q: X = W_Q, Y = W_K; V: X = W_V, Y = W_Oᵀ), so that a block of
// writers · readersᵀ has the Frobenius norm of W_OV¹ times the reader's matrix.
struct LayerSide {
    MatrixF writers, readers;                     // (H·r, D) each
    std::vector<double> writer_norm, reader_norm; // (H) ‖W_OV‖, and ‖W_QK‖ (K, Q) or ‖W_OV‖ (V)
};

LayerSide layer_side(const LayerAttention& a, CompositionKind kind, int D) {
    const int H = a.heads, r = std::min(D, a.d_head);
    LayerSide s{MatrixF(H * r, D), MatrixF(H * r, D), std::vector<double>(H), std::vector<double>(H)};
    for (int h = 0; h < H; ++h) {
        const auto kv = static_cast<std::size_t>(a.kv_of(h));
        const MatrixD Q = folded(a.q[static_cast<std::size_t>(h)], a.gamma), K = folded(a.k[kv], a.gamma); // (D, dh)
        const MatrixD V = folded(a.v[kv], a.gamma), Ot = a.o[static_cast<std::size_t>(h)].cast<double>().transpose();
        const MatrixD RQ = triangle(Q), RK = triangle(K), RV = triangle(V), RO = triangle(Ot); // (r, dh)
        s.writers.middleRows(h * r, r) = (RV * Ot.transpose()).cast<float>();
        s.writer_norm[static_cast<std::size_t>(h)] = (RV * RO.transpose()).norm();
        const MatrixD reader = kind == CompositionKind::k ? RQ * K.transpose() : kind == CompositionKind::q ? RK * Q.transpose() : RO * V.transpose();
        s.readers.middleRows(h * r, r) = reader.cast<float>();
        s.reader_norm[static_cast<std::size_t>(h)] = kind == CompositionKind::v ? s.writer_norm[static_cast<std::size_t>(h)] : (RQ * RK.transpose()).norm();
    }
    return s;
}

// Layer l1's heads into layer l2's: the blocks of writers¹ · readers²ᵀ (H·r, H·r).
void score_pair(const LayerSide& w, const LayerSide& rd, int l1, int l2, CompositionScores& out) {
    const auto n = static_cast<ops::Index>(w.writers.rows()), D = static_cast<ops::Index>(w.writers.cols());
    const int H = out.heads, r = static_cast<int>(n) / H;
    MatrixF C(n, n); // (H·r, H·r)
    ops::active().gemm({w.writers.data(), D, rd.readers.data(), D, true, C.data(), n, n, D, n}, true);
    for (int h1 = 0; h1 < H; ++h1)
        for (int h2 = 0; h2 < H; ++h2) {
            const double norm = C.block(h1 * r, h2 * r, r, r).cast<double>().norm();
            const double scale = w.writer_norm[static_cast<std::size_t>(h1)] * rd.reader_norm[static_cast<std::size_t>(h2)];
            out.scores[((static_cast<std::size_t>(l1) * H + h1) * out.layers + l2) * H + h2] =
                scale > 0 ? norm / scale : std::numeric_limits<double>::quiet_NaN();
        }
}

} // namespace

CompositionScores composition_scores(const Model& model, CompositionKind kind, const std::atomic<bool>* cancel) {
    const ModelConfig& c = model.config();
    CompositionScores out{c.layers, c.heads, {}};
    out.scores.assign(static_cast<std::size_t>(c.layers) * c.heads * c.layers * c.heads, std::numeric_limits<double>::quiet_NaN());
    std::vector<LayerSide> sides;
    for (int l = 0; l < c.layers; ++l) {
        if (cancel && cancel->load()) throw Cancelled();
        sides.push_back(layer_side(model.attention_weights(l), kind, c.d_model));
        for (int l1 = 0; l1 < l; ++l1) score_pair(sides[static_cast<std::size_t>(l1)], sides.back(), l1, l, out);
    }
    return out;
}

} // namespace core::model
