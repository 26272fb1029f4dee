# CUDA backend (t450-t499): built everywhere; without a device they print a skip line and pass.
hx_add_test(t450-cuda-pa LABELS cuda)
hx_add_test(t451-cuda-newton LABELS cuda)
# hx_pa_create (hx_kernels_cpu) calls the metric registry of hx_tmop: list it again after
target_link_libraries(t450-cuda-pa PRIVATE hx_tmop)
# device-resident Newton with MPI (host exchange of shared nodes) and curved sliding nodes
hx_add_test(t452-cuda-newton-dist NP 1 2 4 LABELS cuda mpi)
hx_add_test(t453-cuda-detj-bound LABELS cuda)
hx_add_test(t454-cuda-adapt LABELS cuda)
hx_add_test(t455-cuda-detj-auto-fine LABELS cuda)
# the points' det J on the GPU (the fold tests of the hold-back and the transfer) against the CPU
hx_add_test(t456-cuda-detj-points LABELS cuda)
hx_add_test(t457-cuda-two-level LABELS cuda)
