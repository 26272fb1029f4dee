# rod-bundle mesher (meshers/rodbundle, meshers/qhull/power2d.c): t220-t249, CLI t660-t679
hx_add_test(t220-rods-power2d)
hx_add_test(t221-rods-pwr17x17)
hx_add_test(t222-rods-area)
hx_add_test(t223-rods-hex37)
hx_add_script_test(t660-rods-cli COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/t660-rods-cli.sh LABELS python)
hx_add_test(t224-rods-options NP 1 2)
