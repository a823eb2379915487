// core/train/model.cpp — parameters, forward and backward of the tiny transformer.
//
// [SECTION] layout and initialisation
// [SECTION] layer norm          (forward and backward)
// [SECTION] GELU                (forward and backward)
// [SECTION] causal attention    (forward and backward)
// [SECTION] cross-entropy
// [SECTION] forward pass        (passes 1-5)
// [SECTION] backward pass       (passes 5-1, in reverse)
#include "core/train/model.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace core::train {

// [SECTION] layout and initialisation ------------------------------------------------------------

Layout::Layout(const ModelConfig& m) : config(m) {
    auto add = [&](const std::string& name, int rows, int cols, bool decay) {
        tensors.push_back({name, rows, cols, decay, total});
        total += tensors.back().size();
        return static_cast<int>(tensors.size()) - 1;
    };
    const int D = m.D, HK = m.H * m.d_head();
    W_E = add("embed.W_E", m.vocab, D, true);
    W_pos = add("embed.W_pos", m.T, D, true);
    for (int l = 0; l < m.L; ++l) {
        const std::string p = "blocks." + std::to_string(l) + ".";
        LayerIds ids{};
        ids.ln1_w = add(p + "ln1.w", 1, D, false);
        ids.ln1_b = add(p + "ln1.b", 1, D, false);
        ids.W_Q = add(p + "attn.W_Q", D, HK, true);
        ids.W_K = add(p + "attn.W_K", D, HK, true);
        ids.W_V = add(p + "attn.W_V", D, HK, true);
        ids.W_O = add(p + "attn.W_O", HK, D, true);
        if (m.mlp) {
            ids.ln2_w = add(p + "ln2.w", 1, D, false);
            ids.ln2_b = add(p + "ln2.b", 1, D, false);
            ids.W_in = add(p + "mlp.W_in", D, 4 * D, true);
            ids.b_in = add(p + "mlp.b_in", 1, 4 * D, false);
            ids.W_out = add(p + "mlp.W_out", 4 * D, D, true);
            ids.b_out = add(p + "mlp.b_out", 1, D, false);
        }
        layers.push_back(ids);
    }
    lnf_w = add("ln_f.w", 1, D, false);
    lnf_b = add("ln_f.b", 1, D, false);
    W_U = add("unembed.W_U", D, m.vocab, true);
}

int Layout::find(const std::string& name) const {
    for (size_t i = 0; i < tensors.size(); ++i)
        if (tensors[i].name == name) return static_cast<int>(i);
    return -1;
}

MatrixMap Model::view(std::vector<double>& flat, int id) const {
    const TensorSpec& s = layout.tensors[static_cast<size_t>(id)];
    return MatrixMap(flat.data() + s.offset, s.rows, s.cols);
}

ConstMatrixMap Model::view(const std::vector<double>& flat, int id) const {
    const TensorSpec& s = layout.tensors[static_cast<size_t>(id)];
    return ConstMatrixMap(flat.data() + s.offset, s.rows, s.cols);
}

void initialise(Model& model, Init init, Rng& rng) {
    const Layout& lay = model.layout;
    // small: every matrix N(0, 0.02²). large: W_E and W_pos N(0, 1), so that after LN₁ the layer-1
    // heads see token and position clearly; the heads then form within a few hundred steps.
    const double matrix_std = 0.02, embed_std = init == Init::large ? 1.0 : 0.02;
    for (size_t i = 0; i < lay.tensors.size(); ++i) {
        const TensorSpec& s = lay.tensors[i];
        const bool embedding = static_cast<int>(i) == lay.W_E || static_cast<int>(i) == lay.W_pos;
        const bool gain = s.name.size() > 2 && s.name.compare(s.name.size() - 2, 2, ".w") == 0;
        const double std = !s.decay ? 0.0 : embedding ? embed_std : matrix_std;
        double* p = model.params.data() + s.offset;
        for (size_t j = 0; j < s.size(); ++j) p[j] = gain ? 1.0 : std * rng.normal();
    }
}

