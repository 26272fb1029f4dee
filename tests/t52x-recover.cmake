hx_add_test(t520-recover)
