// app/cli/cli_train.h — the command-line modes of the tiny transformer: --train and --forward.
#pragma once

#include <iosfwd>

namespace app {

// attnviz --train TASK [--layers L --heads H --d-model D --ctx T --vocab V --mlp --steps N --seed S
//                       --lr X --init small|large --batch B --threads 1|2] --out M.safetensors
// attnviz --forward M.safetensors --sequence "3 1 4 1 5"
// Returns 0, or 2 after one line "attnviz: …" on `err`.
int run_train_mode(int argc, const char* const* argv, std::ostream& out, std::ostream& err);

} // namespace app
