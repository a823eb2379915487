// ui/workspaces.cpp
//
// [SECTION] Places
// [SECTION] Switching and resetting
// [SECTION] Each panel's place
// [SECTION] The tab bar and View ▸ Workspace
// [SECTION] The layout file
#include "ui/workspaces.h"

#include "ui/panel_table.h"
#include "ui/shortcuts.h"
#include "ui/view.h"
#include "ui/widgets.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>

namespace ui {

namespace {

WorkspaceLayout default_layout(const WorkspaceSpec& spec) {
    WorkspaceLayout layout;
    for (const PanelSpec& p : panel_table()) layout[p.id] = PanelLayout{place_in(spec, p.id), false};
    for (const PanelPlace& p : spec.panels) layout[p.panel].open = p.open_at_start;
    return layout;
}

// The tabs' strip: as tall as a tab, with a little room above and below.
float bar_padding() { return 0.2f * em(); }
float bar_height() { return ImGui::GetFrameHeight() + 2.0f * bar_padding(); }

} // namespace

Workspaces::Workspaces() {
    for (const WorkspaceSpec& spec : workspace_table()) layouts.push_back(default_layout(spec));
}

//-----------------------------------------------------------------------------
// [SECTION] Places
//-----------------------------------------------------------------------------

// The menu bar's and the tab bar's heights come from the font: the viewport's work area only
// shrinks to make room for them from the second frame on, after the panels were first placed.
ImRect work_area() {
    const ImGuiViewport* vp = ImGui::GetMainViewport();
    const float top = ImGui::GetFrameHeight() + bar_height();
    return ImRect(vp->Pos.x, vp->Pos.y + top, vp->Pos.x + vp->Size.x, vp->Pos.y + std::max(vp->Size.y, top + 1.0f));
}

// Whole pixels, so that panels sharing an edge in fractions share it on screen.
ImRect to_pixels(const Place& p, const ImRect& area) {
    const float W = area.GetWidth(), H = area.GetHeight();
    return ImRect(area.Min.x + std::floor(p.x0 * W), area.Min.y + std::floor(p.y0 * H), area.Min.x + std::floor(p.x1 * W),
                  area.Min.y + std::floor(p.y1 * H));
}

//-----------------------------------------------------------------------------
// [SECTION] Switching and resetting
//-----------------------------------------------------------------------------

namespace {

void mark_dirty() {
    if (ImGui::GetCurrentContext()) ImGui::MarkIniSettingsDirty();
}

// The View's open panels become those of the current workspace, its home panel among them.
void adopt_open_panels(const Workspaces& w, View& v) {
    for (const auto& [id, layout] : w.layouts[static_cast<std::size_t>(w.current)]) v.open[id] = layout.open;
    const WorkspaceSpec& spec = workspace_table()[static_cast<std::size_t>(w.current)];
    if (!spec.homes.empty()) v.open[spec.homes.front()] = true;
}

} // namespace

void switch_workspace(Workspaces& w, View& v, int k, bool way_back) {
    if (k < 0 || k >= static_cast<int>(workspace_table().size())) return;
    if (k != w.current) {
        w.back_to = way_back ? w.current : -1;
        w.current = k;
    }
    adopt_open_panels(w, v);
    w.place_all = true;
    mark_dirty();
}

void reset_workspace(Workspaces& w, View& v) {
    w.layouts[static_cast<std::size_t>(w.current)] = default_layout(workspace_table()[static_cast<std::size_t>(w.current)]);
    adopt_open_panels(w, v);
    w.place_all = true;
    mark_dirty();
}

void adopt_loaded_layout(Workspaces& w, View& v) {
    if (!w.loaded) return;
    w.loaded = false;
    adopt_open_panels(w, v);
    w.place_all = true;
}

namespace {

bool same_place(const Place& a, const Place& b) {
    constexpr float eps = 1e-4f;
    return std::abs(a.x0 - b.x0) < eps && std::abs(a.y0 - b.y0) < eps && std::abs(a.x1 - b.x1) < eps && std::abs(a.y1 - b.y1) < eps;
}

bool is_open(const View& v, const std::string& id) {
    const auto it = v.open.find(id);
    return it != v.open.end() && it->second;
}

} // namespace

Place fitted_place(const Workspaces& w, const View& v, const std::string& id) {
    constexpr float eps = 1e-4f;
    const WorkspaceLayout& layout = w.layouts[static_cast<std::size_t>(w.current)];
    const Place p = layout.at(id).place;
    if (!same_place(p, place_in(workspace_table()[static_cast<std::size_t>(w.current)], id))) return p;
    float bottom = 1;
    for (const auto& [other, l] : layout) {
        const Place& q = l.place;
        if (other == id || !is_open(v, other) || q.x0 >= p.x1 - eps || q.x1 <= p.x0 + eps) continue; // not above or below
        if (q.y0 >= p.y1 - eps) bottom = std::min(bottom, q.y0);       // the nearest panel below
        else if (q.y1 > p.y1 + eps) bottom = p.y1;                    // one beside reaches below: no room
    }
    return Place{p.x0, p.y0, p.x1, std::max(p.y1, bottom)};
}

void begin_panels(Workspaces& w, const View& v) {
    const ImVec2 size = work_area().GetSize();
    if (size.x != w.work_size.x || size.y != w.work_size.y) w.place_all = true; // the places are fractions of it
    w.work_size = size;
    w.placing = w.place_all;
    w.place_all = false;
    w.refit.clear();
    std::vector<std::string> open;
    for (const auto& [id, layout] : w.layouts[static_cast<std::size_t>(w.current)])
        if (is_open(v, id)) open.push_back(id);
    // Only when panels open or close, or all are placed: never while the user drags one.
    if (!w.placing && open == w.fitted_open) return;
    std::map<std::string, Place, std::less<>> fitted;
    for (const std::string& id : open) {
        const Place p = fitted_place(w, v, id);
        const auto was = w.fitted.find(id);
        if (was != w.fitted.end() && !same_place(was->second, p)) w.refit.push_back(id);
        fitted[id] = p;
    }
    w.fitted = std::move(fitted);
    w.fitted_open = std::move(open);
}

//-----------------------------------------------------------------------------
// [SECTION] Each panel's place
//-----------------------------------------------------------------------------

namespace {

PanelLayout& layout_of(Workspaces& w, const char* id) { return w.layouts[static_cast<std::size_t>(w.current)][id]; }

// This frame's place of an open panel: fitted at the frame's start, else (opened since) its own.
Place current_place(const Workspaces& w, const char* id) {
    if (const auto f = w.fitted.find(id); f != w.fitted.end()) return f->second;
    const auto& layout = w.layouts[static_cast<std::size_t>(w.current)];
    const auto it = layout.find(id);
    return it == layout.end() ? place_in(workspace_table()[static_cast<std::size_t>(w.current)], id) : it->second.place;
}

} // namespace

void place_panel(const Workspaces& w, const char* id, bool just_opened) {
    const bool moved = std::find(w.refit.begin(), w.refit.end(), id) != w.refit.end();
    if (!w.placing && !just_opened && !moved) return;
    const ImRect r = to_pixels(current_place(w, id), work_area());
    ImGui::SetNextWindowPos(r.Min, ImGuiCond_Always);
    ImGui::SetNextWindowSize(r.GetSize(), ImGuiCond_Always);
}

void record_panel(Workspaces& w, const char* id) {
    const ImRect area = work_area();
    const ImVec2 pos = ImGui::GetWindowPos(), size = ImGui::GetWindowSize();
    PanelLayout& layout = layout_of(w, id);
    const ImRect now = to_pixels(current_place(w, id), area);
    if (std::abs(now.Min.x - pos.x) < 1.0f && std::abs(now.Min.y - pos.y) < 1.0f && std::abs(now.GetWidth() - size.x) < 1.0f &&
        std::abs(now.GetHeight() - size.y) < 1.0f)
        return; // where the place puts it, to the pixel
    const float W = std::max(area.GetWidth(), 1.0f), H = std::max(area.GetHeight(), 1.0f);
    layout.place = Place{(pos.x - area.Min.x) / W, (pos.y - area.Min.y) / H, (pos.x + size.x - area.Min.x) / W, (pos.y + size.y - area.Min.y) / H};
    w.fitted[id] = layout.place; // where the user put it
    ImGui::MarkIniSettingsDirty();
}

bool was_open(const Workspaces& w, const char* id) {
    const auto& layout = w.layouts[static_cast<std::size_t>(w.current)];
    const auto it = layout.find(id);
    return it != layout.end() && it->second.open;
}

void note_open(Workspaces& w, const char* id, bool open) {
    PanelLayout& layout = layout_of(w, id);
    if (layout.open == open) return;
    layout.open = open;
    ImGui::MarkIniSettingsDirty();
}

//-----------------------------------------------------------------------------
// [SECTION] The tab bar and View ▸ Workspace
//-----------------------------------------------------------------------------

namespace {

Command workspace_command(int k) { return static_cast<Command>(static_cast<int>(Command::workspace_1) + k); }

} // namespace

void draw_workspace_bar(Workspaces& w, View& v) {
    const std::vector<WorkspaceSpec>& table = workspace_table();
    ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding, ImVec2(0.5f * em(), bar_padding()));
    constexpr ImGuiWindowFlags flags = ImGuiWindowFlags_NoScrollbar | ImGuiWindowFlags_NoSavedSettings;
    if (ImGui::BeginViewportSideBar("##workspaces", ImGui::GetMainViewport(), ImGuiDir_Up, bar_height(), flags)) {
        ImGui::PopStyleVar();
        if (ImGui::BeginTabBar("workspaces", ImGuiTabBarFlags_NoTooltip)) {
            int shown = -1;
            for (std::size_t k = 0; k < table.size(); ++k) {
                const bool select = static_cast<int>(k) == w.current && w.tab_shown != w.current;
                if (ImGui::BeginTabItem(table[k].title, nullptr, select ? ImGuiTabItemFlags_SetSelected : 0)) {
                    shown = static_cast<int>(k);
                    ImGui::EndTabItem();
                }
                if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s (%s)", table[k].tip, keys_of(workspace_command(static_cast<int>(k))));
            }
            if (w.back_to >= 0 && w.back_to != w.current) {
                const std::string back = std::string("◂ Back to ") + table[static_cast<std::size_t>(w.back_to)].title;
                if (ImGui::TabItemButton(back.c_str(), ImGuiTabItemFlags_Trailing)) switch_workspace(w, v, w.back_to, false);
                tip("Where you were, as you left it");
            }
            // A click on a tab switches; a switch made elsewhere (keys, menu, opening a file) selects its tab.
            if (shown >= 0 && shown != w.current && w.tab_shown == w.current) switch_workspace(w, v, shown, false);
            w.tab_shown = shown;
            ImGui::EndTabBar();
        }
    } else {
        ImGui::PopStyleVar();
    }
    ImGui::End();
}

