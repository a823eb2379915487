#include "ui/panels/model_grid.h"
#include "ui/model_service.h"

#include "ui/widgets.h"

#include <algorithm>

namespace ui {

namespace {

constexpr int max_side = 24; // blocks across a thumbnail

void make_thumbnails(ModelGridView& g, const core::model::Snapshot& s) {
    const int t = s.t(), side = std::min(t, max_side);
    g.serial = s.serial;
    g.side = side;
    g.thumbs.assign(static_cast<std::size_t>(s.layers() * s.heads() * side * side), 0.0f);
    for (int l = 0; l < s.layers(); ++l)
        for (int h = 0; h < s.heads(); ++h) {
            const float* a = s.attention(l, h); // (t, t)
            float* out = g.thumbs.data() + static_cast<std::ptrdiff_t>((l * s.heads() + h) * side * side);
            for (int i = 0; i < t; ++i)
                for (int j = 0; j < t; ++j) out[(i * side / t) * side + j * side / t] += a[i * t + j];
            const float top = *std::max_element(out, out + side * side);
            if (top > 0)
                for (int k = 0; k < side * side; ++k) out[k] /= top;
        }
}

void thumbnail(ImDrawList* draw, const float* cells, int side, ImVec2 at, float size) {
    const float c = size / static_cast<float>(side);
    for (int i = 0; i < side; ++i)
        for (int j = 0; j < side; ++j) {
            const ImVec2 p(at.x + static_cast<float>(j) * c, at.y + static_cast<float>(i) * c);
            draw->AddRectFilled(p, ImVec2(p.x + c + 0.5f, p.y + c + 0.5f), sequential_color(cells[i * side + j]));
        }
}

} // namespace

void draw_model_grid_panel(View& v) {
    ModelService& m = v.state<ModelService>();
    if (!m.has_attention()) {
        dim_text(m.session.has_model() ? "The grid appears once the prompt has run." : "No model is open.");
        return;
    }
    const core::model::Snapshot& s = *m.shown;
    ModelGridView& g = v.state<ModelGridView>();
    if (g.serial != s.serial) make_thumbnails(g, s);
    const int L = s.layers(), H = s.heads();
    const float label_w = ImGui::CalcTextSize("L00").x + 0.5f * em(), label_h = ImGui::GetTextLineHeightWithSpacing();
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    const float gap = std::max(2.0f, 0.2f * em());
    // Square cells, as big as the panel allows, never smaller than 2 em (then the grid scrolls).
    const float cell = std::max(2.0f * em(), std::min((avail.x - label_w) / static_cast<float>(H), (avail.y - label_h) / static_cast<float>(L)) - gap);
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    ImDrawList* draw = ImGui::GetWindowDrawList();
    for (int h = 0; h < H; ++h) {
        const std::string name = "H" + std::to_string(h + 1);
        const float w = ImGui::CalcTextSize(name.c_str()).x;
        draw->AddText(ImVec2(origin.x + label_w + static_cast<float>(h) * (cell + gap) + (cell - w) / 2, origin.y), ImGui::GetColorU32(ImGuiCol_Text), name.c_str());
    }
    for (int l = 0; l < L; ++l) {
        const float y = origin.y + label_h + static_cast<float>(l) * (cell + gap);
        const std::string name = "L" + std::to_string(l + 1);
        draw->AddText(ImVec2(origin.x, y + (cell - ImGui::GetTextLineHeight()) / 2), ImGui::GetColorU32(ImGuiCol_Text), name.c_str());
        for (int h = 0; h < H; ++h) {
            const ImVec2 at(origin.x + label_w + static_cast<float>(h) * (cell + gap), y);
            ImGui::SetCursorScreenPos(at);
            ImGui::PushID(l * H + h);
            if (ImGui::InvisibleButton("head", ImVec2(cell, cell))) m.layer = l, m.head = h;
            remember(v, ("model grid " + std::to_string(l) + "." + std::to_string(h)).c_str());
            if (ImGui::IsItemHovered()) ImGui::SetTooltip("layer %d, head %d (click to show it)", l + 1, h + 1);
            ImGui::PopID();
            thumbnail(draw, g.thumbs.data() + static_cast<std::ptrdiff_t>((l * H + h) * g.side * g.side), g.side, at, cell);
            if (l == m.layer && h == m.head)
                draw->AddRect(ImVec2(at.x - gap / 2, at.y - gap / 2), ImVec2(at.x + cell + gap / 2, at.y + cell + gap / 2), selection_color(), 0, 0, std::max(2.0f, 0.15f * em()));
        }
    }
    ImGui::SetCursorScreenPos(ImVec2(origin.x, origin.y + label_h + static_cast<float>(L) * (cell + gap)));
    ImGui::Dummy(ImVec2(label_w + static_cast<float>(H) * (cell + gap), 0));
}

} // namespace ui
