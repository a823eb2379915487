// core/learn/review_deck.cpp — review cards, their file and the Anki export.
//
// [SECTION] deck
// [SECTION] file format (JSON)
// [SECTION] load and save
// [SECTION] Anki export
#include "core/learn/review_deck.h"
#include "core/io/user_dirs.h"

#include "core/io/files.h"
#include "core/io/xml.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <sys/stat.h>
#include <unistd.h>

namespace core::learn {

using nlohmann::json;

// [SECTION] deck
const ReviewCard* ReviewDeck::find(const std::string& id) const {
    for (const ReviewCard& c : cards_)
        if (c.id == id) return &c;
    return nullptr;
}

ReviewCard* ReviewDeck::find_mutable(const std::string& id) { return const_cast<ReviewCard*>(find(id)); }

ReviewCard& ReviewDeck::upsert(const std::string& id, const std::string& front, const std::string& back,
                               const std::vector<ReviewChoice>& choices) {
    ReviewCard* c = find_mutable(id);
    if (!c) {
        cards_.push_back({id, front, back, choices, {}, {}});
        return cards_.back();
    }
    c->front = front;
    c->back = back;
    c->choices = choices;
    return *c;
}

bool choices_correct(const ReviewCard& card, const std::vector<int>& picked) {
    for (size_t i = 0; i < card.choices.size(); ++i) {
        const bool chosen = std::find(picked.begin(), picked.end(), static_cast<int>(i)) != picked.end();
        if (chosen != card.choices[i].correct) return false;
    }
    return true;
}

std::vector<const Explanation*> ReviewDeck::explanations_of(const std::string& id) const {
    std::vector<const Explanation*> out;
    for (const Explanation& e : explanations_)
        if (e.id == id) out.push_back(&e);
    return out;
}

const ReviewCard& ReviewDeck::file(const std::string& id, Rating rating, Seconds now, const Scheduler& sched) {
    ReviewCard* c = find_mutable(id);
    if (!c) throw std::logic_error("no review card " + id);
    c->fsrs = sched.review(c->fsrs, rating, now);
    c->log.push_back({now, rating, c->fsrs.due});
    return *c;
}

std::vector<const ReviewCard*> ReviewDeck::due(Seconds until) const {
    std::vector<const ReviewCard*> out;
    for (const ReviewCard& c : cards_)
        if (c.fsrs.due <= until) out.push_back(&c);
    std::stable_sort(out.begin(), out.end(), [](auto* a, auto* b) { return a->fsrs.due < b->fsrs.due; });
    return out;
}

int ReviewDeck::due_count(Seconds until) const { return static_cast<int>(due(until).size()); }

bool ReviewDeck::operator==(const ReviewDeck& o) const { return deck_to_json(*this) == deck_to_json(o); }

std::string default_review_path() { return io::state_dir() + "/review.json"; }

// [SECTION] file format (JSON)
namespace {

[[noreturn]] void bad(const std::string& label, const std::string& where, const std::string& why) {
    throw std::runtime_error(label + ": " + where + ": " + why);
}

json card_json(const ReviewCard& c) {
    json j = {{"id", c.id}, {"front", c.front}, {"back", c.back}, {"phase", phase_name(c.fsrs.phase)},
              {"step", c.fsrs.step}, {"due", format_iso8601(c.fsrs.due)}};
    if (c.fsrs.memory) {
        j["stability"] = c.fsrs.memory->stability;
        j["difficulty"] = c.fsrs.memory->difficulty;
    }
    if (c.fsrs.last_review) j["last_review"] = format_iso8601(*c.fsrs.last_review);
    if (!c.choices.empty()) {
        json choices = json::array();
        for (const ReviewChoice& ch : c.choices) choices.push_back({{"text", ch.text}, {"correct", ch.correct}});
        j["choices"] = choices;
    }
    json log = json::array();
    for (const ReviewEntry& e : c.log)
        log.push_back({{"time", format_iso8601(e.time)}, {"rating", rating_name(e.rating)}, {"due", format_iso8601(e.due_after)}});
    j["log"] = log;
    return j;
}

// Reads field `key` of object `j` with `read`, naming the place in any error.
struct Reader {
    const std::string& label;
    std::string where;
    const json& member(const json& j, const char* key) const {
        if (!j.contains(key)) bad(label, where + key, "missing");
        return j[key];
    }
    std::string text(const json& j, const char* key) const {
        const json& v = member(j, key);
        if (!v.is_string()) bad(label, where + key, "expected a string");
        return v.get<std::string>();
    }
    Seconds time(const json& j, const char* key) const {
        const auto t = parse_iso8601(text(j, key));
        if (!t) bad(label, where + key, "expected an ISO 8601 time such as 2026-11-30T16:00:00Z");
        return *t;
    }
    double number(const json& j, const char* key, double lo, double hi) const {
        const json& v = member(j, key);
        if (!v.is_number() || !(v.get<double>() >= lo && v.get<double>() <= hi))
            bad(label, where + key, "expected a number from " + json(lo).dump() + " to " + json(hi).dump());
        return v.get<double>();
    }
};

Explanation read_explanation(const json& j, const Reader& r) {
    if (!j.is_object()) bad(r.label, r.where.substr(0, r.where.size() - 1), "expected an object");
    Explanation e{r.text(j, "id"), r.time(j, "time"), r.text(j, "text"), {}};
    const json& ideas = r.member(j, "ideas");
    if (!ideas.is_array()) bad(r.label, r.where + "ideas", "expected an array of true or false");
    for (const json& tick : ideas) {
        if (!tick.is_boolean()) bad(r.label, r.where + "ideas", "expected an array of true or false");
        e.ideas.push_back(tick.get<bool>());
    }
    return e;
}

ReviewCard read_card(const json& j, const Reader& r) {
    if (!j.is_object()) bad(r.label, r.where.substr(0, r.where.size() - 1), "expected an object");
    ReviewCard c;
    c.id = r.text(j, "id");
    c.front = r.text(j, "front");
    c.back = r.text(j, "back");
    const auto phase = phase_from_name(r.text(j, "phase"));
    if (!phase) bad(r.label, r.where + "phase", "expected learning, review or relearning");
    c.fsrs.phase = *phase;
    c.fsrs.step = static_cast<int>(r.number(j, "step", 0, 100));
    c.fsrs.due = r.time(j, "due");
    if (j.contains("stability") || j.contains("difficulty"))
        c.fsrs.memory = Memory{r.number(j, "stability", 0.001, 1e7), r.number(j, "difficulty", 1, 10)};
    if (j.contains("last_review")) c.fsrs.last_review = r.time(j, "last_review");
    if (j.contains("choices")) {
        const json& choices = j["choices"];
        if (!choices.is_array()) bad(r.label, r.where + "choices", "expected an array");
        for (size_t i = 0; i < choices.size(); ++i) {
            const Reader ch{r.label, r.where + "choices[" + std::to_string(i) + "]."};
            const json& correct = ch.member(choices[i], "correct");
            if (!correct.is_boolean()) bad(r.label, ch.where + "correct", "expected true or false");
            c.choices.push_back({ch.text(choices[i], "text"), correct.get<bool>()});
        }
    }
    const json& log = r.member(j, "log");
    if (!log.is_array()) bad(r.label, r.where + "log", "expected an array");
    for (size_t i = 0; i < log.size(); ++i) {
        const Reader e{r.label, r.where + "log[" + std::to_string(i) + "]."};
        if (!log[i].is_object()) bad(r.label, e.where.substr(0, e.where.size() - 1), "expected an object");
        const auto rating = rating_from_name(e.text(log[i], "rating"));
        if (!rating) bad(r.label, e.where + "rating", "expected again, hard, good or easy");
        c.log.push_back({e.time(log[i], "time"), *rating, e.time(log[i], "due")});
    }
    return c;
}

// "line L, column C" (both from 1) of byte offset `pos` in `text`.
std::string place_of(const std::string& text, size_t pos) {
    pos = std::min(pos, text.size());
    size_t line = 1, line_start = 0;
    for (size_t i = 0; i < pos; ++i)
        if (text[i] == '\n') ++line, line_start = i + 1;
    return "line " + std::to_string(line) + ", column " + std::to_string(pos - line_start + 1);
}

} // namespace

std::string deck_to_json(const ReviewDeck& deck) {
    json cards = json::array(), explained = json::array();
    for (const ReviewCard& c : deck.cards()) cards.push_back(card_json(c));
    for (const Explanation& e : deck.explanations())
        explained.push_back({{"id", e.id}, {"time", format_iso8601(e.time)}, {"text", e.text}, {"ideas", e.ideas}});
    return json{{"format", "attnviz-review"}, {"version", 1}, {"cards", cards}, {"explanations", explained}}.dump(2) + "\n";
}

ReviewDeck deck_from_json(const std::string& text, const std::string& label) {
    json root;
    try {
        root = json::parse(text);
    } catch (const json::parse_error& e) {
        const std::string what = e.what();
        const size_t colon = what.rfind(": ");
        throw std::runtime_error(label + ": " + place_of(text, e.byte == 0 ? 0 : e.byte - 1) + ": " +
                                 (colon == std::string::npos ? what : what.substr(colon + 2)));
    } catch (const json::exception& e) { // a number too large for a double (1e400), …
        const std::string what = e.what();
        const size_t bracket = what.find("] ");
        throw std::runtime_error(label + ": " + (bracket == std::string::npos ? what : what.substr(bracket + 2)));
    }
    const Reader r{label, ""};
    if (!root.is_object() || r.text(root, "format") != "attnviz-review") bad(label, "format", "not an attnviz review file");
    if (r.number(root, "version", 1, 1) != 1) bad(label, "version", "unknown version");
    const json& cards = r.member(root, "cards");
    if (!cards.is_array()) bad(label, "cards", "expected an array");
    ReviewDeck deck;
    for (size_t i = 0; i < cards.size(); ++i) {
        const ReviewCard c = read_card(cards[i], Reader{label, "cards[" + std::to_string(i) + "]."});
        if (deck.find(c.id)) bad(label, "cards[" + std::to_string(i) + "].id", "\"" + c.id + "\" appears twice");
        ReviewCard& added = deck.upsert(c.id, c.front, c.back, c.choices);
        added.fsrs = c.fsrs;
        added.log = c.log;
    }
    if (root.contains("explanations")) { // added after the first files were written
        const json& ex = root["explanations"];
        if (!ex.is_array()) bad(label, "explanations", "expected an array");
        for (size_t i = 0; i < ex.size(); ++i)
            deck.add_explanation(read_explanation(ex[i], Reader{label, "explanations[" + std::to_string(i) + "]."}));
    }
    return deck;
}

// [SECTION] load and save
namespace {

bool exists(const std::string& path) {
    struct stat st{};
    return ::stat(path.c_str(), &st) == 0;
}

ReviewDeck read_deck_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error(path + ": cannot open: " + std::strerror(errno));
    std::ostringstream text;
    text << in.rdbuf();
    return deck_from_json(text.str(), path);
}

// mkdir -p for the folder of `path`.
void make_parent_dirs(const std::string& path) {
    for (size_t slash = path.find('/', 1); slash != std::string::npos; slash = path.find('/', slash + 1)) {
        const std::string dir = path.substr(0, slash);
        if (::mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST)
            throw std::runtime_error(dir + ": cannot create the folder: " + std::strerror(errno));
    }
}

} // namespace