void workspace_menu(Workspaces& w, View& v) {
    if (!ImGui::BeginMenu("Workspace")) return;
    const std::vector<WorkspaceSpec>& table = workspace_table();
    for (std::size_t k = 0; k < table.size(); ++k) {
        if (ImGui::MenuItem(table[k].title, keys_of(workspace_command(static_cast<int>(k))), w.current == static_cast<int>(k)))
            switch_workspace(w, v, static_cast<int>(k), false);
        tip(table[k].tip);
    }
    ImGui::EndMenu();
}

//-----------------------------------------------------------------------------
// [SECTION] The layout file
//-----------------------------------------------------------------------------

namespace {

constexpr const char* section_type = "Workspace";
constexpr const char* current_section = "#current";

// A place whose title bar is on screen, at least 2 % of the work area wide and high, at most all of it.
bool sensible(const Place& p) {
    const float w = p.x1 - p.x0, h = p.y1 - p.y0;
    return std::isfinite(p.x0) && std::isfinite(p.y0) && std::isfinite(p.x1) && std::isfinite(p.y1) && w >= 0.02f && h >= 0.02f &&
           w <= 1.0f && h <= 1.0f && p.y0 >= 0.0f && p.y0 <= 0.98f && p.x0 <= 0.98f && p.x1 >= 0.02f;
}

void* read_open(ImGuiContext*, ImGuiSettingsHandler* handler, const char* name) {
    static std::string section;
    section = name;
    return handler->UserData ? &section : nullptr;
}

void read_line(ImGuiContext*, ImGuiSettingsHandler* handler, void* entry, const char* line) {
    if (handler->UserData) read_layout_line(*static_cast<Workspaces*>(handler->UserData), *static_cast<std::string*>(entry), line);
}

void apply_all(ImGuiContext*, ImGuiSettingsHandler* handler) {
    if (handler->UserData) static_cast<Workspaces*>(handler->UserData)->loaded = true;
}

void write_all(ImGuiContext*, ImGuiSettingsHandler* handler, ImGuiTextBuffer* out) {
    if (!handler->UserData) return;
    const std::string text = layout_text(*static_cast<Workspaces*>(handler->UserData));
    out->append(text.c_str(), text.c_str() + text.size());
}

// Our sections of an ini text that ImGui read before the handler was there.
void read_sections(Workspaces& w, std::istream& in) {
    const std::string header = std::string("[") + section_type + "][";
    std::string line, section;
    bool ours = false;
    while (std::getline(in, line)) {
        if (!line.empty() && line.back() == '\r') line.pop_back();
        if (!line.empty() && line[0] == '[') {
            ours = line.rfind(header, 0) == 0 && line.back() == ']';
            if (ours) section = line.substr(header.size(), line.size() - header.size() - 1);
        } else if (ours && !line.empty()) {
            read_layout_line(w, section, line);
        }
    }
    w.loaded = true;
}

} // namespace

