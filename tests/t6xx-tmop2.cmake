# TMOP command line, second set (t643-t649)
hx_add_script_test(t643-cli-optimize-bad-input COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/t643-cli-optimize-bad-input.sh LABELS python)
