# CLI end to end (t600-t619: bad input, quality/convert/demo)
hx_add_script_test(t600-cli-bad-input COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/t600-cli-bad-input.sh)
