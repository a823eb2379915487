// ui/panels/shared/qk_plane.cpp — the query–key plane: points, the hovered query's lines, the caption.
//
// [SECTION] The view and its caption
// [SECTION] Drawing
#include "ui/panels/shared/qk_plane.h"

#include "ui/view.h"
#include "ui/widgets.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace ui {

namespace {

const ImU32 key_rgb = IM_COL32(150, 185, 230, 255);
constexpr int max_points = 1024; // of each kind drawn
constexpr int max_labelled = 512; // queries and keys together; beyond, only the strong ones are named
const ImU32 plane_rgb = IM_COL32(24, 24, 28, 255); // dark on both themes, as the query arrow's plane

ImU32 faded(ImU32 c, float alpha) {
    return (c & ~IM_COL32_A_MASK) | (static_cast<ImU32>(std::clamp(alpha, 0.0f, 1.0f) * 255.0f) << IM_COL32_A_SHIFT);
}

//-----------------------------------------------------------------------------
// [SECTION] The view and its caption
//-----------------------------------------------------------------------------

// The unmasked key with the largest weight in row i (the first on a tie).
int top_key_of(const QKPlaneInput& in, int i) {
    int best = -1;
    for (int j = 0; j < in.K.rows(); ++j)
        if (!(in.masked && in.masked(i, j)) && (best < 0 || in.weights(i, j) > in.weights(i, best))) best = j;
    return std::max(best, 0);
}

// World → screen: the points' box (and the origin) fitted into the square with a margin.
struct Fit {
    ImVec2 centre_screen;
    double cx = 0, cy = 0, scale = 1;
    ImVec2 at(double x, double y) const {
        return ImVec2(centre_screen.x + static_cast<float>((x - cx) * scale), centre_screen.y - static_cast<float>((y - cy) * scale));
    }
};

Fit fit_points(const core::heads::QKView& view, const ImRect& r) {
    double lo_x = 0, hi_x = 0, lo_y = 0, hi_y = 0;
    for (const core::Matrix* m : {&view.query_points, &view.key_points})
        for (Eigen::Index k = 0; k < m->rows(); ++k) {
            lo_x = std::min(lo_x, (*m)(k, 0)), hi_x = std::max(hi_x, (*m)(k, 0));
            lo_y = std::min(lo_y, (*m)(k, 1)), hi_y = std::max(hi_y, (*m)(k, 1));
        }
    const double span = std::max({hi_x - lo_x, hi_y - lo_y, 1e-9}) * 1.4; // room for the labels
    return Fit{r.GetCenter(), (lo_x + hi_x) / 2, (lo_y + hi_y) / 2, r.GetWidth() / span};
}

// The strong names first (the selected or hovered query, the selected query's top key), each moved
// down a line while it covers one placed before; then the others in order wherever they cover none
// (none of them when `others` is false): names never overlap.
void arrange_names(QKPlaneLayout& lay, std::vector<QKPlaneLayout::Name>& names, bool others) {
    std::stable_partition(names.begin(), names.end(), [](const QKPlaneLayout::Name& l) { return l.strong; });
    lay.names.clear(), lay.boxes.clear();
    const float pad = 0.1f * em();
    for (QKPlaneLayout::Name& l : names) {
        if (!l.strong && !others) break;
        const ImVec2 size = ImGui::CalcTextSize(l.text.c_str());
        ImRect box(ImVec2(l.at.x - pad, l.at.y), ImVec2(l.at.x + size.x + pad, l.at.y + size.y));
        const auto covers = [&] { return std::any_of(lay.boxes.begin(), lay.boxes.end(), [&](const ImRect& b) { return b.Overlaps(box); }); };
        if (!l.strong && covers()) continue;
        for (int k = 0; l.strong && k < 3 && covers(); ++k) box.Translate(ImVec2(0, size.y));
        lay.boxes.push_back(box);
        l.at.y = box.Min.y;
        lay.names.push_back(std::move(l));
    }
}

} // namespace

