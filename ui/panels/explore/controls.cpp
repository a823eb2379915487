// ui/panels/explore/controls.cpp — switches, presets (with the NumPy draw's seed, n and d), reset, files and undo.
#include "ui/panels/explore/controls.h"

#include "core/edits.h"
#include "core/presets.h"
#include "ui/widgets.h"

#include <algorithm>
#include <cstdio>
#include <string>
#include <type_traits>

namespace ui {

namespace {

// Whether `s` is still what a NumPy draw of this size could have made: direct, one head, n × d.
bool has_numpy_shape(const core::Scenario& s, const core::NumpyRandomParams& p) {
    return s.direct && s.heads.size() == 1 && s.W_O.size() == 0 && s.n() == p.n && s.d_k() == p.d && s.d_v() == p.d;
}

// Whether Q, K and V of `s` are NumPy's draw for `p`.
bool is_numpy_draw(const core::Scenario& s, const core::NumpyRandomParams& p) {
    if (!has_numpy_shape(s, p)) return false;
    const core::Scenario drawn = core::numpy_random_qkv(p.seed, p.n, p.d);
    const core::Head &a = s.heads[0], &b = drawn.heads[0];
    return a.Q == b.Q && a.K == b.K && a.V == b.V;
}

// The controls are linked to a scenario that a NumPy draw made (the NumPy presets, or an undo back
// to an earlier draw) and stay linked while its shape stays; editing a cell keeps the link, since
// redrawing is an undoable choice. Another shape (a file, another preset, a token added) unlinks.
bool numpy_linked(const core::Scenario& s, NumpyDrawView& nd, long long version) {
    if (nd.linked && has_numpy_shape(s, nd.params)) return true;
    if (version == nd.checked_version) return false; // nothing changed since the last look
    nd.checked_version = version;
    for (const core::NumpyRandomParams& p : {core::NumpyRandomParams{nd.params.seed, s.n(), s.d_k()}, core::NumpyRandomParams{}})
        if (is_numpy_draw(s, p)) {
            nd.params = p;
            return nd.linked = true;
        }
    return nd.linked = false;
}

// seed, n and d of Q, K, V = default_rng(seed).normal(size=(n, d)); any change draws them again.
void numpy_draw_controls(core::Scenario& s, View& v) {
    NumpyDrawView& nd = v.state<NumpyDrawView>();
    if (!numpy_linked(s, nd, v.result_version)) return;
    // One line: Q, K, V = default_rng(seed).normal(size=(n, d)), said in each control's tooltip.
    core::NumpyRandomParams p = nd.params;
    ImGui::SetNextItemWidth(4.5f * em());
    bool changed = ImGui::InputScalar("seed", ImGuiDataType_U64, &p.seed, nullptr, nullptr, "%llu",
                                      ImGuiInputTextFlags_EnterReturnsTrue | ImGuiInputTextFlags_AutoSelectAll);
    remember(v, "numpy_seed");
    tip("Q, K, V = np.random.default_rng(seed).normal(size=(n, d)), one call each, drawn as NumPy draws them "
        "(bit for bit). The seed is any whole number from 0 to 2^64 − 1.");
    ImGui::SameLine(0, em());
    changed |= dimension_input("n", p.n, 1, core::Limits::max_tokens, "Tokens: the rows of Q, K and V (drawn again).", v);
    ImGui::SameLine(0, em());
    changed |= dimension_input("d", p.d, 1, core::Limits::max_dim, "Width: the columns of Q, K and V, d_k = d_v = d (drawn again).", v);
    if (!changed) return;
    core::Scenario next = core::numpy_random_qkv(p.seed, p.n, p.d);
    next.causal = s.causal;
    next.scale = s.scale;
    next.scale_factor = s.scale_factor;
    next.window = s.window;
    next.softcap = s.softcap;
    core::edits::replace_scenario(s, std::move(next));
    nd.params = p;
}

// A number typed into a box of `width` em, applied on Enter; `apply` refuses what it cannot take
// (the message then says why, and nothing changes).
// The box shows 6 significant digits: Enter on them unchanged keeps the exact value.
template <class T, class Apply>
void number_box(const char* label, const char* id, T shown, float width, const char* tooltip, View& v, Apply&& apply) {
    constexpr bool whole = std::is_same<T, int>::value;
    const char* format = whole ? "%d" : "%.6g";
    ImGui::SetNextItemWidth(width * em());
    T typed = shown;
    auto text = [format](T x) {
        char buf[32];
        std::snprintf(buf, sizeof buf, format, x);
        return std::string(buf);
    };
    if (ImGui::InputScalar(label, whole ? ImGuiDataType_S32 : ImGuiDataType_Double, &typed, nullptr, nullptr, format,
                           ImGuiInputTextFlags_EnterReturnsTrue | ImGuiInputTextFlags_AutoSelectAll) &&
        text(typed) != text(shown)) {
        if (const std::string why = apply(typed); !why.empty()) v.tell(why, true);
    }
    remember(v, id);
    tip(tooltip);
}

// The attention rule: softmax, linear or the delta rule.
void attention_rule(core::Scenario& s, View& v) {
    static const char* const names[] = {"softmax", "linear", "delta rule"};
    static const char* const tips[] = {
        "M = softmax of each row of the scaled scores: positive weights that add up to 1.",
        "M = the scaled scores as they are, 0 where masked: no softmax, no soft-cap. Entries can be negative and a row "
        "need not add up to 1; the output is a sum over keys of k vᵀ, a state, read along the query.",
        "The gated delta rule of Gated DeltaNet (Qwen3.5, Qwen3-Next): a state S (d_k × d_v) decayed at each step, "
        "erased by β along the new key and written with β k vᵀ; q and k are divided by their length. Causal by nature. "
        "M is its exact matrix, Z = M V, and its entries can be negative."};
    int rule = static_cast<int>(s.rule);
    ImGui::SetNextItemWidth(9.0f * em());
    if (ImGui::BeginCombo("rule", names[rule])) {
        for (int i = 0; i < 3; ++i) {
            if (ImGui::Selectable(names[i], i == rule)) core::edits::set_rule(s, static_cast<core::AttentionRule>(i));
            tip(tips[i]);
        }
        ImGui::EndCombo();
    }
    remember(v, "rule");
    tip(tips[rule]);
}

// The delta rule's β and decay as sliders, where the window and the soft-cap (which it has not) are.
void delta_sliders(core::Scenario& s, View& v) {
    auto slider = [&](const char* label, const char* id, double value, const char* tooltip, bool (*set)(core::Scenario&, double)) {
        static const double lo = 0.0, hi = 1.0;
        double x = value;
        ImGui::SetNextItemWidth(7.0f * em());
        if (ImGui::SliderScalar(label, ImGuiDataType_Double, &x, &lo, &hi, "%.2f")) set(s, x);
        remember(v, id);
        tip(tooltip);
    };
    slider("β", "beta", s.beta, "How strongly each token writes: it replaces this share of what the state held along its key.", core::edits::set_beta);
    ImGui::SameLine(0, em());
    slider("decay", "decay", s.decay, "What the state is multiplied by at each step before the write: 1 keeps everything, 0 forgets all.",
           core::edits::set_decay);
}

// How scores become logits: the √d_k switch, or a factor of the user's (a model's); the sliding
// window and the soft-cap, or under the delta rule its β and decay.
void score_rules(core::Scenario& s, View& v) {
    bool scale = s.scale == core::ScoreScale::inv_sqrt_d_k;
    if (ImGui::Checkbox("Scale by √d_k", &scale)) core::edits::set_scale(s, scale ? core::ScoreScale::inv_sqrt_d_k : core::ScoreScale::none);
    remember(v, "scale");
    tip("Divide every score by √d_k before the softmax, so long vectors do not make the weights one-hot.");
    ImGui::SameLine(0, em());
    number_box("factor", "scale_factor", s.score_factor(), 4.5f, "What every score is multiplied by: 1/√d_k when the box is ticked, "
               "1 when not. Type another factor to use it instead (Gemma's 1/√query_pre_attn_scalar, GPT-2's 1/(√d_k·layer)).",
               v, [&s](double f) {
                   return core::edits::set_scale_factor(s, f) ? std::string() : core::check_scale_factor(f, "the score factor");
               });
    if (s.rule == core::AttentionRule::delta) return delta_sliders(s, v);
    number_box("window", "window", s.window, 4.5f, "Sliding window: query i sees only keys j with |i − j| < window (with the causal "
               "mask, the last `window` tokens up to itself, as Mistral and Gemma do). 0: no window.",
               v, [&s](int w) { return core::edits::set_window(s, w) ? std::string() : "the window must be 0 (off) or a width of at least 1"; });
    ImGui::SameLine(0, em());
    ImGui::BeginDisabled(s.rule != core::AttentionRule::softmax);
    number_box("soft-cap", "softcap", s.softcap, 4.5f, "Logit soft-capping: each scaled score x becomes cap · tanh(x / cap) before the "
               "softmax, so no score passes ±cap (Gemma 2 uses 50). 0: off. The softmax rule only: linear attention takes no soft-cap.",
               v, [&s](double c) { return core::edits::set_softcap(s, c) ? std::string() : core::check_softcap(c, "the soft-cap"); });
    ImGui::EndDisabled();
}

} // namespace

void draw_controls_panel(core::Scenario& s, View& v) {
    const bool delta = s.rule == core::AttentionRule::delta;
    bool causal = s.sees_only_past();
    ImGui::BeginDisabled(delta);
    if (ImGui::Checkbox("Causal mask", &causal)) core::edits::set_causal(s, causal);
    ImGui::EndDisabled();
    remember(v, "causal");
    tip(delta ? "The delta rule is causal by nature: a token reads only the state the tokens up to it wrote."
              : "Each token sees only itself and the tokens before it: scores with j > i become −∞, their weights exactly 0.");
    ImGui::SameLine(0, em());
    attention_rule(s, v);
    score_rules(s, v);
    bool positions = s.positional == core::Positional::sinusoidal;
    if (ImGui::Checkbox("Sinusoidal positions", &positions))
        core::edits::set_positions(s, positions);
    tip("Add the sine/cosine position codes of \"Attention is all you need\" to X before Q, K and V are made.");

    ImGui::Separator();
    // Room for Reset beside it, in the narrowest column.
    const float reset_w = ImGui::CalcTextSize("Reset").x + 2.0f * ImGui::GetStyle().FramePadding.x + ImGui::GetStyle().ItemSpacing.x;
    ImGui::SetNextItemWidth(std::clamp(ImGui::GetContentRegionAvail().x - reset_w, 8.0f * em(), 18.0f * em()));
    if (ImGui::BeginCombo("##preset", "Load a preset…")) {
        const auto& list = core::presets();
        for (size_t i = 0; i < list.size(); ++i) {
            if (ImGui::Selectable(list[i].name)) v.request_preset = static_cast<int>(i);
            tip(list[i].description);
        }
        ImGui::EndCombo();
    }
    tip("Replace the scenario by one of the articles' examples (undo brings yours back).");
    ImGui::SameLine();
    if (ImGui::Button("Reset")) v.request_reset = true;
    tip("Back to the scenario the program started with (undo brings this one back).");
    numpy_draw_controls(s, v);

    if (ImGui::Button("Open…")) v.request_open = true;
    remember(v, "open");
    tip("Read a scenario file (Ctrl+O). On any error the current scenario stays as it is.");
    ImGui::SameLine();
    if (ImGui::Button("Save")) v.request_save = true;
    tip("Write the scenario to its file (Ctrl+S); asks for a path the first time.");
    ImGui::SameLine();
    if (ImGui::Button("Save as…")) v.request_save_as = true;
    tip("Write the scenario to a new file (Ctrl+Shift+S).");
    // Undo and Redo on the same line when they fit, so the panel needs no scrolling.
    ImGui::SameLine();
    const ImGuiStyle& style = ImGui::GetStyle();
    if (ImGui::GetContentRegionAvail().x < ImGui::CalcTextSize("UndoRedo").x + 4.0f * style.FramePadding.x + style.ItemSpacing.x)
        ImGui::NewLine();

    ImGui::BeginDisabled(!v.can_undo);
    if (ImGui::Button("Undo")) v.request_undo = true;
    ImGui::EndDisabled();
    tip("Undo the last edit (Ctrl+Z). A whole drag is one step.");
    ImGui::SameLine();
    ImGui::BeginDisabled(!v.can_redo);
    if (ImGui::Button("Redo")) v.request_redo = true;
    ImGui::EndDisabled();
    tip("Redo what was undone (Ctrl+Shift+Z).");
}

} // namespace ui
