// app/cli/cli_review.cpp — --review and --export-anki (see app/cli/cli_review.h).
#include "app/cli/cli_review.h"

#include "core/learn/review_deck.h"
#include "core/scenario.h"
#include "core/io/files.h"

#include <nlohmann/json.hpp>

#include <ctime>
#include <ostream>

namespace app {

namespace {

using core::learn::format_iso8601;

core::learn::LoadedDeck load_reporting(std::ostream& err) {
    core::learn::LoadedDeck loaded = core::learn::load_review_deck(core::learn::default_review_path());
    if (!loaded.message.empty()) err << "attnviz: " << loaded.message << "\n";
    return loaded;
}

nlohmann::json card_state(const core::learn::ReviewCard& c, const core::learn::Scheduler& sched, core::learn::Seconds now) {
    nlohmann::json j = {{"id", c.id},
                        {"front", c.front},
                        {"due", format_iso8601(c.fsrs.due)},
                        {"phase", core::learn::phase_name(c.fsrs.phase)},
                        {"step", c.fsrs.step},
                        {"reviews", c.log.size()},
                        {"retrievability", sched.retrievability(c.fsrs, now)}};
    j["stability"] = c.fsrs.memory ? nlohmann::json(c.fsrs.memory->stability) : nlohmann::json();
    j["difficulty"] = c.fsrs.memory ? nlohmann::json(c.fsrs.memory->difficulty) : nlohmann::json();
    j["last_review"] = c.fsrs.last_review ? nlohmann::json(format_iso8601(*c.fsrs.last_review)) : nlohmann::json();
    return j;
}

} // namespace

void check_review_args(const Options& o) {
    const bool review = o.mode == Options::Mode::review, anki = o.mode == Options::Mode::export_anki;
    if (!o.review_now.empty() && !review) throw UsageError("--now goes with --review");
    if (review && !o.review_now.empty() && !core::learn::parse_iso8601(o.review_now))
        throw UsageError("--now takes an ISO 8601 time such as 2026-12-01T09:00:00Z, not \"" + o.review_now + "\"");
    if ((review || anki) && !o.file.empty())
        throw UsageError(std::string(review ? "--review" : "--export-anki") + " reads the review deck; it takes no FILE (" + o.file + ")");
    if (anki && o.anki_path.empty()) throw UsageError("--export-anki needs a file name");
}

int run_review_list(const std::string& now_text, std::ostream& out, std::ostream& err) {
    const core::learn::Seconds now = now_text.empty() ? static_cast<core::learn::Seconds>(std::time(nullptr))
                                                      : *core::learn::parse_iso8601(now_text); // checked by parse_args
    const core::learn::LoadedDeck loaded = load_reporting(err);
    const core::learn::Scheduler sched;
    nlohmann::json due = nlohmann::json::array();
    for (const core::learn::ReviewCard* c : loaded.deck.due(now)) due.push_back(card_state(*c, sched, now));
    const nlohmann::json report = {{"file", core::learn::default_review_path()},
                                   {"now", format_iso8601(now)},
                                   {"cards", loaded.deck.cards().size()},
                                   {"due_count", due.size()},
                                   {"due", due}};
    out << report.dump(2) << "\n";
    return 0;
}

int run_export_anki(const std::string& out_path, std::ostream& out, std::ostream& err) {
    const core::learn::LoadedDeck loaded = load_reporting(err);
    try {
        core::io::write_file_atomically(out_path, core::learn::deck_to_anki(loaded.deck));
    } catch (const core::io::WriteError& e) {
        err << "attnviz: " << e.what() << "\n";
        return 2;
    }
    out << "wrote " << loaded.deck.cards().size() << " review cards to " << out_path << "\n";
    return 0;
}

} // namespace app
