#!/bin/sh
# bench/train_text_model.sh ATTNVIZ [OUT_DIR] — trains the language model attnviz ships in
# assets/models/austen-gpt2, with the command and corpus the README names: Jane Austen's novels
# (bench/make_text_corpus.sh), 500 BPE merges, 4 layers, 4 heads, n_embd 128, 128 positions,
# 1700 steps of 24 windows. Prints the trainer's JSON lines (7 min of CPU; 28 min on 2 busy cores).
set -eu
attnviz=${1:?usage: train_text_model.sh path/to/attnviz [OUT_DIR]}
out=${2:-austen-gpt2}
corpus=$(mktemp --suffix=.txt)
trap 'rm -f "$corpus"' EXIT
"$(dirname "$0")/make_text_corpus.sh" "$corpus" >&2
"$attnviz" --train text --corpus "$corpus" --out "$out" --merges 500 --layers 4 --heads 4 --d-model 128 --ctx 128 \
    --steps 1700 --warmup 100 --batch 24 --lr 4e-3 --seed 1 --log-every 100
