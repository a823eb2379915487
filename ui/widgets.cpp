#include "ui/widgets.h"

#include "core/explain.h"
#include "ui/colour_maps.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>

namespace ui {

void View::tell(std::string message, bool error) {
    status = std::move(message);
    status_is_error = error;
    status_time = ImGui::GetTime();
}

ImFont* number_font() {
    const ImFontAtlas* fonts = ImGui::GetIO().Fonts;
    return fonts->Fonts.Size > 1 ? fonts->Fonts[1] : ImGui::GetFont();
}

bool same_line_if_fits(float width) {
    const float x = ImGui::GetItemRectMax().x + ImGui::GetStyle().ItemSpacing.x;
    if (x + width > ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x) return false;
    ImGui::SameLine();
    return true;
}

std::string fit_text(const std::string& text, float width) {
    if (ImGui::CalcTextSize(text.c_str()).x <= width) return text;
    std::string cut = text;
    while (!cut.empty()) {
        // Drop one whole UTF-8 character: its continuation bytes, then its lead byte.
        while (!cut.empty() && (static_cast<unsigned char>(cut.back()) & 0xC0) == 0x80) cut.pop_back();
        if (!cut.empty()) cut.pop_back();
        if (ImGui::CalcTextSize((cut + "…").c_str()).x <= width) break;
    }
    return cut + "…";
}

int column_labels(ImDrawList* draw, const std::vector<std::string>& labels, int first, int last, float x0, float cell, float y, float lo, float hi) {
    const float col_w = 4.0f * em();
    const int step = std::max(1, static_cast<int>(std::ceil((col_w + 0.3f * em()) / cell)));
    int drawn = 0;
    for (int j = first; j < last; j += step, ++drawn) {
        const std::string name = fit_text(labels[static_cast<std::size_t>(j)], std::max(col_w, cell));
        const float w = ImGui::CalcTextSize(name.c_str()).x;
        draw->AddText(ImVec2(std::clamp(x0 + (static_cast<float>(j) + 0.5f) * cell - w / 2, lo, hi - w), y), ImGui::GetColorU32(ImGuiCol_Text), name.c_str());
    }
    return drawn;
}

void tip(const char* text) {
    if (!ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled)) return;
    // Items with an id wait a moment, so moving the mouse across a panel does not flash tooltips;
    // disabled items and plain text have no hover timer and show at once.
    const ImGuiContext& g = *ImGui::GetCurrentContext();
    const bool timed = ImGui::GetItemID() != 0 && !(ImGui::GetItemFlags() & ImGuiItemFlags_Disabled);
    if (timed && g.HoveredIdTimer < tip_delay) return;
    ImGui::BeginTooltip();
    ImGui::PushTextWrapPos(24.0f * em());
    ImGui::TextUnformatted(text);
    ImGui::PopTextWrapPos();
    ImGui::EndTooltip();
}

void remember(View& v, const char* name) { v.items[name] = ImRect(ImGui::GetItemRectMin(), ImGui::GetItemRectMax()); }

// The maps themselves are in ui/colour_maps.cpp: View ▸ Colour maps picks them.
ImU32 sequential_color(double t) { return weights_colour(t); }
ImU32 diverging_color(double t) { return signed_colour(t); }

void colour_bar(ImDrawList* draw, ImVec2 at, float height, double top, bool diverging) {
    const int steps = 32;
    const float w = 0.8f * em(), x = at.x + w + 0.2f * em(), line = ImGui::GetTextLineHeight();
    for (int k = 0; k < steps; ++k) {
        const float y0 = at.y + height * static_cast<float>(k) / steps, y1 = at.y + height * static_cast<float>(k + 1) / steps;
        const double u = 1.0 - static_cast<double>(k) / steps;
        draw->AddRectFilled(ImVec2(at.x, y0), ImVec2(at.x + w, y1 + 0.5f), diverging ? diverging_color(2 * u - 1) : sequential_color(u));
    }
    const ImU32 colour = ImGui::GetColorU32(ImGuiCol_Text);
    char text[24];
    std::snprintf(text, sizeof text, diverging ? "%+.3f" : "%.2f", top);
    draw->AddText(ImVec2(x, at.y), colour, text);
    if (!diverging) {
        draw->AddText(ImVec2(x, at.y + height - line), colour, "0");
        return;
    }
    draw->AddText(ImVec2(x, at.y + (height - line) / 2), colour, "0");
    std::snprintf(text, sizeof text, "%+.3f", -top);
    draw->AddText(ImVec2(x, at.y + height - line), colour, text);
}

