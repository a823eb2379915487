// core/model/ops_x86_64_v3.cpp — the model's float32 loops built for x86-64-v3 (see core/model/ops.h).
#define ATTNVIZ_OPS_NS build_x86_64_v3
#define ATTNVIZ_OPS_NAME "x86-64-v3"
#define ATTNVIZ_OPS_GETTER x86_64_v3
#define Eigen attnviz_eigen_ops_x86_64_v3
#include "core/model/ops_impl.h"
