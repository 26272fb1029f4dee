# metrics (t3xx), kernels (t4xx), optimizer (t5xx): TMOP
hx_add_test(t301-metric-derivatives)
hx_add_test(t401-pa-operators NP 1 2)
hx_add_test(t501-kershaw-optimize NP 1 2 4)
hx_add_test(t402-kershaw-energy NP 1 2)
hx_add_test(t502-curved-slide NP 1 2)
hx_add_test(t504-detj-nodes)
