// ui/panels/review.cpp — the Review panel: the question, then the answer with its why, then four
// rating buttons with the wait each would give (as Anki shows them), and what is left today.
//
// [SECTION] clock
// [SECTION] parts of the panel
// [SECTION] panel and menu item
#include "ui/panels/review.h"

#include "ui/panels/lesson_checks.h"
#include "ui/widgets.h"

#include <algorithm>
#include <ctime>
#include <limits>
#include <string>

namespace ui {

using core::learn::Rating;
using core::learn::ReviewCard;
using core::learn::Seconds;

// [SECTION] clock
Seconds ReviewState::now() const { return now_for_tests ? *now_for_tests : static_cast<Seconds>(std::time(nullptr)); }

Seconds ReviewState::end_of_day(Seconds t) {
    std::time_t tt = static_cast<std::time_t>(t);
    std::tm local{};
    localtime_r(&tt, &local);
    local.tm_hour = 23;
    local.tm_min = 59;
    local.tm_sec = 59;
    return static_cast<Seconds>(std::mktime(&local));
}

// [SECTION] parts of the panel
namespace {

const Rating kRatings[] = {Rating::Again, Rating::Hard, Rating::Good, Rating::Easy};
const char* const kRatingLabels[] = {"Again", "Hard", "Good", "Easy"};
const char* const kRatingItems[] = {"review_again", "review_hard", "review_good", "review_easy"};

void error_text(const std::string& text) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.42f, 0.38f, 1.0f));
    ImGui::TextWrapped("%s", text.c_str());
    ImGui::PopStyleColor();
}

void dim_text(const std::string& text) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyle().Colors[ImGuiCol_TextDisabled]);
    ImGui::TextWrapped("%s", text.c_str());
    ImGui::PopStyleColor();
}

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

// Four buttons, the proposed one highlighted, each with the wait it gives underneath.
void rating_buttons(View& v, ReviewState& rs, const ReviewCard& card, Seconds now) {
    const float width = 5.5f * em();
    for (int k = 0; k < 4; ++k) {
        if (k) ImGui::SameLine();
        ImGui::BeginGroup();
        const bool proposed = rs.queue.proposed() == kRatings[k];
        if (proposed) ImGui::PushStyleColor(ImGuiCol_Button, ImGui::GetStyle().Colors[ImGuiCol_ButtonActive]);
        const bool clicked = ImGui::Button(kRatingLabels[k], ImVec2(width, 0));
        if (proposed) ImGui::PopStyleColor();
        remember(v, kRatingItems[k]);
        const Seconds due = rs.store.scheduler().review(card.fsrs, kRatings[k], now).due;
        const std::string wait = core::learn::format_wait(due - now);
        ImGui::SetCursorPosX(ImGui::GetCursorPosX() + 0.5f * (width - ImGui::CalcTextSize(wait.c_str()).x));
        dim_text(wait);
        ImGui::EndGroup();
        if (clicked) {
            rs.queue.file(rs.store, kRatings[k], now);
            v.tell(std::string("Filed as ") + kRatingLabels[k] + "; back in " + wait, false);
            return;
        }
    }
}

void card_view(View& v, ReviewState& rs, const ReviewCard& card, Seconds now) {
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
    rating_buttons(v, rs, card, now);
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
        card_view(v, rs, *card, now);
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
    settle_pending_answer(v); // a checked lesson answer whose step was left files itself
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
