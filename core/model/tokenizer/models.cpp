// The models of tokenizer.json: BPE (merges by rank, byte fallback, unknown tokens) and WordPiece
// (greedy longest match with a continuing-subword prefix); and a GGUF file's SentencePiece BPE by score.
#include "core/model/tokenizer/parts.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <queue>
#include <system_error>
#include <thread>

namespace core::model {

namespace {

std::uint64_t pair_key(int a, int b) { return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(a)) << 32) | static_cast<std::uint32_t>(b); }

struct Symbol {
    int id;
    std::size_t b, e; // bytes of the word
    int prev, next;
    bool alive;
};

// (left id, right id) -> (rank, merged id), open addressing: one allocation for all the merges.
class PairRanks {
public:
    struct Entry {
        std::uint64_t key = empty;
        int rank = 0, merged = 0;
    };
    void reserve(std::size_t n) {
        std::size_t size = 16;
        while (size < n * 2) size *= 2;
        slots_.assign(size, Entry{});
    }
    void set(std::uint64_t key, int rank, int merged) { // a later set of the same pair wins
        Entry& e = slot(key);
        e = {key, rank, merged};
    }
    const Entry* find(std::uint64_t key) const {
        if (slots_.empty()) return nullptr;
        const Entry& e = const_cast<PairRanks*>(this)->slot(key);
        return e.key == empty ? nullptr : &e;
    }

private:
    static constexpr std::uint64_t empty = ~std::uint64_t{0}; // no pair of ids below 2^31 has this key
    std::vector<Entry> slots_;                                  // a power of two, at most half full
    Entry& slot(std::uint64_t key) {
        const std::size_t mask = slots_.size() - 1;
        for (std::size_t i = static_cast<std::size_t>((key * 0x9E3779B97F4A7C15ull) >> 20) & mask;; i = (i + 1) & mask)
            if (slots_[i].key == key || slots_[i].key == empty) return slots_[i];
    }
};

struct Bpe : TokenizerModel {
    PairRanks merges;
    BpeOptions o;

    int unk_id(const Vocab& v) const override { return o.unk_token.empty() ? -1 : v.id(o.unk_token); }

    // The word's characters as symbols, with byte fallback and unknown tokens as the library does.
    std::vector<Symbol> initial(const std::string& word, const Vocab& vocab) const {
        std::vector<Symbol> syms;
        const auto add = [&](int id, std::size_t b, std::size_t e) { syms.push_back({id, b, e, 0, 0, true}); };
        int unk = -1;
        std::size_t unk_b = 0, unk_e = 0;
        for (std::size_t i = 0; i < word.size();) {
            const std::size_t len = text::utf8_length(static_cast<unsigned char>(word[i]));
            std::string s = word.substr(i, len);
            if (i > 0) s = o.continuing_subword_prefix + s;
            if (i + len >= word.size()) s += o.end_of_word_suffix;
            const int id = vocab.id(s);
            if (id >= 0) {
                if (unk >= 0) add(unk, unk_b, unk_e);
                unk = -1;
                add(id, i, i + len);
            } else if (!byte_fallback(s, vocab, i, add)) {
                if (!o.unk_token.empty()) {
                    const int u = vocab.id(o.unk_token);
                    if (u < 0) throw TokenizerError("the unknown token " + o.unk_token + " is not in the vocabulary");
                    if (unk >= 0 && o.fuse_unk) {
                        unk_e = i + len;
                    } else {
                        if (unk >= 0) add(unk, unk_b, unk_e);
                        unk = u, unk_b = i, unk_e = i + len;
                    }
                }
            }
            i += len;
        }
        if (unk >= 0) add(unk, unk_b, unk_e);
        return syms;
    }

    template <class Add> bool byte_fallback(const std::string& s, const Vocab& vocab, std::size_t at, Add add) const {
        if (!o.byte_fallback) return false;
        std::vector<int> ids;
        for (unsigned char b : s) {
            char name[8];
            std::snprintf(name, sizeof name, "<0x%02X>", b);
            const int id = vocab.id(name);
            if (id < 0) return false;
            ids.push_back(id);
        }
        for (std::size_t k = 0; k < ids.size(); ++k) add(ids[k], at + k, at + k + 1);
        return true;
    }

