// core/model/ops_x86_64_v4.cpp — the model's float32 loops built for x86-64-v4 (see core/model/ops.h).
#define ATTNVIZ_OPS_NS build_x86_64_v4
#define ATTNVIZ_OPS_NAME "x86-64-v4"
#define ATTNVIZ_OPS_GETTER x86_64_v4
#define Eigen attnviz_eigen_ops_x86_64_v4
#define ATTNVIZ_OPS_ONEDNN // two or more rows on oneDNN's sgemm, whose AVX-512 kernels this build was measured on
#include "core/model/ops_impl.h"
