#include "ui/panels/model/model_head_view.h"
#include "ui/model_service.h"

#include "ui/widgets.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

namespace ui {

namespace {

void choosers(View& v, ModelHeadView& st, int layers, int heads) {
    ModelService& m = v.state<ModelService>();
    ImGui::SetNextItemWidth(7 * em());
    int layer = m.layer + 1;
    if (ImGui::SliderInt("Layer", &layer, 1, layers)) m.layer = layer - 1;
    remember(v, "model head view layer");
    ImGui::SameLine();
    ImGui::Checkbox("All heads", &st.all_heads);
    remember(v, "model head view all");
    ImGui::SameLine();
    ImGui::Checkbox("Rollout", &st.rollout);
    remember(v, "model head view rollout");
    tip("Attention rollout: how much of each position after the last layer comes from each input token.");
    for (const auto& [id, label] : {std::pair<const char*, const char*>{"model_rollout", "Rollout map"}, {"model_qk", "Query–key view"}}) {
        if (!same_line_if_fits(ImGui::CalcTextSize(label).x + 2 * ImGui::GetStyle().FramePadding.x)) ImGui::Dummy(ImVec2(0, 0));
        if (ImGui::SmallButton(label)) v.open[id] = true;
    }
    ImGui::SameLine();
    for (int h = 0; h < heads; ++h) { // a swatch per head: its colour, a click selects it
        const float side = ImGui::GetFrameHeight() * 0.8f;
        if (!same_line_if_fits(side)) ImGui::Dummy(ImVec2(0, 0));
        ImGui::PushID(h);
        ImGui::PushStyleColor(ImGuiCol_Button, head_colour(h, heads, 1.0f));
        if (ImGui::Button(h == m.head ? "•" : " ", ImVec2(side, side))) m.head = h;
        ImGui::PopStyleColor();
        if (ImGui::IsItemHovered()) ImGui::SetTooltip("head %d", h + 1);
        ImGui::PopID();
    }
}

// Where the lines go: from x0 to x1, row i's middle at y0 + (i + ½) · row; only those that cross
// the visible band top … bottom can be seen.
struct LineSpan {
    float x0, x1, y0, row, top, bottom;
    float y(int i) const { return y0 + (static_cast<float>(i) + 0.5f) * row; }
};

// Head h's lines (−1: the rollout's) of weight ≥ min_weight from `a` (t, t), those that can be seen, into st.lines.
void find_lines(ModelHeadView& st, const float* a, int h, int t, const LineSpan& at, int hover_query, int hover_key) {
    // Rows [first, t) have their middle below the band's top, rows [0, last] above its bottom: a
    // line from a row above the band is seen only if its key is at or below the top, and so on.
    const int first = std::clamp(static_cast<int>(std::ceil((at.top - at.y0) / at.row - 0.5f)), 0, t);
    const int last = std::clamp(static_cast<int>(std::floor((at.bottom - at.y0) / at.row - 0.5f)), -1, t - 1);
    st.first_seen = first, st.last_seen = last;
    for (int i = 0; i < t; ++i) {
        if (hover_query >= 0 && i != hover_query) continue;
        const int j0 = i < first ? first : 0, j1 = i > last ? last + 1 : t;
        for (int j = j0; j < j1; ++j) {
            const float w = a[i * t + j];
            if (w >= ModelHeadView::min_weight && (hover_key < 0 || j == hover_key)) st.lines.push_back({h, i, j, w});
        }
    }
}

// st.lines into the texture, as opaque as their weights, in screen pixels from image_min on.
void draw_lines(ModelHeadView& st, const ModelHeadView::Fan& fan, int heads, TextureUploader& textures) {
    const ImVec2 origin(std::floor(fan.x0), std::floor(fan.top));
    Canvas& canvas = st.image.canvas;
    canvas.reset(static_cast<int>(std::ceil((fan.x1 - origin.x) * fan.scale)), static_cast<int>(std::ceil((fan.bottom - origin.y) * fan.scale)));
    const auto at = [&](float x, int i) { return ImVec2((x - origin.x) * fan.scale, (fan.y0 + (static_cast<float>(i) + 0.5f) * fan.row - origin.y) * fan.scale); };
    std::vector<Canvas::Stroke> strokes;
    strokes.reserve(st.lines.size());
    for (const ModelHeadView::Line& l : st.lines) {
        const float w = std::min(1.0f, l.weight);
        const ImU32 colour = l.head < 0 ? (fan.text & ~IM_COL32_A_MASK) | (static_cast<ImU32>(w * 255.0f + 0.5f) << IM_COL32_A_SHIFT) : head_colour(l.head, heads, w);
        strokes.push_back({at(fan.x0, l.query), at(fan.x1, l.key), fan.thickness * fan.scale, colour});
    }
    canvas.lines(strokes);
    st.image.send(textures);
    st.image_min = origin;
}

} // namespace

bool ModelHeadView::Fan::operator==(const Fan& o) const {
    return serial == o.serial && layer == o.layer && maps == o.maps && hover_query == o.hover_query && hover_key == o.hover_key && heads == o.heads &&
           x0 == o.x0 && x1 == o.x1 && y0 == o.y0 && row == o.row && top == o.top && bottom == o.bottom && scale == o.scale &&
           thickness == o.thickness && text == o.text;
}

ImU32 head_colour(int h, int heads, float alpha) {
    float r, g, b;
    ImGui::ColorConvertHSVtoRGB(static_cast<float>(h) / static_cast<float>(std::max(heads, 1)), 0.75f, 0.95f, r, g, b);
    return ImGui::GetColorU32(ImVec4(r, g, b, alpha));
}

void draw_model_head_view_panel(View& v, TextureUploader& textures) {
    ModelService& m = v.state<ModelService>();
    ModelHeadView& st = v.state<ModelHeadView>();
    st.heads.clear();
    st.layer = -1;
    if (!m.has_attention()) {
        dim_text(m.session.has_model() ? "The head view appears once the prompt has run." : "No model is open.");
        return;
    }
    const core::model::Snapshot& s = *m.shown;
    choosers(v, st, s.layers(), s.heads());
    st.layer = m.layer;
    for (int h = 0; h < s.heads(); ++h)
        if (st.all_heads || h == m.head) st.heads.push_back(h);
    const int t = s.t();
    const float row = ImGui::GetTextLineHeightWithSpacing();
    float label_w = 0;
    for (const std::string& l : s.labels) label_w = std::max(label_w, ImGui::CalcTextSize(l.c_str()).x);
    label_w = std::min(label_w, 10 * em()) + 0.5f * em();
    ImGui::BeginChild("lines", ImVec2(0, 0), false);
    const float width = std::min(ImGui::GetContentRegionAvail().x, 2 * label_w + 24 * em());
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    ImDrawList* draw = ImGui::GetWindowDrawList();
    int hover_query = -1, hover_key = -1;
    for (int i = 0; i < t; ++i) { // the two columns; a hovered token shows only its lines
        const std::string text = fit_text(s.labels[static_cast<std::size_t>(i)], label_w - 0.5f * em());
        for (int side = 0; side < 2; ++side) {
            const float x = side == 0 ? origin.x : origin.x + width - label_w;
            ImGui::SetCursorScreenPos(ImVec2(x, origin.y + static_cast<float>(i) * row));
            ImGui::PushID(i * 2 + side);
            ImGui::InvisibleButton("token", ImVec2(label_w, row));
            const bool hovered = ImGui::IsItemHovered();
            if (ImGui::IsItemClicked() && side == 0) m.query = i;
            remember(v, ((side == 0 ? "model head view query " : "model head view key ") + std::to_string(i)).c_str());
            ImGui::PopID();
            if (hovered) (side == 0 ? hover_query : hover_key) = i, m.hovered = i;
            const float tw = ImGui::CalcTextSize(text.c_str()).x;
            const ImU32 colour = ImGui::GetColorU32(i == m.query_position() && side == 0 ? ImGuiCol_PlotHistogram : ImGuiCol_Text);
            draw->AddText(ImVec2(side == 0 ? x + label_w - 0.5f * em() - tw : x + 0.5f * em(), origin.y + static_cast<float>(i) * row), colour, text.c_str());
        }
    }
    const bool rollout = st.rollout && s.rollout.rows() == t && s.rollout.cols() == t;
    if (rollout) st.heads = {-1};
    const LineSpan span{origin.x + label_w, origin.x + width - label_w, origin.y, row, draw->GetClipRectMin().y, draw->GetClipRectMax().y};
    std::vector<std::shared_ptr<const core::model::MatrixF>> maps; // a head whose map is still being rebuilt draws from a later frame
    for (int h : st.heads) maps.push_back(rollout ? nullptr : core::model::head_map_soon(m.shown, m.layer, h));
    const ModelHeadView::Fan fan{s.serial, m.layer, static_cast<int>(std::count_if(maps.begin(), maps.end(), [](const auto& p) { return p != nullptr; })),
                                 hover_query, hover_key, st.heads, span.x0, span.x1, span.y0, row, span.top, span.bottom,
                                 std::max(1.0f, ImGui::GetIO().DisplayFramebufferScale.x), std::max(1.0f, 0.12f * em()), ImGui::GetColorU32(ImGuiCol_Text)};
    if (!(fan == st.drawn)) {
        st.lines.clear();
        for (std::size_t k = 0; k < st.heads.size(); ++k)
            if (rollout || maps[k]) find_lines(st, rollout ? s.rollout.data() : maps[k]->data(), st.heads[k], t, span, hover_query, hover_key);
        draw_lines(st, fan, s.heads(), textures);
        st.drawn = fan;
    }
    st.image.draw(draw, st.image_min, fan.scale);
    ImGui::SetCursorScreenPos(ImVec2(origin.x, origin.y + static_cast<float>(t) * row));
    ImGui::Dummy(ImVec2(width, 0));
    ImGui::EndChild();
}

} // namespace ui