LoadedDeck load_review_deck(const std::string& path) {
    const std::string bak = path + ".bak";
    LoadedDeck out;
    if (exists(path)) {
        try {
            out.deck = read_deck_file(path);
            return out;
        } catch (const std::exception& e) {
            const std::string aside = path + ".bad";
            out.message = std::string(e.what()) +
                          (std::rename(path.c_str(), aside.c_str()) == 0 ? " (the file is kept as " + aside + ")" : "");
        }
    } else if (!exists(bak)) {
        return out; // a first run: no reviews yet
    } else {
        out.message = path + " is missing";
    }
    if (!exists(bak)) {
        out.message += "; there is no backup, so the review deck starts empty";
        return out;
    }
    try {
        out.deck = read_deck_file(bak);
        out.message += "; loaded the backup " + bak + " (the last review before it may be lost)";
    } catch (const std::exception& e) {
        out.message += std::string("; the backup does not read either: ") + e.what() + "; the review deck starts empty";
    }
    return out;
}

void save_review_deck(const std::string& path, const ReviewDeck& deck) {
    make_parent_dirs(path);
    const std::string text = deck_to_json(deck);
    if (exists(path)) {
        // The current file becomes the backup through a second name, so that review.json itself
        // never goes missing, even for a moment.
        const std::string bak = path + ".bak", bak_tmp = bak + ".tmp";
        ::unlink(bak_tmp.c_str());
        if (::link(path.c_str(), bak_tmp.c_str()) != 0 || std::rename(bak_tmp.c_str(), bak.c_str()) != 0)
            throw std::runtime_error(bak + ": cannot keep the backup: " + std::strerror(errno));
    }
    core::io::write_file_atomically(path, text); // throws core::io::WriteError
}

// [SECTION] Anki export
namespace {
// One Anki field: HTML-escaped, line breaks as <br>, no tabs (they separate the fields).
std::string anki_field(const std::string& s) {
    std::string out;
    for (char ch : s) {
        if (ch == '\n') out += "<br>";
        else if (ch == '\t') out += ' ';
        else if (ch == '"' || ch == '\'') out += ch; // text between tags: quotes stay as they read
        else if (ch != '\r') core::io::append_xml_escaped(out, ch);
    }
    return out;
}
} // namespace

std::string deck_to_anki(const ReviewDeck& deck) {
    std::string out = "#separator:Tab\n#html:true\n#columns:Front\tBack\tTags\n#tags column:3\n";
    for (const ReviewCard& c : deck.cards()) {
        std::string tag = "attnviz";
        const size_t slash = c.id.find('/');
        if (slash != std::string::npos) tag += " attnviz::" + anki_field(c.id.substr(0, slash));
        std::replace(tag.begin(), tag.end(), '\t', ' ');
        out += anki_field(c.front) + "\t" + anki_field(c.back) + "\t" + tag + "\n";
    }
    return out;
}

} // namespace core::learn
