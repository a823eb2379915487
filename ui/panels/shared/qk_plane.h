// ui/panels/shared/qk_plane.h — one head's queries and keys as points in one plane (core::heads::query_key_view):
// the keys moved to the queries' mean, α-scaled, projected on the union's first two principal
// components or on the plane of one query and its top key. Hovering a query draws its lines to the
// keys, as thick as the head's weights; names that would cover another are left out. Shared by every
// panel that shows a head of d_k > 2.
#pragma once

#include "core/heads/qk_view.h"
#include "ui/canvas.h"

#include <imgui.h>
#include <imgui_internal.h>

#include <functional>
#include <string>
#include <vector>

namespace ui {

// What a view was made from: the same again makes the same view.
struct QKPlaneSource {
    const core::Matrix* Q = nullptr; // which head's queries, at
    long long version = -1;          // QKPlaneInput::version
    int selected = -1;               // query_and_key only (the principal plane is every query's)
    core::heads::QKPlane plane = core::heads::QKPlane::principal;
    bool operator==(const QKPlaneSource& o) const { return Q == o.Q && version == o.version && selected == o.selected && plane == o.plane; }
};

// Where the dots and names go, from the square's corner: made when the view, the side, the font or
// the hovered query changes, not every frame (finding names that overlap none is quadratic).
struct QKPlaneLayout {
    int view = -1;                 // QKPlaneView::views_made when made
    float side = 0, font = 0;
    int hovered = -2, selected = -1, selected_top = -1; // the queries and key the names were placed for
    std::vector<ImVec2> query_at, key_at;
    ImVec2 origin;
    struct Name { ImVec2 at; std::string text; bool query, strong; };
    std::vector<Name> names;       // the names drawn, placed so that none overlaps another
    std::vector<ImRect> boxes;     // their boxes
    int made = 0;                  // times the dots were placed (the tests read it)
};

// What the widget keeps between frames, and records for tests.
struct QKPlaneView {
    core::heads::QKView view;    // the view drawn in the last frame
    QKPlaneSource source;        // what `view` was made from
    int views_made = 0;          // times `view` was computed
    QKPlaneLayout layout;
    int top_key = -1;            // query_and_key: the key whose plane is shown
    int hovered_query = -1;      // the query whose lines are drawn, or -1
    int lines_drawn = 0;         // how many key lines the hovered query drew
    std::vector<ImVec2> query_dots, key_dots; // screen positions of every query and key
    std::vector<ImRect> label_boxes;          // the names drawn, which never overlap
    ImRect rect;
    // The dots as one texture, drawn again when the layout, the selection, the hover or the font changes.
    struct Dots {
        int made = -1;
        float side = 0, font = 0, scale = 0;
        int selected = -1, selected_top = -1, hovered = -1, top_key = -1;
        ImU32 colour = 0;
        bool operator==(const Dots& o) const;
    } dots_drawn;
    CanvasTexture dots;
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
    long long version = 0;                     // changes whenever Q, K, the weights or the tokens do
};

// The plane's name ("first two principal components of queries and keys"), and the share of the
// variance it keeps with the scale ("keeps 71.3 % of the variance · α = 1.04").
std::string qk_plane_name(const QKPlaneView& pv);
std::string qk_plane_kept(const QKPlaneView& pv);

// Computes pv.view (and pv.top_key) when its source changed since the last call. `plane` is the one
// asked for; query_and_key falls back to principal when the selected query's weights are hidden (its
// top key would tell them).
void update_qk_plane(QKPlaneView& pv, const QKPlaneInput& in, core::heads::QKPlane plane);
// Draws pv.view as a `side` × `side` square at the cursor. Returns the query clicked, or -1.
int draw_qk_plane(QKPlaneView& pv, const QKPlaneInput& in, float side, TextureUploader& textures);

} // namespace ui
