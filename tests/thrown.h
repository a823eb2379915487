// tests/thrown.h — the one line a rejected input gives: what f throws as an Error, or "" when it
// throws nothing. Any other exception escapes, so a test expecting one kind of error fails on another.
#pragma once

#include <string>
#include <utility>

template <class Error, class F> std::string thrown(F&& f) {
    try {
        std::forward<F>(f)();
    } catch (const Error& e) {
        return e.what();
    }
    return "";
}
