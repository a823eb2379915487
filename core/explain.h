// core/explain.h — one row's attention calculation written out, as the three-token article does it for "sat":
//
//   q_sat · k_the = 2·2 + 2·0 = 4        4 / √2 = 2.828
//   e^2.828 ≈ 16.92 …  Σ ≈ 90.61
//   w_the = 16.92 / 90.61 = 0.187 …
//   z_sat = 0.187·(1, 0) + 0.045·(0, 2) + 0.768·(1, 2) = (0.955, 1.627)
//
// The window lays the same lines out in sections; --explain prints them as text.
#pragma once

#include "core/attention.h"

#include <string>
#include <vector>

namespace core {

// The lines of one key. Under the linear rule `exp` is empty and the weight is the scaled score
// ("m_the = 2.828"); under the delta rule `score` is the key's write ("k'_the = (1, 0): wrote β k'_the =
// (1, 0)"), `scaled` what is left of it at the query ("w_the = (0.200, −0.400)") and the weight its
// reading ("m_the = q'_sat · w_the = 0.5·0.2 + 0.5·(−0.4) = −0.100").
struct KeyLine {
    int key = 0;          // 0-based key index j
    bool masked = false;  // hidden by the causal mask or the sliding window: weight exactly 0
    std::string score;    // "q_sat · k_the = 2·2 + 2·0 = 4"
    std::string scaled;   // "4 / √2 = 2.828", "4 × 0.0625 = 0.25", "… → 50·tanh(2.828 / 50) = 2.825"
                          // (empty when nothing scales or caps the score)
    std::string exp;      // "e^2.828 ≈ 16.92"
    std::string weight;   // "w_the = 16.92 / 90.61 = 0.187"
};

// The titles of the written-out steps under a rule: softmax has four (scores, exponentials, weights,
// weighted sum), linear and delta three (no exponentials).
struct StepTitles {
    const char* scores;
    const char* exps; // nullptr: the rule has no such step
    const char* weights;
    const char* sum;
};
StepTitles step_titles(AttentionRule rule);

struct HeadExplanation {
    std::string title;           // "Head 1 · query "sat" (row 3) · d_k = 2"
    std::string setup;           // "scores × 0.0625 (instead of / √2), soft-capped: …, sliding window of 3: keys 2 … 4 visible";
                                 // empty unless a custom scale, a soft-cap or a window is set
    std::vector<KeyLine> keys;   // one per key, masked ones included
    std::string shift_note;      // set when exponentials are shown after subtracting the row maximum
    std::string exp_sum;         // "Σ ≈ 90.61"
    std::string weighted_sum;    // "z_sat = 0.187·(1, 0) + … = (0.955, 1.627)"
    AttentionRule rule = AttentionRule::softmax;
    std::string rule_line;       // under linear and delta: what the rule does with the row, in words
};

struct RowExplanation {
    int row = 0;                 // 0-based query index i
    std::string token;
    std::vector<HeadExplanation> heads;
    std::string final_output;    // with several heads or W_O: the row of the final output
};

RowExplanation explain_row(const Scenario& s, const Result& r, int row);
std::string to_text(const RowExplanation& e);

// The scaled scores as a formula of `scores` ("QKᵀ"): "QKᵀ / √2", "QKᵀ × 0.0625", "50·tanh(QKᵀ / √2 / 50)",
// "QKᵀ (not scaled)".
std::string logit_formula(const Scenario& s, const std::string& scores);
// What the softmax takes, for a title: the articles' "QKᵀ / √d_k" under the usual rules, else the
// scenario's own scale and soft-cap ("QKᵀ", "QKᵀ × 0.25", "3·tanh(QKᵀ / √2 / 3)").
std::string softmax_argument(const Scenario& s);
// "masked: −∞ above the diagonal", "… and outside a sliding window of 3", or "" without a mask.
std::string mask_description(const Scenario& s);

// Integers plainly ("4", "-2"), everything else to 3 decimals ("2.828", "0.500").
std::string format_number(double x);
// "(0.955, 1.627)"; long vectors show their first entries and a count.
std::string format_vector(const double* v, Eigen::Index size);

// Finds a row by 1-based index ("3") or token name ("sat", first match); -1 when there is none.
int find_row(const Scenario& s, const std::string& row);

} // namespace core
