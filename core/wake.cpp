#include "core/wake.h"

#include <atomic>

namespace core {

namespace {
std::atomic<Waker> installed{nullptr};
std::atomic<unsigned long long> count{0};
} // namespace

void set_waker(Waker waker) { installed.store(waker); }

void wake() {
    count.fetch_add(1); // before the waker: the loop it wakes must see the new count
    if (Waker w = installed.load()) w();
}

unsigned long long wakes() { return count.load(); }

} // namespace core
