# The limiting term (t540-t549)
hx_add_test(t540-limit NP 1 2)
hx_add_script_test(t541-cli-limit COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/t541-cli-limit.sh LABELS python)
