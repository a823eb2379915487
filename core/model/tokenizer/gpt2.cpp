// GPT-2's older tokenizer files, vocab.json + merges.txt, and finding a model directory's tokenizer.
#include "core/model/tokenizer/parts.h"

#include "core/io/files.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <optional>
#include <sstream>

namespace core::model {

namespace {

std::string read_file(const std::string& path) {
    std::optional<std::string> text = core::io::read_whole_file(path);
    if (!text) throw TokenizerError(path + ": cannot be read");
    return std::move(*text);
}

void read_vocab(const std::string& content, const std::string& name, Vocab& v) {
    nlohmann::json j;
    try {
        j = nlohmann::json::parse(content);
    } catch (const nlohmann::json::exception& e) { // parse_error, and out_of_range for a number like 1e999
        throw TokenizerError(name + ": not valid JSON: " + e.what());
    }
    if (!j.is_object()) throw TokenizerError(name + ": /: expected an object of token: id");
    v.ids.reserve(j.size());
    v.strings.reserve(j.size());
    for (auto it = j.begin(); it != j.end(); ++it) {
        const auto& id = it.value();
        if (!id.is_number_integer() || id.get<long long>() < 0 || id.get<long long>() >= (1LL << 21))
            throw TokenizerError(name + ": /" + pointer_escape(it.key()) + ": expected a token id from 0 to 2097151");
        v.set(it.key(), static_cast<std::size_t>(id.get<long long>()));
    }
}

// One merge a line, "left right"; a first line "#version: ..." and empty lines are skipped.
std::vector<std::pair<std::string, std::string>> read_merges(const std::string& content, const std::string& name,
                                                             std::vector<std::size_t>& lines) {
    std::vector<std::pair<std::string, std::string>> merges;
    std::istringstream in(content);
    std::string line;
    for (std::size_t n = 1; std::getline(in, line); ++n) {
        if (!line.empty() && line.back() == '\r') line.pop_back();
        if (line.empty() || (n == 1 && line.rfind("#version", 0) == 0)) continue;
        const std::size_t space = line.find(' ');
        if (space == std::string::npos || space == 0 || space + 1 == line.size() || line.find(' ', space + 1) != std::string::npos)
            throw TokenizerError(name + ":" + std::to_string(n) + ": expected two tokens separated by one space");
        merges.emplace_back(line.substr(0, space), line.substr(space + 1));
        lines.push_back(n);
    }
    return merges;
}

} // namespace

Tokenizer parse_gpt2_files(const std::string& vocab_text, const std::string& merges_text, const std::string& vocab_name,
                           const std::string& merges_name) {
    auto t = std::make_shared<TokenizerImpl>();
    t->source = vocab_name;
    t->kind = "BPE (byte-level, GPT-2 vocab.json + merges.txt)";
    read_vocab(vocab_text, vocab_name, t->vocab);
    if (invalid_utf8_offset(merges_text) != std::string::npos)
        throw TokenizerError(merges_name + ": not valid UTF-8 at byte " + std::to_string(invalid_utf8_offset(merges_text)));
    std::vector<std::size_t> lines;
    const auto merges = read_merges(merges_text, merges_name, lines);
    try {
        t->model = make_bpe(t->vocab, merge_views(merges), {});
    } catch (const BadMerge& e) {
        throw TokenizerError(merges_name + ":" + std::to_string(lines[e.index]) + ": " + e.what());
    }
    t->pre_tokenizer = make_byte_level(false, true);
    t->decoder = make_byte_level_decoder();
    t->byte_level = true;
    if (const int eot = t->vocab.id("<|endoftext|>"); eot >= 0) {
        AddedToken a;
        a.content = "<|endoftext|>", a.id = eot, a.special = true;
        t->added.push_back(a);
    }
    t->single = {TemplateItem{true, {}, {}}};
    t->finish();
    return Tokenizer(t);
}

Tokenizer load_gpt2_files(const std::string& vocab_json, const std::string& merges_txt) {
    return parse_gpt2_files(read_file(vocab_json), read_file(merges_txt), vocab_json, merges_txt);
}

Tokenizer load_tokenizer(const std::string& model_dir) {
    namespace fs = std::filesystem;
    std::error_code ec;
    if (fs::is_regular_file(model_dir, ec)) return load_tokenizer_json(model_dir);
    const fs::path dir(model_dir);
    if (fs::exists(dir / "tokenizer.json", ec)) return load_tokenizer_json((dir / "tokenizer.json").string());
    if (fs::exists(dir / "vocab.json", ec) && fs::exists(dir / "merges.txt", ec))
        return load_gpt2_files((dir / "vocab.json").string(), (dir / "merges.txt").string());
    if (!fs::is_directory(dir, ec)) throw TokenizerError(model_dir + ": no such model directory");
    throw TokenizerError((dir / "tokenizer.json").string() + ": missing (and no vocab.json + merges.txt beside it)");
}

} // namespace core::model
