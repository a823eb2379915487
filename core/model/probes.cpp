// core/model/probes.cpp — head scores, the probe sequence, rollout, the query–key view, the
// Jensen–Shannon divergence and the prompt loss.
//
// [SECTION] head scores
// [SECTION] the probe sequence
// [SECTION] attention rollout
// [SECTION] the query–key view
// [SECTION] comparing two maps
// [SECTION] loss on a prompt
// [SECTION] head importance
#include "core/model/probes.h"

#include "core/model/next_token.h"
#include "core/model/ops.h"
#include "core/parallel.h"
#include "core/random.h"

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <unordered_map>

namespace core::model {

namespace {

std::string shape(Eigen::Index rows, Eigen::Index cols) {
    return "(" + std::to_string(rows) + ", " + std::to_string(cols) + ")";
}

} // namespace

// [SECTION] head scores ---------------------------------------------------------------------------

ScoreIndex score_index(const std::vector<int>& ids) {
    ScoreIndex ix;
    ix.t = static_cast<int>(ids.size());
    // Where each token occurred so far: duplicate keys of row i are the earlier j with x_j = x_i,
    // induction keys the j + 1 ≤ i − 1 after each of them.
    std::unordered_map<int, std::vector<int>> seen;
    ix.duplicate.start = ix.induction.start = {0};
    for (int i = 0; i < ix.t; ++i) {
        const std::vector<int>& earlier = seen[ids[static_cast<size_t>(i)]];
        if (!earlier.empty()) {
            ix.duplicate.rows.push_back(i);
            ix.duplicate.keys.insert(ix.duplicate.keys.end(), earlier.begin(), earlier.end());
            ix.duplicate.start.push_back(static_cast<int>(ix.duplicate.keys.size()));
        }
        const size_t before = ix.induction.keys.size();
        for (int j : earlier)
            if (j + 1 < i) ix.induction.keys.push_back(j + 1);
        if (ix.induction.keys.size() > before) {
            ix.induction.rows.push_back(i);
            ix.induction.start.push_back(static_cast<int>(ix.induction.keys.size()));
        }
        seen[ids[static_cast<size_t>(i)]].push_back(i);
    }
    return ix;
}

namespace {

template <class Ref>
std::optional<double> listed_mean(const Ref& A, const ScoreIndex::Lists& lists) {
    if (lists.rows.empty()) return std::nullopt;
    double total = 0.0;
    for (size_t r = 0; r < lists.rows.size(); ++r) {
        double row = 0.0;
        for (int k = lists.start[r]; k < lists.start[r + 1]; ++k) row += A(lists.rows[r], lists.keys[static_cast<size_t>(k)]);
        total += row;
    }
    return total / static_cast<double>(lists.rows.size());
}

// −Σ a ln a over a row; max(a, smallest normal) keeps 0 · ln 0 at 0 and stays vectorised.
template <class Ref>
double mean_entropy(const Ref& A) {
    using Scalar = typename Ref::Scalar;
    const Scalar tiny = std::numeric_limits<Scalar>::min();
    double total = 0.0;
    for (Eigen::Index i = 0; i < A.rows(); ++i) {
        Eigen::Index n = A.cols();
        while (n > 0 && A(i, n - 1) == Scalar(0)) --n; // a causal row's zeros past the diagonal
        const auto row = A.row(i).head(n).array();
        total -= static_cast<double>((row * row.max(tiny).log()).sum());
    }
    return A.rows() ? total / static_cast<double>(A.rows()) : 0.0;
}

// row_entropy (t), where given, holds each row's entropy already.
template <class Ref>
HeadScores scores_of(const Ref& A, const ScoreIndex& ix, const float* row_entropy = nullptr) {
    if (A.rows() != ix.t || A.cols() != ix.t)
        throw std::invalid_argument("head scores: the attention is " + shape(A.rows(), A.cols()) + " for " + std::to_string(ix.t) + " tokens");
    HeadScores s;
    if (ix.t >= 2) {
        double sum = 0.0;
        for (int i = 1; i < ix.t; ++i) sum += A(i, i - 1);
        s.previous = sum / (ix.t - 1);
    }
    s.duplicate = listed_mean(A, ix.duplicate);
    s.induction = listed_mean(A, ix.induction);
    if (row_entropy) {
        double total = 0.0;
        for (int i = 0; i < ix.t; ++i) total += static_cast<double>(row_entropy[i]);
        s.entropy = ix.t ? total / ix.t : 0.0;
    } else {
        s.entropy = mean_entropy(A);
    }
    return s;
}

} // namespace

HeadScores head_scores(const AttentionRefF& A, const ScoreIndex& index) { return scores_of(A, index); }
HeadScores head_scores(const AttentionRefD& A, const ScoreIndex& index) { return scores_of(A, index); }

namespace {

struct StackScores {
    const float* attention;
    const float* entropy; // (layers · heads, t) or null
    const ScoreIndex* index;
    std::vector<HeadScores>* out;
    static void head(void* context, std::ptrdiff_t k) {
        const auto& c = *static_cast<StackScores*>(context);
        const std::ptrdiff_t t = c.index->t;
        const Eigen::Map<const MatrixF> A(c.attention + k * t * t, t, t); // (t, t)
        (*c.out)[static_cast<size_t>(k)] = scores_of(A, *c.index, c.entropy ? c.entropy + k * t : nullptr);
    }
};

std::vector<HeadScores> stack_scores(const float* attention, const float* entropy, int layers, int heads, const ScoreIndex& index) {
    std::vector<HeadScores> out(static_cast<size_t>(std::max(0, layers * heads)));
    StackScores job{attention, entropy, &index, &out};
    core::parallel::for_each(static_cast<std::ptrdiff_t>(out.size()), &StackScores::head, &job);
    return out;
}

} // namespace

std::vector<HeadScores> all_head_scores(const float* attention, int layers, int heads, const ScoreIndex& index) {
    return stack_scores(attention, nullptr, layers, heads, index);
}

std::vector<HeadScores> all_head_scores(const ForwardResult& r, const ScoreIndex& index) {
    if (r.t_new != r.t_total || r.t_new != index.t || r.attention.empty())
        throw std::invalid_argument("head scores: the forward ran " + std::to_string(r.t_new) + " of " + std::to_string(r.t_total) +
                                    " positions with" + (r.attention.empty() ? "out" : "") + " attention, for " + std::to_string(index.t) + " tokens");
    const bool entropies = r.entropy.size() * static_cast<size_t>(std::max(r.t_new, 1)) == r.attention.size();
    return stack_scores(r.attention.data(), entropies ? r.entropy.data() : nullptr, r.layers, r.heads, index);
}

// [SECTION] the probe sequence --------------------------------------------------------------------

std::vector<int> probe_sequence(int m, std::uint64_t seed, int vocab, const std::vector<int>& exclude, std::optional<int> bos) {
    if (m < 1) throw std::invalid_argument("the probe needs at least 1 token, not " + std::to_string(m));
    std::vector<char> excluded(static_cast<size_t>(std::max(vocab, 0)), 0);
    for (int id : exclude)
        if (id >= 0 && id < vocab) excluded[static_cast<size_t>(id)] = 1;
    std::vector<int> pool;
    for (int id = 0; id < vocab; ++id)
        if (!excluded[static_cast<size_t>(id)]) pool.push_back(id);
    const int n = static_cast<int>(pool.size());
    if (n < m)
        throw std::invalid_argument("the probe needs " + std::to_string(m) + " distinct tokens; the vocabulary has " + std::to_string(n) +
                                    " that are not special");
    core::NumpyRng rng(seed);
    for (int k = 0; k < m; ++k) {
        const int j = k + std::min(n - k - 1, static_cast<int>(rng.next_double() * (n - k)));
        std::swap(pool[static_cast<size_t>(k)], pool[static_cast<size_t>(j)]);
    }
    std::vector<int> ids;
    if (bos) ids.push_back(*bos);
    for (int copy = 0; copy < 2; ++copy) ids.insert(ids.end(), pool.begin(), pool.begin() + m);
    return ids;
}

// [SECTION] attention rollout ---------------------------------------------------------------------

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
    static void row(void* context, std::ptrdiff_t I) {
        const auto& c = *static_cast<TriangularProduct*>(context);
        const Eigen::Index b = rollout_block, i0 = I * b, ni = std::min(b, c.t - i0);
        c.out->middleRows(i0, ni).setZero();
        for (Eigen::Index J = 0; J <= I; ++J) {
            const Eigen::Index j0 = J * b, nj = std::min(b, c.t - j0), nk = i0 + ni - j0;
            if constexpr (std::is_same_v<typename M::Scalar, float>) // the model's float kernels, built for this CPU
                ops::active().gemm({c.a->data() + i0 * c.t + j0, c.t, c.r->data() + j0 * c.t + j0, c.t, false, c.out->data() + i0 * c.t + j0, c.t, ni, nk, nj},
                                   false);
            else
                c.out->block(i0, j0, ni, nj).noalias() = c.a->block(i0, j0, ni, nk) * c.r->block(j0, j0, nk, nj);
        }
    }
};

