# pebble-bed mesh quality (issue 5, s3-pquality): pinned figures of pb67
if(HX_HAVE_QHULL)
  hx_add_script_test(t253-pebble-quality COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/t253-pebble-quality.sh)
endif()
