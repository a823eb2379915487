// ui/panels/controls.cpp — switches, presets, reset, files and undo.
#include "ui/panels/controls.h"

#include "core/edits.h"
#include "core/presets.h"
#include "ui/widgets.h"

namespace ui {

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
    ImGui::SetNextItemWidth(std::min(ImGui::GetContentRegionAvail().x, 18.0f * em()));
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

    if (ImGui::Button("Open…")) v.request_open = true;
    tip("Read a scenario file (Ctrl+O). On any error the current scenario stays as it is.");
    ImGui::SameLine();
    if (ImGui::Button("Save")) v.request_save = true;
    tip("Write the scenario to its file (Ctrl+S); asks for a path the first time.");
    ImGui::SameLine();
    if (ImGui::Button("Save as…")) v.request_save_as = true;
    tip("Write the scenario to a new file (Ctrl+Shift+S).");

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
