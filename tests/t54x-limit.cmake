# The limiting term (t540-t549)
hx_add_test(t540-limit NP 1 2)
