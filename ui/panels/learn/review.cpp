// ui/panels/learn/review.cpp — the Review panel: the question, then the answer with its why, then four
// rating buttons with the wait each would give (as Anki shows them), and what is left today.
//
// [SECTION] parts of the panel
// [SECTION] panel and menu item
#include "ui/panels/learn/review.h"

#include "ui/widgets.h"

#include <algorithm>
#include <ctime>
#include <limits>
#include <string>

namespace ui {

using core::learn::Rating;
using core::learn::ReviewCard;
using core::learn::Seconds;

// [SECTION] parts of the panel
namespace {

// The learner's pick among the choices before the answer is shown; marks after.
void choices(View& v, ReviewState& rs, const ReviewCard& card) {
    const auto& picked = rs.queue.picked();
    for (size_t i = 0; i < card.choices.size(); ++i) {
        const bool mine = std::find(picked.begin(), picked.end(), static_cast<int>(i)) != picked.end();
        std::string label = card.choices[i].text;
        if (rs.queue.revealed()) label = std::string(card.choices[i].correct ? "✓ " : "   ") + label;
        ImGui::PushID(static_cast<int>(i));
        if (ImGui::Selectable(label.c_str(), mine, ImGuiSelectableFlags_None) && !rs.queue.revealed())
            rs.queue.pick(rs.store.deck(), static_cast<int>(i));
        remember(v, ("review_choice_" + std::to_string(i)).c_str());
        ImGui::PopID();
    }
}

// The four ratings under the answer; a click files the card and moves on.
void rating_row(View& v, ReviewState& rs, const ReviewCard& card) {
    const std::optional<Rating> chosen = rating_buttons(v, rs, card.fsrs, rs.queue.proposed(), "review_");
    if (!chosen) return;
    const std::string wait = file_review(rs, card, *chosen);
    v.tell(std::string("Filed as ") + rating_label(*chosen) + "; back in " + wait, false);
}

void card_view(View& v, ReviewState& rs, const ReviewCard& card) {
    ImGui::TextWrapped("%s", card.front.c_str());
    ImGui::Spacing();
    if (!card.choices.empty()) choices(v, rs, card);
    if (!rs.queue.revealed()) {
        ImGui::Spacing();
        const bool can = card.choices.empty() || !rs.queue.picked().empty();
        ImGui::BeginDisabled(!can);
        if (ImGui::Button(card.choices.empty() ? "Show answer" : "Check")) rs.queue.reveal(rs.store.deck());
        ImGui::EndDisabled();
        remember(v, "review_show");
        if (card.choices.empty()) dim_text("Recall the answer first, then show it.");
        return;
    }
    ImGui::Separator();
    if (rs.queue.correct()) ImGui::TextUnformatted(*rs.queue.correct() ? "Right." : "Not quite.");
    ImGui::TextWrapped("%s", card.back.c_str());
    ImGui::Spacing();
    dim_text(rs.queue.correct() ? "Your answer proposes the highlighted rating; pick another if it fits better."
                                : "How well did you recall it?");
    rating_row(v, rs, card);
}

} // namespace

// [SECTION] panel and menu item
void draw_review_panel(View& v) {
    ReviewState& rs = v.state<ReviewState>();
    if (!rs.store.message().empty()) {
        error_text(rs.store.message());
        if (ImGui::SmallButton("OK")) rs.store.dismiss_message();
        remember(v, "review_message_ok");
        ImGui::Separator();
    }
    if (!rs.store.save_error().empty()) error_text("Reviews are not being saved: " + rs.store.save_error());
    const Seconds now = rs.now();
    rs.queue.refresh(rs.store.deck(), now);
    const int today = rs.store.deck().due_count(ReviewState::end_of_day(now));
    dim_text(std::to_string(rs.queue.left()) + " due now · " + std::to_string(today) + " left today · " +
             std::to_string(rs.store.deck().cards().size()) + " cards");
    ImGui::Spacing();
    if (const ReviewCard* card = rs.queue.current(rs.store.deck())) {
        card_view(v, rs, *card);
        return;
    }
    if (rs.store.deck().cards().empty()) {
        ImGui::TextWrapped("No cards yet. Each question you answer in a lesson (Learn menu) becomes a card here, "
                           "and comes back when you are about to forget it.");
        return;
    }
    const auto all = rs.store.deck().due(std::numeric_limits<Seconds>::max());
    ImGui::TextWrapped("Nothing to review now. The next card comes back in %s.", core::learn::format_wait(all.front()->fsrs.due - now).c_str());
}

void draw_review_menu_item(View& v) {
    ReviewState& rs = v.state<ReviewState>();
    if (!rs.store.message().empty() && !rs.told) { // a damaged review file: say so at once
        rs.told = true;
        v.tell(rs.store.message(), true);
        v.open["review"] = true;
    }
    const int due = rs.store.deck().due_count(rs.now());
    if (due == 0) return;
    const std::string label = "Review · " + std::to_string(due) + " due";
    if (ImGui::MenuItem(label.c_str())) v.open["review"] = true;
    remember(v, "menu_review");
    tip("Answers you gave in lessons, back when you are about to forget them");
}

} // namespace ui
