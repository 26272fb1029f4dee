hx_add_test(t506-target-elem NP 1 2)
hx_add_test(t507-keep-sj NP 1 2)
hx_add_test(t508-detj-fine)
hx_add_test(t509-transfer NP 1 2)
