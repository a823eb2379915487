// core/heads/rollout.cpp — attention rollout and the mean over heads.
#include "core/heads/rollout.h"

#include "core/parallel.h"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace core::heads {

namespace {

constexpr Eigen::Index rollout_block = 128;

template <class M>
bool lower_triangular(const M& A) {
    for (Eigen::Index i = 0; i + 1 < A.rows(); ++i)
        if ((A.row(i).tail(A.cols() - i - 1).array() != 0).any()) return false;
    return true;
}

// out = a · r for lower-triangular a and r (t, t): block (I, J) sums a(I, K) r(K, J) for J ≤ K ≤ I,
// one product over the contiguous keys J·b … the end of block I. Block rows go to the cores.
template <class M>
struct TriangularProduct {
    const M* a;
    const M* r;
    M* out;
    Eigen::Index t;
    FloatProduct product;
    static void row(void* context, std::ptrdiff_t I) {
        const auto& c = *static_cast<TriangularProduct*>(context);
        const Eigen::Index b = rollout_block, i0 = I * b, ni = std::min(b, c.t - i0);
        c.out->middleRows(i0, ni).setZero();
        for (Eigen::Index J = 0; J <= I; ++J) {
            const Eigen::Index j0 = J * b, nj = std::min(b, c.t - j0), nk = i0 + ni - j0;
            if constexpr (std::is_same_v<typename M::Scalar, float>) { // the caller's float kernels, built for this CPU
                if (c.product) {
                    c.product(c.a->data() + i0 * c.t + j0, c.t, c.r->data() + j0 * c.t + j0, c.t, c.out->data() + i0 * c.t + j0, c.t, ni, nk, nj);
                    continue;
                }
            }
            c.out->block(i0, j0, ni, nj).noalias() = c.a->block(i0, j0, ni, nk) * c.r->block(j0, j0, nk, nj);
        }
    }
};

// R ← rownorm(A + I) · R, an empty R standing for I (Â_1 · I is Â_1 to the bit); hat, next scratch.
template <class M>
void rollout_step(const M& A, M& R, bool causal, M& hat, M& next, FloatProduct product) {
    const Eigen::Index t = A.rows();
    hat = A + M::Identity(t, t);                                     // Â_l before the row norm
    hat.array().colwise() /= hat.rowwise().sum().array();
    if (R.size() == 0) {
        R = hat;
        return;
    }
    next.resize(t, t);
    if (causal) {
        TriangularProduct<M> job{&hat, &R, &next, t, product};
        core::parallel::for_each((t + rollout_block - 1) / rollout_block, &TriangularProduct<M>::row, &job);
    } else {
        next.noalias() = hat * R;
    }
    R.swap(next);
}

template <class M>
M rollout_of(const std::vector<M>& layers, FloatProduct product) {
    if (layers.empty()) throw std::invalid_argument("rollout needs at least one layer");
    const Eigen::Index t = layers[0].rows();
    bool causal = true;
    for (const M& A : layers) {
        if (A.rows() != t || A.cols() != t)
            throw std::invalid_argument("rollout: a layer's attention is " + shape_text(A.rows(), A.cols()) + ", not " + shape_text(t, t));
        causal = causal && lower_triangular(A);
    }
    M R, next, hat; // (t, t) each
    for (const M& A : layers) rollout_step(A, R, causal, hat, next, product);
    return R;
}

template <class M, class Ref>
M mean_of(const std::vector<Ref>& heads) {
    if (heads.empty()) throw std::invalid_argument("the mean over heads needs at least one head");
    M mean = heads[0];
    for (size_t h = 1; h < heads.size(); ++h) {
        if (heads[h].rows() != mean.rows() || heads[h].cols() != mean.cols())
            throw std::invalid_argument("mean over heads: head " + std::to_string(h + 1) + " is " + shape_text(heads[h].rows(), heads[h].cols()));
        mean += heads[h];
    }
    mean /= static_cast<typename M::Scalar>(heads.size());
    return mean;
}

} // namespace

MatrixF rollout(const std::vector<MatrixF>& layer_mean_attention, FloatProduct product) { return rollout_of(layer_mean_attention, product); }
core::Matrix rollout(const std::vector<core::Matrix>& layer_mean_attention) { return rollout_of(layer_mean_attention, nullptr); }
MatrixF rollout(const float* attention, int layers, int heads, int t, FloatProduct product) {
    std::vector<MatrixF> means;
    const std::ptrdiff_t size = static_cast<std::ptrdiff_t>(t) * t;
    for (int l = 0; l < layers; ++l) means.push_back(mean_over_heads(attention + static_cast<std::ptrdiff_t>(l) * heads * size, heads, t));
    return rollout_of(means, product);
}

void rollout_layer(const MatrixF& layer_mean_attention, MatrixF& R, bool causal, FloatProduct product) {
    const Eigen::Index t = layer_mean_attention.rows();
    if (layer_mean_attention.cols() != t || (R.size() && (R.rows() != t || R.cols() != t)))
        throw std::invalid_argument("rollout: a layer's attention is " + shape_text(t, layer_mean_attention.cols()) + " for a rollout of " + shape_text(R.rows(), R.cols()));
    MatrixF hat, next; // (t, t)
    rollout_step(layer_mean_attention, R, causal, hat, next, product);
}

namespace {

// Rows i0 … of the mean: the heads summed in order, then divided, as mean_of does.
struct HeadMean {
    const float* layer;
    int heads;
    Eigen::Index t;
    MatrixF* mean;
    static constexpr Eigen::Index rows = 64;
    static void block(void* context, std::ptrdiff_t b) {
        const auto& c = *static_cast<HeadMean*>(context);
        const Eigen::Index i0 = b * rows, n = std::min(rows, c.t - i0);
        auto out = c.mean->middleRows(i0, n);
        const std::ptrdiff_t size = static_cast<std::ptrdiff_t>(c.t) * c.t;
        out = Eigen::Map<const MatrixF>(c.layer + i0 * c.t, n, c.t);
        for (int h = 1; h < c.heads; ++h) out += Eigen::Map<const MatrixF>(c.layer + h * size + i0 * c.t, n, c.t);
        out /= static_cast<float>(c.heads);
    }
};

} // namespace

MatrixF mean_over_heads(const float* layer, int heads, int t) {
    if (heads < 1) throw std::invalid_argument("the mean over heads needs at least one head");
    MatrixF mean(t, t); // (t, t)
    HeadMean job{layer, heads, t, &mean};
    core::parallel::for_each((t + HeadMean::rows - 1) / HeadMean::rows, &HeadMean::block, &job);
    return mean;
}

MatrixF mean_over_heads(const std::vector<AttentionRefF>& heads) { return mean_of<MatrixF>(heads); }
core::Matrix mean_over_heads(const std::vector<AttentionRefD>& heads) { return mean_of<core::Matrix>(heads); }

} // namespace core::heads
