# metrics (t3xx), kernels (t4xx), optimizer (t5xx): TMOP
hx_add_test(t301-metric-derivatives)
