// core/kernels_x86_64_v4.cpp — the kernels built with -march=x86-64-v4: AVX-512 F/BW/CD/DQ/VL (see core/kernels.h).
#define ATTNVIZ_KERNEL_NS build_x86_64_v4
#define ATTNVIZ_KERNEL_NAME "x86-64-v4"
#define ATTNVIZ_KERNEL_GETTER x86_64_v4
#define Eigen attnviz_eigen_x86_64_v4
#include "core/kernels_impl.h"
