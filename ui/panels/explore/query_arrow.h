// ui/panels/explore/query_arrow.h — one query against every key in a plane; drag q's tip to pin it.
#pragma once

#include "ui/panels/shared/qk_plane.h"
#include "ui/view.h"

#include <vector>

namespace ui {

// What the plane shows when d_k > 2: the query–key view (core::heads::query_key_view), or two raw dimensions.
enum class ArrowPlane { principal, query_and_key, dimensions };

struct ArrowView {
    ArrowPlane plane_kind = ArrowPlane::principal; // d_k > 2 only
    QKPlaneView qk;           // the query–key plane, when plane_kind is not `dimensions`
    int dims[2] = {0, 1};     // the two query dimensions the plane shows (plane_kind `dimensions`)
    bool show_values = false;
    bool dragging = false;
    // Axis range in world units; frozen while dragging so the plane does not move under the mouse,
    // and after it while q stays where it was dropped and everything fits: the tip stays at the pointer.
    ImVec2 world_min{-1, -1}, world_max{1, 1};
    std::vector<double> dropped_q; // q where the last drag left it (empty: no drag holds the axes)
    // Recorded each frame: screen = origin + (x, -y) · scale.
    ImVec2 origin{0, 0};
    float scale = 1.0f;
    ImRect plane;
    // Convenience for tests and for grabbing: where q's tip is on screen.
    ImVec2 q_tip{0, 0};
};

void draw_query_arrow_panel(core::Scenario& s, const core::Result& r, View& v, TextureUploader& textures); // edits the scenario (the pin)

} // namespace ui
