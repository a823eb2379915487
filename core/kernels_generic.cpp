// core/kernels_generic.cpp — the kernels built with the build's own flags (SSE2 on x86-64) (see core/kernels.h).
#define ATTNVIZ_KERNEL_NS build_generic
#define ATTNVIZ_KERNEL_NAME "generic"
#define ATTNVIZ_KERNEL_GETTER generic
#define Eigen attnviz_eigen_generic
#include "core/kernels_impl.h"
