// ui/restore_notice.cpp — the notice shown when start-up restored the autosaved session: keep it,
// or start from the worked example instead (itself one undoable edit).
#include "core/edits.h"
#include "core/presets.h"
#include "ui/app_state.h"
#include "ui/widgets.h"

namespace ui {

void draw_restore_notice(App::State& st) {
    RestoreNotice& notice = st.restore_notice;
    if (notice.text.empty()) return;
    constexpr const char* title = "Your last session";
    if (!ImGui::IsPopupOpen(title)) ImGui::OpenPopup(title);
    const ImVec2 display = ImGui::GetIO().DisplaySize;
    ImGui::SetNextWindowPos(ImVec2(display.x * 0.5f, display.y * 0.4f), ImGuiCond_Appearing, ImVec2(0.5f, 0.5f));
    if (!ImGui::BeginPopupModal(title, nullptr, ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoSavedSettings)) return;
    ImGui::PushTextWrapPos(em() * 30);
    ImGui::TextUnformatted(notice.text.c_str());
    ImGui::PopTextWrapPos();
    ImGui::Spacing();
    bool close = false;
    if (notice.offer_default) {
        close = ImGui::Button("Continue where I left off");
        remember(st.view, "restore_keep");
        tip("Keep the scenario you had open when attnviz last ran.");
        ImGui::SameLine();
        if (ImGui::Button("Start from the worked example")) {
            core::edits::replace_scenario(st.scenario, core::preset_three_tokens());
            close = true;
        }
        remember(st.view, "restore_default");
        tip("Open \"the cat sat\" instead. Edit ▸ Undo brings the restored session back.");
    } else {
        close = ImGui::Button("OK");
        remember(st.view, "restore_ok");
    }
    if (close) {
        notice.text.clear();
        ImGui::CloseCurrentPopup();
    }
    ImGui::EndPopup();
}

} // namespace ui