    // Merges the pair of lowest rank (leftmost among equals) until none is left.
    void tokenize(const std::string& word, const Vocab& vocab, std::vector<WordToken>& out) const override {
        if (o.ignore_merges) {
            const int id = vocab.id(word);
            if (id >= 0) {
                out.push_back({id, 0, word.size()});
                return;
            }
        }
        std::vector<Symbol> syms = initial(word, vocab);
        const int n = static_cast<int>(syms.size());
        for (int i = 0; i < n; ++i) syms[static_cast<std::size_t>(i)].prev = i - 1, syms[static_cast<std::size_t>(i)].next = i + 1 < n ? i + 1 : -1;
        using Cand = std::tuple<int, int, int>; // rank, position, merged id
        std::priority_queue<Cand, std::vector<Cand>, std::greater<Cand>> queue;
        const auto consider = [&](int left) {
            const int right = left < 0 ? -1 : syms[static_cast<std::size_t>(left)].next;
            if (left < 0 || right < 0) return;
            if (const auto* m = merges.find(pair_key(syms[static_cast<std::size_t>(left)].id, syms[static_cast<std::size_t>(right)].id)))
                queue.emplace(m->rank, left, m->merged);
        };
        for (int i = 0; i + 1 < n; ++i) consider(i);
        while (!queue.empty()) {
            const auto [rank, pos, merged] = queue.top();
            queue.pop();
            Symbol& l = syms[static_cast<std::size_t>(pos)];
            if (!l.alive || l.next < 0) continue;
            Symbol& r = syms[static_cast<std::size_t>(l.next)];
            const auto* m = merges.find(pair_key(l.id, r.id));
            if (!m || m->rank != rank || m->merged != merged) continue; // stale
            l.id = merged, l.e = r.e, r.alive = false, l.next = r.next;
            if (r.next >= 0) syms[static_cast<std::size_t>(r.next)].prev = pos;
            consider(l.prev);
            consider(pos);
        }
        for (const auto& s : syms)
            if (s.alive) out.push_back({s.id, s.b, s.e});
    }
};

struct WordPiece : TokenizerModel {
    std::string unk, prefix;
    std::size_t max_chars;
    std::size_t longest = 0; // bytes of the longest vocabulary entry: no longer piece can match

    int unk_id(const Vocab& v) const override { return v.id(unk); }

    void tokenize(const std::string& word, const Vocab& vocab, std::vector<WordToken>& out) const override {
        std::size_t chars = 0;
        for (unsigned char c : word) chars += (c & 0xC0) != 0x80;
        const auto unknown = [&] {
            const int u = vocab.id(unk);
            if (u < 0) throw TokenizerError("the unknown token " + unk + " is not in the vocabulary");
            out.push_back({u, 0, word.size()});
        };
        if (chars > max_chars) return unknown();
        std::vector<WordToken> mine;
        for (std::size_t start = 0; start < word.size();) {
            std::size_t end = std::min(word.size(), start + longest + 1);
            while (end < word.size() && (static_cast<unsigned char>(word[end]) & 0xC0) == 0x80) ++end;
            int found = -1;
            while (start < end) {
                found = vocab.id(start > 0 ? prefix + word.substr(start, end - start) : word.substr(start, end - start));
                if (found >= 0) break;
                do --end; while (end > start && (static_cast<unsigned char>(word[end]) & 0xC0) == 0x80);
            }
            if (found < 0) return unknown();
            mine.push_back({found, start, end});
            start = end;
        }
        out.insert(out.end(), mine.begin(), mine.end());
    }
};

} // namespace

namespace {

struct MergeIds {
    int left, right, merged;
};

// The ids of merges [from, to) into out; the rank of the first whose parts or result are not in
// the vocabulary, or `to`.
std::size_t resolve_merges(const Vocab& vocab, const MergeList& merges, std::string_view prefix, std::size_t from, std::size_t to,
                           std::vector<MergeIds>& out) {
    std::string joined;
    for (std::size_t rank = from; rank < to; ++rank) {
        const auto [a, b] = merges[rank];
        // The merged token drops the right part's continuing-subword prefix.
        joined.assign(a).append(b.substr(b.compare(0, prefix.size(), prefix) == 0 ? prefix.size() : 0));
        out[rank] = {vocab.id(a), vocab.id(b), vocab.id(joined)};
        if (out[rank].left < 0 || out[rank].right < 0 || out[rank].merged < 0) return rank;
    }
    return to;
}

} // namespace

