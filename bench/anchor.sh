# bench/anchor.sh — sourced by the benchmarks (bench/bound.sh, bench/compare.sh). Needs $attnviz; sets
#   level       the kernel level attnviz runs on (attnviz --version: ATTNVIZ_KERNELS, or the CPU's best)
#   anchor      the environment of the anchors' processes (NumPy, PyTorch): OPENBLAS_CORETYPE=SkylakeX
#               where attnviz runs x86-64-v4's kernels, Haswell (OpenBLAS's AVX2 kernels) where it runs
#               x86-64-v3's or generic ones, so that each level is compared with a library on the same
#               instructions; OpenBLAS 0.3.21 may also take a newer Xeon for an older core. Never set
#               for attnviz itself.
level=$("$attnviz" --version | sed -n 's/^kernels: \([^ ]*\).*/\1/p')
[ "$level" = x86-64-v4 ] && coretype=SkylakeX || coretype=Haswell
anchor=(env OPENBLAS_CORETYPE=$coretype OPENBLAS_NUM_THREADS=2)
