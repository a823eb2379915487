#!/usr/bin/env python3
"""Writes two synthetic tokenizer.json files with the shape of real ones, to time loading them.

    bench/make_big_tokenizers.py OUT_DIR

OUT_DIR/gemma3/tokenizer.json: Gemma 3's setup (Replace ' ' -> '▁', Split on ' ', BPE with byte
fallback and fuse_unk, <bos> template, Replace + ByteFallback + Fuse decoder), 262,144 vocabulary
entries (control and user-defined pieces, the 256 byte tokens <0xNN>, ▁-marked words, CJK and other
scripts), its ~6.4k added tokens (<unusedN> and the image tokens among them) and about 514k merges
written as pairs, pretty-printed as the tokenizers library saves it (about 33 MB, like the real one).

OUT_DIR/llama3/tokenizer.json: Llama 3's setup (the Split regex and ByteLevel, BPE with
ignore_merges, the 256 <|...|> special tokens from 128000), 128,000 byte-level entries and about
280k merges written as "left right" strings (about 9 MB).

Every merge's parts and result are in the vocabulary, so both files load in the tokenizers library.
The pieces are random (a fixed seed), built the way BPE builds them: every piece of two or more
characters is the merge of two shorter pieces, and every other split of it into two pieces that
exist is a merge too.
"""
import json
import os
import random
import sys

SP = "\u2581"


def byte_level_chars():
    # GPT-2's table: printable bytes stand for themselves, the others for 256 + n.
    keep = list(range(ord("!"), ord("~") + 1)) + list(range(0xA1, 0xAD)) + list(range(0xAE, 0x100))
    table, n = {}, 0
    for b in range(256):
        if b in keep:
            table[b] = chr(b)
        else:
            table[b] = chr(256 + n)
            n += 1
    return table


class Pieces:
    def __init__(self, rng):
        self.rng = rng
        self.vocab = {}
        self.merges = []  # (left, right), in the order their results were added

    def add(self, token):
        if token not in self.vocab:
            self.vocab[token] = len(self.vocab)

    # Adds `s` as the merge of two pieces, making the pieces first; single characters must exist.
    def ensure(self, s, chars):
        if s in self.vocab:
            return
        if len(chars) == 1:
            self.add(s)
            return
        k = self.rng.randint(1, len(chars) - 1)
        left, right = "".join(chars[:k]), "".join(chars[k:])
        self.ensure(left, chars[:k])
        self.ensure(right, chars[k:])
        self.add(s)
        self.merges.append((left, right))

    # Every other split of each piece into two pieces that exist, up to `total` merges, ranked by
    # the piece they make.
    def all_merges(self, total):
        first = {m[0] + m[1]: m for m in self.merges}
        ranked = []
        for token, tid in self.vocab.items():
            if token not in first:
                continue
            ranked.append((tid, 0, first[token]))
            for k in range(1, len(token)):
                pair = (token[:k], token[k:])
                if pair != first[token] and pair[0] in self.vocab and pair[1] in self.vocab:
                    ranked.append((tid, k, pair))
        ranked.sort()
        primary = [r for r in ranked if r[1] == 0]
        extra = [r for r in ranked if r[1] != 0]
        self.rng.shuffle(extra)
        chosen = sorted(primary + extra[: max(0, total - len(primary))])
        return [pair for _, _, pair in chosen]


ONSETS = ["", "b", "c", "d", "f", "g", "h", "k", "l", "m", "n", "p", "r", "s", "t", "v", "w", "st", "tr", "pr", "ch", "th", "sh", "gr"]
VOWELS = ["a", "e", "i", "o", "u", "ea", "ou", "io", "y", "ai"]
CODAS = ["", "", "n", "r", "s", "t", "l", "m", "nd", "ng", "st", "ck", "x"]


# A random word: syllables (some capitalised or in capitals), or a few characters of `alphabet`.
def word(rng, alphabet):
    if rng.random() < 0.1:
        return "".join(rng.choice(alphabet) for _ in range(rng.randint(2, 4)))
    w = "".join(rng.choice(ONSETS) + rng.choice(VOWELS) + rng.choice(CODAS) for _ in range(rng.randint(1, 4)))
    r = rng.random()
    return w.capitalize() if r < 0.15 else w.upper() if r < 0.2 else w


