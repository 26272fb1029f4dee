# TMOP CPU kernels and optimizer, second set (t403-t449, t503-t549)
hx_add_test(t403-pa-strategies-threads NP 1 2)
hx_add_test(t505-kershaw-fixed NP 1 2)
