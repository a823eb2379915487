#include "ui/panels/train/train_curves.h"

#include "ui/widgets.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

namespace ui {

int loss_drop_step(const std::vector<core::train::CurvePoint>& c) {
    const int n = static_cast<int>(c.size()), w = n / 10;
    if (w < 2) return -1;
    double top = 0.0;
    for (const auto& p : c) top = std::max(top, p.loss);
    std::vector<double> prefix(static_cast<std::size_t>(n) + 1, 0.0); // prefix sums of the loss
    for (int i = 0; i < n; ++i) prefix[static_cast<std::size_t>(i) + 1] = prefix[static_cast<std::size_t>(i)] + c[static_cast<std::size_t>(i)].loss;
    const auto mean = [&](int from, int to) { return (prefix[static_cast<std::size_t>(to)] - prefix[static_cast<std::size_t>(from)]) / (to - from); };
    // A steep first fall (from the untrained loss) is the steepest of many runs; the drop worth
    // seeing comes after it, so then the search starts where that fall has flattened out.
    int start = w;
    const double first_fall = mean(0, w) - mean(w, 2 * w);
    if (first_fall > 0.1 * top)
        while (start + 2 * w <= n && mean(start - w, start) - mean(start, start + w) > 0.5 * first_fall) start += w / 2;
    int best = -1;
    double best_fall = 0.1 * top;
    for (int i = start; i + w <= n; ++i) {
        const double fall = mean(i - w, i) - mean(i, i + w);
        if (fall > best_fall) best_fall = fall, best = i;
    }
    return best < 0 ? -1 : c[static_cast<std::size_t>(best)].step;
}

namespace {

std::string number(const char* format, double x) {
    char text[32];
    std::snprintf(text, sizeof text, format, x);
    return text;
}

constexpr ImU32 loss_colour = IM_COL32(230, 110, 90, 255), accuracy_colour = IM_COL32(90, 160, 230, 255);

} // namespace

void draw_training_curves(const std::vector<core::train::CurvePoint>& c, bool log_x, float height, int marker_step) {
    const float e = em(), line = ImGui::GetTextLineHeight();
    const float left = 3.2f * e, right = 3.4f * e, bottom = 1.3f * line;
    const ImVec2 p = ImGui::GetCursorScreenPos();
    const float width = ImGui::GetContentRegionAvail().x;
    ImGui::Dummy(ImVec2(width, height));
    const ImRect plot(ImVec2(p.x + left, p.y + 0.5f * line), ImVec2(p.x + width - right, p.y + height - bottom));
    ImDrawList* draw = ImGui::GetWindowDrawList();
    const ImU32 text = ImGui::GetColorU32(ImGuiCol_Text), faint = ImGui::GetColorU32(ImGuiCol_TextDisabled);
    draw->AddRectFilled(plot.Min, plot.Max, IM_COL32(128, 128, 128, 24));
    draw->AddRect(plot.Min, plot.Max, ImGui::GetColorU32(ImGuiCol_Border));
    double top = 0.0;
    for (const auto& q : c) top = std::max(top, q.loss);
    const int last = c.empty() ? 1 : std::max(1, c.back().step);
    // Axes: loss on the left, accuracy on the right, three ticks each; the step along the bottom.
    for (int k = 0; k <= 2 && !c.empty(); ++k) { // no scale before the first step
        const float y = plot.Max.y - plot.GetHeight() * static_cast<float>(k) / 2.0f;
        draw->AddLine(ImVec2(plot.Min.x, y), ImVec2(plot.Max.x, y), IM_COL32(128, 128, 128, 40));
        const std::string l = number("%.2f", top * k / 2.0), a = number("%.0f %%", 50.0 * k);
        draw->AddText(ImVec2(plot.Min.x - ImGui::CalcTextSize(l.c_str()).x - 0.3f * e, y - 0.5f * line), loss_colour, l.c_str());
        draw->AddText(ImVec2(plot.Max.x + 0.3f * e, y - 0.5f * line), accuracy_colour, a.c_str());
    }
    const std::string first = log_x ? "1" : "0", end = std::to_string(last), axis = log_x ? "step (log)" : "step";
    draw->AddText(ImVec2(plot.Min.x, plot.Max.y + 0.15f * line), faint, first.c_str());
    draw->AddText(ImVec2(plot.Max.x - ImGui::CalcTextSize(end.c_str()).x, plot.Max.y + 0.15f * line), faint, end.c_str());
    draw->AddText(ImVec2(plot.GetCenter().x - 0.5f * ImGui::CalcTextSize(axis.c_str()).x, plot.Max.y + 0.15f * line), faint, axis.c_str());
    if (c.empty()) return;
    const auto x_of = [&](int step) {
        const double f = log_x ? std::log(std::max(1, step)) / std::log(std::max(2, last)) : static_cast<double>(step) / last;
        return plot.Min.x + static_cast<float>(std::clamp(f, 0.0, 1.0)) * plot.GetWidth();
    };
    const size_t stride = std::max<size_t>(1, c.size() / 600); // at most ~600 segments per curve
    std::vector<ImVec2> loss, accuracy;
    for (size_t i = 0; i < c.size(); i += stride) {
        loss.emplace_back(x_of(c[i].step), plot.Max.y - plot.GetHeight() * static_cast<float>(c[i].loss / std::max(top, 1e-9)));
        accuracy.emplace_back(x_of(c[i].step), plot.Max.y - plot.GetHeight() * static_cast<float>(c[i].accuracy));
    }
    draw->PushClipRect(plot.Min, plot.Max, true);
    draw->AddPolyline(loss.data(), static_cast<int>(loss.size()), loss_colour, 0, 0.12f * e);
    draw->AddPolyline(accuracy.data(), static_cast<int>(accuracy.size()), accuracy_colour, 0, 0.12f * e);
    if (const int drop = loss_drop_step(c); drop >= 0) { // dashed, with its step
        const float x = x_of(drop);
        for (float y = plot.Min.y; y < plot.Max.y; y += 0.6f * e) draw->AddLine(ImVec2(x, y), ImVec2(x, std::min(y + 0.3f * e, plot.Max.y)), text, 0.1f * e);
        const std::string label = "loss drops ~" + std::to_string(drop);
        const float w = ImGui::CalcTextSize(label.c_str()).x;
        draw->AddText(ImVec2(std::min(x + 0.3f * e, plot.Max.x - w - 0.2f * e), plot.Min.y + 1.2f * line), text, label.c_str());
    }
    if (marker_step >= 0) draw->AddLine(ImVec2(x_of(marker_step), plot.Min.y), ImVec2(x_of(marker_step), plot.Max.y), selection_color(), 0.15f * e);
    const std::string legend = "loss " + number("%.3f", c.back().loss) + "   accuracy " + number("%.1f %%", 100.0 * c.back().accuracy);
    const ImVec2 at(plot.Min.x + 0.3f * e, plot.Min.y + 0.15f * line), size = ImGui::CalcTextSize(legend.c_str());
    draw->AddRectFilled(ImVec2(at.x - 0.2f * e, at.y), ImVec2(at.x + size.x + 0.2f * e, at.y + size.y), ImGui::GetColorU32(ImGuiCol_WindowBg, 0.85f));
    draw->AddText(at, text, legend.c_str());
    draw->PopClipRect();
    tip("The training batch's loss (red, left axis) and accuracy (blue, right axis) at each step; the dashed line marks the "
        "steepest fall of the loss after the first, the yellow one the step the heads show");
}

} // namespace ui
