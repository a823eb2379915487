// app/cli/cli_train_text.h — attnviz --train text: a GPT-2 trained on a corpus file, saved as a
// Hugging Face model directory.
#pragma once

#include <iosfwd>

namespace app {

// Whether the arguments hold "--train text".
bool wants_text_training(int argc, const char* const* argv);

// attnviz --train text --corpus FILE --out DIR [--merges N --layers L --heads H --d-model C --ctx T
//         --steps N --warmup N --batch B --lr X --seed S --held-out F --repeat-share F --mirror-share F
//         --init DIR --log-every N]
// One JSON line on `out` at the start, every --log-every steps and at the end (with the held-out
// loss, the unigram baseline and the head scores). Returns 0, or 2 after one line "attnviz: …".
int run_text_training(int argc, const char* const* argv, std::ostream& out, std::ostream& err);

} // namespace app
