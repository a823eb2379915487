#include "ui/matrix_menu.h"

#include "core/io/npy.h"
#include "core/io/scenario_io.h"
#include "ui/widgets.h"

#include <imgui.h>
#include <imgui_stdlib.h>

namespace ui {

namespace {

struct Copy {
    const char* item;
    core::io::TextFormat format;
};

bool ends_with(const std::string& s, const char* suffix) {
    const std::string x = suffix;
    return s.size() >= x.size() && s.compare(s.size() - x.size(), x.size(), x) == 0;
}

// The file's bytes by its extension; throws ExportError or FileError.
std::string file_bytes(const std::string& path, const core::Matrix& m, const core::io::MatrixLabels& labels,
                       const core::io::FigureSpec* figure) {
    if (ends_with(path, ".csv")) return core::io::matrix_text(m, core::io::TextFormat::csv, labels);
    if (ends_with(path, ".npy"))
        return core::io::npy_bytes({{m.rows(), m.cols()}, std::vector<double>(m.data(), m.data() + m.size()), core::io::DType::f64}, path);
    if (figure && ends_with(path, ".svg")) return core::io::heatmap_figure_svg(m, *figure);
    if (figure && ends_with(path, ".labelled.png")) return core::io::png_bytes(core::io::heatmap_figure_png(m, *figure));
    if (figure && ends_with(path, ".png")) return core::io::png_bytes(core::io::heatmap_texels(m, figure->causal, figure->top));
    throw core::io::ExportError(figure ? "name the file .csv, .npy, .png (a pixel per cell), .labelled.png or .svg"
                                       : "name the file .csv or .npy");
}

void save(const std::string& path, const core::Matrix& m, const core::io::MatrixLabels& labels, const core::io::FigureSpec* figure,
          View& v) {
    try {
        core::write_file_atomically(path, file_bytes(path, m, labels, figure));
        v.tell("Saved " + path, false);
    } catch (const core::io::ExportError& e) {
        v.tell(path + ": " + e.what(), true);
    } catch (const core::io::FileError& e) {
        v.tell(e.what(), true);
    } catch (const core::ScenarioError& e) {
        v.tell(e.what(), true);
    }
}

} // namespace

void matrix_menu(const std::string& name, const core::Matrix& m, const core::io::MatrixLabels& labels, View& v,
                 const core::io::FigureSpec* figure) {
    v.items[name + " title"] = ImRect(ImGui::GetItemRectMin(), ImGui::GetItemRectMax());
    if (ImGui::IsItemHovered()) tip("Right-click to copy or save this matrix");
    const std::string popup = "matrix menu " + name;
    if (!ImGui::BeginPopupContextItem(popup.c_str())) return;
    static const Copy copies[] = {{"Copy as CSV", core::io::TextFormat::csv},
                                  {"Copy as TSV", core::io::TextFormat::tsv},
                                  {"Copy as NumPy", core::io::TextFormat::numpy},
                                  {"Copy as LaTeX", core::io::TextFormat::latex},
                                  {"Copy as Markdown", core::io::TextFormat::markdown}};
    for (const Copy& c : copies) {
        if (ImGui::MenuItem(c.item)) {
            ImGui::SetClipboardText(core::io::matrix_text(m, c.format, labels).c_str());
            v.tell(name + " copied (" + std::string(c.item + 8) + ")", false);
        }
        v.items[name + " menu: " + c.item] = ImRect(ImGui::GetItemRectMin(), ImGui::GetItemRectMax());
    }
    ImGui::Separator();
    std::string& path = v.state<MatrixMenuView>().paths[name];
    if (path.empty()) path = name + ".csv";
    ImGui::TextDisabled(figure ? "Save as .csv, .npy, .png (a pixel per cell), .labelled.png or .svg:" : "Save as .csv or .npy:");
    ImGui::SetNextItemWidth(18.0f * em());
    const bool enter = ImGui::InputText("##save path", &path, ImGuiInputTextFlags_EnterReturnsTrue);
    ImGui::SameLine();
    const bool clicked = ImGui::Button("Save");
    v.items[name + " menu: Save"] = ImRect(ImGui::GetItemRectMin(), ImGui::GetItemRectMax());
    if (clicked || enter) {
        save(path, m, labels, figure, v);
        ImGui::CloseCurrentPopup();
    }
    ImGui::EndPopup();
}

} // namespace ui
