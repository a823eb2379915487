// ui/panels/explore/scaling.cpp — why the scores are divided by √d_k (the three-token and the step-by-step articles): q·k of random
// unit-variance vectors has variance d_k, which makes softmax nearly one-hot; divided by √d_k it
// has variance 1 and the weights stay spread out. core::run_scaling_experiment draws the samples.
#include "ui/panels/explore/scaling.h"

#include "core/explain.h"
#include "ui/widgets.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>

namespace ui {

namespace {

constexpr int bins = 41;
constexpr int row_length = 16; // keys in the sample softmax row
constexpr int max_samples = 100000;

const ImU32 raw_rgb = IM_COL32(214, 90, 80, 255);
const ImU32 scaled_rgb = IM_COL32(90, 160, 230, 255);

std::string number(double x, const char* format = "%.3g") {
    char text[32];
    std::snprintf(text, sizeof text, format, x);
    return text;
}

// Axis text below or left of a plot, in the disabled colour.
void axis_text(ImDrawList* draw, ImVec2 at, const std::string& text, float align_x) {
    const ImVec2 size = ImGui::CalcTextSize(text.c_str());
    draw->AddText(ImVec2(at.x - size.x * align_x, at.y), ImGui::GetColorU32(ImGuiCol_TextDisabled), text.c_str());
}

// What histogram() and softmax_bars() share: an invisible button of `size` holding a plot that
// leaves `left` pixels for labels on its left and `below` lines of text underneath, with `count`
// bars `gap` apart whose heights in pixels `height(k, plot height)` gives; the bar under the
// mouse is drawn white. The plot's axes and labels are left to the caller.
struct BarChart {
    ImVec2 corner; // the button's top-left corner
    ImRect plot;
    int hovered = -1; // the bar under the mouse, or -1
};
BarChart bar_chart(const char* id, ImVec2 size, float left, float below, int count, ImU32 color, float gap,
                   const std::function<float(int, float)>& height) {
    const float e = em(), line = ImGui::GetTextLineHeight();
    const ImVec2 p = ImGui::GetCursorScreenPos();
    ImGui::InvisibleButton(id, size);
    const bool hovered = ImGui::IsItemHovered();
    BarChart chart{p, ImRect(ImVec2(p.x + left, p.y + 0.5f * line), ImVec2(p.x + size.x - 0.5f * e, p.y + size.y - below * line))};
    const ImRect& plot = chart.plot;
    ImDrawList* draw = ImGui::GetWindowDrawList();
    draw->AddRectFilled(plot.Min, plot.Max, IM_COL32(255, 255, 255, 12));
    const float bar_w = plot.GetWidth() / static_cast<float>(count);
    for (int k = 0; k < count; ++k) {
        const float x0 = plot.Min.x + static_cast<float>(k) * bar_w;
        const bool here = hovered && ImGui::GetIO().MousePos.x >= x0 && ImGui::GetIO().MousePos.x < x0 + bar_w;
        if (here) chart.hovered = k;
        const float h = height(k, plot.GetHeight());
        draw->AddRectFilled(ImVec2(x0 + gap, plot.Max.y - h), ImVec2(x0 + bar_w - gap, plot.Max.y), here ? IM_COL32_WHITE : color);
    }
    draw->AddLine(ImVec2(plot.Min.x, plot.Max.y), plot.Max, ImGui::GetColorU32(ImGuiCol_TextDisabled));
    return chart;
}

// A bar chart with a labelled value axis (x, from `lo` to `hi`) and count axis (y): the histogram
// of `values · scale`. Hovering a bar tells its range and count.
void histogram(const char* id, const std::vector<double>& values, double scale, double lo, double hi, ImU32 color,
               const char* x_label, ImVec2 size) {
    const core::Histogram h = core::make_histogram(values, scale, bins, lo, hi);
    const int top = std::max(1, *std::max_element(h.counts.begin(), h.counts.end()));
    const float e = em(), line = ImGui::GetTextLineHeight();
    // Room for the count on the left and two lines of axis text underneath.
    const BarChart chart = bar_chart(id, size, ImGui::CalcTextSize("00000").x + 0.4f * e, 2.2f, bins, color, 0.03f * e,
                                     [&](int k, float plot_h) { return plot_h * static_cast<float>(h.counts[k]) / static_cast<float>(top); });
    const ImRect& plot = chart.plot;
    const int hovered_bin = chart.hovered;
    ImDrawList* draw = ImGui::GetWindowDrawList();
    draw->AddLine(plot.Min, ImVec2(plot.Min.x, plot.Max.y), ImGui::GetColorU32(ImGuiCol_TextDisabled));
    // Count axis: 0 and the tallest bar. Value axis: both ends and 0.
    axis_text(draw, ImVec2(plot.Min.x - 0.3f * e, plot.Min.y - 0.5f * line), std::to_string(top), 1.0f);
    axis_text(draw, ImVec2(plot.Min.x - 0.3f * e, plot.Max.y - line), "0", 1.0f);
    const float ticks_y = plot.Max.y + 0.1f * line;
    axis_text(draw, ImVec2(plot.Min.x, ticks_y), number(lo), 0.0f);
    axis_text(draw, ImVec2(plot.GetCenter().x, ticks_y), "0", 0.5f);
    axis_text(draw, ImVec2(plot.Max.x, ticks_y), number(hi), 1.0f);
    axis_text(draw, ImVec2(plot.GetCenter().x, ticks_y + line), x_label, 0.5f);
    axis_text(draw, ImVec2(chart.corner.x, ticks_y + line), "count ↑", 0.0f);
    if (hovered_bin >= 0) {
        const double w = (hi - lo) / bins;
        ImGui::SetTooltip("%s in [%s, %s): %d of %d samples", x_label, number(lo + w * hovered_bin).c_str(),
                          number(lo + w * (hovered_bin + 1)).c_str(), h.counts[hovered_bin], static_cast<int>(values.size()));
    }
}

// One softmax row as vertical bars from 0 to 1, one per key.
void softmax_bars(const char* id, const core::Vector& w, ImU32 color, ImVec2 size) {
    const float e = em(), line = ImGui::GetTextLineHeight();
    const int count = static_cast<int>(w.size());
    const BarChart chart = bar_chart(id, size, ImGui::CalcTextSize("0.0").x + 0.4f * e, 1.2f, count, color, 0.06f * e,
                                     [&](int j, float plot_h) { return std::max(0.06f * e, plot_h * static_cast<float>(w[j])); }); // a weight of 0 still shows
    const ImRect& plot = chart.plot;
    const int hovered_key = chart.hovered;
    ImDrawList* draw = ImGui::GetWindowDrawList();
    axis_text(draw, ImVec2(plot.Min.x - 0.3f * e, plot.Min.y - 0.5f * line), "1", 1.0f);
    axis_text(draw, ImVec2(plot.Min.x - 0.3f * e, plot.Max.y - line), "0", 1.0f);
    axis_text(draw, ImVec2(plot.GetCenter().x, plot.Max.y + 0.1f * line), "weight of each of " + std::to_string(count) + " keys", 0.5f);
    if (hovered_key >= 0) ImGui::SetTooltip("key %d: weight %s", hovered_key + 1, core::format_number(w[hovered_key]).c_str());
}

} // namespace

void draw_scaling_panel(View& v) {
    ScalingView& sv = v.state<ScalingView>();
    const float e = em();
    ImGui::SetNextItemWidth(10.0f * e);
    ImGui::SliderInt("d_k", &sv.d_k, 1, core::Limits::max_dim, "%d", ImGuiSliderFlags_Logarithmic | ImGuiSliderFlags_AlwaysClamp);
    remember(v, "scaling_d_k");
    tip("Length of the random q and k. Their dot product adds up d_k products of variance 1, so its variance is d_k.");
    ImGui::SameLine(0, e);
    ImGui::SetNextItemWidth(7.0f * e);
    ImGui::SliderInt("samples", &sv.samples, 100, max_samples, "%d", ImGuiSliderFlags_Logarithmic | ImGuiSliderFlags_AlwaysClamp);
    remember(v, "scaling_samples");
    tip("How many random (q, k) pairs to draw. More samples: smoother histograms, variances closer to d_k and 1.");
    ImGui::SameLine(0, e);
    if (ImGui::Button("New sample")) ++sv.seed;
    remember(v, "scaling_new_sample");
    tip("Draw new random vectors (another seed).");
    ImGui::SameLine(0, e);
    ImGui::Checkbox("Same x axis", &sv.same_axis);
    remember(v, "scaling_same_axis");
    tip("Draw both histograms over the same range of values, so their widths compare directly.");

    if (sv.ran_d_k != sv.d_k || sv.ran_samples != sv.samples || sv.ran_seed != sv.seed) {
        sv.experiment = core::run_scaling_experiment(sv.d_k, sv.samples, row_length, sv.seed);
        sv.ran_d_k = sv.d_k;
        sv.ran_samples = sv.samples;
        sv.ran_seed = sv.seed;
    }
    const core::ScalingExperiment& x = sv.experiment;
    const double root = std::sqrt(static_cast<double>(x.d_k));

    // Two histograms side by side, ±4 standard deviations wide (the raw one's, on the same axis).
    const float spacing = ImGui::GetStyle().ItemSpacing.x * 2.0f;
    const float half = (ImGui::GetContentRegionAvail().x - spacing) * 0.5f;
    const float line = ImGui::GetTextLineHeightWithSpacing();
    const float avail_h = ImGui::GetContentRegionAvail().y;
    const float hist_h = std::max(6.0f * e, (avail_h - 5.0f * line) * 0.58f);
    const double raw_range = 4.0 * root, scaled_range = sv.same_axis ? raw_range : 4.0;
    const std::string divided = "q·k / √" + std::to_string(x.d_k);

    ImGui::BeginGroup();
    ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(raw_rgb), "q·k, not divided");
    ImGui::Text("variance %s ≈ d_k = %d", number(x.variance_raw, "%.2f").c_str(), x.d_k);
    tip("The sample variance of the dot products: close to d_k, so typical scores are about ±√d_k.");
    histogram("raw", x.dots, 1.0, -raw_range, raw_range, raw_rgb, "q·k", ImVec2(half, hist_h));
    ImGui::EndGroup();
    ImGui::SameLine(0, spacing);
    ImGui::BeginGroup();
    ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(scaled_rgb), "%s", (divided + ", as attention does").c_str());
    ImGui::Text("variance %s ≈ 1", number(x.variance_scaled, "%.3f").c_str());
    tip("Dividing by √d_k divides the variance by d_k: back to about 1, whatever d_k is.");
    histogram("scaled", x.dots, 1.0 / root, -scaled_range, scaled_range, scaled_rgb, divided.c_str(), ImVec2(half, hist_h));
    ImGui::EndGroup();

    // One query against 16 random keys, through softmax both ways.
    ImGui::Spacing();
    // A little short of the bottom, so rounding never adds a scrollbar.
    const float bars_h = std::max(4.0f * e, ImGui::GetContentRegionAvail().y - line - 0.3f * e);
    ImGui::BeginGroup();
    ImGui::Text("softmax(q·k): largest weight %s", core::format_number(x.softmax_raw.maxCoeff()).c_str());
    tip("Scores spread over ±√d_k: the largest one takes almost all the weight (near one-hot), and its gradients vanish.");
    softmax_bars("softmax_raw", x.softmax_raw, raw_rgb, ImVec2(half, bars_h));
    ImGui::EndGroup();
    ImGui::SameLine(0, spacing);
    ImGui::BeginGroup();
    ImGui::Text("softmax(%s): largest weight %s", divided.c_str(), core::format_number(x.softmax_scaled.maxCoeff()).c_str());
    tip("Scores of variance 1: the weights stay spread out over the keys, and the model can still learn.");
    softmax_bars("softmax_scaled", x.softmax_scaled, scaled_rgb, ImVec2(half, bars_h));
    ImGui::EndGroup();
}

} // namespace ui
