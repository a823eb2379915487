// core/model/input.h — one path from what a person gives to token ids, for the command line and the
// window alike: a prompt (through the tokenizer, or as ids for a model without one), ids written out
// (--sequence), and the probe that brings out induction heads.
#pragma once

#include "core/model/format/checkpoint.h"
#include "core/model/tokenizer/tokenizer.h"

#include <cstdint>
#include <string>
#include <vector>

namespace core::model {

// The model's tokenizer (tokenizer.json, else vocab.json + merges.txt; a GGUF file's own), or an
// empty one when it has none (attnviz's trained models, a GGUF file without tokenizer.ggml.model).
Tokenizer tokenizer_of(const OpenedModel& m);

// Token ids written out, separated by white space, for a model of `vocab` ids named `name`. Throws
// InputError "\"WORD\" is not a token id of NAME (0 … V−1)". No words, no ids.
std::vector<int> parse_ids(const std::string& text, int vocab, const std::string& name);

// One token: "#ID", or a text the tokenizer makes exactly one token (no special tokens added), else
// that text after a space when that is one token. Throws InputError naming the text otherwise.
int token_id(const std::string& text, const Tokenizer& tok, const ModelConfig& c);

// A prompt as ids: the tokenizer's encoding, or without a tokenizer the ids written out (their
// tokens the ids as text).
Encoding encode_prompt(const std::string& text, const Tokenizer& tok, const ModelConfig& c);

// What a person gives as a model's input: a prompt, through the tokenizer, ids written out, or the
// probe (probe_ids below).
struct InputRequest {
    bool prompt = false;    // text is a prompt; else ids written out ("464 3290")
    std::string text;
    int probe = 0;          // > 0: neither, the probe of `probe` ids twice, drawn with `seed`
    std::uint64_t seed = 0;
};
// An input's ids, their tokens as the vocabulary writes them ("Ġcat"; the ids as text without a
// tokenizer), and the tokenizer they came by (empty when the model has none).
struct ModelInput {
    std::vector<int> ids;
    std::vector<std::string> tokens;
    Tokenizer tokenizer;
};
// The input of `q` for the model `m`, checked against it (Model::check_ids). Throws InputError for a
// prompt to a model without a tokenizer, a prompt of no tokens, a word that is no id, no ids at all,
// a probe longer than the ordinary ids allow, or ids the model does not take; TokenizerError for a
// prompt the tokenizer refuses.
ModelInput read_input(const OpenedModel& m, const InputRequest& q);
// Id `id`'s string in the vocabulary ("Ġcat"); the id as text without a tokenizer.
std::string token_text(const Tokenizer& tokenizer, int id);

// The probe for a model: m random ids that are no special token, twice, after the model's BOS
// (config.json's, else the tokenizer's, else its [CLS]) where it has one; core::heads::probe_sequence
// draws them. Throws std::invalid_argument when fewer than m ordinary ids exist.
std::vector<int> probe_ids(const ModelConfig& c, const Tokenizer& tok, int m, std::uint64_t seed);

} // namespace core::model