void Workspace::resize(const ModelConfig& m, int batch, int len) {
    B = batch;
    t = len;
    const Eigen::Index N = B * t, D = m.D, HK = m.H * m.d_head(), F = 4 * m.D;
    layers.resize(static_cast<size_t>(m.L));
    for (LayerCache& c : layers) {
        for (Matrix* x : {&c.resid_in, &c.a1, &c.resid_mid, &c.ln1.xhat}) x->resize(N, D);
        for (Matrix* x : {&c.q, &c.k, &c.v, &c.y}) x->resize(N, HK);
        c.ln1.rstd.resize(N);
        c.att.assign(static_cast<size_t>(N * m.H * t), 0.0);
        if (m.mlp) {
            c.ln2.xhat.resize(N, D);
            c.ln2.rstd.resize(N);
            c.a2.resize(N, D);
            c.hpre.resize(N, F);
            c.hact.resize(N, F);
        }
    }
    for (Matrix* x : {&resid_out, &af, &lnf.xhat, &dresid, &da}) x->resize(N, D);
    lnf.rstd.resize(N);
    logits.resize(N, m.vocab);
    dlogits.resize(N, m.vocab);
    for (Matrix* x : {&dq, &dk, &dv, &dy}) x->resize(N, HK);
    if (m.mlp) dh.resize(N, F);
    dscores.resize(t, t);
}

ConstMatrixMap Workspace::attention(int l, int b, int h) const {
    const LayerCache& c = layers[static_cast<size_t>(l)];
    const int H = static_cast<int>(c.att.size() / (static_cast<size_t>(B) * static_cast<size_t>(t) * static_cast<size_t>(t)));
    return ConstMatrixMap(c.att.data() + (static_cast<size_t>(b) * static_cast<size_t>(H) + static_cast<size_t>(h)) * static_cast<size_t>(t * t), t, t);
}

