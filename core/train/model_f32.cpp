// core/train/model_f32.cpp — see model_f32.h. The passes are numbered as in model.cpp.
#include "core/train/model_f32.h"

#include <algorithm>

namespace core::train {

namespace {

constexpr float ln_eps = 1e-5f;

size_t count(int a, int b) { return static_cast<size_t>(a) * static_cast<size_t>(b); }

void zero(Buffer<float>& v) { std::fill(v.begin(), v.end(), 0.0f); }

// out = a + b, n values
void add(float* out, const float* a, const float* b, size_t n) {
    for (size_t i = 0; i < n; ++i) out[i] = a[i] + b[i];
}

} // namespace

void ParamsF32::load(const Model& model) {
    const Layout& lay = model.layout;
    flat.assign(model.params.begin(), model.params.end());
    const int D = lay.config.D, HK = lay.config.H * lay.config.d_head();
    qkv.resize(lay.layers.size());
    for (size_t l = 0; l < lay.layers.size(); ++l) {
        Buffer<float>& w = qkv[l]; // (D, 3·HK): [W_Q | W_K | W_V]
        w.resize(count(D, 3 * HK));
        const int parts[3] = {lay.layers[l].W_Q, lay.layers[l].W_K, lay.layers[l].W_V};
        for (int p = 0; p < 3; ++p) {
            const float* src = flat.data() + lay.tensors[static_cast<size_t>(parts[p])].offset; // (D, HK)
            for (int r = 0; r < D; ++r) std::copy_n(src + count(r, HK), HK, w.data() + count(r, 3 * HK) + count(p, HK));
        }
    }
}

void WorkspaceF32::resize(const ModelConfig& m, int batch, int len) {
    B = batch;
    t = len;
    const int N = B * t, D = m.D, HK = m.H * m.d_head(), F = 4 * m.D;
    layers.resize(static_cast<size_t>(m.L));
    for (Layer& c : layers) {
        for (Buffer<float>* x : {&c.resid_in, &c.a1, &c.resid_mid}) x->assign(count(N, D), 0.0f);
        for (Buffer<float>* x : {&c.mean1, &c.rstd1}) x->assign(static_cast<size_t>(N), 0.0f);
        c.qkv.assign(count(N, 3 * HK), 0.0f);
        c.att.assign(count(N * m.H, t), 0.0f);
        c.y.assign(count(N, HK), 0.0f);
        c.dqkv_W.assign(count(D, 3 * HK), 0.0f);
        if (m.mlp) {
            c.a2.assign(count(N, D), 0.0f);
            for (Buffer<float>* x : {&c.mean2, &c.rstd2}) x->assign(static_cast<size_t>(N), 0.0f);
            for (Buffer<float>* x : {&c.hpre, &c.hact}) x->assign(count(N, F), 0.0f);
        }
    }
    for (Buffer<float>* x : {&resid_out, &af, &dresid, &da, &branch}) x->assign(count(N, D), 0.0f);
    for (Buffer<float>* x : {&meanf, &rstdf, &losses}) x->assign(static_cast<size_t>(N), 0.0f);
    logits.assign(count(N, m.vocab), 0.0f);
    dy.assign(count(N, HK), 0.0f);
    dqkv.assign(count(N, 3 * HK), 0.0f);
    if (m.mlp) dh.assign(count(N, F), 0.0f);
    scratch.assign(count(t, t), 0.0f);
    grad.assign(Layout(m).total, 0.0f);
}

namespace {

struct Pass {
    const Layout& lay;
    const ParamsF32& params;
    WorkspaceF32& ws;
    const gpt2_ops::Set<float>& ops;
    const int* tokens;
    const int* targets;
    int N, D, HK, F, V;

    const float* w(int id) const { return params.flat.data() + lay.tensors[static_cast<size_t>(id)].offset; }
    float* g(int id) const { return ws.grad.data() + lay.tensors[static_cast<size_t>(id)].offset; }
    const float* w_or_null(int id) const { return id < 0 ? nullptr : w(id); }

