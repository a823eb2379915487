// core/model/input.cpp — prompts, written-out ids and the probe as token ids.
#include "core/model/input.h"

#include "core/heads/probe.h"
#include "core/model/format/stores.h"

#include <cstdlib>
#include <fstream>
#include <optional>
#include <sstream>
#include <stdexcept>

namespace core::model {

Tokenizer tokenizer_of(const OpenedModel& m) {
    if (m.dir.empty() && has_gguf_magic(m.path)) {
        const gguf::File f = read_gguf(m.path);
        return gguf::find(f, "tokenizer.ggml.model") ? gguf_tokenizer(f) : Tokenizer{};
    }
    if (m.dir.empty()) return {};
    std::ifstream json(m.dir + "/tokenizer.json"), vocab(m.dir + "/vocab.json");
    return json.good() || vocab.good() ? load_tokenizer(m.dir) : Tokenizer{};
}

std::vector<int> parse_ids(const std::string& text, int vocab, const std::string& name) {
    std::istringstream in(text);
    std::vector<int> ids;
    for (std::string word; in >> word;) {
        char* end = nullptr;
        const long v = std::strtol(word.c_str(), &end, 10);
        if (*end != '\0' || word.size() > 9 || v < 0 || v >= vocab)
            throw InputError("\"" + word + "\" is not a token id of " + name + " (0 … " + std::to_string(vocab - 1) + ")");
        ids.push_back(static_cast<int>(v));
    }
    return ids;
}

int token_id(const std::string& text, const Tokenizer& tok, const ModelConfig& c) {
    if (text.size() > 1 && text[0] == '#') {
        const std::vector<int> id = parse_ids(text.substr(1), c.vocab, c.name);
        if (id.size() == 1) return id[0];
        throw InputError("\"" + text + "\" is not #ID, one token id of " + c.name);
    }
    if (text.empty()) throw InputError("\"\" is empty; give a text that is one token of " + c.name + "'s vocabulary, or #ID");
    if (tok.vocab_size() == 0) throw InputError("\"" + text + "\": " + c.name + " has no tokenizer; give #ID");
    const std::vector<int> ids = tok.encode_ids(text, false);
    if (ids.size() == 1) return ids[0];
    // A word inside a sentence is its token with the space before ("at" is " at" after "looked").
    if (text[0] != ' ')
        if (const std::vector<int> spaced = tok.encode_ids(" " + text, false); spaced.size() == 1) return spaced[0];
    throw InputError("\"" + text + "\" is " + std::to_string(ids.size()) + " tokens of " + c.name + "'s vocabulary, not one; give #ID");
}

Encoding encode_prompt(const std::string& text, const Tokenizer& tok, const ModelConfig& c) {
    if (tok.vocab_size()) return tok.encode(text);
    Encoding e;
    e.ids = parse_ids(text, c.vocab, c.name);
    for (int id : e.ids) e.tokens.push_back(std::to_string(id));
    e.offsets.assign(e.ids.size(), {0, 0});
    e.special.assign(e.ids.size(), false);
    return e;
}

std::string token_text(const Tokenizer& tokenizer, int id) {
    return tokenizer.vocab_size() ? tokenizer.token_string(id) : std::to_string(id);
}

ModelInput read_input(const OpenedModel& m, const InputRequest& q) {
    ModelInput in;
    in.tokenizer = tokenizer_of(m);
    const ModelConfig& c = m.model->config();
    if (q.probe > 0) {
        try {
            in.ids = probe_ids(c, in.tokenizer, q.probe, q.seed);
        } catch (const std::invalid_argument& e) {
            throw InputError(e.what());
        }
        for (int id : in.ids) in.tokens.push_back(token_text(in.tokenizer, id));
    } else if (q.prompt) {
        if (in.tokenizer.vocab_size() == 0) throw InputError(m.path + " has no tokenizer.json (nor vocab.json + merges.txt); give its token ids");
        Encoding e = in.tokenizer.encode(q.text);
        in.ids = std::move(e.ids);
        in.tokens = std::move(e.tokens);
        if (in.ids.empty()) throw InputError("the text gives no tokens");
    } else {
        in.ids = parse_ids(q.text, c.vocab, c.name);
        if (in.ids.empty()) throw InputError("no token ids");
        for (int id : in.ids) in.tokens.push_back(token_text(in.tokenizer, id));
    }
    m.model->check_ids(in.ids, 0);
    return in;
}

std::vector<int> probe_ids(const ModelConfig& c, const Tokenizer& tok, int m, std::uint64_t seed) {
    std::vector<int> exclude = {c.bos_token_id, c.eos_token_id, tok.bos_id(), tok.eos_id(), tok.unk_id(), tok.pad_id(), tok.cls_id(), tok.sep_id(), tok.mask_id()};
    for (int id = 0; id < tok.vocab_size(); ++id)
        if (tok.is_special(id)) exclude.push_back(id);
    const int bos = c.bos_token_id >= 0 ? c.bos_token_id : tok.bos_id() >= 0 ? tok.bos_id() : tok.cls_id();
    return core::heads::probe_sequence(m, seed, c.vocab, exclude, bos >= 0 ? std::optional<int>(bos) : std::nullopt);
}

} // namespace core::model
