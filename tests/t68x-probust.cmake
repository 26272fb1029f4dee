# pebble mesher robustness (issue 5): t683 (and its thin columns), t684, t687; t688 the facet-node smoothing and radial spacing;
# t685 the radial layers graded by column height (--grade-height); t690 the tessellation sized for
# the aspect ratio (--aspect), t691 its tail. The script tests take 'mpi' to add their runs on 2 ranks.
if(HX_HAVE_QHULL)
  set(hx_probust_mpi "")
  if(HX_ENABLE_MPI)
    set(hx_probust_mpi mpi)
  endif()
  hx_add_test(t683-pebble-wall-facet)
  foreach(bed seed1 seed5-poly seed11)
    add_test(NAME t683-pebble-thin-column-${bed}
      COMMAND t683-pebble-wall-facet ${CMAKE_CURRENT_SOURCE_DIR}/data/pebble-thin-column-${bed}.txt 3 0)
  endforeach()
  # a sphere-wall bridge on a wall facet meshed in the unrolled cylinder chart (its circle's
  # nodes were placed at arc length rb, off the bridge's side)
  add_test(NAME t683-pebble-unrolled-bridge
    COMMAND t683-pebble-wall-facet ${CMAKE_CURRENT_SOURCE_DIR}/data/pebble-unrolled-bridge-seed4.txt 3 0)
  hx_add_script_test(t684-pebble-negligible COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/t684-pebble-negligible.sh)
  foreach(t t687-pebble-repair t688-pebble-smooth t685-pebble-grade-height t690-pebble-aspect t691-pebble-aspect-tail)
    hx_add_script_test(${t} COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/${t}.sh ${hx_probust_mpi})
  endforeach()
endif()
