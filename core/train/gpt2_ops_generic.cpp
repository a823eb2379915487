// core/train/gpt2_ops_generic.cpp — GPT-2's passes built with the build's own flags (SSE2 on x86-64),
// in float32 and in float64 (see core/train/gpt2_ops.h).
#define ATTNVIZ_KERNEL_NS build_generic
#define ATTNVIZ_KERNEL_NAME "generic"
#define ATTNVIZ_OPS_F32 generic_f32
#define ATTNVIZ_OPS_F64 generic_f64
#define Eigen attnviz_eigen_gpt2_generic
#include "core/train/gpt2_ops_impl.h"
