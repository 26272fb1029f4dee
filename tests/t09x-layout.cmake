# The layout of the tree and its outputs: t090 the include rules between the parts (cli -> meshers,
# tmop, io -> kernels -> core); t091 the golden outputs (tests/golden/run.sh: a fixed set of runs whose
# files must not change while the code is reorganised; re-recorded with any change meant to change them).
hx_add_script_test(t090-include-rules COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/check_includes.py ${CMAKE_SOURCE_DIR})
hx_add_script_test(t091-golden-outputs COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/golden/run.sh check LABELS golden)
# t092: the sources as the top-level .clang-format lays them out (where clang-format is installed)
if(HX_CLANG_FORMAT)
  add_test(NAME t092-format-check COMMAND ${CMAKE_COMMAND} --build ${CMAKE_BINARY_DIR} --target format-check)
endif()
