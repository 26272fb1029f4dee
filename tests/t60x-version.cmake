# hexpack --version: version, git commit, build and features against CMakeLists.txt, git and
# hx_config.h; the commit capture script outside git, in a fresh repository and with changes (t609)
hx_add_script_test(t609-cli-version COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/t609-cli-version.sh)