    LossSum forward(const Knockouts* knockouts) const;
    void backward(float scale) const;
};

// A knocked-out head's output, (t, d_head) per sequence of y (N, HK): zero, or each column's mean
// over the sequence's positions.
void knock_out(const Knockouts& knockouts, int layer, int B, int t, int dk, int HK, float* y) {
    for (const core::heads::HeadRef& id : knockouts.heads) {
        if (id.layer != layer) continue;
        for (int b = 0; b < B; ++b) {
            float* block = y + count(b * t, HK) + count(id.head, dk);
            for (int j = 0; j < dk; ++j) {
                double mean = 0.0;
                for (int i = 0; i < t; ++i) mean += block[count(i, HK) + static_cast<size_t>(j)];
                const float value = knockouts.ablation == core::heads::Ablation::zero ? 0.0f : static_cast<float>(mean / t);
                for (int i = 0; i < t; ++i) block[count(i, HK) + static_cast<size_t>(j)] = value;
            }
        }
    }
}

LossSum Pass::forward(const Knockouts* knockouts) const {
    const ModelConfig& m = lay.config;
    const int t = ws.t;
    // 1. embedding: x = W_E[token] + W_pos[position]                     (N, D)
    float* x = m.L > 0 ? ws.layers[0].resid_in.data() : ws.resid_out.data();
    for (int i = 0; i < N; ++i) add(x + count(i, D), w(lay.W_E) + count(tokens[i], D), w(lay.W_pos) + count(i % t, D), static_cast<size_t>(D));
    for (int l = 0; l < m.L; ++l) {
        WorkspaceF32::Layer& c = ws.layers[static_cast<size_t>(l)];
        const LayerIds& id = lay.layers[static_cast<size_t>(l)];
        // 2. attention: x_mid = x + concat_h(A_h v_h) W_O
        ops.layernorm_forward(c.a1.data(), c.mean1.data(), c.rstd1.data(), c.resid_in.data(), w(id.ln1_w), w(id.ln1_b), N, D, ln_eps);
        ops.matmul_forward(c.qkv.data(), c.a1.data(), params.qkv[static_cast<size_t>(l)].data(), nullptr, N, D, 3 * HK); // (N, 3·HK)
        ops.attention_forward(c.y.data(), c.att.data(), c.qkv.data(), ws.B, t, HK, m.H);                            // (N, HK)
        if (knockouts) knock_out(*knockouts, l, ws.B, t, m.d_head(), HK, c.y.data());
        ops.matmul_forward(ws.branch.data(), c.y.data(), w(id.W_O), nullptr, N, HK, D);                            // (N, D)
        add(c.resid_mid.data(), c.resid_in.data(), ws.branch.data(), c.resid_mid.size());
        // 3. MLP: x_out = x_mid + GELU(LN₂(x_mid) W_in + b_in) W_out + b_out
        float* out = l + 1 < m.L ? ws.layers[static_cast<size_t>(l + 1)].resid_in.data() : ws.resid_out.data();
        if (!m.mlp) {
            std::copy(c.resid_mid.begin(), c.resid_mid.end(), out);
            continue;
        }
        ops.layernorm_forward(c.a2.data(), c.mean2.data(), c.rstd2.data(), c.resid_mid.data(), w(id.ln2_w), w(id.ln2_b), N, D, ln_eps);
        ops.matmul_forward(c.hpre.data(), c.a2.data(), w(id.W_in), w(id.b_in), N, D, F);                            // (N, 4D)
        ops.gelu_forward(c.hact.data(), c.hpre.data(), static_cast<std::ptrdiff_t>(c.hpre.size()));
        ops.matmul_forward(ws.branch.data(), c.hact.data(), w(id.W_out), w(id.b_out), N, F, D);                     // (N, D)
        add(out, c.resid_mid.data(), ws.branch.data(), c.resid_mid.size());
    }
    // 4. logits = LN_f(x) W_U                                            (N, vocab)
    ops.layernorm_forward(ws.af.data(), ws.meanf.data(), ws.rstdf.data(), ws.resid_out.data(), w(lay.lnf_w), w(lay.lnf_b), N, D, ln_eps);
    ops.matmul_forward(ws.logits.data(), ws.af.data(), w(lay.W_U), nullptr, N, D, V);
    // 5. loss over the scored positions, and their argmax
    ops.crossentropy(ws.losses.data(), nullptr, ws.logits.data(), targets, N, V, 1.0f);
    LossSum s;
    for (int i = 0; i < N; ++i) {
        if (targets[i] < 0) continue;
        const float* row = ws.logits.data() + count(i, V);
        s.loss += ws.losses[static_cast<size_t>(i)];
        s.correct += std::max_element(row, row + V) - row == targets[i] ? 1 : 0;
        s.scored += 1;
    }
    return s;
}

void Pass::backward(float scale) const {
    const ModelConfig& m = lay.config;
    const int t = ws.t;
    zero(ws.grad);
    // 5. loss: dlogits = (softmax - onehot) · scale, in place of the logits  (N, vocab)
    ops.crossentropy(ws.losses.data(), ws.logits.data(), ws.logits.data(), targets, N, V, scale);
    // 4. logits = LN_f(x) W_U
    zero(ws.da);
    ops.matmul_backward(ws.da.data(), g(lay.W_U), nullptr, ws.logits.data(), ws.af.data(), w(lay.W_U), N, D, V);
    zero(ws.dresid);
    ops.layernorm_backward(ws.dresid.data(), g(lay.lnf_w), g(lay.lnf_b), ws.da.data(), ws.resid_out.data(), w(lay.lnf_w), ws.meanf.data(), ws.rstdf.data(), N, D);
    for (int l = m.L - 1; l >= 0; --l) {
        WorkspaceF32::Layer& c = ws.layers[static_cast<size_t>(l)];
        const LayerIds& id = lay.layers[static_cast<size_t>(l)];
        // 3. MLP: dresid flows through unchanged and into the branch
        if (m.mlp) {
            zero(ws.dh);
            ops.matmul_backward(ws.dh.data(), g(id.W_out), g(id.b_out), ws.dresid.data(), c.hact.data(), w(id.W_out), N, F, D);
            ops.gelu_backward(ws.dh.data(), c.hpre.data(), ws.dh.data(), static_cast<std::ptrdiff_t>(ws.dh.size()));
            zero(ws.da);
            ops.matmul_backward(ws.da.data(), g(id.W_in), g(id.b_in), ws.dh.data(), c.a2.data(), w(id.W_in), N, D, F);
            ops.layernorm_backward(ws.dresid.data(), g(id.ln2_w), g(id.ln2_b), ws.da.data(), c.resid_mid.data(), w(id.ln2_w), c.mean2.data(), c.rstd2.data(), N, D);
        }
        // 2. attention
        zero(ws.dy);
        ops.matmul_backward(ws.dy.data(), g(id.W_O), nullptr, ws.dresid.data(), c.y.data(), w(id.W_O), N, HK, D);
        ops.attention_backward(ws.dqkv.data(), ws.scratch.data(), ws.dy.data(), c.qkv.data(), c.att.data(), ws.B, t, HK, m.H);
        zero(ws.da);
        zero(c.dqkv_W);
        ops.matmul_backward(ws.da.data(), c.dqkv_W.data(), nullptr, ws.dqkv.data(), c.a1.data(), params.qkv[static_cast<size_t>(l)].data(), N, D, 3 * HK);
        ops.layernorm_backward(ws.dresid.data(), g(id.ln1_w), g(id.ln1_b), ws.da.data(), c.resid_in.data(), w(id.ln1_w), c.mean1.data(), c.rstd1.data(), N, D);
        const int parts[3] = {id.W_Q, id.W_K, id.W_V};                     // unpack (D, 3·HK) into three (D, HK)
        for (int p = 0; p < 3; ++p)
            for (int r = 0; r < D; ++r) std::copy_n(c.dqkv_W.data() + count(r, 3 * HK) + count(p, HK), HK, g(parts[p]) + count(r, HK));
    }
    // 1. embedding
    for (int i = 0; i < N; ++i) {
        const float* d = ws.dresid.data() + count(i, D);
        float* e = g(lay.W_E) + count(tokens[i], D);
        float* p = g(lay.W_pos) + count(i % t, D);
        for (int j = 0; j < D; ++j) e[j] += d[j], p[j] += d[j];
    }
}

Pass make_pass(const Model& model, const ParamsF32& params, const Batch& batch, int first, WorkspaceF32& ws, const gpt2_ops::Set<float>& ops) {
    const ModelConfig& m = model.config();
    const size_t at = count(first, batch.t);
    return Pass{model.layout, params, ws, ops, batch.tokens.data() + at, batch.targets.data() + at,
                ws.B * ws.t, m.D, m.H * m.d_head(), 4 * m.D, m.vocab};
}

} // namespace

LossSum forward_f32(const Model& model, const ParamsF32& params, const Batch& batch, int first, WorkspaceF32& ws,
                    const Knockouts* knockouts, const gpt2_ops::Set<float>& ops) {
    check_knockouts(model.config(), knockouts);
    return make_pass(model, params, batch, first, ws, ops).forward(knockouts);
}

LossSum forward_backward_f32(const Model& model, const ParamsF32& params, const Batch& batch, int first, WorkspaceF32& ws,
                             double normaliser, std::vector<double>& grad, const gpt2_ops::Set<float>& ops) {
    const Pass pass = make_pass(model, params, batch, first, ws, ops);
    const LossSum s = pass.forward(nullptr);
    pass.backward(static_cast<float>(1.0 / normaliser));
    grad.assign(ws.grad.begin(), ws.grad.end());
    return s;
}

} // namespace core::train
