// core/train/gpt2.cpp — GPT-2's layout, initialisation, forward and backward (see core/train/gpt2.h).
//
// [SECTION] layout and initialisation
// [SECTION] activations
// [SECTION] forward pass   (passes 1-4)
// [SECTION] backward pass  (passes 4-1)
// [SECTION] which build of the passes
#include "core/train/gpt2.h"

#include "core/kernels.h" // core::kernel_build()
#include "core/train/rng.h"

#include <algorithm>
#include <cmath>

namespace core::train {

// [SECTION] layout and initialisation ------------------------------------------------------------

std::string validate(const Gpt2Config& c) {
    auto range = [](const char* name, int v, int lo, int hi) -> std::string {
        if (v >= lo && v <= hi) return {};
        return std::string(name) + " = " + std::to_string(v) + " is outside " + std::to_string(lo) + " … " + std::to_string(hi);
    };
    for (const std::string& e : {range("vocab_size", c.vocab, 2, 65536), range("n_positions", c.n_ctx, 2, 4096),
                                 range("n_embd", c.n_embd, 1, 2048), range("n_head", c.n_head, 1, 64), range("n_layer", c.n_layer, 1, 48)})
        if (!e.empty()) return e;
    if (c.n_embd % c.n_head != 0)
        return "n_embd = " + std::to_string(c.n_embd) + " is not a multiple of n_head = " + std::to_string(c.n_head);
    return {};
}

Gpt2Layout::Gpt2Layout(const Gpt2Config& c) : config(c) {
    const std::int64_t C = c.n_embd;
    auto add = [&](const std::string& name, std::vector<std::int64_t> shape) {
        Gpt2Tensor t;
        t.name = name;
        t.size = 1;
        for (std::int64_t d : shape) t.size *= static_cast<std::size_t>(d);
        t.decay = shape.size() == 2;
        t.shape = std::move(shape);
        t.offset = total;
        total += t.size;
        tensors.push_back(std::move(t));
        return static_cast<int>(tensors.size()) - 1;
    };
    wte = add("wte.weight", {c.vocab, C});
    wpe = add("wpe.weight", {c.n_ctx, C});
    for (int l = 0; l < c.n_layer; ++l) {
        const std::string p = "h." + std::to_string(l) + ".";
        Block b{};
        b.ln_1_w = add(p + "ln_1.weight", {C});
        b.ln_1_b = add(p + "ln_1.bias", {C});
        b.c_attn_w = add(p + "attn.c_attn.weight", {C, 3 * C});
        b.c_attn_b = add(p + "attn.c_attn.bias", {3 * C});
        b.attn_proj_w = add(p + "attn.c_proj.weight", {C, C});
        b.attn_proj_b = add(p + "attn.c_proj.bias", {C});
        b.ln_2_w = add(p + "ln_2.weight", {C});
        b.ln_2_b = add(p + "ln_2.bias", {C});
        b.c_fc_w = add(p + "mlp.c_fc.weight", {C, 4 * C});
        b.c_fc_b = add(p + "mlp.c_fc.bias", {4 * C});
        b.mlp_proj_w = add(p + "mlp.c_proj.weight", {4 * C, C});
        b.mlp_proj_b = add(p + "mlp.c_proj.bias", {C});
        blocks.push_back(b);
    }
    ln_f_w = add("ln_f.weight", {C});
    ln_f_b = add("ln_f.bias", {C});
}

int Gpt2Layout::find(const std::string& name) const {
    for (std::size_t i = 0; i < tensors.size(); ++i)
        if (tensors[i].name == name) return static_cast<int>(i);
    return -1;
}

template <class T>
std::vector<T> gpt2_initial_params(const Gpt2Layout& layout, std::uint64_t seed) {
    std::vector<T> p(layout.total, T(0));
    Rng rng(seed);
    const double residual_std = 0.02 / std::sqrt(2.0 * layout.config.n_layer);
    for (std::size_t i = 0; i < layout.tensors.size(); ++i) {
        const Gpt2Tensor& t = layout.tensors[i];
        const bool gain = t.name.size() > 7 && t.name.compare(t.name.size() - 7, 7, ".weight") == 0 && !t.decay;
        const bool projection = t.name.find("c_proj.weight") != std::string::npos;
        const double std = projection ? residual_std : 0.02;
        for (std::size_t j = 0; j < t.size; ++j)
            p[t.offset + j] = gain ? T(1) : t.decay ? static_cast<T>(std * rng.normal()) : T(0);
    }
    return p;
}

// [SECTION] activations ---------------------------------------------------------------------------

template <class T>
void Gpt2Activations<T>::resize(const Gpt2Config& c, int batch, int len) {
    B = batch;
    T_ = len;
    const std::size_t N = static_cast<std::size_t>(B) * static_cast<std::size_t>(T_), C = static_cast<std::size_t>(c.n_embd);
    const std::size_t att = static_cast<std::size_t>(B) * static_cast<std::size_t>(c.n_head) * static_cast<std::size_t>(T_) * static_cast<std::size_t>(T_);
    blocks.resize(static_cast<std::size_t>(c.n_layer));
    for (Block& b : blocks) {
        for (Buffer<T>* v : {&b.ln1, &b.atty, &b.res_attn, &b.ln2, &b.res_mlp}) v->assign(N * C, T(0));
        for (Buffer<T>* v : {&b.ln1_mean, &b.ln1_rstd, &b.ln2_mean, &b.ln2_rstd}) v->assign(N, T(0));
        b.qkv.assign(N * 3 * C, T(0));
        b.att.assign(att, T(0));
        b.fch.assign(N * 4 * C, T(0));
        b.fch_gelu.assign(N * 4 * C, T(0));
    }
    for (Buffer<T>* v : {&encoded, &lnf, &dres, &dbuf, &datty}) v->assign(N * C, T(0));
    for (Buffer<T>* v : {&lnf_mean, &lnf_rstd, &losses}) v->assign(N, T(0));
    logits.assign(N * static_cast<std::size_t>(c.vocab), T(0));
    dqkv.assign(N * 3 * C, T(0));
    dfch.assign(N * 4 * C, T(0));
    scratch.assign(static_cast<std::size_t>(T_) * static_cast<std::size_t>(T_), T(0));
}

template <class T>
const T* Gpt2Activations<T>::attention(int l, int b, int h) const {
    const Buffer<T>& att = blocks[static_cast<std::size_t>(l)].att;
    const std::size_t tt = static_cast<std::size_t>(T_) * static_cast<std::size_t>(T_);
    const std::size_t H = att.size() / (static_cast<std::size_t>(B) * tt);
    return att.data() + (static_cast<std::size_t>(b) * H + static_cast<std::size_t>(h)) * tt;
}

namespace {

template <class T>
const T* at(const Gpt2Layout& lay, const T* params, int id) { return params + lay.tensors[static_cast<std::size_t>(id)].offset; }
template <class T>
T* at(const Gpt2Layout& lay, T* params, int id) { return params + lay.tensors[static_cast<std::size_t>(id)].offset; }

template <class T>
void add_into(Buffer<T>& out, const Buffer<T>& x) {
    for (std::size_t i = 0; i < out.size(); ++i) out[i] += x[i];
}

template <class T>
void zero(Buffer<T>& v) { std::fill(v.begin(), v.end(), T(0)); }

} // namespace

// [SECTION] forward pass --------------------------------------------------------------------------

template <class T>
double gpt2_forward(const Gpt2Layout& lay, const T* params, const int* inputs, const int* targets, int B, int T_,
                    Gpt2Activations<T>& a, const gpt2_ops::Set<T>& ops) {
    const Gpt2Config& c = lay.config;
    if (a.B != B || a.T_ != T_) a.resize(c, B, T_);
    const int N = B * T_, C = c.n_embd, V = c.vocab, H = c.n_head;
    const T eps = static_cast<T>(gpt2_layer_norm_epsilon);

    // 1. embedding: x₀ = wte[token] + wpe[position]                      (N, C)
    const T* wte = at(lay, params, lay.wte);
    const T* wpe = at(lay, params, lay.wpe);
    for (int i = 0; i < N; ++i)
        for (int j = 0; j < C; ++j)
            a.encoded[static_cast<std::size_t>(i) * C + j] = wte[static_cast<std::size_t>(inputs[i]) * C + j] + wpe[static_cast<std::size_t>(i % T_) * C + j];

    for (int l = 0; l < c.n_layer; ++l) {
        const Gpt2Layout::Block& id = lay.blocks[static_cast<std::size_t>(l)];
        auto& b = a.blocks[static_cast<std::size_t>(l)];
        const Buffer<T>& x = l == 0 ? a.encoded : a.blocks[static_cast<std::size_t>(l - 1)].res_mlp;
        auto P = [&](int tensor) { return at(lay, params, tensor); };
        // 2. attention: x ← x + attn(LN₁(x)) · c_proj + b
        ops.layernorm_forward(b.ln1.data(), b.ln1_mean.data(), b.ln1_rstd.data(), x.data(), P(id.ln_1_w), P(id.ln_1_b), N, C, eps);
        ops.matmul_forward(b.qkv.data(), b.ln1.data(), P(id.c_attn_w), P(id.c_attn_b), N, C, 3 * C);      // (N, 3C)
        ops.attention_forward(b.atty.data(), b.att.data(), b.qkv.data(), B, T_, C, H);                      // (N, C)
        ops.matmul_forward(b.res_attn.data(), b.atty.data(), P(id.attn_proj_w), P(id.attn_proj_b), N, C, C); // (N, C)
        add_into(b.res_attn, x);
        // 3. MLP: x ← x + gelu_new(LN₂(x) · c_fc + b) · c_proj + b
        ops.layernorm_forward(b.ln2.data(), b.ln2_mean.data(), b.ln2_rstd.data(), b.res_attn.data(), P(id.ln_2_w), P(id.ln_2_b), N, C, eps);
        ops.matmul_forward(b.fch.data(), b.ln2.data(), P(id.c_fc_w), P(id.c_fc_b), N, C, 4 * C);           // (N, 4C)
        ops.gelu_forward(b.fch_gelu.data(), b.fch.data(), static_cast<std::ptrdiff_t>(N) * 4 * C);
        ops.matmul_forward(b.res_mlp.data(), b.fch_gelu.data(), P(id.mlp_proj_w), P(id.mlp_proj_b), N, 4 * C, C); // (N, C)
        add_into(b.res_mlp, b.res_attn);
    }
    // 4. logits = LN_f(x) · wteᵀ, and the loss                            (N, V)
    const Buffer<T>& last = a.blocks.back().res_mlp;
    ops.layernorm_forward(a.lnf.data(), a.lnf_mean.data(), a.lnf_rstd.data(), last.data(), at(lay, params, lay.ln_f_w), at(lay, params, lay.ln_f_b), N, C, eps);
    ops.unembed_forward(a.logits.data(), a.lnf.data(), wte, N, C, V);
    if (!targets) return 0.0;
    ops.crossentropy(a.losses.data(), nullptr, a.logits.data(), targets, N, V, T(1));
    double sum = 0.0;
    for (int i = 0; i < N; ++i) sum += static_cast<double>(a.losses[static_cast<std::size_t>(i)]);
    return sum;
}

// [SECTION] backward pass -------------------------------------------------------------------------

template <class T>
void gpt2_backward(const Gpt2Layout& lay, const T* params, T* grads, const int* inputs, const int* targets,
                   Gpt2Activations<T>& a, T scale, const gpt2_ops::Set<T>& ops) {
    const Gpt2Config& c = lay.config;
    const int B = a.B, T_ = a.T_, N = B * T_, C = c.n_embd, V = c.vocab, H = c.n_head;
    auto P = [&](int tensor) { return at(lay, params, tensor); };
    auto G = [&](int tensor) { return at(lay, grads, tensor); };

    // 4. the loss and the tied head: dlogits in place of the logits, then LN_f
    ops.crossentropy(a.losses.data(), a.logits.data(), a.logits.data(), targets, N, V, scale);
    ops.unembed_backward(a.dbuf.data(), G(lay.wte), a.logits.data(), a.lnf.data(), P(lay.wte), N, C, V);
    zero(a.dres);
    ops.layernorm_backward(a.dres.data(), G(lay.ln_f_w), G(lay.ln_f_b), a.dbuf.data(), a.blocks.back().res_mlp.data(),
                           P(lay.ln_f_w), a.lnf_mean.data(), a.lnf_rstd.data(), N, C);

    for (int l = c.n_layer - 1; l >= 0; --l) {
        const Gpt2Layout::Block& id = lay.blocks[static_cast<std::size_t>(l)];
        auto& b = a.blocks[static_cast<std::size_t>(l)];
        const Buffer<T>& x = l == 0 ? a.encoded : a.blocks[static_cast<std::size_t>(l - 1)].res_mlp;
        // 3. MLP: dres flows on unchanged and into the branch
        zero(a.dfch);
        ops.matmul_backward(a.dfch.data(), G(id.mlp_proj_w), G(id.mlp_proj_b), a.dres.data(), b.fch_gelu.data(), P(id.mlp_proj_w), N, 4 * C, C);
        ops.gelu_backward(a.dfch.data(), b.fch.data(), a.dfch.data(), static_cast<std::ptrdiff_t>(N) * 4 * C);
        zero(a.dbuf);
        ops.matmul_backward(a.dbuf.data(), G(id.c_fc_w), G(id.c_fc_b), a.dfch.data(), b.ln2.data(), P(id.c_fc_w), N, C, 4 * C);
        ops.layernorm_backward(a.dres.data(), G(id.ln_2_w), G(id.ln_2_b), a.dbuf.data(), b.res_attn.data(), P(id.ln_2_w),
                               b.ln2_mean.data(), b.ln2_rstd.data(), N, C);
        // 2. attention
        zero(a.datty);
        ops.matmul_backward(a.datty.data(), G(id.attn_proj_w), G(id.attn_proj_b), a.dres.data(), b.atty.data(), P(id.attn_proj_w), N, C, C);
        ops.attention_backward(a.dqkv.data(), a.scratch.data(), a.datty.data(), b.qkv.data(), b.att.data(), B, T_, C, H);
        zero(a.dbuf);
        ops.matmul_backward(a.dbuf.data(), G(id.c_attn_w), G(id.c_attn_b), a.dqkv.data(), b.ln1.data(), P(id.c_attn_w), N, C, 3 * C);
        ops.layernorm_backward(a.dres.data(), G(id.ln_1_w), G(id.ln_1_b), a.dbuf.data(), x.data(), P(id.ln_1_w),
                               b.ln1_mean.data(), b.ln1_rstd.data(), N, C);
    }
    // 1. embedding
    T* dwte = G(lay.wte);
    T* dwpe = G(lay.wpe);
    for (int i = 0; i < N; ++i)
        for (int j = 0; j < C; ++j) {
            const T d = a.dres[static_cast<std::size_t>(i) * C + j];
            dwte[static_cast<std::size_t>(inputs[i]) * C + j] += d;
            dwpe[static_cast<std::size_t>(i % T_) * C + j] += d;
        }
}

template std::vector<float> gpt2_initial_params<float>(const Gpt2Layout&, std::uint64_t);
template std::vector<double> gpt2_initial_params<double>(const Gpt2Layout&, std::uint64_t);
template struct Gpt2Activations<float>;
template struct Gpt2Activations<double>;
template double gpt2_forward<float>(const Gpt2Layout&, const float*, const int*, const int*, int, int, Gpt2Activations<float>&, const gpt2_ops::Set<float>&);
template double gpt2_forward<double>(const Gpt2Layout&, const double*, const int*, const int*, int, int, Gpt2Activations<double>&, const gpt2_ops::Set<double>&);
template void gpt2_backward<float>(const Gpt2Layout&, const float*, float*, const int*, const int*, Gpt2Activations<float>&, float, const gpt2_ops::Set<float>&);
template void gpt2_backward<double>(const Gpt2Layout&, const double*, double*, const int*, const int*, Gpt2Activations<double>&, double, const gpt2_ops::Set<double>&);

// [SECTION] which build of the passes -------------------------------------------------------------

const gpt2_ops::Set<float>& gpt2_ops::best_f32() {
    static const Set<float>* chosen = [] {
        const std::string name = core::kernel_build();
#ifdef ATTNVIZ_X86_KERNELS
        if (name == "x86-64-v4") return x86_64_v4_f32();
        if (name == "x86-64-v3") return x86_64_v3_f32();
#endif
        return generic_f32();
    }();
    return *chosen;
}

} // namespace core::train
