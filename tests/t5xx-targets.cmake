hx_add_test(t506-target-elem NP 1 2)
