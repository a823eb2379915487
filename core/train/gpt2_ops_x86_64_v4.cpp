// core/train/gpt2_ops_x86_64_v4.cpp — GPT-2's passes built with -march=x86-64-v4: AVX-512 (see core/train/gpt2_ops.h).
#define ATTNVIZ_KERNEL_NS build_x86_64_v4
#define ATTNVIZ_KERNEL_NAME "x86-64-v4"
#define ATTNVIZ_OPS_F32 x86_64_v4_f32
#define Eigen attnviz_eigen_gpt2_x86_64_v4
#include "core/train/gpt2_ops_impl.h"