bool cancel_and_progress(View& v, const char* cancel_name, int done, int total, const char* unit) {
    v.motion.moving = true; // the progress bar
    const bool cancel = ImGui::Button(("Cancel##" + std::string(cancel_name)).c_str());
    remember(v, cancel_name);
    ImGui::SameLine();
    const std::string text = std::to_string(done) + " / " + std::to_string(total) + " " + unit;
    ImGui::ProgressBar(total > 0 ? static_cast<float>(done) / static_cast<float>(total) : 0.0f, ImVec2(-1, 0), text.c_str());
    return cancel;
}

// On the light theme the accents are darker, so they keep their contrast on white.
ImU32 masked_color() { return colour_maps().theme == core::io::Theme::light ? IM_COL32(150, 150, 150, 255) : IM_COL32(64, 64, 64, 255); }
ImU32 selection_color() { return colour_maps().theme == core::io::Theme::light ? IM_COL32(200, 90, 0, 255) : IM_COL32(255, 170, 40, 255); }
ImVec4 good_text_colour() {
    return colour_maps().theme == core::io::Theme::light ? ImVec4(0.0f, 0.45f, 0.15f, 1.0f) : ImVec4(0.35f, 0.85f, 0.47f, 1.0f);
}
ImVec4 error_text_colour() {
    return colour_maps().theme == core::io::Theme::light ? ImVec4(0.75f, 0.0f, 0.0f, 1.0f) : ImVec4(1.0f, 0.42f, 0.38f, 1.0f);
}

void coloured_text(const ImVec4& colour, const std::string& text) {
    ImGui::PushStyleColor(ImGuiCol_Text, colour);
    ImGui::TextWrapped("%s", text.c_str());
    ImGui::PopStyleColor();
}
void dim_text(const std::string& text) { coloured_text(ImGui::GetStyle().Colors[ImGuiCol_TextDisabled], text); }
void error_text(const std::string& text) { coloured_text(error_text_colour(), text); }

ImU32 text_color_on(ImU32 background) {
    const ImVec4 c = ImGui::ColorConvertU32ToFloat4(background);
    const float luminance = 0.2126f * c.x + 0.7152f * c.y + 0.0722f * c.z;
    return luminance > 0.5f ? IM_COL32(0, 0, 0, 255) : IM_COL32(255, 255, 255, 255);
}

float number_cell_width(int chars) {
    ImGui::PushFont(number_font());
    const float digit = ImGui::CalcTextSize("0").x;
    ImGui::PopFont();
    return digit * static_cast<float>(chars) + 2.0f * ImGui::GetStyle().FramePadding.x + 0.4f * em();
}

int number_chars(double max_abs, bool all_integers) {
    int digits = 1;
    for (double p = 10.0; p <= max_abs && digits < 16; p *= 10.0) ++digits;
    return 1 + digits + (all_integers ? 0 : 4); // sign, integer part, ".123"
}

bool number_cell(const char* id, double& value, float width, View& v) {
    // Enter on the focused cell (clicked, or reached with the arrow keys or Tab) types into it,
    // even when ImGui's own navigation highlight is off after a mouse click.
    ImGuiContext& g = *GImGui;
    const ImGuiID cell = ImGui::GetID(id);
    if (g.NavId == cell && g.ActiveId != cell && !g.IO.KeyCtrl && !g.IO.KeyAlt &&
        (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Enter), false) || ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_KeyPadEnter), false)))
        g.NavActivateInputId = cell;
    double edited = value;
    const bool integer = edited == std::round(edited);
    ImGui::SetNextItemWidth(width);
    const double lo = -core::Limits::max_abs_value, hi = core::Limits::max_abs_value;
    // Dragging stays within the limits; typed text is checked below so a refusal can be said.
    // NoRoundToFormat: "%.0f" for integers must not stop a drag from leaving the integer.
    if (!ImGui::DragScalar(id, ImGuiDataType_Double, &edited, 0.01f, &lo, &hi, integer ? "%.0f" : "%.3f",
                           ImGuiSliderFlags_NoRoundToFormat))
        return false;
    // A drag moves in float steps (1 + 6 · 0.01f = 1.0599999986588955): keep the 3 decimals it
    // shows, so saved files read 1.06. Typed text (the cell's temporary input) stays exact.
    if (GImGui->TempInputId != ImGui::GetItemID() && std::isfinite(edited)) edited = std::round(edited * 1000.0) / 1000.0;
    if (std::isnan(edited)) {
        v.tell("refused: not a number", true);
        return false;
    }
    if (!core::is_acceptable_value(edited)) {
        edited = std::clamp(edited, lo, hi);
        v.tell("clamped to " + core::format_number(edited) + ": entries are limited to ±1e6", true);
    }
    if (edited == value) return false;
    value = edited;
    return true;
}

