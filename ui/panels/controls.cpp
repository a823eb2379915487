// ui/panels/controls.cpp — switches, presets (with the NumPy draw's seed, n and d), reset, files and undo.
#include "ui/panels/controls.h"

#include "core/edits.h"
#include "core/presets.h"
#include "ui/widgets.h"

#include <algorithm>

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
    core::edits::replace_scenario(s, std::move(next));
    nd.params = p;
}

} // namespace

void draw_controls_panel(core::Scenario& s, View& v) {
    bool causal = s.causal, scale = s.scale;
    if (ImGui::Checkbox("Causal mask", &causal)) core::edits::set_causal(s, causal);
    remember(v, "causal");
    tip("Each token sees only itself and the tokens before it: scores with j > i become −∞, their weights exactly 0.");
    if (ImGui::Checkbox("Scale by √d_k", &scale)) core::edits::set_scale(s, scale);
    remember(v, "scale");
    tip("Divide every score by √d_k before the softmax, so long vectors do not make the weights one-hot.");
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
