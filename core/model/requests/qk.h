// core/model/requests/qk.h — why a query attends to a key, as one request: the scores of a query's
// row in one head and a key's score split into pairs of the stream's components (circuits/qk.h).
// The Why panel and --qk each build a QkRequest and read the QkAnswer.
#pragma once

#include "core/model/circuits/qk.h"

#include <optional>
#include <vector>

namespace core::model {

struct QkRequest {
    std::vector<int> ids;
    int layer = 0, head = 0, query = 0; // from 0
    int key = -1;                       // the key whose score is split into pairs (-1: none)
    bool row = false;                   // also every key the query sees, with its score
};

struct QkAnswer {
    std::vector<int> keys;      // the row: the keys the query sees, in order
    std::vector<double> scores; // the row: their scores
    std::optional<float> sink;  // the head's learned sink logit, where it has one (gpt-oss)
    int window = 0;             // the head's window (0: none)
    bool causal = true;
    bool visible = true;        // the query sees the key
    QkAttribution attribution;  // the key's pairs (key ≥ 0)
};

QkAnswer answer_qk(const Model& model, const QkRequest& request);

} // namespace core::model
