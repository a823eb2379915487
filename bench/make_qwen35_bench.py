#!/usr/bin/python3
"""Writes a GGUF file of Qwen3.5's smallest text model's shapes (Qwen/Qwen3.5-0.8B's text_config: 24
layers of width 1024, three Gated DeltaNet layers of 16 heads of 128 to each gated full-attention
layer of 8 query and 2 key heads of 256, an MLP of 3584, a vocabulary of 248320 tied to the
embeddings), with random weights, as llama.cpp's converter lays out a qwen35 file, for the benchmark
bench/bench_qwen35.sh: attnviz and llama.cpp both open it.

    /usr/bin/python3 bench/make_qwen35_bench.py OUT.gguf      about 0.8 GB: Q8_0 matrices, F32 else

The matrices are random Q8_0 blocks (bench/make_moe_bench.py's), the norms 1 (the file holds 1 + w),
ssm_a −1 (a decay rate), dt and the conv kernel small. Needs numpy."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_moe_bench  # noqa: E402


def qwen35_0_8b():
    D, L, H, KV, dh, F, V = 1024, 24, 8, 2, 256, 3584, 248320
    Hk, Hv, dk, kernel = 16, 16, 128, 4
    K, Vd = Hk * dk, Hv * dk
    meta = {"context_length": 262144, "embedding_length": D, "block_count": L, "feed_forward_length": F,
            "attention.head_count": H, "attention.head_count_kv": KV, "attention.key_length": dh, "attention.value_length": dh,
            "attention.layer_norm_rms_epsilon": 1e-6, "rope.freq_base": 10000000.0, "rope.dimension_count": dh // 4,
            "rope.dimension_sections": [11, 11, 10, 0], "ssm.conv_kernel": kernel, "ssm.state_size": dk, "ssm.group_count": Hk,
            "ssm.time_step_rank": Hv, "ssm.inner_size": Vd, "full_attention_interval": 4}
    tensors = [("token_embd.weight", (V, D), "Q8_0", 0), ("output_norm.weight", (D,), "F32", 1)]
    for l in range(L):
        p = f"blk.{l}."
        tensors += [(p + "attn_norm.weight", (D,), "F32", 1), (p + "post_attention_norm.weight", (D,), "F32", 1),
                    (p + "ffn_gate.weight", (F, D), "Q8_0", 0), (p + "ffn_up.weight", (F, D), "Q8_0", 0),
                    (p + "ffn_down.weight", (D, F), "Q8_0", 0)]
        if (l + 1) % 4 == 0:
            tensors += [(p + "attn_q.weight", (2 * H * dh, D), "Q8_0", 0), (p + "attn_k.weight", (KV * dh, D), "Q8_0", 0),
                        (p + "attn_v.weight", (KV * dh, D), "Q8_0", 0), (p + "attn_output.weight", (D, H * dh), "Q8_0", 0),
                        (p + "attn_q_norm.weight", (dh,), "F32", 1), (p + "attn_k_norm.weight", (dh,), "F32", 1)]
        else:
            tensors += [(p + "attn_qkv.weight", (2 * K + Vd, D), "Q8_0", 0), (p + "attn_gate.weight", (Vd, D), "Q8_0", 0),
                        (p + "ssm_beta.weight", (Hv, D), "Q8_0", 0), (p + "ssm_alpha.weight", (Hv, D), "Q8_0", 0),
                        (p + "ssm_conv1d.weight", (2 * K + Vd, kernel), "F32", None), (p + "ssm_dt.bias", (Hv,), "F32", 0),
                        (p + "ssm_a", (Hv,), "F32", -1), (p + "ssm_norm.weight", (dk,), "F32", 1),
                        (p + "ssm_out.weight", (D, Vd), "Q8_0", 0)]
    return "qwen35", meta, tensors, V


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    make_moe_bench.write_file(sys.argv[1], "qwen3.5-0.8b", *qwen35_0_8b())
