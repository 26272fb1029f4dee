hx_add_test(t520-recover)
hx_add_test(t521-coarse-start NP 1 2)
hx_add_test(t522-adapt-quad NP 1 2)
hx_add_script_test(t523-cli-adapt-quad COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/t523-cli-adapt-quad.sh LABELS python slow)
