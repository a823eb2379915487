// core/model/ops.cpp — the build of core/model/ops.h that matches compute_into's.
#include "core/model/ops.h"

#include "core/kernels.h"

#include <string>

namespace core::model::ops {

const Set& active() {
    const std::string name = core::kernels::active().name;
#ifdef ATTNVIZ_X86_KERNELS
    if (name == "x86-64-v4") return *x86_64_v4();
    if (name == "x86-64-v3") return *x86_64_v3();
#endif
    return *generic();
}

void product(const float* A, Index lda, const float* B, Index ldb, float* C, Index ldc, Index m, Index k, Index n) {
    active().gemm({A, lda, B, ldb, false, C, ldc, m, k, n}, false);
}

} // namespace core::model::ops
