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

private:
    struct Entry {
        int layer, head;
        std::shared_ptr<const MatrixF> map;
    };
    mutable std::mutex mutex_;
    std::size_t budget_;
    std::deque<Entry> entries_; // the most recently asked last
};

} // namespace core::model
