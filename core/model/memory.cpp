// core/model/memory.cpp — the footprint of a forward and the memory free for it.
#include "core/model/memory.h"

#include "core/parallel.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <malloc.h>
#include <string>
#include <unistd.h>

namespace core::model {
namespace {

constexpr std::uint64_t no_limit = std::numeric_limits<std::uint64_t>::max();

// "123", "512M", "4G", "2.5G" → bytes; no_limit for anything else.
std::uint64_t parse_size(const char* text) {
    if (!text || !*text) return no_limit;
    char* end = nullptr;
    const double v = std::strtod(text, &end);
    if (end == text || !(v > 0.0)) return no_limit;
    double unit = 1.0;
    switch (*end) {
    case 'k': case 'K': unit = 1e3; ++end; break;
    case 'm': case 'M': unit = 1e6; ++end; break;
    case 'g': case 'G': unit = 1e9; ++end; break;
    default: break;
    }
    if (*end == 'B' || *end == 'b') ++end;
    return *end ? no_limit : static_cast<std::uint64_t>(v * unit);
}

// MemAvailable from /proc/meminfo, in bytes.
std::uint64_t machine_available() {
    std::ifstream in("/proc/meminfo");
    std::string key;
    std::uint64_t kb = 0;
    std::string unit;
    while (in >> key >> kb >> unit)
        if (key == "MemAvailable:") return kb * 1024;
    return no_limit;
}

std::uint64_t read_number(const char* path) {
    std::ifstream in(path);
    std::string text;
    if (!(in >> text) || text == "max") return no_limit;
    return parse_size(text.c_str());
}

// The cgroup's memory.max less its memory.current (cgroup v2), where there is one.
std::uint64_t cgroup_available() {
    const std::uint64_t limit = read_number("/sys/fs/cgroup/memory.max");
    if (limit == no_limit) return no_limit;
    const std::uint64_t used = read_number("/sys/fs/cgroup/memory.current");
    return used == no_limit || used > limit ? 0 : limit - used;
}

std::uint64_t resident_bytes() {
    std::ifstream in("/proc/self/statm");
    std::uint64_t size = 0, resident = 0;
    in >> size >> resident;
    return resident * static_cast<std::uint64_t>(sysconf(_SC_PAGESIZE));
}

std::uint64_t floats(std::uint64_t n) { return n * sizeof(float); }

} // namespace

std::uint64_t free_memory_bytes() {
    std::uint64_t free = std::min(machine_available(), cgroup_available());
    const std::uint64_t limit = parse_size(std::getenv("ATTNVIZ_MEMORY_LIMIT"));
    if (limit != no_limit) {
        const std::uint64_t held = resident_bytes();
        free = std::min(free, held > limit ? 0 : limit - held);
    }
    return free;
}

ForwardFootprint forward_footprint(const ModelConfig& c, const ForwardOptions& o, int past, int t_new) {
    const std::uint64_t L = static_cast<std::uint64_t>(c.layers), H = static_cast<std::uint64_t>(c.heads);
    const std::uint64_t t = static_cast<std::uint64_t>(t_new), total = static_cast<std::uint64_t>(past) + t;
    const std::uint64_t copies = std::max<std::uint64_t>(1, o.copies.size());
    const std::uint64_t row = static_cast<std::uint64_t>(c.kv_heads) * static_cast<std::uint64_t>(c.d_head);
    ForwardFootprint f;
    if (o.attention) // the maps' store (each layer's queries and keys, or every map when dense) and the entropies
        f.maps = AttentionMaps::bytes_for(c.layers, c.heads, c.kv_heads, c.d_head, t_new, past + t_new, o.dense_attention) + floats(L * H * t);
    f.other += floats(AttentionMaps::block * total) * static_cast<std::uint64_t>(core::parallel::threads()); // each helper's block of weights
    f.other += floats((o.attention && !o.dense_attention ? 1 : 2) * row * total) * L; // the KV cache (the keys: in the maps)
    if (o.capture_qkv) f.other += floats(L * H * (t + 2 * total) * static_cast<std::uint64_t>(c.d_head));
    if (o.rollout) f.other += floats(4 * t * total); // R, the layer's mean, Â and the product
    if (o.logits == Logits::all) f.other += floats(t * static_cast<std::uint64_t>(c.vocab));
    const std::uint64_t rows = copies * t, width = static_cast<std::uint64_t>(std::max(c.d_model * 4, (c.heads + 2 * c.kv_heads) * c.d_head));
    f.other += floats(rows * (width + 3 * static_cast<std::uint64_t>(c.d_model)));                 // the stream and the attention's activations
    f.other += floats(std::min<std::uint64_t>(rows, mlp_rows) * 2 * static_cast<std::uint64_t>(c.d_ff)); // the MLP's, a block of rows at a time
    return f;
}

void keep_freed_memory() {
    mallopt(M_MMAP_THRESHOLD, 1 << 30);
    mallopt(M_TRIM_THRESHOLD, std::numeric_limits<int>::max());
}

void release_freed_memory(std::uint64_t stream_bytes) {
    if (stream_bytes >= release_from_stream && mallinfo2().fordblks > release_above) malloc_trim(0);
}

void check_forward_fits(const ModelConfig& c, const ForwardOptions& o, int past, int t_new) {
    const ForwardFootprint f = forward_footprint(c, o, past, t_new);
    if (f.total() <= free_memory_bytes()) return;
    malloc_trim(0);
    const std::uint64_t free = free_memory_bytes();
    if (f.total() <= free) return;
    std::string what = std::to_string(past + t_new) + " tokens need " + bytes_text(f.total());
    if (f.maps > 0)
        what += std::string(" (the attention ") + (o.dense_attention ? "maps" : "queries and keys") + " of " + std::to_string(c.layers) + " layers × " +
                std::to_string(c.heads) + " heads take " + bytes_text(f.maps) + ")";
    throw MemoryError(what + "; " + bytes_text(free) + " is free");
}

std::string bytes_text(std::uint64_t bytes) {
    static const char* const units[] = {"bytes", "KB", "MB", "GB", "TB"};
    double v = static_cast<double>(bytes);
    int u = 0;
    while (v >= 1000.0 && u < 4) {
        v /= 1000.0;
        ++u;
    }
    char text[32];
    if (u == 0) std::snprintf(text, sizeof text, "%llu bytes", static_cast<unsigned long long>(bytes));
    else std::snprintf(text, sizeof text, v < 10.0 ? "%.2f %s" : v < 100.0 ? "%.1f %s" : "%.0f %s", v, units[u]);
    return text;
}

} // namespace core::model
