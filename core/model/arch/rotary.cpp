// core/model/arch/rotary.cpp — rotary positions (rotary.h).
#include "core/model/arch/rotary.h"

#include "core/model/format/gguf_model.h"

#include <algorithm>
#include <cmath>

namespace core::model::rotary {

namespace {

constexpr double pi = 3.14159265358979323846;

// llama3: wavelengths longer than the original context / low_freq_factor are slowed by `factor`,
// shorter than context / high_freq_factor are kept, and those between are blended.
double llama3_frequency(double f, const RopeScaling& s) {
    const double wavelen = 2 * pi / f;
    const double low = s.original_max_position_embeddings / s.low_freq_factor;
    const double high = s.original_max_position_embeddings / s.high_freq_factor;
    if (wavelen > low) return f / s.factor;
    if (wavelen < high) return f;
    const double smooth = (s.original_max_position_embeddings / wavelen - s.low_freq_factor) / (s.high_freq_factor - s.low_freq_factor);
    return (1 - smooth) * f / s.factor + smooth * f;
}

// longrope's factors (Phi3Config, modeling_rope_utils.py): `factor` where given, else
// max_position_embeddings / original_max_position_embeddings; the attention factor where given,
// else √(1 + ln factor / ln original) for a factor above 1.
void read_longrope(const ConfigReader& r, const ConfigReader& sub, int rotary_dim, RopeScaling& s) {
    for (const char* key : {"short_factor", "long_factor"}) {
        const nlohmann::json& v = sub.has(key) ? sub.j.at(key) : nlohmann::json();
        if (!v.is_array() || v.size() != static_cast<std::size_t>(rotary_dim / 2))
            r.fail("rope_scaling", "of type longrope needs \"" + std::string(key) + "\" as a list of " + std::to_string(rotary_dim / 2) +
                                       " numbers (rotary_dim / 2)");
        for (const nlohmann::json& f : v)
            if (!f.is_number() || !(f.get<double>() > 0) || !std::isfinite(f.get<double>()))
                r.fail("rope_scaling", "has a " + std::string(key) + " entry " + f.dump() + " that is not a positive number");
    }
    for (const nlohmann::json& f : sub.j.at("short_factor")) s.short_factor.push_back(f.get<double>());
    const int max_positions = r.whole("max_position_embeddings", 1, 1 << 30, 4096);
    const char* original_key = "original_max_position_embeddings";
    s.original_max_position_embeddings = sub.has(original_key) ? sub.real(original_key, 2.0, 1e9, 4096.0) : r.real(original_key, 2.0, 1e9, max_positions);
    s.factor = sub.has("factor") ? sub.real("factor", 1e-6, 1e6, 1.0) : max_positions / s.original_max_position_embeddings;
    s.attention_factor = s.factor <= 1.0 ? 1.0 : std::sqrt(1 + std::log(s.factor) / std::log(s.original_max_position_embeddings));
    s.attention_factor = sub.real("attention_factor", 1e-6, 1e6, s.attention_factor);
}

// YaRN (modeling_rope_utils.py's _compute_yarn_parameters): the attention factor where given, else
// from mscale and mscale_all_dim where both are, else 0.1 ln factor + 1.
double yarn_mscale(double factor, double mscale) { return factor <= 1.0 ? 1.0 : 0.1 * mscale * std::log(factor) + 1.0; }

void read_yarn(const ConfigReader& r, const ConfigReader& sub, RopeScaling& s) {
    if (!sub.has("factor")) r.fail("rope_scaling", "of type yarn has no \"factor\"");
    s.factor = sub.real("factor", 1e-6, 1e6, 1.0);
    const int max_positions = r.whole("max_position_embeddings", 1, 1 << 30, 4096);
    s.original_max_position_embeddings = sub.real("original_max_position_embeddings", 1.0, 1e9, max_positions);
    const double mscale = sub.real("mscale", 0.0, 1e6, 0.0), all_dims = sub.real("mscale_all_dim", 0.0, 1e6, 0.0);
    s.attention_factor = mscale > 0 && all_dims > 0 ? yarn_mscale(s.factor, mscale) / yarn_mscale(s.factor, all_dims) : yarn_mscale(s.factor, 1.0);
    s.attention_factor = sub.real("attention_factor", 1e-6, 1e6, s.attention_factor);
    // `beta_fast or 32`: a 0 (or null) takes the default too
    s.beta_fast = sub.real("beta_fast", 0.0, 1e6, 32.0);
    s.beta_slow = sub.real("beta_slow", 0.0, 1e6, 1.0);
    if (s.beta_fast == 0.0) s.beta_fast = 32.0;
    if (s.beta_slow == 0.0) s.beta_slow = 1.0;
    s.truncate = sub.flag("truncate", true);
}

// The dim (of `dims`) at which a frequency turns `rotations` times over the original context.
double correction_dim(double rotations, int dims, double theta, double original) {
    return dims * std::log(original / (rotations * 2 * pi)) / (2 * std::log(theta));
}

// YaRN's frequency i of `dims`: the interpolated f / factor and the original f mixed by a ramp that
// is 1 (original) below the correction range's low end and 0 (interpolated) past its high end.
double yarn_frequency(double f, int i, int dims, double theta, const RopeScaling& s) {
    double low = correction_dim(s.beta_fast, dims, theta, s.original_max_position_embeddings);
    double high = correction_dim(s.beta_slow, dims, theta, s.original_max_position_embeddings);
    if (s.truncate) low = std::floor(low), high = std::ceil(high);
    low = std::max(low, 0.0);
    high = std::min(high, static_cast<double>(dims - 1));
    if (low == high) high += 0.001; // as the reference does, against a division by 0
    const double ramp = std::clamp((i - low) / (high - low), 0.0, 1.0);
    const double extrapolation = 1.0 - ramp;
    return f / s.factor * (1.0 - extrapolation) + f * extrapolation;
}

} // namespace

RopeScaling read_scaling(const ConfigReader& r, int rotary_dim) {
    RopeScaling s;
    if (!r.has("rope_scaling")) return s;
    const ConfigReader sub = r.object("rope_scaling");
    // transformers reads "rope_type", and "type" in older configs.
    s.type = sub.has("rope_type") ? sub.text("rope_type", "") : sub.text("type", "default");
    if (s.type == "default") { s.type.clear(); return s; }
    if (s.type != "linear" && s.type != "llama3" && s.type != "longrope" && s.type != "yarn")
        r.fail("rope_scaling", "has type " + quote_text(s.type) +
                                   "; attnviz runs the default rotary positions, \"linear\", \"llama3\", \"longrope\" and \"yarn\"");
    if (s.type == "longrope") {
        read_longrope(r, sub, rotary_dim, s);
        return s;
    }
    if (s.type == "yarn") {
        read_yarn(r, sub, s);
        return s;
    }
    s.factor = sub.real("factor", 1e-6, 1e6, 1.0);
    if (!sub.has("factor")) r.fail("rope_scaling", "has no \"factor\"");
    if (s.type == "llama3") {
        for (const char* key : {"low_freq_factor", "high_freq_factor", "original_max_position_embeddings"})
            if (!sub.has(key)) r.fail("rope_scaling", "of type llama3 has no \"" + std::string(key) + "\"");
        s.low_freq_factor = sub.real("low_freq_factor", 1e-6, 1e6, 1.0);
        s.high_freq_factor = sub.real("high_freq_factor", 1e-6, 1e6, 4.0);
        s.original_max_position_embeddings = sub.real("original_max_position_embeddings", 1.0, 1e9, 8192.0);
        if (!(s.high_freq_factor > s.low_freq_factor)) r.fail("rope_scaling", "has high_freq_factor ≤ low_freq_factor");
    }
    return s;
}

namespace {

// llama.cpp's YaRN: the correction range always rounded (ggml_rope_yarn_corr_dims), beta_fast and
// beta_slow from the file or 32 and 1; cos and sin times 0.1 ln factor + 1 (or its ratio to that of
// rope.scaling.yarn_log_multiplier where the file has one) and rope.scaling.attn_factor, as
// llama_context sets yarn_attn_factor and ggml's rope multiplies it.
void read_gguf_yarn(const GgufKeys& k, ModelConfig& c) {
    RopeScaling& s = c.rope_scaling;
    s.original_max_position_embeddings = k.whole("rope.scaling.original_context_length", 1, 1 << 30, c.context);
    s.beta_fast = k.real("rope.scaling.yarn_beta_fast", 1e-6, 1e6, 32.0);
    s.beta_slow = k.real("rope.scaling.yarn_beta_slow", 1e-6, 1e6, 1.0);
    s.truncate = true;
    const double log_mul = k.real("rope.scaling.yarn_log_multiplier", 0.0, 1e6, 0.0);
    const double mscale = log_mul > 0 ? yarn_mscale(s.factor, 1.0) / yarn_mscale(s.factor, log_mul) : yarn_mscale(s.factor, 1.0);
    s.attention_factor = mscale * k.real("rope.scaling.attn_factor", 1e-6, 1e6, 1.0);
}

} // namespace

void read_gguf_scaling(const GgufKeys& k, ModelConfig& c) {
    RopeScaling& s = c.rope_scaling;
    const int half = c.rotary_dim / 2;
    if (auto factors = k.f32_tensor("rope_freqs.weight", half)) {
        s.type = "rope_freqs";
        s.short_factor = std::move(*factors);
    } else if (auto short_factors = k.f32_tensor("rope_factors_short.weight", half)) {
        s.type = "longrope";
        s.short_factor = std::move(*short_factors);
        s.original_max_position_embeddings = k.whole("rope.scaling.original_context_length", 2, 1 << 30);
        s.factor = c.context / s.original_max_position_embeddings;
        s.attention_factor = s.factor <= 1.0 ? 1.0 : std::sqrt(1 + std::log(s.factor) / std::log(s.original_max_position_embeddings));
        s.attention_factor = k.real("rope.scaling.attn_factor", 1e-6, 1e6, s.attention_factor);
        c.context = rotary_context(c);
    } else if (k.has("rope.scaling.type")) {
        const std::string type = gguf::get_string(k.file, k.key("rope.scaling.type"));
        if (type == "none") return;
        if (type != "linear" && type != "yarn") k.fail("rope.scaling.type", "is \"" + type + "\"; attnviz runs none, linear, yarn and a rope_freqs tensor");
        s.type = type;
        s.factor = k.real("rope.scaling.factor", 1e-6, 1e6, 1.0);
        if (type == "yarn") read_gguf_yarn(k, c);
    }
}

std::vector<float> inverse_frequencies(double theta, int dims, const RopeScaling& s) {
    const int half = dims / 2;
    std::vector<float> inv(static_cast<std::size_t>(half));
    for (int i = 0; i < half; ++i) {
        double f = 1.0 / std::pow(theta, static_cast<double>(2 * i) / dims);
        if (s.type == "linear") f /= s.factor;
        if (s.type == "llama3") f = llama3_frequency(f, s);
        if (s.type == "longrope" || s.type == "rope_freqs") f /= s.short_factor[static_cast<std::size_t>(i)];
        if (s.type == "yarn") f = yarn_frequency(f, i, dims, theta, s);
        inv[static_cast<std::size_t>(i)] = static_cast<float>(f);
    }
    return inv;
}

int rotary_context(const ModelConfig& c) {
    if (c.rope_scaling.type != "longrope") return c.context;
    return std::min(c.context, static_cast<int>(c.rope_scaling.original_max_position_embeddings));
}

void rotate(float* x, int ld, int t, int heads, int d_head, int past, const std::vector<float>& inv_freq, float scale) {
    const int half = static_cast<int>(inv_freq.size());
    std::vector<float> cos_(inv_freq.size()), sin_(inv_freq.size());
    for (int i = 0; i < t; ++i) {
        for (int f = 0; f < half; ++f) {
            const float angle = static_cast<float>(past + i) * inv_freq[static_cast<std::size_t>(f)];
            cos_[static_cast<std::size_t>(f)] = static_cast<float>(std::cos(static_cast<double>(angle))) * scale;
            sin_[static_cast<std::size_t>(f)] = static_cast<float>(std::sin(static_cast<double>(angle))) * scale;
        }
        for (int h = 0; h < heads; ++h) {
            float* v = x + static_cast<std::ptrdiff_t>(i) * ld + static_cast<std::ptrdiff_t>(h) * d_head;
            for (int f = 0; f < half; ++f) {
                const float a = v[f], b = v[f + half], co = cos_[static_cast<std::size_t>(f)], si = sin_[static_cast<std::size_t>(f)];
                v[f] = a * co - b * si;
                v[f + half] = b * co + a * si;
            }
        }
    }
}

} // namespace core::model::rotary
