# meshers
hx_add_test(t201-box-kershaw NP 1 2 4)
