// core/kernels_x86_64_v3.cpp — the kernels built with -march=x86-64-v3: AVX2 + FMA (see core/kernels.h).
#define ATTNVIZ_KERNEL_NS build_x86_64_v3
#define ATTNVIZ_KERNEL_NAME "x86-64-v3"
#define ATTNVIZ_KERNEL_GETTER x86_64_v3
#define Eigen attnviz_eigen_x86_64_v3
#include "core/kernels_impl.h"
