#include "core/presets.h"

#include "core/random.h"

#include <cmath>
#include <random>

namespace core {

namespace {

// std::normal_distribution differs between standard libraries; Box–Muller on mt19937_64 does not.
struct Normal {
    std::mt19937_64 engine;
    double next() {
        const double u1 = (static_cast<double>(engine() >> 11) + 1.0) * 0x1.0p-53; // (0, 1]
        const double u2 = static_cast<double>(engine() >> 11) * 0x1.0p-53;         // [0, 1)
        return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2);
    }
    Matrix matrix(int r, int c, double scale) {
        Matrix m(r, c);
        for (Eigen::Index i = 0; i < m.size(); ++i) m.data()[i] = next() * scale;
        return m;
    }
};

std::vector<std::string> numbered_tokens(int n) {
    std::vector<std::string> names;
    for (int i = 1; i <= n; ++i) names.push_back("t" + std::to_string(i));
    return names;
}

} // namespace

Scenario preset_three_tokens() {
    Scenario s;
    s.tokens = {"the", "cat", "sat"};
    s.X = rows({{1, 0}, {0, 1}, {1, 1}});
    s.heads = {Head{rows({{1, 0}, {1, 2}}), rows({{2, 0}, {0, 1}}), rows({{1, 0}, {0, 2}})}};
    return s;
}

Scenario preset_numpy_random() {
    Scenario s = random_scenario(Shape{}.with_tokens(4).with_width(8), 0);
    s.tokens = {"a", "b", "c", "d"};
    return s;
}

Scenario preset_it_sentence() {
    // Axis 1 ≈ "is a noun", axis 2 ≈ "is an action or state". Weights are identities, so each
    // token's query, key and value are its embedding, and the arrows are the embeddings themselves.
    Scenario s;
    s.tokens = {"the", "cat", "ate", "because", "it", "was", "hungry"};
    s.X = rows({{0.3, -0.5}, {2.0, 0.6}, {-0.4, 1.8}, {-0.6, -0.4}, {1.2, 0.2}, {-0.3, 1.0}, {0.4, 1.2}});
    const Matrix identity = Matrix::Identity(2, 2);
    s.heads = {Head{identity, identity, identity}};
    return s;
}

Scenario preset_eight_heads() {
    return random_scenario(Shape{}.with_tokens(16).with_d_model(512).with_d_k(64).with_d_v(64).with_heads(8).with_W_O(), 512);
}

Scenario random_scenario(const Shape& shape, std::uint64_t seed) {
    Normal rng{std::mt19937_64(seed)};
    const int d_model = shape.d_model, d_k = shape.d_k, d_v = shape.d_v, heads = shape.heads;
    Scenario s;
    s.tokens = numbered_tokens(shape.n);
    s.X = rng.matrix(shape.n, d_model, 1.0); // (n, d_model)
    const double w = 1.0 / std::sqrt(static_cast<double>(d_model));
    for (int h = 0; h < heads; ++h)
        s.heads.push_back(Head{rng.matrix(d_model, d_k, w), rng.matrix(d_model, d_k, w), rng.matrix(d_model, d_v, w)});
    if (shape.output_projection) s.W_O = rng.matrix(heads * d_v, d_model, 1.0 / std::sqrt(static_cast<double>(heads * d_v))); // (H·d_v, d_model)
    return s;
}

Scenario numpy_random_qkv(std::uint64_t seed, int n, int d) {
    NumpyRng rng(seed);
    Scenario s;
    s.direct = true;
    s.tokens = numbered_tokens(n);
    Head h;
    h.Q = rng.normal(n, d); // (n, d)
    h.K = rng.normal(n, d); // (n, d)
    h.V = rng.normal(n, d); // (n, d)
    s.heads = {std::move(h)};
    return s;
}

Scenario preset_numpy_example() { return numpy_random_qkv(0, 4, 8); }

namespace {
Scenario numpy_random_default() { return numpy_random_qkv(NumpyRandomParams{}.seed, NumpyRandomParams{}.n, NumpyRandomParams{}.d); }
} // namespace

Scenario bench_scenario(int n, int d) { return random_scenario(Shape{}.with_tokens(n).with_width(d), 2024); }

const std::vector<PresetInfo>& presets() {
    static const std::vector<PresetInfo> list = {
        {"the cat sat — worked example", "Three tokens, d = 2: every number can be checked by hand", preset_three_tokens, "cat-sat"},
        {"NumPy example — default_rng(0), 4 × 8", "4 tokens, d = 8: Q, K and V drawn by the step-by-step article's NumPy code", preset_numpy_example, "numpy-example"},
        {"the cat ate because it was hungry", "Seven tokens in 2D: \"it\" attends most to \"cat\"", preset_it_sentence, "it-hungry"},
        {"8 heads × 64, d_model 512", "The original transformer's layer: 16 random tokens, with W_O", preset_eight_heads, "eight-heads"},
        {"NumPy random: default_rng(seed), n × d", "Q, K, V = rng.normal(size=(n, d)) for any seed and size", numpy_random_default, numpy_random_id},
    };
    return list;
}

const PresetInfo* find_preset(const std::string& id) {
    for (const PresetInfo& p : presets())
        if (id == p.id) return &p;
    return nullptr;
}

} // namespace core
