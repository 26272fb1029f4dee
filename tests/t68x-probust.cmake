# pebble mesher robustness (issue 5): t683-t685
if(HX_HAVE_QHULL)
  hx_add_test(t683-pebble-wall-facet)
endif()
if(HX_HAVE_QHULL)
  hx_add_script_test(t684-pebble-negligible COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/t684-pebble-negligible.sh)
endif()
