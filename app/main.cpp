// app/main.cpp — entry point: the command line decides between a text mode and the window.
#include "app/cli.h"

#include <iostream>

int main(int argc, char** argv) {
    return app::main_with(argc, argv, std::cout, std::cerr, nullptr);
}
