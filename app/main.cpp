// app/main.cpp — entry point: the command line decides between a text mode and the window.
#include "app/cli/cli.h"
#ifdef ATTNVIZ_WINDOW
#include "app/window/window.h"
#endif
#include "core/background.h"
#include "core/model/memory.h"

#include <iostream>

int main(int argc, char** argv) {
    core::model::keep_freed_memory();
#ifdef ATTNVIZ_WINDOW
    const app::WindowRunner run_window = app::run_window;
#else
    const app::WindowRunner run_window = nullptr;
#endif
    const int code = app::main_with(argc, argv, std::cout, std::cerr, run_window);
    core::background::wait_all(); // nothing may run while exit() destroys the libraries' statics
    return code;
}