// R ← rownorm(A + I) · R, an empty R standing for I (Â_1 · I is Â_1 to the bit); hat, next scratch.
template <class M>
void rollout_step(const M& A, M& R, bool causal, M& hat, M& next) {
    const Eigen::Index t = A.rows();
    hat = A + M::Identity(t, t);                                     // Â_l before the row norm
    hat.array().colwise() /= hat.rowwise().sum().array();
    if (R.size() == 0) {
        R = hat;
        return;
    }
    next.resize(t, t);
    if (causal) {
        TriangularProduct<M> job{&hat, &R, &next, t};
        core::parallel::for_each((t + rollout_block - 1) / rollout_block, &TriangularProduct<M>::row, &job);
    } else {
        next.noalias() = hat * R;
    }
    R.swap(next);
}

template <class M>
M rollout_of(const std::vector<M>& layers) {
    if (layers.empty()) throw std::invalid_argument("rollout needs at least one layer");
    const Eigen::Index t = layers[0].rows();
    bool causal = true;
    for (const M& A : layers) {
        if (A.rows() != t || A.cols() != t)
            throw std::invalid_argument("rollout: a layer's attention is " + shape(A.rows(), A.cols()) + ", not " + shape(t, t));
        causal = causal && lower_triangular(A);
    }
    M R, next, hat; // (t, t) each
    for (const M& A : layers) rollout_step(A, R, causal, hat, next);
    return R;
}

