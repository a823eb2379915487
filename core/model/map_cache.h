// core/model/map_cache.h — a few heads' maps of one forward, rebuilt when first asked and kept while
// they fit a budget (the least recently asked goes first), so that a view drawing the same head
// frame after frame rebuilds it once. Safe to use from several threads.
#pragma once

#include "core/model/attention_maps.h"

#include <cstddef>
#include <deque>
#include <memory>
#include <mutex>

namespace core::model {

class MapCache {
public:
    explicit MapCache(std::size_t budget_bytes = std::size_t{512} << 20) : budget_(budget_bytes) {}
    // Head (l, h)'s map of `maps` (t_new, t_total); the cache is for one AttentionMaps only.
    std::shared_ptr<const MatrixF> head(const AttentionMaps& maps, int l, int h);
    // The map when held, else null (no work).
    std::shared_ptr<const MatrixF> held(int l, int h) const;
    // For a frame that must not wait: the map when held or small (at most inline_cells weights, rebuilt
    // at once); else null, the map rebuilt on a thread of its own (core/background.h, one at a time),
    // which keeps `owner` (what holds `maps` and this cache) alive and wakes the window when it is in.
    static constexpr std::size_t inline_cells = std::size_t{512} * 512;
    std::shared_ptr<const MatrixF> soon(std::shared_ptr<const void> owner, const AttentionMaps& maps, int l, int h);

private:
    struct Entry {
        int layer, head;
        std::shared_ptr<const MatrixF> map;
    };
    mutable std::mutex mutex_;
    std::size_t budget_;
    std::deque<Entry> entries_; // the most recently asked last
    bool rebuilding_ = false;   // a thread of soon() runs
};

} // namespace core::model
