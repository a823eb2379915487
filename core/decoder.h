// core/decoder.h — generating one token at a time with a KV cache (the every-token article, "Generating text").
//
// Step t (1-based) computes token t's key and value rows once, appends them to the caches, and
// attends from token t's query over tokens 1..t. That is exactly row t of the causal computation,
// with one new K/V row per step instead of t.
#pragma once

#include "core/attention.h"

namespace core {

struct DecodeStep {
    int t = 0;                        // 1-based step, = number of tokens seen
    std::string token;
    int new_kv_rows = 1;              // rows of K (and of V) computed with the cache
    int kv_rows_without_cache = 0;    // = t: recomputing K and V for the whole prefix
    std::vector<Vector> weights;      // per head: (t) attention of token t over tokens 1..t
    Vector output;                    // final output row: (d_model) with W_O, else (H·d_v)
};

class Decoder {
public:
    explicit Decoder(Scenario s); // throws ScenarioError when invalid
    bool done() const { return t_ == scenario_.n(); }
    int steps_done() const { return t_; }
    DecodeStep step(); // requires !done()

    const Matrix& k_cache(int head) const { return k_cache_[head]; } // (capacity, d_k), first t rows used
    const Matrix& v_cache(int head) const { return v_cache_[head]; } // (capacity, d_v), first t rows used
    long long kv_rows_with_cache() const { return t_; }
    long long kv_rows_without_cache() const { return static_cast<long long>(t_) * (t_ + 1) / 2; }
    // Bytes the caches hold for one head: t rows of K and V, 8-byte doubles.
    long long cache_bytes_per_head() const;

private:
    Scenario scenario_;
    Matrix x_in_;                   // (n, d_model)
    std::vector<Matrix> k_cache_;   // per head (n, d_k)
    std::vector<Matrix> v_cache_;   // per head (n, d_v)
    int t_ = 0;
};

std::vector<DecodeStep> decode_all(const Scenario& s);

} // namespace core
