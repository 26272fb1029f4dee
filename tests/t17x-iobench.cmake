# io: output size estimate and free-space check before writing (t170-t179, issue 3).
hx_add_script_test(t170-space-check COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/t170-space-check.py LABELS python)
hx_add_script_test(t171-size-estimate COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/t171-size-estimate.py LABELS python)
# MFEM itself (PyMFEM, installed by scripts/install-deps.sh in /opt/hexpack-pymfem when pip can) loads our
# .mesh; exit 77 = skipped with a message when PyMFEM is absent
hx_add_script_test(t172-mfem-pymfem COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/t172-mfem-pymfem.py LABELS python)
set_tests_properties(t172-mfem-pymfem PROPERTIES SKIP_RETURN_CODE 77)
