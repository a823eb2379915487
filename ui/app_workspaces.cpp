// ui/app_workspaces.cpp — the App and its workspaces: what takes it to another one (a workspace's
// home panel opened, a panel's request), the command line's workspace, and a model's attention
// file opened in the Model workspace.
#include "ui/app_state.h"

#include "ui/model_service.h"
#include "ui/panel_table.h"
#include "ui/panels/model/attention.h"
#include "ui/workspaces.h"

#include <algorithm>

namespace ui {

// A panel that is a workspace's home (the Lesson, Train, a model's attention) opened in a workspace
// that does not list it (the Learn workspace lists Train, for a lesson on it), or a request from a
// panel: that workspace becomes current, with a way back.
void follow_opened_panels(App::State& st) {
    Workspaces& w = st.workspaces;
    View& v = st.view;
    if (!v.request_workspace.empty()) {
        const int k = find_workspace(v.request_workspace);
        v.request_workspace.clear();
        if (k >= 0 && k != w.current) switch_workspace(w, v, k, w.started);
    }
    for (const PanelSpec& p : panel_table()) {
        const int home = workspace_opening(w.current, p.id);
        if (home >= 0 && v.open[p.id] && !was_open(w, p.id)) {
            switch_workspace(w, v, home, w.started);
            v.open[p.id] = true; // the panel that took us there, whatever the workspace had open
        }
    }
}

// A panel that opens where an earlier row of the table, open in this workspace, already is covers it.
bool covers_another(const App::State& st, const PanelSpec& p) {
    const WorkspaceLayout& layout = st.workspaces.layouts[static_cast<std::size_t>(st.workspaces.current)];
    const auto at = [&](const char* id) { const Place& q = layout.at(id).place; return ImVec4(q.x0, q.y0, q.x1, q.y1); };
    for (const PanelSpec& q : panel_table()) {
        if (&q == &p) return false;
        const auto open = st.view.open.find(q.id);
        const ImVec4 a = at(q.id), b = at(p.id);
        if (open != st.view.open.end() && open->second && a.x == b.x && a.y == b.y && a.z == b.z && a.w == b.w) return true;
    }
    return false;
}

// The layout file is written now, while the workspaces are there to write their sections; the
// context, destroyed after the App, then writes it no more.
App::~App() {
    if (!ImGui::GetCurrentContext() || !ImGui::FindSettingsHandler("Workspace")) return;
    ImGuiIO& io = ImGui::GetIO();
    if (io.IniFilename) ImGui::SaveIniSettingsToDisk(io.IniFilename);
    io.IniFilename = nullptr;
    unregister_layout_handler();
}

bool App::set_workspace(const std::string& id) {
    const int k = find_workspace(id);
    if (k < 0) return false;
    state_->workspaces.start = k;
    return true;
}

int find_query_row(const std::string& row, const std::vector<std::string>& labels) {
    const int n = static_cast<int>(labels.size());
    if (!row.empty() && row.size() < 10 && std::all_of(row.begin(), row.end(), [](char c) { return c >= '0' && c <= '9'; })) {
        const int k = std::stoi(row);
        if (k >= 1 && k <= n) return k - 1;
    }
    const auto it = std::find(labels.begin(), labels.end(), row);
    return it == labels.end() ? -1 : static_cast<int>(it - labels.begin());
}

void App::select_head(int head) {
    state_->view.selected_head = std::clamp(head, 0, static_cast<int>(state_->scenario.heads.size()) - 1);
}

bool App::open_attention_file(const std::string& path, const std::string& labels, std::string& error, int layer, int head,
                              const std::string& row) {
    AttentionView& viewer = state_->view.state<AttentionView>();
    if (!viewer.open(path, labels)) {
        error = viewer.error;
        return false;
    }
    viewer.layer = std::clamp(layer, 0, viewer.file->layers() - 1);
    viewer.head = std::clamp(head, 0, viewer.file->heads() - 1);
    viewer.selected_row = row.empty() ? -1 : find_query_row(row, viewer.labels);
    state_->view.open["attention"] = true;
    state_->view.state<ModelService>().show_in_workspace(state_->view, ModelService::Source::file);
    return true;
}

App::AttentionFigures App::attention_figures() const {
    const AttentionView& v = state_->view.state<AttentionView>();
    if (!v.file) return {};
    return {v.file->layers(), v.file->heads(), v.file->n(), v.uploaded, v.total(), v.layer < 0 || v.map_rows_done >= v.file->n()};
}

std::string App::workspace() const { return workspace_table()[static_cast<std::size_t>(state_->workspaces.current)].id; }

} // namespace ui
