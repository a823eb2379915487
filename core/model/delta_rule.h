// core/model/delta_rule.h — the gated delta rule of a Gated DeltaNet layer (Qwen3.5, Qwen3-Next), as
// transformers' modeling_qwen3_next.py / modeling_qwen3_5.py run it, and the exact matrix M of each
// of its heads.
//
// Each value head h keeps a state S (d_k, d_v). At position t, with a_t = exp(g_t) (g ≤ 0):
//     S ← a_t · S;   S ← S + k_t · (β_t (v_t − Sᵀ k_t))ᵀ;   o_t = Sᵀ q_t
// q and k are the layer's after their L2 norm (q also times 1/√d_k); value head h reads query/key
// head h / (v_heads / k_heads), or h mod k_heads in llama.cpp's qwen35 files, whose converter put the
// value heads in that (tiled) order.
//
// The matrix M. Every state is a sum of outer products k-side vectors × values, S_t = Σ_s W_t[:, s] v_sᵀ,
// with W_t (d_k, t): the step above is W ← a_t W, then W ← (I − β_t k_t k_tᵀ) W, then column t of W
// set to β_t k_t (the write). So o_t = Σ_s (q_t · W_t[:, s]) v_s: M[t, s] = q_t · W_t[:, s], exactly,
// lower-triangular, and signed, because the erase (I − β k kᵀ) takes part of each earlier column
// away. Equivalently (the UT form the chunked kernel solves), with Γ[t, s] = exp(Σ_{s<r≤t} g_r):
//     M = ((Q Kᵀ) ⊙ Γ, s ≤ t) · (I + diag(β) · ((K Kᵀ) ⊙ Γ, s < t))⁻¹ · diag(β)
// The entries are signed; a row need not sum to 1. Layers, heads and rows count from 0 here.
#pragma once

#include "core/heads/head.h"

#include <functional>
#include <vector>

namespace core::model::delta_rule {

using core::heads::MatrixF;

struct Shape {
    int k_heads = 1, v_heads = 1, d_k = 1, d_v = 1;
    bool tiled = false; // value head h reads key head h mod k_heads (llama.cpp's qwen35, qwen35moe)
    int group() const { return v_heads / k_heads; } // value heads per query/key head
    int key_head(int h) const { return tiled ? h % k_heads : h / group(); }
};

// A layer's inputs to the rule, t positions.
struct Inputs {
    const float* q;    // (t, k_heads · d_k) L2-normed, times 1/√d_k
    const float* k;    // (t, k_heads · d_k) L2-normed
    const float* v;    // (t, v_heads · d_v)
    const float* beta; // (t, v_heads) sigmoid(b)
    const float* g;    // (t, v_heads) −exp(A_log) · softplus(a + dt_bias), the log of each step's decay
    int t;
};

// One position of the rule on a state S (d_k, d_v), with the step's decay a = exp(g), the key k (1, d_k)
// and the value v (1, d_v): S ← a S, then S ← S + kᵀ (β (v − k S)). The one writing of the recurrence:
// the models' float layers and Explore's double scenario both run it.
template <class State, class KeyRow, class ValueRow>
void step(State& S, const KeyRow& k, const ValueRow& v, typename State::Scalar beta, typename State::Scalar a) {
    S *= a;
    const auto delta = (beta * (v - k * S)).eval(); // (1, d_v) what the write changes along k
    S.noalias() += k.transpose() * delta;
}

// o (t, v_heads · d_v) by the recurrence, one position at a time (torch_recurrent_gated_delta_rule).
// `state` (v_heads, d_k, d_v), when given, is the state before the first position (a sequence
// continued) and receives the state after the last; null: zeros, not kept.
MatrixF recurrent(const Inputs& in, const Shape& s, float* state = nullptr);
// The same by chunks of `chunk` positions (torch_chunk_gated_delta_rule): within a chunk the UT
// system solved by forward substitution, across chunks the state carried; the heads shared between
// the cores (each head's bits its own).
MatrixF chunked(const Inputs& in, const Shape& s, int chunk = 64, float* state = nullptr);

// M's rows are rebuilt by chunks of `matrix_chunk` positions from position 0: each chunk from its own q, k,
// β and g (its block on its own columns, its queries carried back to the state before it, what it
// wrote), and a row of a later chunk reads an earlier chunk's columns through that chunk's write,
// carried back through the chunks between: O(d_k · r1²) for rows up to r1 in products of chunk × d_k
// blocks. A chunk's rows are the same bits whichever rows were asked (the forward's scores and a
// view's rebuilt rows agree).
constexpr int matrix_chunk = 64;
// Rows r0 … r1 − 1 of head h's M into dst ((r1 − r0), t) row-major, 0 above the diagonal.
void matrix_rows(const Inputs& in, const Shape& s, int h, int r0, int r1, float* dst);
// Every row of head h's M, a chunk at a time: each(i0, i1, rows) with rows ((i1 − i0), t) row-major,
// in order (the forward's head scores and thumbnails).
void matrix_blocks(const Inputs& in, const Shape& s, int h, const std::function<void(int i0, int i1, const float* rows)>& each);

// M[t, s] of head h in two parts ("why this score" on a linear head): the write of value s as it
// reaches t, β_s (q_t · k_s) times the decay from s to t, exp(Σ_{s<r≤t} g_r); and the correction,
// what the erases of the writes after s took from it (M[t, s] − the direct write). 0 for s > t.
struct Split {
    double entry = 0;      // M[t, s]
    double beta = 0;       // β_s
    double qk = 0;         // q_t · k_s (q times 1/√d_k)
    double decay = 1;      // exp(Σ_{s<r≤t} g_r)
    double direct = 0;     // β_s · qk · decay
    double correction = 0; // entry − direct
};
Split split(const Inputs& in, const Shape& s, int h, int t, int key);

// Head h's state S (d_k, d_v) after position `at` (counting from 0), by the recurrence: needs in.v.
MatrixF state(const Inputs& in, const Shape& s, int h, int at);

} // namespace core::model::delta_rule
