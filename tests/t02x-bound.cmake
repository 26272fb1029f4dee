# core: proven validity, the Bernstein lower bound of det J (t020-t029)
hx_add_test(t020-detj-bound)
hx_add_test(t021-detj-bound-cost)
hx_add_test(t022-quality-validity)
