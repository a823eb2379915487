// core/model/memory.h — what a forward will hold, checked against what the machine has before it
// allocates, so that a prompt too long for memory is one sentence with the figures, not a
// std::bad_alloc or the kernel's OOM killer.
#pragma once

#include "core/model/forward.h"

#include <cstdint>
#include <string>

namespace core::model {

// A request that does not fit: "8192 tokens need 34.4 GB (…); 18.1 GB is free".
struct MemoryError : InputError {
    using InputError::InputError;
};

// What this process may still take: the machine's MemAvailable, lowered by a cgroup's memory.max
// and by ATTNVIZ_MEMORY_LIMIT (bytes, or with a K/M/G suffix: the most attnviz itself may use, less
// what it already holds).
std::uint64_t free_memory_bytes();

// The largest blocks a forward of t_new positions after `past` allocates, in bytes.
struct ForwardFootprint {
    std::uint64_t maps = 0;   // the attention kept: each layer's queries and keys (or every map when dense) and the entropies
    std::uint64_t other = 0;  // KV cache, captures, rollout, logits, activations
    std::uint64_t total() const { return maps + other; }
};
ForwardFootprint forward_footprint(const ModelConfig& c, const ForwardOptions& o, int past, int t_new);

// For the program, once at its start: the allocator keeps the large blocks a forward frees for the
// next one instead of handing them back and faulting fresh zeroed pages in again (a Llama-1B-sized
// patching map spent 13 % of its time doing that, one layer's (t, d_ff) activations after another).
void keep_freed_memory();

// After a layer whose residual stream (copies · t, D) takes `stream_bytes`: when the heap holds more
// than release_above free bytes, they go back to the system. keep_freed_memory keeps them for the next
// layer's buffers of the same sizes, but a long run's layers free them around the blocks their maps
// keep, and the next layer reuses them only in part: at 8192 positions of Qwen3.5-0.8B the free part
// grew with the kept maps to 0.75 GB. A layer's scratch is some twenty times its stream (there 0.6 GB
// against 34 MB), so below release_from_stream it never frees so much, and the free bytes are not
// counted (mallinfo2 walks every free block: up to a millisecond).
constexpr std::uint64_t release_above = 256u << 20, release_from_stream = 8u << 20;
void release_freed_memory(std::uint64_t stream_bytes);

// Throws MemoryError when forward_footprint exceeds free_memory_bytes(), which is measured again
// after the allocator has given back what it keeps.
void check_forward_fits(const ModelConfig& c, const ForwardOptions& o, int past, int t_new);

// "51.2 GB", "310 MB", "12 KB": decimal units, three figures.
std::string bytes_text(std::uint64_t bytes);

} // namespace core::model
