// ui/panels/explore/heads.cpp — multi-head attention (the step-by-step article, "Many heads, many questions"): add and
// remove heads, every head's weights as a small heatmap (click one to focus it everywhere), and
// how the heads' outputs are concatenated and projected by W_O.
#include "ui/panels/explore/heads.h"
#include "ui/grid.h"

#include "core/edits.h"
#include "ui/widgets.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ui {

namespace {

// Thumbnails show at most this many cells per side; bigger maps are summed into blocks.
constexpr int max_blocks = 32;

// Cell (a, b) of a thumbnail is the share of the attention of query block a that goes to key
// block b: the block's weights summed over its keys and averaged over its queries. Each thumbnail
// row then sums to 1 like a heatmap row, and up to 32 tokens it is the heatmap itself. A block
// whose every entry is masked is NaN (drawn in the masked colour).
void refresh_thumbnails(HeadsView& hv, const core::Result& r, long long version) {
    if (hv.version == version) return;
    const int n = static_cast<int>(r.heads[0].weights.rows());
    const int b = std::min(n, max_blocks);
    std::vector<int> block(static_cast<size_t>(n));
    std::vector<int> rows(static_cast<size_t>(b), 0);
    for (int i = 0; i < n; ++i) {
        block[i] = static_cast<int>(static_cast<long long>(i) * b / n);
        ++rows[block[i]];
    }
    hv.blocks = b;
    hv.shares.assign(r.heads.size(), std::vector<float>(static_cast<size_t>(b) * b, 0.0f));
    std::vector<char> visible(static_cast<size_t>(b) * b);
    for (size_t h = 0; h < r.heads.size(); ++h) {
        const core::HeadResult& hr = r.heads[h];
        std::vector<double> sum(static_cast<size_t>(b) * b, 0.0);
        std::fill(visible.begin(), visible.end(), 0);
        for (int i = 0; i < n; ++i)
            for (int j = 0; j < n; ++j) {
                const size_t cell = static_cast<size_t>(block[i]) * b + block[j];
                sum[cell] += hr.weights(i, j);
                visible[cell] |= !std::isinf(hr.scaled(i, j));
            }
        for (size_t cell = 0; cell < sum.size(); ++cell)
            hv.shares[h][cell] = visible[cell] ? static_cast<float>(sum[cell] / rows[cell / b]) : std::numeric_limits<float>::quiet_NaN();
    }
    hv.version = version;
}

// Columns of thumbnails that make them largest while all of them fit in `area`.
float thumbnail_side(int heads, ImVec2 area, float caption_h, float gap, int& columns) {
    float best = 0.0f;
    columns = 1;
    for (int c = 1; c <= heads; ++c) {
        const int rows = (heads + c - 1) / c;
        const float by_width = (area.x - static_cast<float>(c - 1) * gap) / static_cast<float>(c);
        const float by_height = area.y / static_cast<float>(rows) - caption_h - gap;
        const float side = std::min(by_width, by_height);
        if (side > best) best = side, columns = c;
    }
    return std::clamp(best, 2.5f * em(), 9.0f * em());
}

// Returns the head clicked, or -1.
int thumbnails(const core::Result& r, View& v) {
    HeadsView& hv = v.state<HeadsView>();
    refresh_thumbnails(hv, r, v.result_version);
    const int heads = static_cast<int>(r.heads.size());
    const float e = em(), gap = 0.6f * e, caption_h = ImGui::GetTextLineHeightWithSpacing();
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    int columns = 1;
    const float side = thumbnail_side(heads, ImVec2(avail.x, std::max(8.0f * e, avail.y * 0.42f)), caption_h, gap, columns);
    const int b = hv.blocks;
    const float cell = side / static_cast<float>(b);
    const int n = static_cast<int>(r.heads[0].weights.rows());
    hv.thumbnails.assign(static_cast<size_t>(heads), ImRect());
    ImDrawList* draw = ImGui::GetWindowDrawList();
    int clicked = -1;
    for (int h = 0; h < heads; ++h) {
        if (h % columns != 0) ImGui::SameLine(0, gap);
        ImGui::PushID(h);
        ImGui::BeginGroup();
        const bool focused = h == v.selected_head;
        ImGui::TextColored(focused ? ImGui::ColorConvertU32ToFloat4(selection_color()) : ImGui::GetStyleColorVec4(ImGuiCol_Text),
                           "head %d", h + 1);
        const ImVec2 p = ImGui::GetCursorScreenPos();
        if (ImGui::InvisibleButton("thumbnail", ImVec2(side, side))) clicked = h;
        const bool hovered = ImGui::IsItemHovered();
        const ImRect rect(p, ImVec2(p.x + side, p.y + side));
        hv.thumbnails[h] = rect;
        const std::vector<float>& shares = hv.shares[h];
        for (int a = 0; a < b; ++a) {
            const bool hidden = v.lesson.hides("A", b == n ? a : -1); // an open prediction's row
            for (int c = 0; c < b; ++c) {
                const float x = shares[static_cast<size_t>(a) * b + c];
                const ImVec2 min(p.x + static_cast<float>(c) * cell, p.y + static_cast<float>(a) * cell);
                draw->AddRectFilled(min, ImVec2(min.x + cell, min.y + cell), hidden ? hidden_colour() : std::isnan(x) ? masked_color() : sequential_color(x));
            }
        }
        const float frame = 0.06f * e;
        draw->AddRect(ImVec2(rect.Min.x - frame, rect.Min.y - frame), ImVec2(rect.Max.x + frame, rect.Max.y + frame),
                      focused ? selection_color() : hovered ? IM_COL32_WHITE : IM_COL32(255, 255, 255, 50), 0.0f, 0,
                      focused ? 0.12f * e : frame);
        if (hovered) {
            ImGui::BeginTooltip();
            ImGui::Text("Head %d: its attention weights A (rows: queries, columns: keys)", h + 1);
            if (b < n) ImGui::Text("%d × %d tokens shown as %d × %d blocks: each cell is the share of a block of queries' attention", n, n, b, b);
            ImGui::TextDisabled("Click to focus this head in the weights, matrices, heatmap and calculation");
            ImGui::EndTooltip();
        }
        ImGui::EndGroup();
        ImGui::PopID();
    }
    return clicked;
}

// Row label of W_O and column label of the concatenation: "2.3" is dimension 3 of head 2's output.
std::string head_dim(int index, int d_v) { return std::to_string(index / d_v + 1) + "." + std::to_string(index % d_v + 1); }

void output_projection_table(core::Scenario& s, View& v) {
    const int d_v = s.d_v();
    GridSpec g = number_grid("W_O", s, core::edits::Which::W_O, 0, ImGui::GetContentRegionAvail(), v);
    g.row_header_w = ImGui::CalcTextSize("16.512").x + em();
    g.row_label = [d_v](int r) { return head_dim(r, d_v); };
    g.cell_tooltip = [d_v](int r, int c) {
        ImGui::SetTooltip("W_O[%s][%d]: how much dimension %d of head %d's output adds to output dimension %d.\n"
                          "Drag (Shift: faster, Alt: slower), or double-click and type.",
                          head_dim(r, d_v).c_str(), c + 1, r % d_v + 1, r / d_v + 1, c + 1);
    };
    v.grids["W_O"] = draw_grid(g);
}

// `hidden`: the rows an open prediction keeps hidden (View::lesson).
void result_table(const char* id, const core::Matrix& m, const core::Scenario& s, View& v, int d_v, const std::vector<char>& hidden) {
    GridSpec g = value_grid(id, m, static_cast<int>(m.rows()), ImGui::GetContentRegionAvail());
    g.cell = [&hidden, shown = g.cell](int r, int c, const ImRect& rect) { hidden_at(hidden, r) ? draw_hidden_cell(rect) : shown(r, c, rect); };
    g.cell_tooltip = [&hidden, shown = g.cell_tooltip](int r, int c) { hidden_at(hidden, r) ? ImGui::SetTooltip("%s", reveal_hint) : shown(r, c); };
    g.row_header_w = std::min(token_label_width(s), 7.0f * em()) + 0.8f * em();
    g.highlight_row = v.selected_row;
    g.row_label = [&s](int r) { return s.tokens[r]; };
    if (d_v > 0) g.col_label = [d_v](int c) { return head_dim(c, d_v); };
    v.grids[id] = draw_grid(g);
}

// The head count, + Head and − Head. The buttons only report: the panel applies them last.
struct HeadButtons {
    bool add = false, remove = false;
};

HeadButtons head_buttons(const core::Scenario& s, View& v) {
    const int heads = static_cast<int>(s.heads.size());
    HeadButtons b;
    ImGui::AlignTextToFramePadding();
    if (v.lesson.secret.hides_name("d_k") || v.lesson.secret.hides_name("d_v")) ImGui::Text("%d head%s of d_k = ?, d_v = ? (%s)", heads, heads == 1 ? "" : "s", reveal_hint);
    else ImGui::Text("%d head%s of d_k = %d, d_v = %d", heads, heads == 1 ? "" : "s", s.d_k(), s.d_v());
    ImGui::SameLine(0, em());
    ImGui::BeginDisabled(heads >= core::Limits::max_heads);
    b.add = ImGui::Button("+ Head");
    ImGui::EndDisabled();
    remember(v, "add_head");
    tip(s.direct ? "Add a head with its own random Q, K and V (and zero rows of W_O, if there is one). At most 16."
                 : "Add a head with its own random W_Q, W_K and W_V (and its rows of W_O). At most 16.");
    ImGui::SameLine();
    ImGui::BeginDisabled(heads <= 1);
    const std::string remove_label = "− Head " + std::to_string(v.selected_head + 1) + "###remove";
    b.remove = ImGui::Button(remove_label.c_str());
    ImGui::EndDisabled();
    remember(v, "remove_head");
    tip("Remove the focused head, its weights and its rows of W_O (one head always stays).");
    return b;
}

void output_projection_controls(core::Scenario& s, View& v) {
    bool projection = s.W_O.size() != 0;
    if (ImGui::Checkbox("Use an output projection W_O", &projection)) {
        if (projection) core::edits::identity_W_O(s);
        else core::edits::remove_W_O(s);
    }
    remember(v, "use_W_O");
    tip("Multiply the concatenated head outputs by W_O ((H·d_v) × d_model) to get back to the model's width. "
        "Ticking it starts from an identity-like W_O; unticked, the output is the concatenation itself.");
    if (!projection) return;
    ImGui::SameLine();
    if (ImGui::Button("Identity")) core::edits::identity_W_O(s);
    remember(v, "W_O_identity");
    tip("W_O = 1 on the diagonal, 0 elsewhere: the output is the concatenation, cut or padded to d_model.");
    ImGui::SameLine();
    if (ImGui::Button("Random")) core::edits::random_W_O(s, v.state<HeadsView>().next_seed++);
    remember(v, "W_O_random");
    tip("Random W_O with entries of scale 1/√(H·d_v), as a freshly initialised layer has.");
}

// The concatenation, W_O and the output, from this frame's Result: shapes as computed, whatever was
// just clicked.
void result_tabs(core::Scenario& s, const core::Result& r, View& v) {
    const int n = static_cast<int>(r.concat.rows());
    const int width = static_cast<int>(r.concat.cols());
    const int computed_heads = static_cast<int>(r.heads.size());
    const int d_v = width / computed_heads;
    if (!ImGui::BeginTabBar("tables")) return;
    const std::string concat_tab = "Concatenation (" + std::to_string(n) + " × " + std::to_string(width) + ")###concat";
    const bool concat_open = ImGui::BeginTabItem(concat_tab.c_str());
    tip("The heads' outputs side by side: n × (H·d_v).");
    if (concat_open) {
        if (computed_heads == 1) ImGui::TextDisabled("one head: the concatenation is its output Z_1");
        else ImGui::TextDisabled("[Z_1 … Z_%d]: head h's output fills columns h.1 … h.%d", computed_heads, d_v);
        result_table("concat", r.concat, s, v, d_v, v.lesson.hidden_rows("Z", s.n()));
        ImGui::EndTabItem();
    }
    if (s.W_O.size() != 0) {
        const std::string wo_tab = "W_O (" + std::to_string(s.W_O.rows()) + " × " + std::to_string(s.W_O.cols()) + ")###W_O";
        const bool wo_open = ImGui::BeginTabItem(wo_tab.c_str());
        tip("The output projection, editable: one row per column of the concatenation, one column per model dimension.");
        if (wo_open) {
            ImGui::TextDisabled("row h.j: dimension j of head h's output");
            output_projection_table(s, v);
            ImGui::EndTabItem();
        }
    }
    const std::string out_tab = "Output (" + std::to_string(n) + " × " + std::to_string(r.output.cols()) + ")###output";
    const bool output_open = ImGui::BeginTabItem(out_tab.c_str());
    tip("What the layer hands on: one row per token.");
    if (output_open) {
        ImGui::TextDisabled(s.W_O.size() != 0 ? "concatenation · W_O" : "no W_O: the output is the concatenation");
        result_table("output", r.output, s, v, s.W_O.size() != 0 ? 0 : d_v, v.lesson.hidden_rows("Z", s.n()));
        ImGui::EndTabItem();
    }
    ImGui::EndTabBar();
}

} // namespace

void draw_heads_panel(core::Scenario& s, const core::Result& r, View& v) {
    const int heads = static_cast<int>(s.heads.size());
    const HeadButtons b = head_buttons(s, v);
    output_projection_controls(s, v);

    ImGui::Spacing();
    const int clicked = thumbnails(r, v);
    if (clicked >= 0) v.selected_head = clicked;

    ImGui::Spacing();
    result_tabs(s, r, v);

    // Structural edits last, so nothing above drew from a scenario that changed under it.
    if (b.add && core::edits::add_head(s, v.state<HeadsView>().next_seed++)) v.selected_head = heads;
    else if (b.remove && core::edits::remove_head(s, v.selected_head)) v.selected_head = std::min(v.selected_head, heads - 2);
}

} // namespace ui