template <class M, class Ref>
M mean_of(const std::vector<Ref>& heads) {
    if (heads.empty()) throw std::invalid_argument("the mean over heads needs at least one head");
    M mean = heads[0];
    for (size_t h = 1; h < heads.size(); ++h) {
        if (heads[h].rows() != mean.rows() || heads[h].cols() != mean.cols())
            throw std::invalid_argument("mean over heads: head " + std::to_string(h + 1) + " is " + shape(heads[h].rows(), heads[h].cols()));
        mean += heads[h];
    }
    mean /= static_cast<typename M::Scalar>(heads.size());
    return mean;
}

} // namespace

MatrixF rollout(const std::vector<MatrixF>& layer_mean_attention) { return rollout_of(layer_mean_attention); }
core::Matrix rollout(const std::vector<core::Matrix>& layer_mean_attention) { return rollout_of(layer_mean_attention); }
MatrixF rollout(const float* attention, int layers, int heads, int t) {
    std::vector<MatrixF> means;
    const std::ptrdiff_t size = static_cast<std::ptrdiff_t>(t) * t;
    for (int l = 0; l < layers; ++l) means.push_back(mean_over_heads(attention + static_cast<std::ptrdiff_t>(l) * heads * size, heads, t));
    return rollout_of(means);
}

void rollout_layer(const MatrixF& layer_mean_attention, MatrixF& R, bool causal) {
    const Eigen::Index t = layer_mean_attention.rows();
    if (layer_mean_attention.cols() != t || (R.size() && (R.rows() != t || R.cols() != t)))
        throw std::invalid_argument("rollout: a layer's attention is " + shape(t, layer_mean_attention.cols()) + " for a rollout of " + shape(R.rows(), R.cols()));
    MatrixF hat, next; // (t, t)
    rollout_step(layer_mean_attention, R, causal, hat, next);
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

// [SECTION] the query–key view --------------------------------------------------------------------

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
        throw std::invalid_argument("query–key view: queries " + shape(Q.rows(), Q.cols()) + " and keys " + shape(K.rows(), K.cols()) +
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

// [SECTION] comparing two maps --------------------------------------------------------------------

namespace {

template <class Ref>
Eigen::VectorXd js_rows(const Ref& P, const Ref& Q) {
    if (P.rows() != Q.rows() || P.cols() != Q.cols())
        throw std::invalid_argument("Jensen–Shannon divergence: the maps are " + shape(P.rows(), P.cols()) + " and " + shape(Q.rows(), Q.cols()));
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

// [SECTION] head importance ----------------------------------------------------------------------

HeadImportance head_importance(const Model& model, const std::vector<int>& ids, const std::atomic<bool>* cancel,
                               const std::function<void(int done, int total)>& progress) {
    const ModelConfig& c = model.config();
    if (!model.causal() || !c.lm_head)
        throw InputError(c.name + ": head importance measures the next-token loss, and " + c.architecture + " does not predict the next token");
    if (ids.size() < 2) throw InputError("head importance needs at least 2 tokens, to predict the second from the first");
    std::vector<MatrixF> residuals; // (layers) × (t, d_model): the intact stream entering each layer
    ForwardOptions o;
    o.attention = false;
    o.logits = Logits::none;
    o.cancel = cancel;
    o.residuals = &residuals;
    HeadImportance out;
    out.loss = prompt_losses(model, model.forward(ids, o).hidden, ids)[0];
    out.delta.resize(c.layers, c.heads);
    o.residuals = nullptr;
    // A layer's knock-outs run as one batch of copies (at most about 2048 rows at once), each copy
    // zeroing one head, so that each layer above is read once per batch rather than once per head.
    const int t = static_cast<int>(ids.size()), batch = std::clamp(2048 / t, 1, c.heads);
    for (int l = 0; l < c.layers; ++l) {
        o.resume_layer = l;
        o.resume_from = &residuals[static_cast<size_t>(l)];
        for (int h0 = 0; h0 < c.heads; h0 += batch) {
            o.copies.clear();
            for (int h = h0; h < std::min(c.heads, h0 + batch); ++h) o.copies.push_back({{l, h}});
            const std::vector<double> losses = prompt_losses(model, model.forward(ids, o).hidden, ids);
            for (int h = h0; h < std::min(c.heads, h0 + batch); ++h) {
                out.delta(l, h) = losses[static_cast<size_t>(h - h0)] - out.loss;
                if (progress) progress(l * c.heads + h + 1, c.layers * c.heads);
                if (cancel && cancel->load(std::memory_order_relaxed)) throw Cancelled();
            }
        }
    }
    return out;
}

} // namespace core::model
