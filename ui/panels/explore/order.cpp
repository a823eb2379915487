// ui/panels/explore/order.cpp — order and position (the three-token article, "Position"): attention by itself ignores
// order. Shuffle the tokens and the outputs shuffle the same way; add positions to the embeddings
// and they no longer do.
#include "ui/panels/explore/order.h"

#include "core/edits.h"
#include "core/explain.h"
#include "ui/widgets.h"

#include <algorithm>
#include <cstdio>

namespace ui {

namespace {

constexpr int max_listed = 24; // tokens written out in the orders; the rest is "…"

// The check: the Result against the same scenario with the shuffle undone. Done before this
// panel's own edits, while the Result is the scenario's.
void refresh_check(OrderView& o, const core::Scenario& s, const core::Result& now, long long version) {
    if (o.version == version) return;
    o.version = version;
    o.check = {};
    if (static_cast<int>(o.perm.size()) != s.n()) {
        o.perm.clear(); // tokens were added or removed since: that shuffle no longer applies
        return;
    }
    o.check = core::check_order(s, now, o.perm);
}

// "the cat sat", or the first tokens and "… (n tokens)".
template <class Name>
std::string listing(int n, Name&& name) {
    std::string out;
    for (int i = 0; i < std::min(n, max_listed); ++i) out += (i ? " " : "") + name(i);
    if (n > max_listed) out += " … (" + std::to_string(n) + " tokens)";
    return out;
}

std::string scientific(double x) {
    char text[32];
    std::snprintf(text, sizeof text, "%.1e", x);
    return text;
}

// "Shuffle tokens" and the positions switch; whether Shuffle was pressed (applied by the caller).
bool order_controls(core::Scenario& s, View& v) {
    ImGui::BeginDisabled(s.n() < 2);
    const bool shuffle = ImGui::Button("Shuffle tokens");
    ImGui::EndDisabled();
    remember(v, "shuffle");
    tip("Put the tokens (their names and rows of X) in a random new order, as one edit (Ctrl+Z undoes it), "
        "and check whether each output row simply moved with its token.");
    ImGui::SameLine(0, em());
    bool positions = s.positional == core::Positional::sinusoidal;
    if (ImGui::Checkbox("Add sinusoidal positions to X", &positions))
        core::edits::set_positions(s, positions);
    remember(v, "order_positions");
    tip("X + PE: each embedding gets the sine/cosine code of its place (\"Attention is all you need\"). "
        "The same token at another place is then a different vector, so order matters.");
    ImGui::TextWrapped("Attention compares every query with every key, wherever they are: without position information "
                       "it cannot tell \"the cat sat\" from \"sat the cat\".");
    return shuffle;
}

// The orders before and after, and whether every output row moved with its token (and why not).
void order_verdict(const core::Scenario& s, const OrderView& o) {
    const int n = s.n();
    std::vector<int> undo(o.perm.size());
    for (size_t i = 0; i < o.perm.size(); ++i) undo[o.perm[i]] = static_cast<int>(i);
    ImGui::TextWrapped("old order: %s", listing(n, [&](int i) { return s.tokens[undo[i]]; }).c_str());
    ImGui::TextWrapped("new order: %s", listing(n, [&](int i) { return s.tokens[i]; }).c_str());
    ImGui::TextWrapped("new token i was old token: %s", listing(n, [&](int i) { return std::to_string(o.perm[i] + 1); }).c_str());
    tip("The permutation, 1-based: new position i holds the token that was at this old position.");

    const double worst = *std::max_element(o.check.differences.begin(), o.check.differences.end());
    const bool moved = o.check.moved();
    ImGui::PushStyleColor(ImGuiCol_Text, moved ? good_text_colour() : error_text_colour());
    if (moved)
        ImGui::TextWrapped("✓ z_i = old z_perm[i] for every row: the outputs shuffled with the tokens (largest difference %s)",
                           scientific(worst).c_str());
    else
        ImGui::TextWrapped("✗ the outputs did not just move with their tokens (largest difference %s)", scientific(worst).c_str());
    ImGui::PopStyleColor();
    if (moved) return;
    if (s.positional == core::Positional::sinusoidal)
        ImGui::TextWrapped("Positions are added to X: a token at another place has another embedding, so another query, key and value.");
    if (s.causal) ImGui::TextWrapped("The causal mask is position information too: after the shuffle a token sees other tokens.");
}

// One row per token: where its output came from, and by how much it differs from the old one.
void order_table(const core::Scenario& s, const OrderView& o) {
    const ImGuiTableFlags flags = ImGuiTableFlags_ScrollY | ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersOuter |
                                  ImGuiTableFlags_SizingFixedFit;
    if (!ImGui::BeginTable("rows", 4, flags, ImVec2(0, ImGui::GetContentRegionAvail().y))) return;
    ImGui::TableSetupScrollFreeze(0, 1);
    ImGui::TableSetupColumn("new row");
    ImGui::TableSetupColumn("token");
    ImGui::TableSetupColumn("output");
    ImGui::TableSetupColumn("largest |difference|", ImGuiTableColumnFlags_WidthStretch);
    ImGui::TableHeadersRow();
    ImGuiListClipper clipper;
    clipper.Begin(s.n());
    while (clipper.Step())
        for (int i = clipper.DisplayStart; i < clipper.DisplayEnd; ++i) {
            const bool same = o.check.differences[i] <= o.check.tolerance;
            ImGui::TableNextRow();
            ImGui::TableNextColumn();
            ImGui::Text("%d", i + 1);
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(s.tokens[i].c_str());
            ImGui::TableNextColumn();
            ImGui::TextColored(same ? good_text_colour() : error_text_colour(), "z_%d %s old z_%d %s", i + 1, same ? "=" : "≠", o.perm[i] + 1, same ? "✓" : "✗");
            ImGui::TableNextColumn();
            NumberFont mono;
            ImGui::TextUnformatted(scientific(o.check.differences[i]).c_str());
        }
    ImGui::EndTable();
}

} // namespace

void draw_order_panel(core::Scenario& s, const core::Result& r, View& v) {
    OrderView& o = v.state<OrderView>();
    refresh_check(o, s, r, v.result_version);
    if (order_controls(s, v)) {
        o.perm = core::edits::random_permutation(s.n(), o.next_seed++);
        core::edits::permute_tokens(s, o.perm);
        o.check = {}; // checked on the next frame, against the new Result
        o.version = -1;
    }
    if (o.perm.empty() || o.check.differences.empty()) {
        ImGui::TextDisabled("Shuffle to see where each output row goes.");
        return;
    }
    // From here on: the current tokens, and the order they had before the shuffle.
    ImGui::Separator();
    order_verdict(s, o);
    order_table(s, o);
}

} // namespace ui
