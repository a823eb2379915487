// The models of tokenizer.json: BPE (merges by rank, byte fallback, unknown tokens) and WordPiece
// (greedy longest match with a continuing-subword prefix).
#include "core/model/tokenizer/parts.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <queue>

namespace core::model {

namespace {

std::uint64_t pair_key(int a, int b) { return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(a)) << 32) | static_cast<std::uint32_t>(b); }

struct Symbol {
    int id;
    std::size_t b, e; // bytes of the word
    int prev, next;
    bool alive;
};

struct Bpe : Model {
    std::unordered_map<std::uint64_t, std::pair<int, int>> merges; // (left, right) -> (rank, merged id)
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
            const auto it = merges.find(pair_key(syms[static_cast<std::size_t>(left)].id, syms[static_cast<std::size_t>(right)].id));
            if (it != merges.end()) queue.emplace(it->second.first, left, it->second.second);
        };
        for (int i = 0; i + 1 < n; ++i) consider(i);
        while (!queue.empty()) {
            const auto [rank, pos, merged] = queue.top();
            queue.pop();
            Symbol& l = syms[static_cast<std::size_t>(pos)];
            if (!l.alive || l.next < 0) continue;
            Symbol& r = syms[static_cast<std::size_t>(l.next)];
            const auto it = merges.find(pair_key(l.id, r.id));
            if (it == merges.end() || it->second.first != rank || it->second.second != merged) continue; // stale
            l.id = merged, l.e = r.e, r.alive = false, l.next = r.next;
            if (r.next >= 0) syms[static_cast<std::size_t>(r.next)].prev = pos;
            consider(l.prev);
            consider(pos);
        }
        for (const auto& s : syms)
            if (s.alive) out.push_back({s.id, s.b, s.e});
    }
};

struct WordPiece : Model {
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

std::unique_ptr<Model> make_bpe(const Vocab& vocab, const std::vector<std::pair<std::string, std::string>>& merges, BpeOptions options) {
    auto m = std::make_unique<Bpe>();
    m->o = std::move(options);
    const std::size_t prefix = m->o.continuing_subword_prefix.size();
    m->merges.reserve(merges.size());
    for (std::size_t rank = 0; rank < merges.size(); ++rank) {
        const auto& [a, b] = merges[rank];
        const int ia = vocab.id(a), ib = vocab.id(b);
        // The merged token drops the right part's continuing-subword prefix.
        const std::string joined = a + (b.compare(0, prefix, m->o.continuing_subword_prefix) == 0 ? b.substr(prefix) : b);
        const int ij = vocab.id(joined);
        for (const std::string* part : {&a, &b, &joined})
            if (vocab.id(*part) < 0) throw BadMerge(rank, "\"" + a + " " + b + "\" needs \"" + *part + "\", which is not in the vocabulary");
        m->merges[pair_key(ia, ib)] = {static_cast<int>(rank), ij}; // a repeated pair keeps its later rank, as in the library
    }
    return m;
}

std::unique_ptr<Model> make_wordpiece(const Vocab& vocab, std::string unk_token, std::string prefix, std::size_t max_chars) {
    auto m = std::make_unique<WordPiece>();
    for (const auto& entry : vocab.ids) m->longest = std::max(m->longest, entry.first.size());
    m->unk = std::move(unk_token);
    m->prefix = std::move(prefix);
    m->max_chars = max_chars;
    return m;
}

} // namespace core::model
