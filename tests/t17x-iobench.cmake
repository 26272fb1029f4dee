# io: output size estimate and free-space check before writing (t170-t179, issue 3).
hx_add_script_test(t170-space-check COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/t170-space-check.py LABELS python)
hx_add_script_test(t171-size-estimate COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/t171-size-estimate.py LABELS python)
