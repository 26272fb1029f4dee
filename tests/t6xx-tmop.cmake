# TMOP command line (t640-t659)
hx_add_script_test(t640-cli-optimize COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/t640-cli-optimize.sh LABELS python)
hx_add_script_test(t641-cli-bench-tmop COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/t641-cli-bench-tmop.sh LABELS python)
hx_add_script_test(t650-cli-backend-fallback COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/t650-cli-backend-fallback.sh LABELS cuda)
