#include "ui/widgets.h"

#include "core/explain.h"

#include <algorithm>
#include <array>
#include <cmath>

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

void tip(const char* text) {
    if (!ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled)) return;
    // Items with an id wait a moment, so moving the mouse across a panel does not flash tooltips;
    // disabled items and plain text have no hover timer and show at once.
    const ImGuiContext& g = *ImGui::GetCurrentContext();
    const bool timed = ImGui::GetItemID() != 0 && !(ImGui::GetItemFlags() & ImGuiItemFlags_Disabled);
    if (timed && g.HoveredIdTimer < 0.35f) return;
    ImGui::BeginTooltip();
    ImGui::PushTextWrapPos(24.0f * em());
    ImGui::TextUnformatted(text);
    ImGui::PopTextWrapPos();
    ImGui::EndTooltip();
}

void remember(View& v, const char* name) { v.items[name] = ImRect(ImGui::GetItemRectMin(), ImGui::GetItemRectMax()); }

namespace {

ImU32 lerp_stops(const ImVec4* stops, int count, double t) {
    t = std::clamp(t, 0.0, 1.0) * (count - 1);
    const int i = std::min(static_cast<int>(t), count - 2);
    const float f = static_cast<float>(t - i);
    const ImVec4& a = stops[i];
    const ImVec4& b = stops[i + 1];
    return ImGui::ColorConvertFloat4ToU32(ImVec4(a.x + (b.x - a.x) * f, a.y + (b.y - a.y) * f, a.z + (b.z - a.z) * f, 1.0f));
}

ImVec4 rgb(float r, float g, float b) { return ImVec4(r / 255.0f, g / 255.0f, b / 255.0f, 1.0f); }

} // namespace

ImU32 sequential_color(double t) {
    // A table of 256 steps: big heatmaps colour a million cells per change.
    static const std::array<ImU32, 256> table = [] {
        const ImVec4 viridis[] = {rgb(68, 1, 84),    rgb(71, 45, 123),  rgb(59, 82, 139),
                                  rgb(44, 114, 142), rgb(33, 145, 140), rgb(40, 174, 128),
                                  rgb(94, 201, 98),  rgb(173, 220, 48), rgb(253, 231, 37)};
        std::array<ImU32, 256> colors{};
        for (size_t k = 0; k < colors.size(); ++k) colors[k] = lerp_stops(viridis, 9, static_cast<double>(k) / 255.0);
        return colors;
    }();
    return table[static_cast<size_t>(std::clamp(t, 0.0, 1.0) * 255.0 + 0.5)];
}

ImU32 diverging_color(double t) {
    // The middle is close to the dark window background, so near-zero entries stay quiet.
    static const ImVec4 stops[] = {rgb(59, 96, 222), rgb(52, 62, 104), rgb(46, 46, 52), rgb(120, 44, 52), rgb(214, 47, 47)};
    return lerp_stops(stops, 5, (t + 1.0) / 2.0);
}

ImU32 masked_color() { return IM_COL32(64, 64, 64, 255); }
ImU32 selection_color() { return IM_COL32(255, 170, 40, 255); }

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

} // namespace ui
