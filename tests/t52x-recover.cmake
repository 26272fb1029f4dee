hx_add_test(t520-recover)
hx_add_test(t521-coarse-start NP 1 2)
