# writers on MPI-distributed meshes (issue 3, formats): t160-t169
if(HX_ENABLE_MPI)
  # every format written on 1, 2, 4 ranks is the same file byte for byte
  hx_add_script_test(t160-mpiio-formats COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/t160-mpiio-formats.sh LABELS mpi)
  # convert and optimize under mpiexec write; optimize = 1 rank to 1e-12 (read back)
  hx_add_script_test(t161-mpiio-cli COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/t161-mpiio-cli.sh LABELS mpi)
  # unwritable paths and det J < 0 on another rank: one line, every rank non-zero, no file, no hang
  hx_add_script_test(t162-mpiio-bad COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/t162-mpiio-bad.sh LABELS mpi)
endif()
if(HX_ENABLE_MPI AND HX_HAVE_QHULL)
  # .pvtu: a piece per rank, read by VTK's parallel reader = the serial .vtu (t163)
  hx_add_script_test(t163-pvtu COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/t163-pvtu.sh LABELS mpi)
endif()
