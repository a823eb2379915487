#include "ui/panels/shared/matrix_menu.h"

#include "core/io/npy.h"
#include "core/io/files.h"
#include "ui/widgets.h"

#include <imgui.h>
#include <imgui_stdlib.h>

namespace ui {

namespace {

struct Copy {
    const char* item;
    core::io::TextFormat format;
};

enum class Format { csv, npy, pixels, figure_png, figure_svg };

struct SaveItem {
    const char* item;
    core::io::FileFilter filter;
    Format format;
    bool figure; // the heatmap only
};

const SaveItem save_items[] = {
    {"Save as CSV…", {"CSV", {".csv"}}, Format::csv, false},
    {"Save as NumPy .npy…", {"NumPy arrays", {".npy"}}, Format::npy, false},
    {"Save as PNG, a pixel per cell…", {"PNG images", {".png"}}, Format::pixels, true},
    {"Save as labelled PNG figure…", {"PNG images", {".png"}}, Format::figure_png, true},
    {"Save as SVG figure…", {"SVG images", {".svg"}}, Format::figure_svg, true},
};

// The file's bytes; throws ExportError or FileError.
std::string file_bytes(Format format, const std::string& path, const core::Matrix& m, const core::io::MatrixLabels& labels,
                       const core::io::FigureSpec& figure) {
    switch (format) {
    case Format::csv: return core::io::matrix_text(m, core::io::TextFormat::csv, labels);
    case Format::npy:
        return core::io::npy_bytes({{m.rows(), m.cols()}, std::vector<double>(m.data(), m.data() + m.size()), core::io::DType::f64}, path);
    case Format::pixels: return core::io::png_bytes(core::io::heatmap_texels(m, figure.causal, figure.top));
    case Format::figure_png: return core::io::png_bytes(core::io::heatmap_figure_png(m, figure));
    case Format::figure_svg: return core::io::heatmap_figure_svg(m, figure);
    }
    return {};
}

// Asks where to save through the file dialog; the matrix is copied as it is now.
void ask_save(const SaveItem& s, const std::string& name, const core::Matrix& m, const core::io::MatrixLabels& labels,
              const core::io::FigureSpec* figure, View& v) {
    const Format format = s.format;
    const core::io::FigureSpec spec = figure ? *figure : core::io::FigureSpec{};
    v.file_request = FileRequest{core::io::FileBrowser::Mode::save, "Save " + name, {s.filter}, name + s.filter.extensions[0], "",
                                 [format, m, labels, spec, &v](const std::string& path) {
                                     try {
                                         core::io::write_file_atomically(path, file_bytes(format, path, m, labels, spec));
                                     } catch (const core::io::ExportError& e) {
                                         throw core::io::ExportError(path + ": " + e.what());
                                     }
                                     v.tell("Saved " + path, false);
                                 }};
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
    for (const SaveItem& item : save_items) {
        if (item.figure && !figure) continue;
        if (ImGui::MenuItem(item.item)) ask_save(item, name, m, labels, figure, v);
        v.items[name + " menu: " + item.item] = ImRect(ImGui::GetItemRectMin(), ImGui::GetItemRectMax());
    }
    ImGui::EndPopup();
}

} // namespace ui
