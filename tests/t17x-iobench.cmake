# io: output size estimate and free-space check before writing (t170-t179, issue 3).
hx_add_script_test(t170-space-check COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/t170-space-check.py LABELS python)
hx_add_script_test(t171-size-estimate COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/t171-size-estimate.py LABELS python)
# MFEM itself (PyMFEM, installed by scripts/install-deps.sh in /opt/hexpack-pymfem when pip can) loads our
# .mesh; exit 77 = skipped with a message when PyMFEM is absent
hx_add_script_test(t172-mfem-pymfem COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/t172-mfem-pymfem.py LABELS python)
set_tests_properties(t172-mfem-pymfem PROPERTIES SKIP_RETURN_CODE 77)
# MFEM-curved meshes (H1 and L2, orders 1..4, every edge/face orientation) read with analytic
# volumes; our --mfem-nodes h1 output read back by MFEM (skips without PyMFEM)
hx_add_script_test(t174-mfem-pymfem-read COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/t174-mfem-pymfem-read.py LABELS python)
set_tests_properties(t174-mfem-pymfem-read PROPERTIES SKIP_RETURN_CODE 77)
