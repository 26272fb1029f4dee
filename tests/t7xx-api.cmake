# The library API (include/hexpack.h, libhexpack.so, python/): t700 a C program that sees the
# public header and the shared library only; t701 the Python package against the command line's
# own files, byte for byte, and its errors as Python exceptions with the command line's messages.
add_executable(t700-api-c t700-api-c.c)
target_link_libraries(t700-api-c PRIVATE hexpack_shared m)
target_compile_options(t700-api-c PRIVATE -Wall -Wextra)
target_compile_definitions(t700-api-c PRIVATE _POSIX_C_SOURCE=200809L)
add_test(NAME t700-api-c COMMAND t700-api-c WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
set_tests_properties(t700-api-c PROPERTIES ENVIRONMENT "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1")
hx_add_script_test(t701-api-python COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/t701-api-python.py)
set_property(TEST t701-api-python APPEND PROPERTY ENVIRONMENT
             "HEXPACK_LIBRARY=$<TARGET_FILE:hexpack_shared>;PYTHONPATH=${CMAKE_SOURCE_DIR}/python")