namespace {

using RowVec = Eigen::RowVectorXd;

// [SECTION] layer norm ----------------------------------------------------------------------------

constexpr double ln_eps = 1e-5;

// out = (x - mean) / sqrt(var + eps) · w + b, per row; var without Bessel's correction.
void layernorm_forward(const Matrix& x, ConstMatrixMap w, ConstMatrixMap b, Workspace::LN& cache, Matrix& out) {
    // x, out, cache.xhat: (N, D); w, b: (1, D); cache.rstd: (N)
    const double D = static_cast<double>(x.cols());
    for (Eigen::Index i = 0; i < x.rows(); ++i) {
        const double mean = x.row(i).sum() / D;
        cache.xhat.row(i) = x.row(i).array() - mean;
        const double var = cache.xhat.row(i).squaredNorm() / D;
        cache.rstd(i) = 1.0 / std::sqrt(var + ln_eps);
        cache.xhat.row(i) *= cache.rstd(i);
        out.row(i) = cache.xhat.row(i).cwiseProduct(w) + b;
    }
}

// Adds dx for dout to `dx`, and dw, db to their gradients.
void layernorm_backward(const Matrix& dout, ConstMatrixMap w, const Workspace::LN& cache, Matrix& dx, MatrixMap dw, MatrixMap db) {
    // dout, dx: (N, D); w, dw, db: (1, D)
    const double D = static_cast<double>(dout.cols());
    dw += (dout.cwiseProduct(cache.xhat)).colwise().sum();
    db += dout.colwise().sum();
    for (Eigen::Index i = 0; i < dout.rows(); ++i) {
        const RowVec dxhat = dout.row(i).cwiseProduct(w);               // (1, D)
        const double mean_d = dxhat.sum() / D;
        const double mean_dx = dxhat.dot(cache.xhat.row(i)) / D;
        dx.row(i) += cache.rstd(i) * (dxhat.array() - mean_d - cache.xhat.row(i).array() * mean_dx).matrix();
    }
}

// [SECTION] GELU ----------------------------------------------------------------------------------

constexpr double gelu_c = 0.7978845608028654; // sqrt(2 / pi)

void gelu_forward(const Matrix& x, Matrix& out) {
    out = x.unaryExpr([](double v) { return 0.5 * v * (1.0 + std::tanh(gelu_c * (v + 0.044715 * v * v * v))); });
}

// dx = dout · GELU'(x)
void gelu_backward(const Matrix& x, Matrix& d) {
    d = d.binaryExpr(x, [](double g, double v) {
        const double th = std::tanh(gelu_c * (v + 0.044715 * v * v * v));
        const double dinner = gelu_c * (1.0 + 3.0 * 0.044715 * v * v);
        return g * (0.5 * (1.0 + th) + 0.5 * v * (1.0 - th * th) * dinner);
    });
}

// [SECTION] causal attention ----------------------------------------------------------------------

// y_h = softmax(q_h k_hᵀ / √d_head, causal) v_h for every sequence and head; probabilities kept in att.
void attention_forward(const Workspace::LayerCache& in, int B, int t, int H, int dk, std::vector<double>& att, Matrix& y) {
    const double scale = 1.0 / std::sqrt(static_cast<double>(dk));
    for (int b = 0; b < B; ++b) {
        for (int h = 0; h < H; ++h) {
            const auto q = in.q.block(b * t, h * dk, t, dk);                        // (t, dk)
            const auto k = in.k.block(b * t, h * dk, t, dk);                        // (t, dk)
            const auto v = in.v.block(b * t, h * dk, t, dk);                        // (t, dk)
            MatrixMap P(att.data() + static_cast<size_t>((b * H + h) * t * t), t, t); // (t, t)
            P.noalias() = q * k.transpose();
            for (int i = 0; i < t; ++i) {
                auto row = P.row(i).head(i + 1);
                const double top = row.maxCoeff();
                row = ((row.array() - top) * scale).exp();
                row /= row.sum();
                P.row(i).tail(t - i - 1).setZero();
            }
            y.block(b * t, h * dk, t, dk).noalias() = P * v;
        }
    }
}

// From dy, the gradients of q, k and v (overwritten).
void attention_backward(Workspace::LayerCache& c, Workspace& ws, int H, int dk) {
    const int B = ws.B, t = ws.t;
    const double scale = 1.0 / std::sqrt(static_cast<double>(dk));
    Matrix& dS = ws.dscores;                                                      // (t, t)
    for (int b = 0; b < B; ++b) {
        for (int h = 0; h < H; ++h) {
            const auto q = c.q.block(b * t, h * dk, t, dk);                        // (t, dk)
            const auto k = c.k.block(b * t, h * dk, t, dk);
            const auto v = c.v.block(b * t, h * dk, t, dk);
            const auto dy = ws.dy.block(b * t, h * dk, t, dk);
            ConstMatrixMap P(c.att.data() + static_cast<size_t>((b * H + h) * t * t), t, t);
            ws.dv.block(b * t, h * dk, t, dk).noalias() = P.transpose() * dy;     // (t, dk)
            dS.noalias() = dy * v.transpose();                                    // dP (t, t)
            // softmax: dS_ij = P_ij (dP_ij - Σ_j' P_ij' dP_ij'), then the 1/√d_head
            for (int i = 0; i < t; ++i) {
                const double dot = P.row(i).dot(dS.row(i));
                dS.row(i) = (P.row(i).array() * (dS.row(i).array() - dot) * scale).matrix();
            }
            ws.dq.block(b * t, h * dk, t, dk).noalias() = dS * k;                 // (t, dk)
            ws.dk.block(b * t, h * dk, t, dk).noalias() = dS.transpose() * q;     // (t, dk)
        }
    }
}

// A knocked-out head's output, (t, dk) per sequence: zero, or each column's mean over the t positions.
void knock_out(const Knockouts& knockouts, int layer, int B, int t, int dk, Matrix& y) {
    for (const core::heads::HeadRef& id : knockouts.heads) {
        if (id.layer != layer) continue;
        for (int b = 0; b < B; ++b) {
            auto block = y.block(b * t, id.head * dk, t, dk);                     // (t, dk)
            if (knockouts.ablation == core::heads::Ablation::zero) block.setZero();
            else block.rowwise() = block.colwise().mean().eval();
        }
    }
}

// [SECTION] cross-entropy -------------------------------------------------------------------------

// Sums -log softmax(logits)[target] over the scored rows; when dlogits is given, writes
// (softmax - onehot) / normaliser there (zero rows where nothing is scored).
LossSum cross_entropy(const Matrix& logits, const int* targets, Matrix* dlogits, double normaliser) {
    LossSum s;
    for (Eigen::Index i = 0; i < logits.rows(); ++i) {
        const int target = targets[i];
        if (dlogits) dlogits->row(i).setZero();
        if (target < 0) continue;
        Eigen::Index best = 0;
        const double top = logits.row(i).maxCoeff(&best);
        const double z = (logits.row(i).array() - top).exp().sum();
        s.loss += std::log(z) - (logits(i, target) - top);
        s.correct += best == target ? 1 : 0;
        s.scored += 1;
        if (dlogits) {
            dlogits->row(i) = ((logits.row(i).array() - top).exp() / (z * normaliser)).matrix();
            (*dlogits)(i, target) -= 1.0 / normaliser;
        }
    }
    return s;
}

} // namespace

