// ui/about.cpp — the About window.
#include "ui/about.h"

#include "ui/widgets.h"

#include <imgui.h>

namespace ui {

namespace {

struct Library {
    const char* name;
    const char* use;
    const char* licence;
};

constexpr Library libraries[] = {
    {"Dear ImGui " IMGUI_VERSION, "the user interface", "MIT"},
    {"GLFW", "the window and input", "zlib"},
    {"glad", "the OpenGL 3.3 loader (generated)", "MIT; OpenGL API registry Apache-2.0"},
    {"Eigen", "matrices", "MPL-2.0"},
    {"nlohmann/json", "scenario and settings files", "MIT"},
    {"libzip", ".npz files", "BSD-3-Clause"},
    {"toml++", "lesson files", "MIT"},
    {"MD4C", "lesson text (Markdown)", "MIT"},
    {"stb", "PNG reading and writing, font rasterising", "MIT or public domain"},
    {"DejaVu fonts", "text", "Bitstream Vera / public domain"},
};

void location(const char* what, const std::string& path) {
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(what);
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(path.empty() ? "(not kept: no home folder)" : path.c_str());
}

} // namespace

void draw_about_window(bool* open, const FileLocations& where) {
    if (!*open) return;
    const ImGuiViewport* vp = ImGui::GetMainViewport();
    ImGui::SetNextWindowPos(ImVec2(vp->WorkPos.x + vp->WorkSize.x * 0.5f, vp->WorkPos.y + vp->WorkSize.y * 0.5f), ImGuiCond_Appearing,
                            ImVec2(0.5f, 0.5f));
    if (ImGui::Begin(about_window_title, open, ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoSavedSettings)) {
        ImGui::Text("attnviz %s", ATTNVIZ_VERSION);
        ImGui::TextUnformatted("See and learn scaled dot-product attention.");
        ImGui::Spacing();
        ImGui::TextDisabled("Built with");
        if (ImGui::BeginTable("libraries", 3, ImGuiTableFlags_SizingFixedFit)) {
            for (const Library& l : libraries) {
                ImGui::TableNextRow();
                ImGui::TableNextColumn();
                ImGui::TextUnformatted(l.name);
                ImGui::TableNextColumn();
                ImGui::TextUnformatted(l.use);
                ImGui::TableNextColumn();
                ImGui::TextUnformatted(l.licence);
            }
            ImGui::EndTable();
        }
        ImGui::Spacing();
        ImGui::TextDisabled("Where attnviz keeps your files");
        if (ImGui::BeginTable("files", 2, ImGuiTableFlags_SizingFixedFit)) {
            location("Session (autosaved)", where.session);
            location("Settings", where.settings);
            location("Panel layout", where.layout);
            ImGui::EndTable();
        }
    }
    ImGui::End();
}

} // namespace ui
