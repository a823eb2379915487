// core/scenario.h — the inputs of one attention layer, and the limits they must keep.
//
// A Scenario is everything the user can edit: token names, embeddings, one or more heads of
// weights, an optional output projection and the switches. compute() turns it into a Result.
#pragma once

#include <Eigen/Core>
#include <initializer_list>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace core {

// Row-major so that one token's vector is contiguous, as in the articles (rows are tokens).
using Matrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using Vector = Eigen::VectorXd;

struct Limits {
    static constexpr int max_tokens = 4096;
    static constexpr int max_dim = 512;
    static constexpr int max_heads = 16;
    static constexpr double max_abs_value = 1e6;
};

struct Head {
    Matrix W_Q; // (d_model, d_k)
    Matrix W_K; // (d_model, d_k)
    Matrix W_V; // (d_model, d_v)
    // Given directly instead (Scenario::direct): the projections a forward hook captures.
    Matrix Q = {}; // (n, d_k)
    Matrix K = {}; // (n, d_k)
    Matrix V = {}; // (n, d_v)
    bool operator==(const Head& o) const;
};

enum class Positional { none, sinusoidal };

// What scores are multiplied by before the softmax: nothing, 1/√d_k (the articles), or a factor a
// model gives instead (Gemma's query_pre_attn_scalar^−½, GPT-2's 1/(√d_k·(layer+1))).
enum class ScoreScale { none, inv_sqrt_d_k, custom };

// How the scores become the matrix M that mixes the values (Z = M V):
//   softmax: M = softmax of each row of the scaled, masked scores (the articles);
//   linear:  M = the scaled scores as they are, 0 where masked (linear attention: no softmax, no soft-cap);
//   delta:   M = the exact matrix of the gated delta rule (Gated DeltaNet): a state S (d_k, d_v) decayed,
//            erased along each key and written, causal by nature (no window), on q and k divided by their
//            length (and q times the score factor), as transformers' torch_recurrent_gated_delta_rule reads them.
enum class AttentionRule { softmax, linear, delta };

// The query arrow pins one row's query to a vector the user dragged or typed in.
struct QueryPin {
    int head = 0;
    int row = 0;
    Vector q; // (d_k)
    bool operator==(const QueryPin& o) const;
};

struct Scenario {
    std::vector<std::string> tokens; // n names
    Matrix X;                        // (n, d_model); empty when `direct`
    std::vector<Head> heads;         // at least one
    Matrix W_O;                      // (heads * d_v, d_model), or empty for "no output projection"
    bool causal = false;
    ScoreScale scale = ScoreScale::inv_sqrt_d_k;
    double scale_factor = 1.0;       // the factor when scale is custom: > 0
    // Sliding window: query i sees key j only when |i − j| < window (with the causal mask, the last
    // `window` keys up to i, as Mistral and Gemma have it); 0 = no window.
    int window = 0;
    // Logit soft-cap: scaled scores become softcap · tanh(score / softcap) before the mask; 0 = off.
    double softcap = 0.0;
    Positional positional = Positional::none;
    AttentionRule rule = AttentionRule::softmax;
    // The delta rule's β (how much of what is written replaces what the state held along the key) and
    // decay (what the state is multiplied by at each step), both in [0, 1], the same at every position.
    double beta = 1.0;
    double decay = 1.0;
    std::optional<QueryPin> pin;
    // Q, K and V are the inputs (heads[h].Q/K/V); X and the W's are empty, and W_O, if any, is
    // (heads * d_v, any width).
    bool direct = false;

    int n() const { return static_cast<int>(direct ? (heads.empty() ? 0 : heads[0].Q.rows()) : X.rows()); }
    int d_model() const { return static_cast<int>(X.cols()); } // 0 when direct
    int d_k() const { return heads.empty() ? 0 : static_cast<int>(direct ? heads[0].Q.cols() : heads[0].W_Q.cols()); }
    int d_v() const { return heads.empty() ? 0 : static_cast<int>(direct ? heads[0].V.cols() : heads[0].W_V.cols()); }
    // What Q·K is multiplied by: 1, 1/√d_k or scale_factor.
    double score_factor() const;
    // Whether query i sees no key after it: the causal mask, or the delta rule, which is causal by nature.
    bool sees_only_past() const { return causal || rule == AttentionRule::delta; }
    // The sliding window in use: the delta rule has none.
    int window_in_use() const { return rule == AttentionRule::delta ? 0 : window; }
    // The soft-cap in use: only the softmax takes one.
    double softcap_in_use() const { return rule == AttentionRule::softmax ? softcap : 0.0; }
    bool operator==(const Scenario& o) const;
    bool operator!=(const Scenario& o) const { return !(*this == o); }
};

// An input that breaks a rule. The message names the field, e.g.
// "W_Q has 3 rows, expected 2 (the width of X)".
struct ScenarioError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// Empty when the scenario is valid, otherwise the first problem found.
std::string validate(const Scenario& s);
// Throws ScenarioError with validate()'s message.
void require_valid(const Scenario& s);
// A matrix written row by row, as the articles print it: rows({{1, 0}, {0, 1}}). Every row must
// be as long as the first (std::invalid_argument otherwise).
Matrix rows(std::initializer_list<std::initializer_list<double>> values);
// Whether one entry can be stored in a matrix: finite and within the limits.
bool is_acceptable_value(double v);
// Empty when `v` can be the custom score factor (finite, > 0, within ±1e6) or the soft-cap (also 0:
// off), else why not ("softcap is NaN"); `name` starts the message.
std::string check_scale_factor(double v, const std::string& name);
std::string check_softcap(double v, const std::string& name);
// Empty when `v` can be the delta rule's β or decay (a number from 0 to 1), else why not.
std::string check_unit_interval(double v, const std::string& name);
// "softmax", "linear", "delta": the rule's name in scenario files; the rule of a name, or nullopt.
const char* rule_name(AttentionRule rule);
std::optional<AttentionRule> rule_of_name(const std::string& name);

} // namespace core