std::string layout_text(const Workspaces& w) {
    const std::vector<WorkspaceSpec>& table = workspace_table();
    std::string out = std::string("[") + section_type + "][" + current_section + "]\nid=" + table[static_cast<std::size_t>(w.current)].id + "\n\n";
    for (std::size_t k = 0; k < table.size(); ++k) {
        out += std::string("[") + section_type + "][" + table[k].id + "]\n";
        for (const auto& [id, p] : w.layouts[k]) {
            char line[160];
            std::snprintf(line, sizeof line, "%s=%.5f,%.5f,%.5f,%.5f,%d\n", id.c_str(), static_cast<double>(p.place.x0),
                          static_cast<double>(p.place.y0), static_cast<double>(p.place.x1), static_cast<double>(p.place.y1), p.open ? 1 : 0);
            out += line;
        }
        out += "\n";
    }
    return out;
}

void read_layout_line(Workspaces& w, const std::string& section, const std::string& line) {
    const std::size_t eq = line.find('=');
    if (eq == std::string::npos) return;
    const std::string key = line.substr(0, eq), value = line.substr(eq + 1);
    if (section == current_section) {
        if (key == "id" && find_workspace(value) >= 0) w.current = find_workspace(value);
        return;
    }
    const int k = find_workspace(section);
    if (k < 0 || !find_panel(key)) return;
    Place p{};
    int open = 0, used = 0;
    if (std::sscanf(value.c_str(), "%f,%f,%f,%f,%d%n", &p.x0, &p.y0, &p.x1, &p.y1, &open, &used) != 5 || used != static_cast<int>(value.size()) ||
        !sensible(p) || (open != 0 && open != 1))
        return;
    w.layouts[static_cast<std::size_t>(k)][key] = PanelLayout{p, open == 1};
}

void register_layout_handler(Workspaces& w) {
    ImGuiContext& g = *ImGui::GetCurrentContext();
    if (ImGui::FindSettingsHandler(section_type)) return;
    ImGuiSettingsHandler h;
    h.TypeName = section_type;
    h.TypeHash = ImHashStr(section_type);
    h.ReadOpenFn = read_open;
    h.ReadLineFn = read_line;
    h.ApplyAllFn = apply_all;
    h.WriteAllFn = write_all;
    h.UserData = &w;
    g.SettingsHandlers.push_back(h);
    if (g.SettingsLoaded && g.IO.IniFilename) { // read at the first NewFrame, before the handler was there
        std::ifstream in(g.IO.IniFilename);
        if (in) read_sections(w, in);
    }
}

void unregister_layout_handler() {
    ImGuiContext* g = ImGui::GetCurrentContext();
    if (!g) return;
    for (int i = 0; i < g->SettingsHandlers.Size; ++i)
        if (g->SettingsHandlers[i].TypeHash == ImHashStr(section_type)) {
            g->SettingsHandlers.erase(g->SettingsHandlers.Data + i);
            break;
        }
}

} // namespace ui