std::string qk_plane_name(const QKPlaneView& pv) {
    return pv.view.plane == core::heads::QKPlane::principal ? "plane: principal components 1 and 2"
                                                            : "plane: the query and its top key";
}

std::string qk_plane_kept(const QKPlaneView& pv) {
    char text[96];
    std::snprintf(text, sizeof text, "keeps %.1f %% of the variance · α = %.3g", 100.0 * pv.view.variance_kept, pv.view.alpha);
    return text;
}

//-----------------------------------------------------------------------------
// [SECTION] Drawing
//-----------------------------------------------------------------------------

void update_qk_plane(QKPlaneView& pv, const QKPlaneInput& in, core::heads::QKPlane plane) {
    const int sel = std::clamp(in.selected, 0, static_cast<int>(in.Q.rows()) - 1);
    if (in.weights_hidden && in.weights_hidden(sel)) plane = core::heads::QKPlane::principal;
    const bool pair = plane == core::heads::QKPlane::query_and_key;
    const QKPlaneSource source{&in.Q, in.version, pair ? sel : -1, plane};
    if (source == pv.source) return;
    pv.source = source;
    pv.top_key = pair ? top_key_of(in, sel) : -1;
    pv.view = core::heads::query_key_view(in.Q, in.K, plane, sel, std::max(pv.top_key, 0));
    ++pv.views_made;
}

