// ui/qk_plane.h — one head's queries and keys as points in one plane (core::heads::query_key_view):
// the keys moved to the queries' mean, α-scaled, projected on the union's first two principal
// components or on the plane of one query and its top key. Hovering a query draws its lines to the
// keys, as thick as the head's weights; names that would cover another are left out. Shared by every
// panel that shows a head of d_k > 2.
#pragma once

#include "core/heads/qk_view.h"

#include <imgui.h>
#include <imgui_internal.h>

#include <functional>
#include <string>
#include <vector>

namespace ui {

// What the widget keeps between frames, and records for tests.
struct QKPlaneView {
    core::heads::QKView view;    // the view drawn in the last frame
    int top_key = -1;            // query_and_key: the key whose plane is shown
    int hovered_query = -1;      // the query whose lines are drawn, or -1
    int lines_drawn = 0;         // how many key lines the hovered query drew
    std::vector<ImVec2> query_dots, key_dots; // screen positions of every query and key
    std::vector<ImRect> label_boxes;          // the names drawn, which never overlap
    ImRect rect;
};

// One head on one sequence. Q, K: (n, d); weights: (n, n) rows are queries.
struct QKPlaneInput {
    const core::Matrix& Q;
    const core::Matrix& K;
    const core::Matrix& weights;
    const std::vector<std::string>& tokens;
    int selected = 0;                          // the query drawn highlighted (and whose top key it is)
    std::function<bool(int, int)> masked;      // (query, key) → hidden by the causal mask
    std::function<bool(int)> weights_hidden;   // query → its weights are a lesson's secret
};

// The plane's name ("first two principal components of queries and keys"), and the share of the
// variance it keeps with the scale ("keeps 71.3 % of the variance · α = 1.04").
std::string qk_plane_name(const QKPlaneView& pv);
std::string qk_plane_kept(const QKPlaneView& pv);

// Computes pv.view (and pv.top_key) for this frame. `plane` is the one asked for; query_and_key falls
// back to principal when the selected query's weights are hidden (its top key would tell them).
void update_qk_plane(QKPlaneView& pv, const QKPlaneInput& in, core::heads::QKPlane plane);
// Draws pv.view as a `side` × `side` square at the cursor. Returns the query clicked, or -1.
int draw_qk_plane(QKPlaneView& pv, const QKPlaneInput& in, float side);

} // namespace ui
