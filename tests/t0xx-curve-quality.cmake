# core: curving (t010-t049) and quality
hx_add_test(t010-curve-shell)
hx_add_test(t011-curve-annulus)
hx_add_test(t012-curve-box-raise)
hx_add_test(t013-curve-invalid)
hx_add_test(t014-quality)
hx_add_test(t015-quality-plot)
hx_add_test(t016-quality-mpi NP 1 2 4)
hx_add_test(t017-mesh-check-paths)
