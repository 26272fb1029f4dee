# core: bases, mesh invariants
hx_add_test(t001-basis)
