// core/edits.h — every change a panel makes to the Scenario's structure, in one place.
//
// The data flow is Scenario → core::compute → Result → panels → core::edits → Scenario: panels
// read the Result and change the scenario only through these functions. Each edit changes every
// place a dimension appears at once (X, every head's W_Q/W_K/W_V, W_O and the pinned query), so
// the scenario is valid before and after. New entries are 0 unless the edit says otherwise, so
// nothing that was computed changes until the user gives them a value. Pure functions, no ImGui.
#pragma once

#include "core/scenario.h"

#include <cstdint>
#include <string>
#include <vector>

namespace core::edits {

// [SECTION] Tokens
// Appends a token with a zero embedding; does nothing at Limits::max_tokens.
void add_token(Scenario& s, const std::string& name);
// A name for a new token that is not taken yet: "t4", "t5", …
std::string unused_token_name(const Scenario& s);
// Removes token `row` (0-based); refused (false) when it is the last one. A pin on it is released.
bool remove_token(Scenario& s, int row);
// Swaps token `row` with token `row + by` (by = ±1); false when that would leave the list.
bool move_token(Scenario& s, int row, int by);
// New token i is old token perm[i]: tokens and rows of X move; a pinned row follows its token.
// `perm` must be a permutation of 0 … n−1.
void permute_tokens(Scenario& s, const std::vector<int>& perm);
// A random order of 0 … n−1, never the identity when n ≥ 2. Same seed, same order.
std::vector<int> random_permutation(int n, std::uint64_t seed);
// Renames token `row`; false (nothing changes) when there is no such row.
bool rename_token(Scenario& s, int row, std::string name);
// Adds (or removes) the sinusoidal position codes to X before Q, K and V are made.
void set_positions(Scenario& s, bool sinusoidal);

// [SECTION] Entries and switches
// The matrices whose entries a panel edits. X and W_O belong to no head; Q, K and V exist only
// when the scenario gives them directly (Scenario::direct), W_Q, W_K, W_V only when it does not.
enum class Which { X, W_Q, W_K, W_V, W_O, Q, K, V };
// The matrix `which` (of head `head`, for the per-head ones); nullptr when the scenario has none.
const Matrix* matrix_of(const Scenario& s, Which which, int head);
// Sets entry (r, c) of that matrix to `value`; false, and nothing changes, when the matrix or the
// entry does not exist or `value` is not acceptable (is_acceptable_value: finite, within ±1e6).
bool set_cell(Scenario& s, Which which, int head, int r, int c, double value);
// The causal mask (scores above the diagonal become −∞) and what scores are multiplied by.
void set_causal(Scenario& s, bool causal);
void set_scale(Scenario& s, ScoreScale scale);
// The custom score factor (and scale = custom); false, and nothing changes, unless 0 < factor ≤ 1e6.
bool set_scale_factor(Scenario& s, double factor);
// The sliding window's width (0 = off); false, and nothing changes, when negative.
bool set_window(Scenario& s, int window);
// The logit soft-cap (0 = off); false, and nothing changes, unless 0 ≤ cap ≤ 1e6.
bool set_softcap(Scenario& s, double cap);
// The attention rule: softmax, linear or the delta rule (see AttentionRule).
void set_rule(Scenario& s, AttentionRule rule);
// The delta rule's β and decay; false, and nothing changes, unless 0 ≤ value ≤ 1.
bool set_beta(Scenario& s, double beta);
bool set_decay(Scenario& s, double decay);

// [SECTION] Widths, clamped to 1 … Limits::max_dim. Columns are added or dropped at the end.
void set_d_model(Scenario& s, int d_model); // X columns, W_Q/W_K/W_V rows, W_O columns
void set_d_k(Scenario& s, int d_k);         // W_Q and W_K columns of every head, pin.q
void set_d_v(Scenario& s, int d_v);         // W_V columns of every head, each head's block of W_O rows

// [SECTION] Heads and the output projection
// A new head with random weights of scale 1/√d_model (and d_v new rows of W_O, if there is one);
// false (nothing changes) at Limits::max_heads.
bool add_head(Scenario& s, std::uint64_t seed);
// Removes head h, its rows of W_O and a pin on it; pins on later heads move down. False (nothing
// changes) for the last head or an h out of range.
bool remove_head(Scenario& s, int h);
// W_O ((H·d_v), d_model) = 1 on the diagonal: the output is the concatenation, cut or padded to d_model.
void identity_W_O(Scenario& s);
// W_O with unit-normal entries times 1/√(H·d_v), as a freshly initialised layer has.
void random_W_O(Scenario& s, std::uint64_t seed);
// No W_O: the output is the concatenation of the heads.
void remove_W_O(Scenario& s);

// [SECTION] The pinned query
// Pins head `head`'s query of token `row` to q (d_k), entries clamped to ±Limits::max_abs_value.
void pin_query(Scenario& s, int head, int row, Vector q);
void unpin_query(Scenario& s);

// [SECTION] A whole new scenario
// Replaces everything by `next` (e.g. a learned head opened from the Train panel); throws
// ScenarioError and changes nothing when `next` is invalid.
void replace_scenario(Scenario& s, Scenario next);

} // namespace core::edits
