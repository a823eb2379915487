#!/bin/sh
# bench/train_text_model.sh ATTNVIZ [OUT_DIR] — trains the language model attnviz ships in
# assets/models/austen-gpt2, with the commands and corpus the README names: Jane Austen's novels
# (bench/make_text_corpus.sh), 500 BPE merges, 4 layers, 4 heads, n_embd 128, 128 positions.
#   1. 1700 steps of 24 windows of plain text;
#   2. from that model, 1500 steps of 24 windows of which half are a passage of 16 … 64 tokens
#      repeated to fill the window, so that copying an earlier word is worth learning;
#   3. from that model, 1200 steps of which half the windows are a passage followed by itself
#      backwards and a fifth a passage repeated, so that finding the earlier copy of the current word
#      itself is worth learning too.
# Prints the trainer's JSON lines (wall and CPU seconds in each; the README has the figures).
set -eu
attnviz=${1:?usage: train_text_model.sh path/to/attnviz [OUT_DIR]}
out=${2:-austen-gpt2}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$(dirname "$0")/make_text_corpus.sh" "$work/austen.txt" >&2
shape="--merges 500 --layers 4 --heads 4 --d-model 128 --ctx 128 --batch 24"
"$attnviz" --train text --corpus "$work/austen.txt" --out "$work/plain" $shape \
    --steps 1700 --warmup 100 --lr 4e-3 --seed 1 --log-every 100
"$attnviz" --train text --corpus "$work/austen.txt" --init "$work/plain" --out "$work/repeated" $shape \
    --steps 1500 --warmup 50 --lr 3e-3 --seed 2 --repeat-share 0.5 --log-every 50
"$attnviz" --train text --corpus "$work/austen.txt" --init "$work/repeated" --out "$out" $shape \
    --steps 1200 --warmup 50 --lr 2.5e-3 --seed 3 --repeat-share 0.2 --mirror-share 0.5 --log-every 100
