// core/model/tokenizer/token_ids.h — token strings to ids for vocabularies of 100k–300k entries:
// one open-addressing table over the strings kept in one buffer, so that building it makes no
// allocation per token and a lookup takes a string_view.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace core::model {

class TokenIds {
public:
    void reserve(std::size_t tokens) {
        bytes_.reserve(tokens * 8);
        std::size_t want = 16;
        while (want < tokens * 2) want *= 2;
        if (want > slots_.size()) rehash(want);
    }

    // Gives `token` the id `id` (a later set of the same token wins); false when it had one already.
    bool set(std::string_view token, int id) {
        if ((count_ + 1) * 2 > slots_.size()) rehash(slots_.empty() ? 16 : slots_.size() * 2);
        Slot& s = slot(token);
        if (s.id >= 0) {
            s.id = id;
            return false;
        }
        s = {static_cast<std::uint32_t>(bytes_.size()), static_cast<std::uint32_t>(token.size()), id, hash(token)};
        bytes_.append(token);
        ++count_;
        return true;
    }

    int find(std::string_view token) const {
        if (slots_.empty()) return -1;
        return const_cast<TokenIds*>(this)->slot(token).id;
    }

    std::size_t size() const { return count_; }

private:
    struct Slot {
        std::uint32_t at = 0, len = 0;
        std::int32_t id = -1;   // -1: empty
        std::uint32_t hash = 0; // the token's: compared before its bytes, and where it goes
    };
    std::string bytes_; // every token's bytes, one after another
    std::vector<Slot> slots_; // a power of two, at most half full
    std::size_t count_ = 0;

    std::string_view text(const Slot& s) const { return std::string_view(bytes_).substr(s.at, s.len); }

    static std::uint32_t hash(std::string_view token) { return static_cast<std::uint32_t>(std::hash<std::string_view>{}(token)); }

    // The slot that holds `token`, or the empty one where it would go.
    Slot& slot(std::string_view token) { return slot(token, hash(token)); }
    Slot& slot(std::string_view token, std::uint32_t h) {
        const std::size_t mask = slots_.size() - 1;
        for (std::size_t i = h & mask;; i = (i + 1) & mask) {
            Slot& s = slots_[i];
            if (s.id < 0 || (s.hash == h && text(s) == token)) return s;
        }
    }

    void rehash(std::size_t size) {
        std::vector<Slot> old(size);
        old.swap(slots_);
        for (const Slot& s : old)
            if (s.id >= 0) slot(text(s), s.hash) = s;
    }
};

} // namespace core::model
