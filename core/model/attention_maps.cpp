// core/model/attention_maps.cpp — the maps of a forward, rebuilt from its queries and keys.
#include "core/model/attention_maps.h"

#include "core/model/delta_rule.h"
#include "core/model/ops.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace core::model {

namespace {

std::size_t cells(int a, int b) { return static_cast<std::size_t>(a) * static_cast<std::size_t>(b); }

} // namespace

AttentionMaps::AttentionMaps(int layers, int heads, int kv_heads, int d_head, int t_new, int t_total, bool dense)
    : layers_(layers), heads_(heads), kv_heads_(std::max(kv_heads, 1)), d_head_(d_head), t_new_(t_new), t_total_(t_total) {
    if (dense) dense_.assign(cells(layers, heads) * cells(t_new, t_total), 0.0f);
    else kept_.resize(static_cast<std::size_t>(layers));
}

std::size_t AttentionMaps::bytes_for(int layers, int heads, int kv_heads, int d_head, int t_new, int t_total, bool dense) {
    if (dense) return cells(layers, heads) * cells(t_new, t_total) * sizeof(float);
    return static_cast<std::size_t>(layers) * (cells(t_new, heads * d_head) + cells(t_total, kv_heads * d_head)) * sizeof(float);
}

// What the vectors hold, not what they use: a vector emptied by `= {}` keeps its buffer (a long run's
// linear layers once kept 2.4 GB of q and k so at 8192 positions of Qwen3.5-0.8B, while this said 0).
std::size_t AttentionMaps::bytes() const {
    std::size_t n = dense_.capacity();
    for (const Layer& l : kept_)
        n += l.q.capacity() + l.k.capacity() + l.beta.capacity() + l.g.capacity() + l.v.capacity() + (l.source ? l.source->input.capacity() : 0);
    return n * sizeof(float);
}

float* AttentionMaps::dense_head(int l, int h) {
    if (dense_.empty()) return nullptr;
    return dense_.data() + cells(l * heads_ + h, 1) * cells(t_new_, t_total_);
}

void AttentionMaps::keep_layer(int l, Layer layer) { kept_[static_cast<std::size_t>(l)] = std::move(layer); }

// Block b of head (l, h): rows b · block … of the map into weights (rows, t_total), by the call the
// forward made for it (layers.cpp's one_head): the same queries, keys, shapes and first position.
void AttentionMaps::rebuild(int l, int h, int b, float* weights) const {
    const Layer& L = kept_[static_cast<std::size_t>(l)];
    const int i0 = b * block, n = std::min(block, t_new_ - i0);
    const int width = heads_ * d_head_, row = kv_heads_ * d_head_, group = h / (heads_ / kv_heads_);
    const float* q = L.q.data() + static_cast<std::ptrdiff_t>(i0) * width + h * d_head_;
    const float* k = L.k.data() + group * d_head_;
    ops::Attend a{q, width, k, nullptr, row, n, t_total_, d_head_, t_total_ - t_new_ + i0, L.causal, L.window, L.scale,
                  weights, nullptr, 0, nullptr, L.softcap, L.sinks.empty() ? nullptr : &L.sinks[static_cast<std::size_t>(h)]};
    ops::active().attend(a);
}

void AttentionMaps::rows(int l, int h, int r0, int r1, float* dst) const {
    if (l < 0 || l >= layers_ || h < 0 || h >= heads_ || r0 < 0 || r1 > t_new_ || r0 > r1)
        throw std::out_of_range("attention maps: rows " + std::to_string(r0) + "…" + std::to_string(r1) + " of head " + std::to_string(l) + "." +
                                std::to_string(h) + " of a run of " + std::to_string(layers_) + " × " + std::to_string(heads_) + " heads and " +
                                std::to_string(t_new_) + " rows");
    const std::size_t width = static_cast<std::size_t>(t_total_);
    if (!dense_.empty()) {
        const float* from = dense_.data() + (cells(l * heads_ + h, 1) * cells(t_new_, t_total_)) + cells(r0, t_total_);
        std::copy(from, from + cells(r1 - r0, t_total_), dst);
        return;
    }
    if (kept_.empty() || !kept_[static_cast<std::size_t>(l)].ran()) {
        std::fill(dst, dst + cells(r1 - r0, t_total_), 0.0f);
        return;
    }
    if (kept_[static_cast<std::size_t>(l)].linear) return linear_rows(l, h, r0, r1, dst);
    thread_local std::vector<float> scratch; // one block (block, t_total)
    for (int b = r0 / block; b * block < r1; ++b) {
        const int i0 = b * block, i1 = std::min(t_new_, i0 + block);
        const int from = std::max(r0, i0), to = std::min(r1, i1);
        if (from == i0 && to == i1) { // a whole block straight into dst
            rebuild(l, h, b, dst + static_cast<std::size_t>(i0 - r0) * width);
            continue;
        }
        scratch.resize(cells(block, t_total_));
        rebuild(l, h, b, scratch.data());
        std::copy(scratch.data() + static_cast<std::size_t>(from - i0) * width, scratch.data() + static_cast<std::size_t>(to - i0) * width,
                  dst + static_cast<std::size_t>(from - r0) * width);
    }
}