std::unique_ptr<TokenizerModel> make_bpe(const Vocab& vocab, const MergeList& merges, BpeOptions options) {
    auto m = std::make_unique<Bpe>();
    m->o = std::move(options);
    const std::string_view prefix = m->o.continuing_subword_prefix;
    std::vector<MergeIds> ids(merges.size());
    // The lookups of the second half on the other core, for the 100k–500k merges of real files.
    const std::size_t half = merges.size() > 65536 ? merges.size() / 2 : merges.size();
    std::size_t bad_second = merges.size();
    std::thread second;
    if (half < merges.size()) {
        try {
            second = std::thread([&] { bad_second = resolve_merges(vocab, merges, prefix, half, merges.size(), ids); });
        } catch (const std::system_error&) {
            bad_second = resolve_merges(vocab, merges, prefix, half, merges.size(), ids);
        }
    }
    const std::size_t bad_first = resolve_merges(vocab, merges, prefix, 0, half, ids);
    if (second.joinable()) second.join();
    const std::size_t bad = bad_first < half ? bad_first : bad_second;
    if (bad < merges.size()) {
        const auto [a, b] = merges[bad];
        const MergeIds& r = ids[bad];
        const std::string joined = std::string(a) + std::string(b.substr(b.compare(0, prefix.size(), prefix) == 0 ? prefix.size() : 0));
        const std::string missing = r.left < 0 ? std::string(a) : r.right < 0 ? std::string(b) : joined;
        throw BadMerge(bad, "\"" + std::string(a) + " " + std::string(b) + "\" needs \"" + missing + "\", which is not in the vocabulary");
    }
    m->merges.reserve(merges.size());
    for (std::size_t rank = 0; rank < merges.size(); ++rank) // a repeated pair keeps its later rank, as in the library
        m->merges.set(pair_key(ids[rank].left, ids[rank].right), static_cast<int>(rank), ids[rank].merged);
    return m;
}

std::unique_ptr<TokenizerModel> make_wordpiece(const Vocab& vocab, std::string unk_token, std::string prefix, std::size_t max_chars) {
    auto m = std::make_unique<WordPiece>();
    m->longest = vocab.longest;
    m->unk = std::move(unk_token);
    m->prefix = std::move(prefix);
    m->max_chars = max_chars;
    return m;
}

// [SECTION] SentencePiece's BPE by score

namespace {

// llama.cpp's "llama" vocabulary: the adjacent pair whose joined text is a token of the highest score
// (the leftmost among equals) merges, until no pair's text is a token; a character that is no token
// falls back to its bytes' <0xXX> tokens, else the unknown token.
struct ScoredBpe : TokenizerModel {
    std::vector<float> scores; // by id
    int unk = -1;

    int unk_id(const Vocab&) const override { return unk; }

    struct Pair {
        float score;
        int left, right, merged;
        std::size_t bytes;
        bool operator<(const Pair& o) const { return score != o.score ? score < o.score : left > o.left; }
    };

    void tokenize(const std::string& word, const Vocab& vocab, std::vector<WordToken>& out) const override {
        std::vector<Symbol> syms;
        for (std::size_t i = 0, len = 0; i < word.size(); i += len) {
            len = std::min(text::utf8_length(static_cast<unsigned char>(word[i])), word.size() - i);
            const int n = static_cast<int>(syms.size());
            syms.push_back({vocab.id(std::string_view(word).substr(i, len)), i, i + len, n - 1, n + 1, true});
        }
        if (!syms.empty()) syms.back().next = -1;
        std::priority_queue<Pair> queue;
        const auto consider = [&](int l, int r) {
            if (l < 0 || r < 0) return;
            const Symbol &a = syms[static_cast<std::size_t>(l)], &b = syms[static_cast<std::size_t>(r)];
            const int id = vocab.id(std::string_view(word).substr(a.b, b.e - a.b));
            if (id >= 0 && static_cast<std::size_t>(id) < scores.size()) queue.push({scores[static_cast<std::size_t>(id)], l, r, id, b.e - a.b});
        };
        for (int i = 0; i + 1 < static_cast<int>(syms.size()); ++i) consider(i, i + 1);
        while (!queue.empty()) {
            const Pair p = queue.top();
            queue.pop();
            Symbol &l = syms[static_cast<std::size_t>(p.left)], &r = syms[static_cast<std::size_t>(p.right)];
            if (!l.alive || !r.alive || l.next != p.right || r.e - l.b != p.bytes) continue; // stale
            l.id = p.merged, l.e = r.e, l.next = r.next, r.alive = false;
            if (r.next >= 0) syms[static_cast<std::size_t>(r.next)].prev = p.left;
            consider(l.prev, p.left);
            consider(p.left, l.next);
        }
        for (const Symbol& s : syms)
            if (s.alive) emit(s, word, vocab, out);
    }

    void emit(const Symbol& s, const std::string& word, const Vocab& vocab, std::vector<WordToken>& out) const {
        if (s.id >= 0) return out.push_back({s.id, s.b, s.e});
        for (std::size_t k = s.b; k < s.e; ++k) {
            char name[8];
            std::snprintf(name, sizeof name, "<0x%02X>", static_cast<unsigned char>(word[k]));
            const int id = vocab.id(name);
            if (id < 0 && unk < 0) throw TokenizerError("the byte " + std::string(name) + " is not in the vocabulary, nor is an unknown token");
            out.push_back({id >= 0 ? id : unk, k, k + 1});
        }
    }
};

} // namespace

std::unique_ptr<TokenizerModel> make_scored_bpe(std::vector<float> scores, int unk_id) {
    auto m = std::make_unique<ScoredBpe>();
    m->scores = std::move(scores);
    m->unk = unk_id;
    return m;
}

} // namespace core::model
