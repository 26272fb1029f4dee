# Untangling (t530-t539): the test set made by the test, untangled and optimized, proven valid.
hx_add_test(t530-untangle NP 1 2 ARGS cpu LABELS slow)
# the same on the CUDA backend (prints a skip line and passes without a device)
add_test(NAME t530-untangle-cuda COMMAND t530-untangle cuda)
set_tests_properties(t530-untangle-cuda PROPERTIES LABELS "cuda;slow" ENVIRONMENT "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1")
hx_add_script_test(t531-cli-untangle COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/t531-cli-untangle.sh LABELS python mpi)
