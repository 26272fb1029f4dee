# pebble mesher robustness (issue 5): t683-t685
if(HX_HAVE_QHULL)
  hx_add_test(t683-pebble-wall-facet)
endif()
