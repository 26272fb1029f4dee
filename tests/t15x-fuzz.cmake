# io: the fuzz corpus of every reader as a regression test (t151-t159; harnesses in tests/fuzz/).
add_executable(hx_fuzz_driver ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/hx_fuzz_driver.c ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/hx_fuzz.c)
target_include_directories(hx_fuzz_driver PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/fuzz)
target_link_libraries(hx_fuzz_driver PRIVATE hx_meshers hx_io hx_core)
hx_c_target(hx_fuzz_driver)
# every corpus file (minimized corpus + crashers) is read or refused with a clean one-line error
foreach(r re2 vtu mfem pebble nekfld vtk msh dem)
  set(dirs ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/corpus/${r})
  if(EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/crashers/${r})
    list(APPEND dirs ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/crashers/${r})
  endif()
  add_test(NAME t151-fuzz-corpus-${r}
    COMMAND hx_fuzz_driver ${r} ${dirs}
    WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
  set_tests_properties(t151-fuzz-corpus-${r} PROPERTIES LABELS "io;fuzz" TIMEOUT 60)
endforeach()
# Exodus II written by us, read back through libexodusii's API (t106; needs libexodusii)
if(HX_HAVE_EXODUS)
  hx_add_test(t106-exodus-libexodus LIBS hx_iotest ${EXODUS_LIBRARY})
  target_include_directories(t106-exodus-libexodus PRIVATE ${EXODUS_INCLUDE_DIR})
  # Exodus II HEX8/HEX20/HEX27 files, two blocks, named side sets, written through libexodusii and read
  hx_add_test(t176-exodus-read LIBS hx_iotest ${EXODUS_LIBRARY})
  target_include_directories(t176-exodus-read PRIVATE ${EXODUS_INCLUDE_DIR})
endif()