bool dimension_input(const char* label, int& value, int min, int max, const char* tooltip, View& v) {
    ImGui::PushID(label);
    int edited = value;
    ImGui::BeginDisabled(value <= min);
    if (ImGui::Button("−")) --edited;
    ImGui::EndDisabled();
    tip(tooltip);
    ImGui::SameLine(0, ImGui::GetStyle().ItemInnerSpacing.x);
    ImGui::SetNextItemWidth(3.0f * em());
    int typed = value;
    if (ImGui::InputScalar("##value", ImGuiDataType_S32, &typed, nullptr, nullptr, "%d",
                           ImGuiInputTextFlags_EnterReturnsTrue | ImGuiInputTextFlags_AutoSelectAll))
        edited = typed;
    remember(v, label);
    tip(tooltip);
    ImGui::SameLine(0, ImGui::GetStyle().ItemInnerSpacing.x);
    ImGui::BeginDisabled(value >= max);
    if (ImGui::Button("+")) ++edited;
    ImGui::EndDisabled();
    tip(tooltip);
    ImGui::SameLine(0, ImGui::GetStyle().ItemInnerSpacing.x);
    ImGui::TextUnformatted(label);
    ImGui::PopID();
    if (edited != std::clamp(edited, min, max)) {
        v.tell(std::string(label) + " must be " + std::to_string(min) + " … " + std::to_string(max), true);
        edited = std::clamp(edited, min, max);
    }
    if (edited == value) return false;
    value = edited;
    return true;
}

void weight_bars(int count, float name_w, ImU32 color, double top, const std::function<const char*(int)>& name,
                 const std::function<double(int)>& weight, const std::function<bool(int)>& masked) {
    const float e = em(), line = ImGui::GetTextLineHeight();
    ImDrawList* d = ImGui::GetWindowDrawList();
    ImGuiListClipper clipper;
    clipper.Begin(count);
    while (clipper.Step())
        for (int j = clipper.DisplayStart; j < clipper.DisplayEnd; ++j) {
            const ImVec2 at = ImGui::GetCursorScreenPos();
            const float bar_max = ImGui::GetContentRegionAvail().x - name_w - 3.5f * e;
            const double w = weight(j);
            const bool hidden = masked(j);
            d->PushClipRect(at, ImVec2(at.x + name_w - 0.3f * e, at.y + line), true);
            d->AddText(at, ImGui::GetColorU32(ImGuiCol_Text), name(j));
            d->PopClipRect();
            const ImVec2 bar(at.x + name_w, at.y + 0.15f * line);
            d->AddRectFilled(bar, ImVec2(bar.x + std::max(1.0f, static_cast<float>(w) * bar_max), bar.y + 0.7f * line),
                             hidden ? masked_color() : w == top ? selection_color() : color);
            NumberFont mono;
            const std::string text = hidden ? "masked" : core::format_number(w);
            d->AddText(ImVec2(bar.x + static_cast<float>(w) * bar_max + 0.3f * e, at.y), ImGui::GetColorU32(ImGuiCol_Text), text.c_str());
            ImGui::Dummy(ImVec2(0, line));
        }
}

SquareMap square_map_layout(const std::vector<std::string>& labels, float label_em) {
    float label_w = 0;
    for (const std::string& l : labels) label_w = std::max(label_w, ImGui::CalcTextSize(l.c_str()).x);
    label_w = std::min(label_w, label_em * em()) + 0.5f * em();
    const float bar_w = 3.5f * em(), below = ImGui::GetTextLineHeightWithSpacing() + 0.3f * em();
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    const float side = std::max(4.0f * em(), std::min(avail.x - label_w - bar_w, avail.y - below));
    const float slack = std::max(0.0f, avail.x - label_w - side - bar_w);
    return SquareMap{ImVec2(ImGui::GetCursorScreenPos().x + slack / 2, ImGui::GetCursorScreenPos().y), label_w, side, below};
}

} // namespace ui