// Rows of a linear layer's head h: its M from the kept q, k, β and g of every position (the new
// rows are the last t_new of M).
void AttentionMaps::linear_rows(int l, int h, int r0, int r1, float* dst) const {
    const Layer& L = kept_[static_cast<std::size_t>(l)];
    if (h >= L.v_heads) return std::fill(dst, dst + cells(r1 - r0, t_total_), 0.0f);
    const delta_rule::Shape shape{L.k_heads, L.v_heads, L.d_k, 1, L.tiled};
    const LinearQK qk = linear_qk(l);
    const delta_rule::Inputs in{qk.q, qk.k, nullptr, L.beta.data(), L.g.data(), t_total_};
    const int past = t_total_ - t_new_;
    delta_rule::matrix_rows(in, shape, h, past + r0, past + r1, dst);
}

AttentionMaps::LinearQK AttentionMaps::linear_qk(int l) const {
    const Layer& L = kept_.at(static_cast<std::size_t>(l));
    if (!L.source) return {L.q.data(), L.k.data(), nullptr};
    std::lock_guard<std::mutex> lock(projected_->mutex);
    if (projected_->layer != l) {
        auto q = std::make_shared<std::vector<float>>(), k = std::make_shared<std::vector<float>>();
        L.source->project(L.source->input.data(), t_total_, *q, *k);
        projected_->q = std::move(q), projected_->k = std::move(k), projected_->layer = l;
    }
    const auto q = projected_->q, k = projected_->k;
    return {q->data(), k->data(), std::make_shared<std::pair<decltype(q), decltype(k)>>(q, k)};
}

bool AttentionMaps::linear(int l) const {
    return l >= 0 && l < static_cast<int>(kept_.size()) && kept_[static_cast<std::size_t>(l)].linear && kept_[static_cast<std::size_t>(l)].ran();
}

const AttentionMaps::Layer* AttentionMaps::kept(int l) const {
    if (l < 0 || l >= static_cast<int>(kept_.size()) || !kept_[static_cast<std::size_t>(l)].ran()) return nullptr;
    return &kept_[static_cast<std::size_t>(l)];
}

std::optional<delta_rule::Split> AttentionMaps::linear_split(int l, int h, int i, int j) const {
    if (!linear(l) || h < 0 || h >= kept_[static_cast<std::size_t>(l)].v_heads || i < 0 || j < 0 || i >= t_new_ || j >= t_total_) return std::nullopt;
    const Layer& L = kept_[static_cast<std::size_t>(l)];
    const LinearQK qk = linear_qk(l);
    const delta_rule::Inputs in{qk.q, qk.k, nullptr, L.beta.data(), L.g.data(), t_total_}; // q, k, β, g kept from position 0
    return delta_rule::split(in, {L.k_heads, L.v_heads, L.d_k, 1, L.tiled}, h, t_total_ - t_new_ + i, j);
}

std::optional<MatrixF> AttentionMaps::linear_state(int l, int h, int position) const {
    if (!linear(l) || h < 0 || position < 0 || position >= t_total_) return std::nullopt;
    const Layer& L = kept_[static_cast<std::size_t>(l)];
    if (h >= L.v_heads || L.v.size() != static_cast<std::size_t>(t_total_) * static_cast<std::size_t>(L.v_heads * L.d_v)) return std::nullopt;
    const LinearQK qk = linear_qk(l);
    const delta_rule::Inputs in{qk.q, qk.k, L.v.data(), L.beta.data(), L.g.data(), t_total_};
    return delta_rule::state(in, {L.k_heads, L.v_heads, L.d_k, L.d_v, L.tiled}, h, position);
}

MatrixF AttentionMaps::head(int l, int h) const {
    MatrixF m(t_new_, t_total_); // (t_new, t_total)
    rows(l, h, 0, t_new_, m.data());
    return m;
}

std::vector<float> AttentionMaps::all() const {
    const std::size_t size = cells(t_new_, t_total_);
    std::vector<float> out(cells(layers_, heads_) * size);
    for (int l = 0; l < layers_; ++l)
        for (int h = 0; h < heads_; ++h) rows(l, h, 0, t_new_, out.data() + cells(l * heads_ + h, 1) * size);
    return out;
}

// A block row's rows are summed key by key first (a vector add per row), then binned: one division
// per key of a block row rather than one per weight.
void thumbnail_rows(const float* rows, int r0, int r1, int t, int side, float* out) {
    thread_local std::vector<float> sums; // (t) the rows of one block row summed
    for (int i = r0; i < r1;) {
        const int band = i * side / t;
        sums.assign(static_cast<std::size_t>(t), 0.0f);
        for (; i < r1 && i * side / t == band; ++i) {
            const float* row = rows + static_cast<std::ptrdiff_t>(i - r0) * t;
            for (int j = 0; j < t; ++j) sums[static_cast<std::size_t>(j)] += row[j];
        }
        float* to = out + static_cast<std::ptrdiff_t>(band) * side;
        for (int j = 0; j < t; ++j) to[j * side / t] += sums[static_cast<std::size_t>(j)];
    }
}

void thumbnail_finish(float* out, int side) {
    const int n = side * side;
    float top = 0.0f;
    for (int k = 0; k < n; ++k) top = std::max(top, std::abs(out[k]));
    if (top > 0)
        for (int k = 0; k < n; ++k) out[k] /= top;
}

} // namespace core::model
