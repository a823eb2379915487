// libFuzzer target for the tokenizer: the tokenizer.json loader, and tokenizing arbitrary bytes.
// An input is a tokenizer.json, a NUL byte, and a text (without a NUL, the whole input is both).
// The tokenizer.json must load or be refused with a TokenizerError naming the file; the text goes
// through it and through one of the committed fixture tokenizers (picked by the text's length), and
// must give in-range ids and offsets, or, when it is not valid UTF-8, a TokenizerError naming the
// first bad byte. Llama 3's byte-level BPE must decode back to the text.
#include "core/model/tokenizer/tokenizer.h"

#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

// Longer inputs only repeat the paths a short one takes (words, pieces, added tokens), slower.
constexpr std::size_t max_input = 2048;
const std::string name = "fuzz/tokenizer.json";

const std::vector<core::model::Tokenizer>& fixtures() {
    static const std::vector<core::model::Tokenizer> all = [] {
        std::vector<core::model::Tokenizer> v;
        for (const char* kind : {"llama3", "qwen2", "qwen3", "gemma3", "llama2", "mistral", "bert", "bert_cased", "bpe_suffix"})
            v.push_back(core::model::load_tokenizer(std::string(ATTNVIZ_FIXTURES) + "/tokenizers/" + kind));
        return v;
    }();
    return all;
}

void check(bool ok) {
    if (!ok) std::abort();
}

// Encodes and decodes `text`; returns whether it encoded. A tokenizer that `must_encode` (the
// fixtures) fails only on invalid UTF-8.
bool exercise(const core::model::Tokenizer& t, const std::string& text, bool must_encode) {
    const std::size_t bad = core::model::invalid_utf8_offset(text);
    core::model::Encoding enc;
    try {
        enc = t.encode(text);
    } catch (const core::model::TokenizerError& e) {
        if (bad != std::string::npos) check(std::string(e.what()).rfind("the text is not valid UTF-8: byte " + std::to_string(bad) + " ", 0) == 0);
        else check(!must_encode);
        return false;
    }
    check(bad == std::string::npos);
    check(enc.tokens.size() == enc.ids.size() && enc.offsets.size() == enc.ids.size() && enc.special.size() == enc.ids.size());
    for (std::size_t k = 0; k < enc.ids.size(); ++k) {
        check(enc.offsets[k].first <= enc.offsets[k].second && enc.offsets[k].second <= text.size());
        (void)t.token_display(enc.ids[k]);
    }
    (void)t.decode(enc.ids, true);
    const std::string back = t.decode(enc.ids);
    check(core::model::invalid_utf8_offset(back) == std::string::npos);
    return true;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size > max_input) return 0;
    const std::string input(reinterpret_cast<const char*>(data), size);
    const std::size_t nul = input.find('\0');
    const std::string json = input.substr(0, nul), text = nul == std::string::npos ? input : input.substr(nul + 1);

    const auto& all = fixtures();
    const std::size_t pick = text.size() % all.size();
    if (exercise(all[pick], text, true) && pick == 0) check(all[0].decode(all[0].encode_ids(text, false)) == text); // Llama 3: lossless
    try {
        const core::model::Tokenizer t = core::model::parse_tokenizer_json(json, name);
        check(t.vocab_size() >= 0);
        exercise(t, text, false);
    } catch (const core::model::TokenizerError& e) {
        check(std::string(e.what()).rfind(name + ": ", 0) == 0);
    }
    return 0;
}
