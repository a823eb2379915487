// libFuzzer target for the review file (review.json). Every input must either read, or be refused
// with a message that starts with the file's name; a deck that reads must write back to text that
// reads as the same deck, and export to Anki.
#include "core/learn/review_deck.h"

#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    const std::string label = "review.json";
    core::learn::ReviewDeck deck;
    try {
        deck = core::learn::deck_from_json(text, label);
    } catch (const std::runtime_error& e) {
        if (std::string(e.what()).rfind(label + ": ", 0) != 0) std::abort();
        return 0;
    }
    const std::string once = core::learn::deck_to_json(deck);
    if (core::learn::deck_to_json(core::learn::deck_from_json(once, label)) != once) std::abort();
    (void)core::learn::deck_to_anki(deck);
    (void)deck.due_count(0);
    return 0;
}
