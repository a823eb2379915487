// app/main.cpp — entry point: the command line decides between a text mode and the window.
#include "app/cli.h"
#ifdef ATTNVIZ_WINDOW
#include "app/window.h"
#endif
#include "core/model/memory.h"

#include <iostream>

int main(int argc, char** argv) {
    core::model::keep_freed_memory();
#ifdef ATTNVIZ_WINDOW
    const app::WindowRunner run_window = app::run_window;
#else
    const app::WindowRunner run_window = nullptr;
#endif
    return app::main_with(argc, argv, std::cout, std::cerr, run_window);
}
