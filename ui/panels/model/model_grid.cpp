#include "ui/panels/model/model_grid.h"
#include "ui/model_service.h"

#include "ui/colour_maps.h"
#include "ui/widgets.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

namespace ui {

namespace {

// The forward made them as it ran (ForwardOptions::thumbnail_side): no map is rebuilt for the grid.
void make_thumbnails(ModelGridView& g, const core::model::Snapshot& s) {
    g.serial = s.serial;
    g.side = s.result.thumbnail_side;
    g.thumbs = s.result.thumbnails;
}

void weights_texel(unsigned char* rgba, float w, float top) { put_rgba(rgba, weights_colour(w / top)); }
// A linear layer's thumbnail is of its signed M: the diverging map, 0 in the middle.
void signed_texel(unsigned char* rgba, float w, float top) { put_rgba(rgba, signed_colour(w / top)); }

// The thumbnails into the atlas, when the run or the colour map changed since they were painted.
void paint_thumbnails(ModelGridView& g, const core::model::Snapshot& s, TextureUploader& textures) {
    // The weights map, and the signed map and theme the linear layers' thumbnails take.
    const int map = static_cast<int>(colour_maps().weights) * 16 + static_cast<int>(colour_maps().signed_map) * 4 + static_cast<int>(colour_maps().theme);
    const bool fresh = g.atlas.reshape(textures, s.layers(), s.heads(), g.side);
    if (!fresh && g.painted == s.serial && g.colour_map == map) return;
    const std::size_t cell = static_cast<std::size_t>(g.side * g.side);
    for (int l = 0; l < s.layers(); ++l) {
        const bool linear = static_cast<std::size_t>(l) < s.result.kinds.size() && s.result.kinds[static_cast<std::size_t>(l)].linear;
        for (int h = 0; h < s.heads(); ++h)
            g.atlas.put(h, g.thumbs.data() + static_cast<std::size_t>(l * s.heads() + h) * cell, 1.0f, linear ? signed_texel : weights_texel);
        g.atlas.send(l);
    }
    g.painted = s.serial, g.colour_map = map;
    ++g.paintings;
}

// Each score as one cell's shade (the entropy as 1 − H / ln t, so that dark is sharp everywhere),
// inside a one-pixel border: a rectangle of the border's colour under them, two triangles where an
// outline took seventeen (512 heads at Llama size: a millisecond of every frame under llvmpipe).
void score_strip(ImDrawList* draw, const core::heads::HeadScores& sc, int t, ImVec2 at, float size) {
    const float h = std::max(3.0f, 0.16f * size), top = at.y + size - h;
    const float w = (size - 2.0f) / static_cast<float>(score_count);
    const float max_entropy = t > 1 ? std::log(static_cast<float>(t)) : 1.0f;
    draw->AddRectFilled(ImVec2(at.x, top), ImVec2(at.x + size, at.y + size), ImGui::GetColorU32(ImGuiCol_Border));
    for (int k = 0; k < score_count; ++k) {
        const std::optional<double> value = core::heads::score_value(sc, score_of(k));
        const float shade = !value ? 0.0f : k == score_entropy ? 1.0f - static_cast<float>(*value) / max_entropy : static_cast<float>(*value);
        const ImVec2 p(at.x + 1.0f + static_cast<float>(k) * w, top + 1.0f);
        draw->AddRectFilled(p, ImVec2(p.x + w, at.y + size - 1.0f), value ? sequential_color(std::clamp(shade, 0.0f, 1.0f)) : ImGui::GetColorU32(ImGuiCol_FrameBg));
    }
}

std::string score_text(const core::heads::HeadScores& sc) {
    std::string text;
    for (int k = 0; k < score_count; ++k) {
        const std::optional<double> value = core::heads::score_value(sc, score_of(k));
        char line[64];
        if (value) std::snprintf(line, sizeof line, "\n%-10s %.3f", score_name(k), *value);
        else std::snprintf(line, sizeof line, "\n%-10s -", score_name(k));
        text += line;
    }
    return text;
}

// Letters on the best heads: P previous, D duplicate, I induction, E the sharpest (lowest entropy).
std::string best_letters(const ModelGridView& g, int index) {
    std::string letters;
    for (int k = 0; k < score_count; ++k)
        if (g.best[static_cast<std::size_t>(k)] == index) letters += "PDIE"[k];
    return letters;
}

void mark_best(ImDrawList* draw, const std::string& letters, ImVec2 at) {
    const ImVec2 size = ImGui::CalcTextSize(letters.c_str());
    draw->AddRectFilled(at, ImVec2(at.x + size.x + 0.3f * em(), at.y + size.y), IM_COL32(0, 0, 0, 190));
    draw->AddText(ImVec2(at.x + 0.15f * em(), at.y), IM_COL32(255, 220, 80, 255), letters.c_str());
}

// The knock-out mode, what a knocked-out head's output becomes, and Clear all.
void knockout_bar(View& v, ModelService& m) {
    ImGui::Checkbox("Knock out", &m.knockout_mode);
    remember(v, "model grid knock out");
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("A click on a head knocks it out or back in (Ctrl+click does it in either mode)");
    ImGui::SameLine();
    int mode = m.ablation == core::model::Ablation::mean ? 1 : 0;
    ImGui::SetNextItemWidth(7 * em());
    if (ImGui::Combo("##ablation", &mode, "to zero\0to its mean\0")) {
        m.ablation = mode == 1 ? core::model::Ablation::mean : core::model::Ablation::zero;
        if (!m.ablate.empty()) m.run_prompt();
    }
    remember(v, "model grid ablation");
    ImGui::SameLine();
    ImGui::BeginDisabled(m.ablate.empty());
    if (ImGui::Button(("Clear all (" + std::to_string(m.ablate.size()) + ")").c_str())) m.clear_knockouts();
    remember(v, "model grid clear");
    ImGui::EndDisabled();
}

void mark_knocked_out(ImDrawList* draw, ImVec2 at, float size) {
    const ImVec2 end(at.x + size, at.y + size);
    draw->AddRectFilled(at, end, IM_COL32(0, 0, 0, 140));
    const ImU32 red = IM_COL32(230, 60, 60, 255);
    const float w = std::max(2.0f, 0.15f * em());
    draw->AddLine(at, end, red, w);
    draw->AddLine(ImVec2(at.x, end.y), ImVec2(end.x, at.y), red, w);
}

// Each layer's kind as its row writes it, or none when every layer is a plain full softmax with RoPE.
std::vector<std::string> kind_labels(const core::model::Snapshot& s) {
    std::vector<std::string> labels;
    for (const core::model::AttentionKind& k : s.result.kinds) labels.push_back(core::model::kind_label(k));
    if (std::all_of(labels.begin(), labels.end(), [](const std::string& l) { return l == "full"; })) labels.clear();
    return labels;
}

// Where a layer is linear: what its thumbnails' colours mean, a diverging bar from − through 0 to +
// before a line that says it.
void signed_legend(ModelGridView& g, const core::model::Snapshot& s) {
    g.signed_legend = std::any_of(s.result.kinds.begin(), s.result.kinds.end(), [](const core::model::AttentionKind& k) { return k.linear; });
    if (!g.signed_legend) return;
    const float w = 4.0f * em(), h = ImGui::GetTextLineHeight(), sign = ImGui::CalcTextSize("+").x + 0.2f * em();
    const ImVec2 at = ImGui::GetCursorScreenPos();
    ImDrawList* draw = ImGui::GetWindowDrawList();
    const ImU32 text = ImGui::GetColorU32(ImGuiCol_Text);
    draw->AddText(at, text, "−");
    const int steps = 24;
    for (int k = 0; k < steps; ++k) {
        const float x0 = at.x + sign + w * static_cast<float>(k) / steps, x1 = at.x + sign + w * static_cast<float>(k + 1) / steps;
        draw->AddRectFilled(ImVec2(x0, at.y), ImVec2(x1 + 0.5f, at.y + h), diverging_color(2.0 * (k + 0.5) / steps - 1.0));
    }
    draw->AddText(ImVec2(at.x + sign + w / 2 - ImGui::CalcTextSize("0").x / 2, at.y), text, "0");
    draw->AddText(ImVec2(at.x + sign + w + 0.2f * em(), at.y), text, "+");
    ImGui::Dummy(ImVec2(2 * sign + w, h));
    ImGui::SameLine();
    dim_text("Linear layers: signed M, each head to ± its largest |entry|");
}

} // namespace

void draw_model_grid_panel(View& v, TextureUploader& textures) {
    ModelService& m = v.state<ModelService>();
    if (!m.has_attention()) {
        dim_text(m.session.has_model() ? "The grid appears once the prompt has run." : "No model is open.");
        return;
    }
    knockout_bar(v, m);
    const core::model::Snapshot& s = *m.shown;
    ModelGridView& g = v.state<ModelGridView>();
    if (g.serial != s.serial) make_thumbnails(g, s);
    paint_thumbnails(g, s, textures);
    const int L = s.layers(), H = s.heads();
    const bool scored = static_cast<int>(s.scores.size()) == L * H;
    for (int k = 0; k < score_count; ++k) g.best[static_cast<std::size_t>(k)] = scored ? core::heads::best_head(s.scores, score_of(k)) : -1;
    dim_text(scored ? "Strip: previous, duplicate, induction, sharpness. P D I E: each score's best head."
                    : "No head scores for this run.");
    signed_legend(g, s);
    g.kinds = kind_labels(s);
    float label_w = ImGui::CalcTextSize("L00").x + 0.5f * em();
    for (const std::string& kind : g.kinds) label_w = std::max(label_w, ImGui::CalcTextSize(kind.c_str()).x + 0.5f * em());
    const float label_h = ImGui::GetTextLineHeightWithSpacing();
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    const float gap = std::max(2.0f, 0.2f * em());
    // Square cells, as big as the panel allows, never smaller than 2 em (then the grid scrolls).
    const float cell = std::max(2.0f * em(), std::min((avail.x - label_w) / static_cast<float>(H), (avail.y - label_h) / static_cast<float>(L)) - gap);
    const float width = label_w + static_cast<float>(H) * (cell + gap);
    const ImVec2 origin(ImGui::GetCursorScreenPos().x + std::max(0.0f, (avail.x - width) / 2), ImGui::GetCursorScreenPos().y); // centred
    ImDrawList* draw = ImGui::GetWindowDrawList();
    draw->ChannelsSplit(2); // the thumbnails in channel 0, under the rest: one draw call for all of them
    draw->ChannelsSetCurrent(1);
    for (int h = 0; h < H; ++h) {
        const std::string name = "H" + std::to_string(h + 1);
        const float w = ImGui::CalcTextSize(name.c_str()).x;
        draw->AddText(ImVec2(origin.x + label_w + static_cast<float>(h) * (cell + gap) + (cell - w) / 2, origin.y), ImGui::GetColorU32(ImGuiCol_Text), name.c_str());
    }
    for (int l = 0; l < L; ++l) {
        const float y = origin.y + label_h + static_cast<float>(l) * (cell + gap);
        const std::string name = "L" + std::to_string(l + 1);
        const float line = ImGui::GetTextLineHeight(), name_y = y + (cell - line * (g.kinds.empty() ? 1.0f : 2.0f)) / 2;
        draw->AddText(ImVec2(origin.x, name_y), ImGui::GetColorU32(ImGuiCol_Text), name.c_str());
        if (!g.kinds.empty()) // the layer's kind under its name
            draw->AddText(ImVec2(origin.x, name_y + line), ImGui::GetColorU32(ImGuiCol_TextDisabled), g.kinds[static_cast<std::size_t>(l)].c_str());
        for (int h = 0; h < H; ++h) {
            const ImVec2 at(origin.x + label_w + static_cast<float>(h) * (cell + gap), y);
            ImGui::SetCursorScreenPos(at);
            ImGui::PushID(l * H + h);
            if (ImGui::InvisibleButton("head", ImVec2(cell, cell))) {
                if (m.knockout_mode || ImGui::GetIO().KeyCtrl) m.toggle_knockout(l, h);
                else m.layer = l, m.head = h;
            }
            remember(v, ("model grid " + std::to_string(l) + "." + std::to_string(h)).c_str());
            const std::size_t index = static_cast<std::size_t>(l * H + h);
            if (ImGui::IsItemHovered())
                ImGui::SetTooltip("layer %d, head %d (%s)%s", l + 1, h + 1, m.knockout_mode ? "click to knock it out or in" : "click to show it", scored ? score_text(s.scores[index]).c_str() : "");
            ImGui::PopID();
            draw->ChannelsSetCurrent(0);
            g.atlas.draw(draw, l, h, at, ImVec2(at.x + cell, at.y + cell));
            draw->ChannelsSetCurrent(1);
            if (m.knocked_out(l, h)) mark_knocked_out(draw, at, cell);
            if (scored) {
                score_strip(draw, s.scores[index], static_cast<int>(s.scored_ids.size()), at, cell);
                if (const std::string letters = best_letters(g, static_cast<int>(index)); !letters.empty()) mark_best(draw, letters, at);
            }
            if (l == m.layer && h == m.head)
                draw->AddRect(ImVec2(at.x - gap / 2, at.y - gap / 2), ImVec2(at.x + cell + gap / 2, at.y + cell + gap / 2), selection_color(), 0, 0, std::max(2.0f, 0.15f * em()));
        }
    }
    draw->ChannelsMerge();
    ImGui::SetCursorScreenPos(ImVec2(origin.x, origin.y + label_h + static_cast<float>(L) * (cell + gap)));
    ImGui::Dummy(ImVec2(width, 0));
}

} // namespace ui