def gemma3(rng):
    p = Pieces(rng)
    control = ["<pad>", "<eos>", "<bos>", "<unk>", "<mask>", "[multimodal]"] + ["<unused%d>" % i for i in range(99)]
    control += ["<start_of_turn>", "<end_of_turn>"]
    user = ["\n" * n for n in range(1, 32)] + [SP * n for n in range(2, 32)] + ["\t" * n for n in range(1, 32)]
    user += ["<%s>" % t for t in "table tr td th thead tbody caption h1 h2 h3 h4 h5 h6 blockquote b i u s sub sup code pre".split()]
    user += ["</%s>" % t for t in "table tr td th thead tbody caption h1 h2 h3 h4 h5 h6 blockquote b i u s sub sup code pre".split()]
    for t in control + user:
        p.add(t)
    for b in range(256):
        p.add("<0x%02X>" % b)
    latin = [chr(c) for c in range(0x21, 0x7F)] + [chr(c) for c in range(0xC0, 0x180)]
    scripts = [chr(c) for c in range(0x410, 0x450)] + [chr(c) for c in range(0x391, 0x3CA)] + [chr(c) for c in range(0x3041, 0x30FF)]
    cjk = [chr(c) for c in range(0x4E00, 0x4E00 + 12000)] + [chr(c) for c in range(0xAC00, 0xAC00 + 3000)]
    emoji = [chr(c) for c in range(0x1F300, 0x1F600)]
    for c in [SP] + latin + scripts + cjk + emoji:
        p.add(c)
    target = 262144 - 2 - 6142  # the image tokens and <unused99..6240> come last
    common = cjk[:3000]
    while len(p.vocab) < target:
        r = rng.random()
        w = "".join(rng.choice(common) for _ in range(rng.randint(2, 3))) if r < 0.12 else (SP if r < 0.8 else "") + word(rng, scripts)
        if len(p.vocab) + len(w) > target:  # near the end: pieces of two characters, one new entry at most
            w = rng.choice(common) + rng.choice(common)
        p.ensure(w, list(w))
    merges = p.all_merges(514906)
    late = ["<start_of_image>", "<end_of_image>"] + ["<unused%d>" % i for i in range(99, 6241)]
    for t in late:
        p.add(t)
    added = [{"id": p.vocab[t], "content": t, "single_word": False, "lstrip": False, "rstrip": False, "normalized": False,
              "special": t not in user} for t in control + user + late]
    added.append({"id": len(p.vocab), "content": "<image_soft_token>", "single_word": False, "lstrip": False, "rstrip": False,
                  "normalized": False, "special": True})
    bos = {"SpecialToken": {"id": "<bos>", "type_id": 0}}
    return {
        "version": "1.0", "truncation": None, "padding": None, "added_tokens": added,
        "normalizer": {"type": "Replace", "pattern": {"String": " "}, "content": SP},
        "pre_tokenizer": {"type": "Split", "pattern": {"String": " "}, "behavior": "MergedWithPrevious", "invert": False},
        "post_processor": {"type": "TemplateProcessing", "single": [bos, {"Sequence": {"id": "A", "type_id": 0}}],
                           "pair": [bos, {"Sequence": {"id": "A", "type_id": 0}}, {"SpecialToken": {"id": "<bos>", "type_id": 1}},
                                    {"Sequence": {"id": "B", "type_id": 1}}],
                           "special_tokens": {"<bos>": {"id": "<bos>", "ids": [2], "tokens": ["<bos>"]}}},
        "decoder": {"type": "Sequence", "decoders": [{"type": "Replace", "pattern": {"String": SP}, "content": " "},
                                                      {"type": "ByteFallback"}, {"type": "Fuse"}]},
        "model": {"type": "BPE", "dropout": None, "unk_token": "<unk>", "continuing_subword_prefix": None, "end_of_word_suffix": None,
                  "fuse_unk": True, "byte_fallback": True, "ignore_merges": False, "vocab": p.vocab,
                  "merges": [list(m) for m in merges]},
    }


