# io: formats (writers, readers, real-reader checks). Tests t100-t199 (+ t620-t639 CLI).
add_library(hx_iotest STATIC hx_iotest.c)
target_link_libraries(hx_iotest PUBLIC hx_meshers hx_io hx_core)
hx_c_target(hx_iotest)
add_executable(hx_iotool hx_iotool.c)
target_link_libraries(hx_iotool PRIVATE hx_iotest)
hx_c_target(hx_iotool)
# round trips through our own readers, orders 1..8
hx_add_test(t101-roundtrip ARGS .vtu:1e-13 .vtu:1e-13:ascii .vtu:1e-13:zlib .vtu:1e-12:dup .vtu:1e-13:raise .re2:0 .msh:1e-13 .msh:1e-13:ascii .msh:1e-13:raise .mesh:0 LIBS hx_iotest)
# the .re2 writer's Nek5000 rule as a per-element check (hx_re2_rule) agrees with the writer
hx_add_test(t108-re2-rule LIBS hx_iotest)
# VTK itself and meshio read our .vtu; our reader reads VTK's encodings
hx_add_script_test(t102-vtu-vtk COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/t102-vtu-vtk.py LABELS python)
# the MFEM reader on files of every form made in the test (vertices, H1, L2 bases, v1.2, v1.3 names)
hx_add_script_test(t173-mfem-read COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/t173-mfem-read.py LABELS python)
# legacy .vtk written by VTK itself (types 12, 25, 29, 72; ASCII, binary; versions 4.2 and 5.1)
hx_add_script_test(t175-vtk-legacy COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/t175-vtk-legacy.py LABELS python)
# uniform refinement (optimize --refine) on curved meshes: children = parents, volume, areas, ids
hx_add_test(t177-refine LIBS hx_iotest)
# broken files: clear messages with offsets/lines, no crash, no partial output
hx_add_script_test(t150-bad-files COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/t150-bad-files.py LABELS python)
# mutation test: seeded mutations of small files per format, each read in a forked process (t153)
add_executable(hx_mutate_eval hx_mutate_eval.c)
target_link_libraries(hx_mutate_eval PRIVATE hx_io hx_core)
hx_c_target(hx_mutate_eval)
hx_add_script_test(t153-mutate COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/t153-mutate.py LABELS python)
# .msh read by our own reader: the inputs that crashed Gmsh's, bad tags, missing sections, huge tags
hx_add_script_test(t152-msh-read COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/t152-msh-read.py LABELS python)
# Nek5000 .re2: layout, Nek's sphere rule, byte orders, field file, .co2
hx_add_script_test(t103-re2 COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/t103-re2.py LABELS python)
# Nek5000's own gencon and genmap read our .re2 (pebble bed, rods, Kershaw box) and find our .co2's
# vertices; exit 77 = skipped when scripts/install-deps.sh could not build them
hx_add_script_test(t107-re2-nek5000 COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/t107-re2-nek5000.py LABELS python)
set_tests_properties(t107-re2-nek5000 PROPERTIES SKIP_RETURN_CODE 77)
# Gmsh opens our .msh (orders 1..9) with positive minSJ and equal det J; Gmsh-made meshes read back
hx_add_script_test(t104-msh-gmsh COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/t104-msh-gmsh.py LABELS python)
# io benchmark (not a test): bench/io.sh
add_executable(hx_iobench ${CMAKE_SOURCE_DIR}/bench/hx_iobench.c)
target_link_libraries(hx_iobench PRIVATE hx_meshers hx_io hx_core)
set_target_properties(hx_iobench PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bench)
hx_c_target(hx_iobench)
# Exodus II (HEX8/HEX27, named sidesets) read by netCDF4 and meshio (needs libexodusii at build time)
if(HX_HAVE_EXODUS)
  hx_add_script_test(t105-exodus COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/t105-exodus.py LABELS python)
endif()
# the .vtu's data arrays for ParaView: boundary names (FieldData), boundary_id, boundary_faces, quality
hx_add_script_test(t118-vtu-fields COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/t118-vtu-fields.py LABELS python)
