// app/cli/cli_tokenize.h — attnviz --tokenize MODEL --text TEXT: a model's tokenizer on the command line.
#pragma once

#include <iosfwd>

namespace app {

// Prints {"ids": [...], "tokens": [...]} for TEXT through MODEL's tokenizer (a model directory with
// tokenizer.json or vocab.json + merges.txt, a Hugging Face cache entry models--ORG--NAME, a
// tokenizer.json, a GGUF file or an Ollama NAME:TAG), the template's special tokens included. Returns 0, or 2 after one line "attnviz: FILE: reason" on `err`.
int run_tokenize_mode(int argc, const char* const* argv, std::ostream& out, std::ostream& err);

} // namespace app
