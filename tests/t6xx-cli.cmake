# CLI end to end (t600-t619: bad input, quality/convert/demo)
hx_add_script_test(t600-cli-bad-input COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/t600-cli-bad-input.sh)
hx_add_script_test(t601-cli-quality-kershaw COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/t601-cli-quality-kershaw.sh)
hx_add_script_test(t602-cli-demo-convert COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/t602-cli-demo-convert.sh)
hx_add_script_test(t603-cli-unwritable COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/t603-cli-unwritable.sh)
hx_add_script_test(t604-cli-output-forms COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/t604-cli-output-forms.sh)
# all outputs or none: checks before work, failures while writing, the .re2/field-file link (t605);
# signals at random moments of a multi-output write (t606)
hx_add_script_test(t605-cli-all-or-none COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/t605-cli-all-or-none.sh)
hx_add_script_test(t606-cli-kill COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/t606-cli-kill.sh)
# geometry that cannot be meshed or solved: a sphere outside the bed, overflowing coordinates (t607)
hx_add_script_test(t607-cli-bad-geometry COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/t607-cli-bad-geometry.sh)
# the rods summary's min det J is the written mesh's (t608)
hx_add_script_test(t608-cli-rods-detj COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/t608-cli-rods-detj.sh)
# the option tables (t620): every flag of every command parses, shows in --help with its default,
# comes back in the --json echo; bad values and unknown flags; --man and --completion from the
# tables. One JSON document per run for every command (t621); progress and logs while a run
# redirected to a file goes on (t622).
hx_add_script_test(t620-cli-options COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/t620-cli-options.py LABELS python)
hx_add_script_test(t621-cli-json COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/t621-cli-json.sh LABELS python)
hx_add_script_test(t622-cli-progress COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/t622-cli-progress.sh)
# quality pictures: the slice through the mesh and the histograms, PNG and SVG (t609)
hx_add_script_test(t610-cli-plot COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/t610-cli-plot.sh)
hx_add_script_test(t611-readme COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/t611-readme.sh)
