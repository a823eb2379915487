// ui/panels/shared/review_cards.cpp — see review_cards.h.
#include "ui/panels/shared/review_cards.h"

#include "ui/widgets.h"

#include <ctime>

namespace ui {

using core::learn::Rating;
using core::learn::Seconds;

namespace {

const Rating kRatings[] = {Rating::Again, Rating::Hard, Rating::Good, Rating::Easy};

std::tm local_time(Seconds t) {
    const std::time_t tt = static_cast<std::time_t>(t);
    std::tm local{};
    localtime_r(&tt, &local);
    return local;
}

} // namespace

Seconds ReviewState::now() const { return now_for_tests ? *now_for_tests : static_cast<Seconds>(std::time(nullptr)); }

Seconds ReviewState::end_of_day(Seconds t) {
    std::tm local = local_time(t);
    local.tm_hour = 23;
    local.tm_min = 59;
    local.tm_sec = 59;
    return static_cast<Seconds>(std::mktime(&local));
}

const char* rating_label(Rating rating) {
    static const char* const labels[] = {"Again", "Hard", "Good", "Easy"};
    return labels[static_cast<int>(rating) - 1];
}

std::string local_time_text(Seconds t) {
    const std::tm local = local_time(t);
    char buf[40];
    std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M", &local);
    return buf;
}

std::optional<Rating> rating_buttons(View& v, const ReviewState& rs, const core::learn::FsrsCard& from, Rating proposed,
                                     const std::string& item_prefix) {
    const Seconds now = rs.now();
    const float width = 5.5f * em();
    std::optional<Rating> chosen;
    for (int k = 0; k < 4; ++k) {
        if (k) ImGui::SameLine();
        ImGui::BeginGroup();
        const bool is_proposed = kRatings[k] == proposed;
        if (is_proposed) ImGui::PushStyleColor(ImGuiCol_Button, ImGui::GetStyle().Colors[ImGuiCol_ButtonActive]);
        if (ImGui::Button(rating_label(kRatings[k]), ImVec2(width, 0))) chosen = kRatings[k];
        if (is_proposed) ImGui::PopStyleColor();
        remember(v, (item_prefix + core::learn::rating_name(kRatings[k])).c_str());
        const std::string wait = core::learn::format_wait(rs.store.scheduler().review(from, kRatings[k], now).due - now);
        ImGui::SetCursorPosX(ImGui::GetCursorPosX() + 0.5f * (width - ImGui::CalcTextSize(wait.c_str()).x));
        dim_text(wait);
        ImGui::EndGroup();
    }
    return chosen;
}

std::string file_review(ReviewState& rs, const core::learn::ReviewCard& card, Rating rating) {
    const Seconds now = rs.now();
    const core::learn::ReviewCard* current = rs.queue.current(rs.store.deck());
    if (current && current->id == card.id && rs.queue.revealed()) rs.queue.file(rs.store, rating, now);
    else rs.store.answered(card, rating, now);
    const core::learn::ReviewCard* filed = rs.store.deck().find(card.id);
    return core::learn::format_wait((filed ? filed->fsrs.due : now) - now);
}

} // namespace ui
