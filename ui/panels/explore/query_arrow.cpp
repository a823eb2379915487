// ui/panels/explore/query_arrow.cpp — one query as an arrow among the keys (the every-token article, "Steer the attention
// yourself"): drag q's tip, or type it, and watch the weights and the output z follow.
//
// [SECTION] Plane geometry and drawing helpers
// [SECTION] Header: pin, exact q, dimensions
// [SECTION] Plane
// [SECTION] Weight bars and notes
// [SECTION] Panel
#include "ui/panels/explore/query_arrow.h"
#include "ui/grid.h"

#include "core/edits.h"
#include "core/explain.h"
#include "ui/widgets.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

namespace ui {

namespace {

//-----------------------------------------------------------------------------
// [SECTION] Plane geometry and drawing helpers
//-----------------------------------------------------------------------------

const ImU32 key_rgb = IM_COL32(150, 185, 230, 255);
const ImU32 value_rgb = IM_COL32(190, 140, 255, 255);
const ImU32 output_rgb = IM_COL32(90, 215, 120, 255);
// The plane stays dark on both themes: the arrows' colours are chosen for it.
const ImU32 plane_rgb = IM_COL32(24, 24, 28, 255);

ImU32 with_alpha(ImU32 c, float alpha) {
    return (c & ~IM_COL32_A_MASK) | (static_cast<ImU32>(std::clamp(alpha, 0.0f, 1.0f) * 255.0f) << IM_COL32_A_SHIFT);
}

// 1, 2 or 5 times a power of ten, about span / 6.
double nice_step(double span) {
    const double raw = span / 6.0;
    const double p = std::pow(10.0, std::floor(std::log10(raw)));
    const double f = raw / p;
    return (f < 1.5 ? 1.0 : f < 3.5 ? 2.0 : f < 7.5 ? 5.0 : 10.0) * p;
}

struct Plane {
    ImVec2 origin; // screen position of (0, 0)
    float scale;   // pixels per unit
    ImVec2 to_screen(double x, double y) const {
        return ImVec2(origin.x + static_cast<float>(x) * scale, origin.y - static_cast<float>(y) * scale);
    }
};

// An arrow from the origin to (x, y), its label beside the tip but never outside `bounds`.
void arrow(ImDrawList* draw, const Plane& p, const ImRect& bounds, double x, double y, ImU32 color, float thickness,
           const std::string& label) {
    const ImVec2 a = p.to_screen(0, 0), b = p.to_screen(x, y);
    const float dx = b.x - a.x, dy = b.y - a.y, len = std::sqrt(dx * dx + dy * dy);
    if (len < 1.0f) {
        draw->AddCircleFilled(a, 1.5f * thickness, color);
    } else {
        const float ux = dx / len, uy = dy / len, head = std::min(len * 0.5f, 0.6f * em());
        const ImVec2 base(b.x - ux * head, b.y - uy * head);
        draw->AddLine(a, base, color, thickness);
        draw->AddTriangleFilled(b, ImVec2(base.x - uy * head * 0.45f, base.y + ux * head * 0.45f),
                                ImVec2(base.x + uy * head * 0.45f, base.y - ux * head * 0.45f), color);
    }
    if (!label.empty()) {
        const float ux = len < 1.0f ? 1.0f : dx / len, uy = len < 1.0f ? 0.0f : dy / len;
        const ImVec2 size = ImGui::CalcTextSize(label.c_str());
        ImVec2 at(b.x + ux * 0.5f * em() - size.x * 0.5f + ux * size.x * 0.5f, b.y + uy * 0.5f * em() - size.y * 0.5f);
        // Pushed back inside the plane, the label would sit on its own arrow: lift it above the tip.
        if (at.x + size.x > bounds.Max.x) {
            at.x = b.x - size.x - 0.4f * em();
            at.y = b.y - size.y - 0.3f * em();
        }
        if (at.x < bounds.Min.x) at.x = b.x + 0.4f * em();
        if (at.y + size.y > bounds.Max.y) at.y = b.y - size.y - 0.2f * em();
        if (at.y < bounds.Min.y) at.y = b.y + 0.2f * em();
        // A backing of the plane's colour keeps the label readable where it crosses a line.
        const ImVec2 pad(0.15f * em(), 0.05f * em());
        draw->AddRectFilled(ImVec2(at.x - pad.x, at.y - pad.y), ImVec2(at.x + size.x + pad.x, at.y + size.y + pad.y),
                            (plane_rgb & ~IM_COL32_A_MASK) | (217u << IM_COL32_A_SHIFT), 0.2f * em());
        draw->AddText(at, color, label.c_str());
    }
}

// Up to this many keys each is an arrow; beyond, dots and the `heaviest_arrows` heaviest keys.
constexpr int max_key_arrows = 64;
constexpr int heaviest_arrows = 8;

// The `count` unmasked keys with the largest weights in row i, lightest first (drawn last: on top).
std::vector<int> heaviest_keys(const core::Scenario& s, const core::HeadResult& hr, int i, int count) {
    std::vector<int> keys;
    for (int j = 0; j < s.n(); ++j)
        if (!core::is_masked(s, i, j)) keys.push_back(j);
    count = std::min(count, static_cast<int>(keys.size()));
    std::partial_sort(keys.begin(), keys.begin() + count, keys.end(), [&](int a, int b) { return hr.weights(i, a) > hr.weights(i, b); });
    keys.resize(static_cast<size_t>(count));
    std::reverse(keys.begin(), keys.end());
    return keys;
}

struct Dims {
    int a, b; // b < 0: a one-dimensional space, drawn on the x axis
    double x(const double* v) const { return v[a]; }
    double y(const double* v) const { return b < 0 ? 0.0 : v[b]; }
};

Dims dims_in(int width, const int chosen[2]) {
    if (width == 1) return {0, -1};
    const int a = std::min(chosen[0], width - 1), b = std::min(chosen[1], width - 1);
    return a == b ? Dims{0, 1} : Dims{a, b};
}

//-----------------------------------------------------------------------------
// [SECTION] Header: pin, exact q, dimensions
//-----------------------------------------------------------------------------

// What the parts of the panel share in one frame: the focused query, its head and the axes drawn.
struct Focus {
    core::Scenario& s;
    const core::HeadResult& hr;
    int h, i, n;
    std::string token;
    core::Vector q; // (d_k) Q's row, which already is the pinned vector when this row is pinned
    core::Vector z; // (d_v) the output of this query
    Dims qd, vd;    // the dimensions drawn of q and the keys, and of the values and z
    bool hidden;    // an open prediction reads this row's weights (View::lesson)
};

void draw_pin_line(Focus& f, View& v, bool qk) {
    core::Scenario& s = f.s;
    if (!s.pin) {
        ImGui::AlignTextToFramePadding(); // as tall as the button, so the plane stays put when q is pinned
        if (qk)
            ImGui::TextDisabled("Hover a query: its lines to the keys. Click: select it.");
        else
            ImGui::TextDisabled("Drag the tip of q (or type it) to steer the query of \"%s\".", f.token.c_str());
        return;
    }
    const ImVec4 accent = ImGui::ColorConvertU32ToFloat4(selection_color());
    ImGui::PushStyleColor(ImGuiCol_Button, ImVec4(accent.x * 0.55f, accent.y * 0.55f, accent.z * 0.55f, 1.0f));
    if (ImGui::Button("q pinned — click to release")) core::edits::unpin_query(s);
    ImGui::PopStyleColor();
    remember(v, "release_pin");
    tip("The query was set by hand and no longer comes from X · W_Q. One click gives it back.");
    if (s.pin) {
        ImGui::SameLine();
        ImGui::TextColored(accent, "\"%s\"%s", s.tokens[s.pin->row].c_str(),
                           s.heads.size() > 1 ? (", head " + std::to_string(s.pin->head + 1)).c_str() : "");
    }
}

// The drawn entries of q as number fields: typing one pins q to exactly that.
void draw_exact_q(Focus& f, View& v) {
    ArrowView& av = v.state<ArrowView>();
    const float e = em();
    ImGui::TextUnformatted("q =");
    for (int k = 0; k < (f.qd.b < 0 ? 1 : 2); ++k) {
        const int dim = k == 0 ? f.qd.a : f.qd.b;
        ImGui::SameLine();
        ImGui::SetNextItemWidth(5.5f * e);
        double value = f.q[dim];
        ImGui::PushID(k);
        NumberFont mono;
        if (ImGui::InputScalar("##q", ImGuiDataType_Double, &value, nullptr, nullptr, "%.3f", ImGuiInputTextFlags_CharsScientific)) {
            if (core::is_acceptable_value(value)) {
                core::Vector edited = f.q;
                edited[dim] = value;
                core::edits::pin_query(f.s, f.h, f.i, std::move(edited));
            } else {
                v.tell("refused: q's entries must be finite and within ±1e6", true);
            }
        }
        ImGui::PopID();
        remember(v, k == 0 ? "q_x" : "q_y");
        tip(("Entry " + std::to_string(dim + 1) + " of the query: typing a number pins q to exactly that.").c_str());
    }
    ImGui::SameLine(0, 1.5f * e);
    ImGui::Text("|q| = %s", core::format_number(f.q.norm()).c_str());
    tip("The length of q. Longer queries spread the scores apart: softmax then picks one winner.");
    ImGui::SameLine(0, 1.5f * e);
    ImGui::Checkbox("values", &av.show_values);
    tip("Also draw each token's value vector v_j (the output z is their weighted average).");
}

// Which plane is drawn when d_k > 2: the query–key view, or two raw dimensions.
void draw_plane_picker(ArrowView& av, View& v) {
    static const char* const names[] = {"principal components", "query and its top key", "two dimensions"};
    ImGui::SetNextItemWidth(12.0f * em());
    int kind = static_cast<int>(av.plane_kind);
    if (ImGui::Combo("##plane", &kind, names, 3)) av.plane_kind = static_cast<ArrowPlane>(kind);
    remember(v, "arrow_plane");
    tip("The plane the vectors are drawn in. The first two are the query–key view: keys moved to the queries' mean and "
        "scaled so both have the same mean length, which changes no weight; then the plane that keeps most of their spread, "
        "or the one in which this query's dot product with its top key is exact.");
}

// Which two of d_k dimensions the plane shows, when it cannot show them all.
void draw_dimension_pickers(ArrowView& av, int d_k, int n, View& v) {
    const bool qk = d_k > 2 && av.plane_kind != ArrowPlane::dimensions;
    if (d_k > 2) {
        draw_plane_picker(av, v);
        ImGui::SameLine();
    }
    if (qk) {
        dim_text(qk_plane_name(av.qk)); // wrapped: a narrow panel cuts nothing off
        dim_text(qk_plane_kept(av.qk) + " · d_k = " + std::to_string(d_k) + ", scores use all " + std::to_string(d_k));
    } else if (d_k > 2) {
        for (int k = 0; k < 2; ++k) {
            if (k) ImGui::SameLine();
            ImGui::SetNextItemWidth(5.0f * em());
            ImGui::PushID(k + 10);
            const std::string current = "dim " + std::to_string(av.dims[k] + 1);
            if (ImGui::BeginCombo("##dim", current.c_str())) {
                for (int d = 0; d < d_k; ++d)
                    if (ImGui::Selectable(("dim " + std::to_string(d + 1)).c_str(), d == av.dims[k])) av.dims[k] = d;
                ImGui::EndCombo();
            }
            ImGui::PopID();
            tip(k == 0 ? "The dimension drawn across" : "The dimension drawn upwards");
        }
        ImGui::SameLine();
        ImGui::TextDisabled("projection: d_k = %d, scores use all %d", d_k, d_k);
    } else if (d_k == 1) {
        ImGui::TextDisabled("d_k = 1: every vector lies on one line");
    }
    if (!qk && n > max_key_arrows) ImGui::TextDisabled("%d keys: each a dot at its tip, the %d heaviest as arrows", n, heaviest_arrows);
}

//-----------------------------------------------------------------------------
// [SECTION] Plane
//-----------------------------------------------------------------------------

// The box around every vector drawn and the origin: lo (x, y) and hi (x, y).
struct Bounds {
    double lo_x = 0, hi_x = 0, lo_y = 0, hi_y = 0;
    void add(double x, double y) { lo_x = std::min(lo_x, x), hi_x = std::max(hi_x, x), lo_y = std::min(lo_y, y), hi_y = std::max(hi_y, y); }
};
Bounds drawn_bounds(const ArrowView& av, const Focus& f) {
    const core::HeadResult& hr = f.hr;
    Bounds b;
    for (int j = 0; j < f.n; ++j) b.add(f.qd.x(hr.K.row(j).data()), f.qd.y(hr.K.row(j).data()));
    b.add(f.qd.x(f.q.data()), f.qd.y(f.q.data()));
    b.add(f.vd.x(f.z.data()), f.vd.y(f.z.data()));
    if (av.show_values)
        for (int j = 0; j < f.n; ++j) b.add(f.vd.x(hr.V.row(j).data()), f.vd.y(hr.V.row(j).data()));
    return b;
}

// After a drag, while q stays where it was dropped: the axes keep q's tip where the pointer left it,
// growing about that point only as far as a vector outside them needs. False when they fit anew.
bool keep_after_drop(ArrowView& av, const Focus& f, const Bounds& b) {
    if (av.dropped_q.empty()) return false;
    const bool same_q = av.dropped_q.size() == static_cast<std::size_t>(f.q.size()) &&
                        std::equal(av.dropped_q.begin(), av.dropped_q.end(), f.q.data());
    const double w = av.world_max.x - av.world_min.x, qx = f.qd.x(f.q.data()), qy = f.qd.y(f.q.data());
    const double u = (qx - av.world_min.x) / w, v = (qy - av.world_min.y) / w; // the tip's place across the square plane
    if (!same_q || u <= 0 || u >= 1 || v <= 0 || v >= 1) {
        av.dropped_q.clear();
        return false;
    }
    const double side = std::max({w, (qx - b.lo_x) / u, (b.hi_x - qx) / (1 - u), (qy - b.lo_y) / v, (b.hi_y - qy) / (1 - v)});
    av.world_min = ImVec2(static_cast<float>(qx - u * side), static_cast<float>(qy - v * side));
    av.world_max = ImVec2(static_cast<float>(av.world_min.x + side), static_cast<float>(av.world_min.y + side));
    return true;
}

// Fits the axes to every vector drawn (and the origin), unless q is being dragged or was just dropped.
void fit_axes(ArrowView& av, const Focus& f) {
    if (av.dragging) return;
    const Bounds b = drawn_bounds(av, f);
    if (keep_after_drop(av, f, b)) return;
    const double lo_x = b.lo_x, hi_x = b.hi_x, lo_y = b.lo_y, hi_y = b.hi_y;
    const double half = std::max({hi_x - lo_x, hi_y - lo_y, 1.0}) * 0.5 * 1.3;
    const double cx = (lo_x + hi_x) * 0.5, cy = (lo_y + hi_y) * 0.5;
    av.world_min = ImVec2(static_cast<float>(cx - half), static_cast<float>(cy - half));
    av.world_max = ImVec2(static_cast<float>(cx + half), static_cast<float>(cy + half));
}

// The plane as a button: dragging near q's tip pins q where the mouse is. True when the mouse is near the tip.
bool drag_q(Focus& f, ArrowView& av, const Plane& plane, float side, double step) {
    ImGui::InvisibleButton("plane", ImVec2(side, side));
    const ImVec2 mouse = ImGui::GetIO().MousePos;
    const bool near_tip = std::hypot(mouse.x - av.q_tip.x, mouse.y - av.q_tip.y) <= 1.2f * em();
    if (ImGui::IsItemActivated()) av.dragging = near_tip;
    if (!ImGui::IsItemActive() && av.dragging) {
        av.dragging = false;
        av.dropped_q.assign(f.q.data(), f.q.data() + f.q.size());
    }
    if ((ImGui::IsItemHovered() && near_tip) || av.dragging) ImGui::SetMouseCursor(ImGuiMouseCursor_Hand);
    if (av.dragging) {
        // Snap to a hundredth of a grid step, so dragged queries read as short numbers.
        const double snap = step / 100.0;
        core::Vector edited = f.q;
        edited[f.qd.a] = std::round((mouse.x - plane.origin.x) / plane.scale / snap) * snap;
        if (f.qd.b >= 0) edited[f.qd.b] = std::round((plane.origin.y - mouse.y) / plane.scale / snap) * snap;
        if (edited != f.q) core::edits::pin_query(f.s, f.h, f.i, std::move(edited));
    }
    if (ImGui::IsItemHovered() && !av.dragging) ImGui::SetTooltip(near_tip ? "drag to move q" : "drag the tip of q (the orange arrow)");
    return near_tip;
}

// The dark background, a grid line every `step` with its number, and the axes through the origin.
void draw_grid(ImDrawList* draw, const Plane& plane, const ArrowView& av, double step) {
    const ImRect& r = av.plane;
    const float e = em();
    draw->AddRectFilled(r.Min, r.Max, plane_rgb);
    const ImU32 grid = IM_COL32(255, 255, 255, 22), axis = IM_COL32(255, 255, 255, 70), tick = IM_COL32(255, 255, 255, 110);
    char label[32];
    for (double g = std::ceil(av.world_min.x / step) * step; g <= av.world_max.x; g += step) {
        const float x = plane.to_screen(g, 0).x;
        const bool zero = std::abs(g) < step * 1e-6;
        draw->AddLine(ImVec2(x, r.Min.y), ImVec2(x, r.Max.y), zero ? axis : grid);
        std::snprintf(label, sizeof label, "%g", zero ? 0.0 : g);
        draw->AddText(ImVec2(x + 0.2f * e, r.Max.y - ImGui::GetTextLineHeight()), tick, label);
    }
    for (double g = std::ceil(av.world_min.y / step) * step; g <= av.world_max.y; g += step) {
        const float y = plane.to_screen(0, g).y;
        const bool zero = std::abs(g) < step * 1e-6;
        draw->AddLine(ImVec2(r.Min.x, y), ImVec2(r.Max.x, y), zero ? axis : grid);
        std::snprintf(label, sizeof label, "%g", zero ? 0.0 : g);
        draw->AddText(ImVec2(r.Min.x + 0.2f * e, y), tick, label);
    }
}

// The keys (and values) as arrows, or as dots beyond max_key_arrows; then z and q on top.
void draw_vectors(ImDrawList* draw, const Plane& plane, const Focus& f, const ArrowView& av, bool near_tip) {
    const core::Scenario& s = f.s;
    const core::HeadResult& hr = f.hr;
    const int i = f.i, n = f.n;
    const ImRect& bounds = av.plane;
    const double top = hr.weights.row(i).maxCoeff();
    const bool label_all = n <= 24;
    auto strength = [&](int j) {
        if (f.hidden) return 0.6f; // every key alike: no hint of the weights
        return core::is_masked(s, i, j) ? 0.25f : 0.35f + 0.65f * static_cast<float>(hr.weights(i, j) / (top > 0 ? top : 1.0));
    };
    auto key_arrow = [&](int j) {
        const bool labelled = label_all || (!f.hidden && hr.weights(i, j) == top);
        const float k_strength = strength(j);
        arrow(draw, plane, bounds, f.qd.x(hr.K.row(j).data()), f.qd.y(hr.K.row(j).data()), with_alpha(key_rgb, k_strength),
              1.0f + 2.0f * k_strength, labelled ? "k_" + s.tokens[j] + (core::is_masked(s, i, j) ? " (masked)" : "") : "");
    };
    if (n > max_key_arrows) {
        // Hundreds of overlapping arrows read as a hairball and cost more to draw than the rest
        // of the window: a dot per vector, arrows only where the weight goes.
        const float half = 0.12f * em();
        auto dot = [&](double x, double y, ImU32 color) {
            const ImVec2 c = plane.to_screen(x, y);
            draw->AddRectFilled(ImVec2(c.x - half, c.y - half), ImVec2(c.x + half, c.y + half), color);
        };
        if (av.show_values)
            for (int j = 0; j < n; ++j) dot(f.vd.x(hr.V.row(j).data()), f.vd.y(hr.V.row(j).data()), with_alpha(value_rgb, 0.7f));
        for (int j = 0; j < n; ++j) dot(f.qd.x(hr.K.row(j).data()), f.qd.y(hr.K.row(j).data()), with_alpha(key_rgb, strength(j)));
        if (!f.hidden)
            for (int j : heaviest_keys(s, hr, i, heaviest_arrows)) key_arrow(j);
    } else {
        if (av.show_values)
            for (int j = 0; j < n; ++j)
                arrow(draw, plane, bounds, f.vd.x(hr.V.row(j).data()), f.vd.y(hr.V.row(j).data()), with_alpha(value_rgb, 0.7f), 1.0f,
                      label_all ? "v_" + s.tokens[j] : "");
        for (int j = 0; j < n; ++j) key_arrow(j);
    }
    if (!f.hidden) arrow(draw, plane, bounds, f.vd.x(f.z.data()), f.vd.y(f.z.data()), output_rgb, 2.5f, "z_" + f.token);
    arrow(draw, plane, bounds, f.qd.x(f.q.data()), f.qd.y(f.q.data()), selection_color(), 3.0f, "q_" + f.token);
    draw->AddCircle(av.q_tip, near_tip || av.dragging ? 0.55f * em() : 0.35f * em(), selection_color(), 0, 2.0f);
}

// The square plane, `side` wide, at the cursor: axes, grid, vectors, and q's draggable tip.
void draw_plane(Focus& f, ArrowView& av, float side) {
    const ImVec2 p0 = ImGui::GetCursorScreenPos();
    av.plane = ImRect(p0, ImVec2(p0.x + side, p0.y + side));
    fit_axes(av, f);
    const float scale = side / (av.world_max.x - av.world_min.x);
    const Plane plane{ImVec2(p0.x - av.world_min.x * scale, p0.y + av.world_max.y * scale), scale};
    av.origin = plane.origin;
    av.scale = scale;
    av.q_tip = plane.to_screen(f.qd.x(f.q.data()), f.qd.y(f.q.data()));

    const double step = nice_step(av.world_max.x - av.world_min.x);
    const bool near_tip = drag_q(f, av, plane, side, step);
    ImDrawList* draw = ImGui::GetWindowDrawList();
    draw->PushClipRect(av.plane.Min, av.plane.Max, true);
    draw_grid(draw, plane, av, step);
    draw_vectors(draw, plane, f, av, near_tip);
    draw->PopClipRect();
    draw->AddRect(av.plane.Min, av.plane.Max, IM_COL32(255, 255, 255, 60));
}

//-----------------------------------------------------------------------------
// [SECTION] Weight bars and notes
//-----------------------------------------------------------------------------

void draw_weight_bars(const Focus& f, float width, float height) {
    const core::Scenario& s = f.s;
    const core::HeadResult& hr = f.hr;
    const int i = f.i;
    ImGui::BeginChild("bars", ImVec2(width, height), false);
    ImGui::TextDisabled("weights of \"%s\"", f.token.c_str());
    if (f.hidden) {
        ImGui::TextWrapped("%s", reveal_hint);
        ImGui::EndChild();
        return;
    }
    weight_bars(
        f.n, std::min(5.0f * em(), width * 0.4f), key_rgb, hr.weights.row(i).maxCoeff(), [&s](int j) { return s.tokens[j].c_str(); },
        [&](int j) { return hr.weights(i, j); }, [&](int j) { return core::is_masked(s, i, j); });
    ImGui::EndChild();
}

// z, then the two extremes of the article's "Try it", said plainly.
void draw_notes(const Focus& f) {
    const core::Scenario& s = f.s;
    const core::HeadResult& hr = f.hr;
    double lo = 1.0, hi = 0.0;
    int visible = 0, winner = 0;
    for (int j = 0; j < f.n; ++j) {
        if (core::is_masked(s, f.i, j)) continue;
        ++visible;
        lo = std::min(lo, hr.weights(f.i, j));
        if (hr.weights(f.i, j) > hi) hi = hr.weights(f.i, j), winner = j;
    }
    if (f.hidden) {
        ImGui::TextDisabled("z_%s: %s", f.token.c_str(), reveal_hint);
        return;
    }
    NumberFont mono;
    ImGui::TextColored(good_text_colour(), "z_%s = %s", f.token.c_str(), core::format_vector(f.z.data(), f.z.size()).c_str());
    if (visible > 1 && hi - lo < 1e-9)
        ImGui::TextUnformatted("all weights equal: output = plain average of values");
    else if (visible > 1 && hi >= 0.95)
        ImGui::Text("one winner: w = %s → %s", core::format_number(hi).c_str(), s.tokens[winner].c_str());
    else if (visible == 1)
        ImGui::Text("only \"%s\" is visible (causal mask): w = 1", s.tokens[winner].c_str());
}

} // namespace

//-----------------------------------------------------------------------------
// [SECTION] Panel
//-----------------------------------------------------------------------------

// The query–key plane of head h, every query a point; a click on one selects its row.
QKPlaneInput qk_input(const Focus& f, long long version) {
    const core::Scenario& s = f.s;
    return QKPlaneInput{f.hr.Q, f.hr.K, f.hr.weights, s.tokens, f.i, [&s](int i, int j) { return core::is_masked(s, i, j); }, {}, version};
}

void draw_query_arrow_panel(core::Scenario& s, const core::Result& r, View& v, TextureUploader& textures) {
    ArrowView& av = v.state<ArrowView>();
    const int h = v.selected_head, i = v.selected_row, d_k = s.d_k();
    for (int& d : av.dims) d = std::clamp(d, 0, d_k - 1); // d_k may have shrunk since
    const core::HeadResult& hr = r.heads[h];
    Focus f{s, hr, h, i, s.n(), s.tokens[i], hr.Q.row(i).transpose(), hr.output.row(i).transpose(), dims_in(d_k, av.dims),
            dims_in(s.d_v(), av.dims), v.lesson.hides("A", i)};
    const bool qk = d_k > 2 && av.plane_kind != ArrowPlane::dimensions;
    QKPlaneInput in = qk_input(f, v.result_version);
    const LessonOverlay& lesson = v.lesson;
    in.weights_hidden = [&lesson](int row) { return lesson.hides("A", row); };
    if (qk)
        update_qk_plane(av.qk, in, av.plane_kind == ArrowPlane::query_and_key ? core::heads::QKPlane::query_and_key
                                                                                : core::heads::QKPlane::principal);

    draw_pin_line(f, v, qk);
    draw_exact_q(f, v);
    draw_dimension_pickers(av, d_k, f.n, v);

    // The plane as large a square as fits beside the bars and above the notes.
    const float bars_w = std::min(13.0f * em(), ImGui::GetContentRegionAvail().x * 0.32f);
    const float notes_h = 2.0f * ImGui::GetTextLineHeightWithSpacing();
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    const float side = std::max(6.0f * em(), std::min(avail.x - bars_w - ImGui::GetStyle().ItemSpacing.x, avail.y - notes_h));
    if (qk) {
        const int clicked = draw_qk_plane(av.qk, in, side, textures);
        if (clicked >= 0) v.selected_row = clicked;
    } else {
        draw_plane(f, av, side);
    }
    ImGui::SameLine();
    draw_weight_bars(f, bars_w, side);
    draw_notes(f);
}

} // namespace ui