namespace {

// Beyond max_points of a kind, every stride-th is drawn (as a square) and may be named, so that the
// plane stays readable; the strong ones always are.
int stride_of(int count) { return count > max_points ? (count + max_points - 1) / max_points : 1; }
bool shown(int index, int stride, bool strong) { return strong || index % stride == 0; }

// The dots from the square's corner, when the view or the side changed since they were placed.
void place_dots(QKPlaneView& pv, float side) {
    QKPlaneLayout& lay = pv.layout;
    if (lay.view == pv.views_made && lay.side == side) return;
    lay.view = pv.views_made, lay.side = side, lay.hovered = -2; // the names follow the dots
    const Fit fit = fit_points(pv.view, ImRect(ImVec2(0, 0), ImVec2(side, side)));
    const auto place = [&fit](const core::Matrix& points, std::vector<ImVec2>& at) {
        at.resize(static_cast<size_t>(points.rows()));
        for (Eigen::Index i = 0; i < points.rows(); ++i) at[static_cast<size_t>(i)] = fit.at(points(i, 0), points(i, 1));
    };
    place(pv.view.query_points, lay.query_at);
    place(pv.view.key_points, lay.key_at);
    lay.origin = fit.at(0, 0);
    ++lay.made;
}

// The names, when the dots, the font, the selection or the hovered query changed since they were placed.
void place_names(QKPlaneView& pv, const QKPlaneInput& in, int sel, int sel_top, int h) {
    QKPlaneLayout& lay = pv.layout;
    if (lay.hovered == h && lay.selected == sel && lay.selected_top == sel_top && lay.font == em()) return;
    lay.hovered = h, lay.selected = sel, lay.selected_top = sel_top, lay.font = em();
    const int n_q = static_cast<int>(in.Q.rows()), n_k = static_cast<int>(in.K.rows());
    const float right = 0.22f * em() + 2, up = 0.5f * em();
    std::vector<QKPlaneLayout::Name> names;
    for (int j = 0; j < n_k; ++j) {
        const ImVec2 c = lay.key_at[static_cast<size_t>(j)];
        if (shown(j, stride_of(n_k), j == sel_top)) names.push_back({ImVec2(c.x + right, c.y - up), "k_" + in.tokens[static_cast<size_t>(j)], false, j == sel_top});
    }
    for (int i = 0; i < n_q; ++i) {
        const ImVec2 c = lay.query_at[static_cast<size_t>(i)];
        if (shown(i, stride_of(n_q), i == sel || i == h)) names.push_back({ImVec2(c.x + right, c.y - up), "q_" + in.tokens[static_cast<size_t>(i)], true, i == sel || i == h});
    }
    arrange_names(lay, names, n_q + n_k <= max_labelled);
}

// The query under the mouse: the nearest within 0.8 em.
int query_under_mouse(const QKPlaneView& pv) {
    const ImVec2 mouse = ImGui::GetIO().MousePos;
    float best = 0.8f * em();
    int found = -1;
    for (size_t i = 0; i < pv.query_dots.size(); ++i) {
        const float d = std::hypot(mouse.x - pv.query_dots[i].x, mouse.y - pv.query_dots[i].y);
        if (d <= best) best = d, found = static_cast<int>(i);
    }
    return found;
}

// The hovered query's lines, as thick and opaque as its weights (none while they are a secret).
void draw_lines(ImDrawList* draw, QKPlaneView& pv, const QKPlaneInput& in) {
    pv.lines_drawn = 0;
    const int h = pv.hovered_query, n_k = static_cast<int>(in.K.rows());
    if (h < 0 || (in.weights_hidden && in.weights_hidden(h))) return;
    const double top = in.weights.row(h).maxCoeff() > 0 ? in.weights.row(h).maxCoeff() : 1.0;
    for (int j = 0; j < n_k; ++j) {
        if (in.masked && in.masked(h, j)) continue;
        const float w = static_cast<float>(in.weights(h, j) / top);
        if (n_k > max_points && w < 0.01f) continue; // thousands of invisible lines would overflow the draw list
        draw->AddLine(pv.query_dots[static_cast<size_t>(h)], pv.key_dots[static_cast<size_t>(j)], faded(selection_color(), 0.15f + 0.85f * w),
                      0.5f + 3.0f * w);
        ++pv.lines_drawn;
    }
}

// Keys as squares, queries as discs (the selected and hovered larger), on the canvas.
void paint_points(Canvas& canvas, const QKPlaneView& pv, int sel, int sel_top, float scale) {
    const int n_q = static_cast<int>(pv.layout.query_at.size()), n_k = static_cast<int>(pv.layout.key_at.size());
    const int q_stride = stride_of(n_q), k_stride = stride_of(n_k);
    const float r = 0.22f * em() * scale;
    const auto at = [scale](ImVec2 p) { return ImVec2(p.x * scale, p.y * scale); };
    for (int j = 0; j < n_k; ++j) {
        const ImVec2 c = at(pv.layout.key_at[static_cast<size_t>(j)]);
        if (shown(j, k_stride, j == sel_top)) canvas.rect(ImVec2(c.x - r, c.y - r), ImVec2(c.x + r, c.y + r), j == pv.top_key ? IM_COL32(230, 240, 255, 255) : key_rgb);
    }
    for (int i = 0; i < n_q; ++i) {
        const ImVec2 c = at(pv.layout.query_at[static_cast<size_t>(i)]);
        const bool strong = i == sel || i == pv.hovered_query;
        if (!shown(i, q_stride, strong)) continue;
        if (q_stride > 1 && !strong) canvas.rect(ImVec2(c.x - r, c.y - r), ImVec2(c.x + r, c.y + r), faded(selection_color(), 0.6f));
        else canvas.disc(c, strong ? 1.5f * r : r, faded(selection_color(), strong ? 1.0f : 0.6f));
    }
}

// A thousand dots are four thousand small triangles for llvmpipe: they are one texture instead.
void draw_points(ImDrawList* draw, QKPlaneView& pv, int sel, int sel_top, ImVec2 p0, TextureUploader& textures) {
    const float scale = std::max(1.0f, ImGui::GetIO().DisplayFramebufferScale.x);
    const QKPlaneView::Dots now{pv.layout.made, pv.layout.side, em(), scale, sel, sel_top, pv.hovered_query, pv.top_key, selection_color()};
    if (!(now == pv.dots_drawn)) {
        const int side = static_cast<int>(std::ceil(pv.layout.side * scale));
        pv.dots.canvas.reset(side, side);
        paint_points(pv.dots.canvas, pv, sel, sel_top, scale);
        pv.dots.send(textures);
        pv.dots_drawn = now;
    }
    pv.dots.draw(draw, p0, scale);
}

// The names placed for this frame, at the square's corner `p0`.
void draw_names(ImDrawList* draw, QKPlaneView& pv, ImVec2 p0) {
    pv.label_boxes.clear();
    for (const QKPlaneLayout::Name& l : pv.layout.names) {
        const ImU32 colour = l.query ? faded(selection_color(), l.strong ? 1.0f : 0.7f) : faded(key_rgb, 0.8f);
        draw->AddText(ImVec2(p0.x + l.at.x, p0.y + l.at.y), colour, l.text.c_str());
    }
    for (ImRect b : pv.layout.boxes) {
        b.Translate(p0);
        pv.label_boxes.push_back(b);
    }
}

void plane_tooltip(const QKPlaneView& pv, const QKPlaneInput& in, bool hovered) {
    const int h = pv.hovered_query;
    if (h >= 0) {
        const int tk = top_key_of(in, h);
        if (in.weights_hidden && in.weights_hidden(h))
            ImGui::SetTooltip("q_%s: %s", in.tokens[static_cast<size_t>(h)].c_str(), reveal_hint);
        else
            ImGui::SetTooltip("q_%s: top key k_%s, w = %.3f (click to select)", in.tokens[static_cast<size_t>(h)].c_str(),
                              in.tokens[static_cast<size_t>(tk)].c_str(), in.weights(h, tk));
    } else if (hovered) {
        ImGui::SetTooltip("circles: queries · squares: keys · hover a query for its weights");
    }
}

} // namespace

