# the quality path with its order-N mesh streamed: the files of the whole mesh (t694; 'mpi' adds
# its runs on 2 ranks)
if(HX_HAVE_QHULL)
  set(t694_mpi "")
  if(HX_ENABLE_MPI)
    set(t694_mpi mpi)
  endif()
  hx_add_script_test(t694-pebble-stream-quality COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/t694-pebble-stream-quality.sh ${t694_mpi})
endif()
# packings from DEM codes (io/particles.c): every form read gives the table's mesh byte for byte
# (t692, VTK-written files need python3-vtk9), bad files and flags give one line each (t693)
if(HX_HAVE_QHULL)
  hx_add_script_test(t692-pebble-dem-inputs COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/t692-pebble-dem-inputs.py
                     LABELS python)
  hx_add_script_test(t693-pebble-dem-bad COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/t693-pebble-dem-bad.sh)
endif()
