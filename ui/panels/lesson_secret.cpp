// ui/panels/lesson_secret.cpp — see lesson_secret.h.
#include "ui/panels/lesson_secret.h"

#include "ui/grid.h"
#include "ui/panels/lesson.h"

namespace ui {

namespace {

// The open step's secret, worked out again when the frame, the step or the commitment changes
// (a step opened or committed earlier in this frame counts at once).
const core::learn::Secret& secret(View& v, const core::Scenario& s, const core::Result& r) {
    LessonView& lv = v.state<LessonView>();
    if (!lv.session) {
        lv.secret = {};
        return lv.secret;
    }
    const LessonView::SecretKey key{ImGui::GetFrameCount(), lv.session->index(), lv.session->committed(), s.n()};
    if (key == lv.secret_key) return lv.secret;
    if (r.heads.empty() || r.heads.front().weights.rows() != s.n()) {
        // A Result of the scenario before this frame's edit: hide every row until it is recomputed.
        lv.secret = {};
        if (lv.session->step().predict && !lv.session->committed()) {
            lv.secret.places = {core::learn::MatrixPlace{"A", 0, -1, -1}};
            lv.secret.decoder = lv.session->step().predict->answer.reads_decoder();
        }
        return lv.secret;
    }
    lv.secret = lv.session->secret(s, r);
    lv.secret_key = key;
    return lv.secret;
}

} // namespace

bool lesson_hides(View& v, const core::Scenario& s, const core::Result& r, const std::string& matrix, int row) {
    return secret(v, s, r).hides(matrix, row);
}

bool lesson_hides_decoder(View& v, const core::Scenario& s, const core::Result& r) { return secret(v, s, r).decoder; }

bool lesson_hides_name(View& v, const core::Scenario& s, const core::Result& r, const std::string& name) {
    return secret(v, s, r).hides_name(name);
}

std::vector<char> lesson_hidden_rows(View& v, const core::Scenario& s, const core::Result& r, const std::string& matrix) {
    std::vector<char> out(static_cast<size_t>(s.n()), 0);
    const core::learn::Secret& sec = secret(v, s, r);
    if (sec.places.empty()) return out;
    for (int i = 0; i < s.n(); ++i) out[static_cast<size_t>(i)] = sec.hides(matrix, i) ? 1 : 0;
    return out;
}

void draw_hidden_cell(const ImRect& rect) {
    ImGui::GetWindowDrawList()->AddRectFilled(ImVec2(rect.Min.x + 1, rect.Min.y + 1), ImVec2(rect.Max.x - 1, rect.Max.y - 1), hidden_colour());
    cell_text(rect, "?", IM_COL32(225, 225, 225, 255));
}

} // namespace ui
