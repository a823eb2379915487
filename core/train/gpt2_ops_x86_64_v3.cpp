// core/train/gpt2_ops_x86_64_v3.cpp — GPT-2's passes built with -march=x86-64-v3: AVX2 + FMA (see core/train/gpt2_ops.h).
#define ATTNVIZ_KERNEL_NS build_x86_64_v3
#define ATTNVIZ_KERNEL_NAME "x86-64-v3"
#define ATTNVIZ_OPS_F32 x86_64_v3_f32
#define Eigen attnviz_eigen_gpt2_x86_64_v3
#include "core/train/gpt2_ops_impl.h"