def llama3(rng):
    p = Pieces(rng)
    table = byte_level_chars()
    for b in range(256):
        p.add(table[b])
    space, newline = table[ord(" ")], table[ord("\n")]
    # Two-byte characters as their byte-level spelling (é is "Ã©").
    accents = ["".join(table[b] for b in chr(c).encode()) for c in range(0xC0, 0x180)]
    target = 128000
    while len(p.vocab) < target:
        r = rng.random()
        if r < 0.05:
            chars = [space] * rng.randint(2, 8) if rng.random() < 0.5 else [newline] * rng.randint(2, 4)
        elif r < 0.1:
            chars = [rng.choice("abcdefghijklmnopqrstuvwxyz")] + [rng.choice(accents)] + list(rng.choice("aeiou"))
        else:
            chars = ([space] if r < 0.75 else []) + list(word(rng, "0123456789"))
        if len(p.vocab) + len(chars) > target:  # near the end: pieces of two characters, one new entry at most
            chars = [rng.choice(accents[:20]), rng.choice("abcdefghijklmnopqrstuvwxyz")]
        p.ensure("".join(chars), chars)
    merges = p.all_merges(280147)
    specials = ["<|begin_of_text|>", "<|end_of_text|>", "<|reserved_special_token_0|>", "<|reserved_special_token_1|>",
                "<|finetune_right_pad_id|>", "<|reserved_special_token_2|>", "<|start_header_id|>", "<|end_header_id|>",
                "<|eom_id|>", "<|eot_id|>", "<|python_tag|>"]
    specials += ["<|reserved_special_token_%d|>" % i for i in range(3, 3 + 256 - len(specials))]
    added = [{"id": target + i, "content": t, "single_word": False, "lstrip": False, "rstrip": False, "normalized": False,
              "special": True} for i, t in enumerate(specials)]
    pattern = ("(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|"
               "\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+")
    bot = {"SpecialToken": {"id": "<|begin_of_text|>", "type_id": 0}}
    return {
        "version": "1.0", "truncation": None, "padding": None, "added_tokens": added, "normalizer": None,
        "pre_tokenizer": {"type": "Sequence", "pretokenizers": [
            {"type": "Split", "pattern": {"Regex": pattern}, "behavior": "Isolated", "invert": False},
            {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": False}]},
        "post_processor": {"type": "Sequence", "processors": [
            {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": False, "use_regex": True},
            {"type": "TemplateProcessing", "single": [bot, {"Sequence": {"id": "A", "type_id": 0}}],
             "pair": [bot, {"Sequence": {"id": "A", "type_id": 0}}, {"SpecialToken": {"id": "<|begin_of_text|>", "type_id": 1}},
                      {"Sequence": {"id": "B", "type_id": 1}}],
             "special_tokens": {"<|begin_of_text|>": {"id": "<|begin_of_text|>", "ids": [target], "tokens": ["<|begin_of_text|>"]}}}]},
        "decoder": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": True},
        "model": {"type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": None, "end_of_word_suffix": None,
                  "fuse_unk": False, "byte_fallback": False, "ignore_merges": True, "vocab": p.vocab,
                  "merges": [a + " " + b for a, b in merges]},
    }


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "bench-tokenizers"
    for name, make in (("gemma3", gemma3), ("llama3", llama3)):
        doc = make(random.Random(20260301))
        os.makedirs(os.path.join(out, name), exist_ok=True)
        path = os.path.join(out, name, "tokenizer.json")
        with open(path, "w", encoding="utf-8") as f:
            json.dump(doc, f, ensure_ascii=False, indent=2)
        m = doc["model"]
        print("%s: %d vocabulary entries, %d merges, %d added tokens, %.1f MB" %
              (path, len(m["vocab"]), len(m["merges"]), len(doc["added_tokens"]), os.path.getsize(path) / 1e6))


if __name__ == "__main__":
    main()