bool QKPlaneView::Dots::operator==(const Dots& o) const {
    return made == o.made && side == o.side && font == o.font && scale == o.scale && selected == o.selected && selected_top == o.selected_top &&
           hovered == o.hovered && top_key == o.top_key && colour == o.colour;
}

int draw_qk_plane(QKPlaneView& pv, const QKPlaneInput& in, float side, TextureUploader& textures) {
    const int sel = std::clamp(in.selected, 0, static_cast<int>(in.Q.rows()) - 1);
    const ImVec2 p0 = ImGui::GetCursorScreenPos();
    pv.rect = ImRect(p0, ImVec2(p0.x + side, p0.y + side));
    ImGui::InvisibleButton("qk_plane", ImVec2(side, side));
    const bool hovered = ImGui::IsItemHovered(), clicked = ImGui::IsItemClicked();
    place_dots(pv, side);
    const auto on_screen = [p0](const std::vector<ImVec2>& at, std::vector<ImVec2>& dots) {
        dots.resize(at.size());
        for (size_t i = 0; i < at.size(); ++i) dots[i] = ImVec2(p0.x + at[i].x, p0.y + at[i].y);
    };
    on_screen(pv.layout.query_at, pv.query_dots);
    on_screen(pv.layout.key_at, pv.key_dots);
    pv.hovered_query = hovered ? query_under_mouse(pv) : -1;

    ImDrawList* draw = ImGui::GetWindowDrawList();
    draw->PushClipRect(pv.rect.Min, pv.rect.Max, true);
    draw->AddRectFilled(pv.rect.Min, pv.rect.Max, plane_rgb);
    const ImVec2 o(p0.x + pv.layout.origin.x, p0.y + pv.layout.origin.y);
    draw->AddLine(ImVec2(pv.rect.Min.x, o.y), ImVec2(pv.rect.Max.x, o.y), IM_COL32(255, 255, 255, 50));
    draw->AddLine(ImVec2(o.x, pv.rect.Min.y), ImVec2(o.x, pv.rect.Max.y), IM_COL32(255, 255, 255, 50));
    draw_lines(draw, pv, in);
    const int sel_top = in.weights_hidden && in.weights_hidden(sel) ? -1 : top_key_of(in, sel); // named even among many keys
    draw_points(draw, pv, sel, sel_top, p0, textures);
    place_names(pv, in, sel, sel_top, pv.hovered_query);
    draw_names(draw, pv, p0);
    draw->PopClipRect();
    draw->AddRect(pv.rect.Min, pv.rect.Max, IM_COL32(255, 255, 255, 60));
    plane_tooltip(pv, in, hovered);
    return clicked ? pv.hovered_query : -1;
}

} // namespace ui