// [SECTION] forward pass --------------------------------------------------------------------------

void check_knockouts(const ModelConfig& m, const Knockouts* knockouts) {
    if (knockouts)
        for (const core::heads::HeadRef& id : knockouts->heads)
            if (id.layer < 0 || id.layer >= m.L || id.head < 0 || id.head >= m.H)
                throw std::invalid_argument("no head " + std::to_string(id.layer + 1) + "." + std::to_string(id.head + 1) + " to knock out in a model of " +
                                            std::to_string(m.L) + " layers of " + std::to_string(m.H) + " heads");
}

LossSum forward(const Model& model, const Batch& batch, int first, Workspace& ws, const Knockouts* knockouts) {
    const Layout& lay = model.layout;
    const ModelConfig& m = lay.config;
    const int B = ws.B, t = ws.t, N = B * t, dk = m.d_head();
    const int* tokens = batch.tokens.data() + static_cast<size_t>(first) * static_cast<size_t>(batch.t);
    check_knockouts(m, knockouts);

    // 1. embedding: x = W_E[token] + W_pos[position]                     (N, D)
    Matrix* x = &ws.resid_out;
    if (m.L > 0) x = &ws.layers[0].resid_in;
    const ConstMatrixMap W_E = model.tensor(lay.W_E), W_pos = model.tensor(lay.W_pos); // (vocab, D), (T, D)
    for (int i = 0; i < N; ++i) x->row(i) = W_E.row(tokens[i]) + W_pos.row(i % t);

    for (int l = 0; l < m.L; ++l) {
        Workspace::LayerCache& c = ws.layers[static_cast<size_t>(l)];
        const LayerIds& id = lay.layers[static_cast<size_t>(l)];
        // 2. attention: x_mid = x + concat_h(A_h v_h) W_O
        layernorm_forward(c.resid_in, model.tensor(id.ln1_w), model.tensor(id.ln1_b), c.ln1, c.a1); // (N, D)
        c.q.noalias() = c.a1 * model.tensor(id.W_Q);                       // (N, HK)
        c.k.noalias() = c.a1 * model.tensor(id.W_K);                       // (N, HK)
        c.v.noalias() = c.a1 * model.tensor(id.W_V);                       // (N, HK)
        attention_forward(c, B, t, m.H, dk, c.att, c.y);                   // y (N, HK)
        if (knockouts) knock_out(*knockouts, l, B, t, dk, c.y);
        c.resid_mid = c.resid_in;
        c.resid_mid.noalias() += c.y * model.tensor(id.W_O);               // (N, D)
        // 3. MLP: x_out = x_mid + GELU(LN₂(x_mid) W_in + b_in) W_out + b_out
        Matrix& out = l + 1 < m.L ? ws.layers[static_cast<size_t>(l + 1)].resid_in : ws.resid_out;
        out = c.resid_mid;
        if (m.mlp) {
            layernorm_forward(c.resid_mid, model.tensor(id.ln2_w), model.tensor(id.ln2_b), c.ln2, c.a2); // (N, D)
            c.hpre.noalias() = c.a2 * model.tensor(id.W_in);               // (N, 4D)
            c.hpre.rowwise() += model.tensor(id.b_in).row(0);
            gelu_forward(c.hpre, c.hact);                                  // (N, 4D)
            out.noalias() += c.hact * model.tensor(id.W_out);              // (N, D)
            out.rowwise() += model.tensor(id.b_out).row(0);
        }
    }
    // 4. logits = LN_f(x) W_U                                            (N, vocab)
    layernorm_forward(ws.resid_out, model.tensor(lay.lnf_w), model.tensor(lay.lnf_b), ws.lnf, ws.af);
    ws.logits.noalias() = ws.af * model.tensor(lay.W_U);
    // 5. loss over the scored positions
    const int* targets = batch.targets.data() + static_cast<size_t>(first) * static_cast<size_t>(batch.t);
    return cross_entropy(ws.logits, targets, nullptr, 1.0);
}

