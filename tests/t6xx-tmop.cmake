# TMOP command line (t640-t659)
hx_add_script_test(t640-cli-optimize COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/t640-cli-optimize.sh LABELS python)
hx_add_script_test(t641-cli-bench-tmop COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/t641-cli-bench-tmop.sh LABELS python)
hx_add_script_test(t650-cli-backend-fallback COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/t650-cli-backend-fallback.sh LABELS cuda)
hx_add_script_test(t642-cli-rods-optimize COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/t642-cli-rods-optimize.sh LABELS python)
# optimize --refine K (uniform refinement on the curved geometry) on an MFEM H1 mesh, written back as H1
hx_add_script_test(t644-cli-optimize-refine COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/t644-cli-optimize-refine.sh)
