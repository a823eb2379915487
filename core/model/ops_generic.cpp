// core/model/ops_generic.cpp — the model's float32 loops built for generic (see core/model/ops.h).
#define ATTNVIZ_OPS_NS build_generic
#define ATTNVIZ_OPS_NAME "generic"
#define ATTNVIZ_OPS_GETTER generic
#define Eigen attnviz_eigen_ops_generic
#include "core/model/ops_impl.h"