// [SECTION] backward pass -------------------------------------------------------------------------

void backward(const Model& model, const Batch& batch, int first, Workspace& ws, double normaliser, std::vector<double>& grad) {
    const Layout& lay = model.layout;
    const ModelConfig& m = lay.config;
    const int t = ws.t, N = ws.B * t;
    auto g = [&](int id) { return model.view(grad, id); };
    const int* targets = batch.targets.data() + static_cast<size_t>(first) * static_cast<size_t>(batch.t);
    const int* tokens = batch.tokens.data() + static_cast<size_t>(first) * static_cast<size_t>(batch.t);

    // 5. loss: dlogits = (softmax - onehot) / normaliser                 (N, vocab)
    cross_entropy(ws.logits, targets, &ws.dlogits, normaliser);
    // 4. logits = LN_f(x) W_U
    g(lay.W_U).noalias() += ws.af.transpose() * ws.dlogits;                // (D, vocab)
    ws.da.noalias() = ws.dlogits * model.tensor(lay.W_U).transpose();      // (N, D)
    ws.dresid.setZero();
    layernorm_backward(ws.da, model.tensor(lay.lnf_w), ws.lnf, ws.dresid, g(lay.lnf_w), g(lay.lnf_b));

    for (int l = m.L - 1; l >= 0; --l) {
        Workspace::LayerCache& c = ws.layers[static_cast<size_t>(l)];
        const LayerIds& id = lay.layers[static_cast<size_t>(l)];
        // 3. MLP: dresid flows through unchanged and into the branch
        if (m.mlp) {
            g(id.b_out) += ws.dresid.colwise().sum();                      // (1, D)
            g(id.W_out).noalias() += c.hact.transpose() * ws.dresid;       // (4D, D)
            ws.dh.noalias() = ws.dresid * model.tensor(id.W_out).transpose(); // (N, 4D)
            gelu_backward(c.hpre, ws.dh);
            g(id.b_in) += ws.dh.colwise().sum();                           // (1, 4D)
            g(id.W_in).noalias() += c.a2.transpose() * ws.dh;              // (D, 4D)
            ws.da.noalias() = ws.dh * model.tensor(id.W_in).transpose();   // (N, D)
            layernorm_backward(ws.da, model.tensor(id.ln2_w), c.ln2, ws.dresid, g(id.ln2_w), g(id.ln2_b));
        }
        // 2. attention
        g(id.W_O).noalias() += c.y.transpose() * ws.dresid;                // (HK, D)
        ws.dy.noalias() = ws.dresid * model.tensor(id.W_O).transpose();    // (N, HK)
        attention_backward(c, ws, m.H, m.d_head());                        // dq, dk, dv (N, HK)
        g(id.W_Q).noalias() += c.a1.transpose() * ws.dq;                   // (D, HK)
        g(id.W_K).noalias() += c.a1.transpose() * ws.dk;
        g(id.W_V).noalias() += c.a1.transpose() * ws.dv;
        ws.da.noalias() = ws.dq * model.tensor(id.W_Q).transpose();        // (N, D)
        ws.da.noalias() += ws.dk * model.tensor(id.W_K).transpose();
        ws.da.noalias() += ws.dv * model.tensor(id.W_V).transpose();
        layernorm_backward(ws.da, model.tensor(id.ln1_w), c.ln1, ws.dresid, g(id.ln1_w), g(id.ln1_b));
    }
    // 1. embedding
    MatrixMap dW_E = g(lay.W_E), dW_pos = g(lay.W_pos);                    // (vocab, D), (T, D)
    for (int i = 0; i < N; ++i) {
        dW_E.row(tokens[i]) += ws.dresid.row(i);
        dW_pos.row(i % t) += ws.dresid.row(i);
    }
}

} // namespace core::train
