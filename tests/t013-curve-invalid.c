/* t013: curving says which element fails and why. (a) A thin cubed-sphere shell
   (1 <= r <= 1.05, 90-degree elements) with only its inner face on the sphere: the
   inner face bulges outward by 1 - cos(45 deg) = 0.29 through the flat outer face,
   so every element inverts; the message names an element, says it was valid at
   order 1 and that curving moved its boundary by a large part of its size.
   (b) An order-1 element that is already inverted is reported as such. (c) An
   edge on more than 4 surfaces and a face tagged with two surfaces are refused. */
#include <stdio.h>
#include <string.h>

#include "hx_curve.h"
#include "hx_test_meshes.h"

int main(int argc, char **argv) {
  tm_init(&argc, &argv);
  int fail = 0;
  hx_mesh *m, *h = NULL;
  if (tm_shell(1, 1, 1.0, 1.05, &m)) return 1;
  /* keep only the inner faces (bid 1) */
  hx_lid k = 0;
  for (hx_lid f = 0; f < m->num_faces; f++)
    if (m->faces[f].bid == 1) m->faces[k++] = m->faces[f];
  m->num_faces = k;
  int rc = hx_mesh_raise_order(m, 4, &h);
  printf("thin shell: rc %d too_coarse %d\n", rc, strstr(hx_error_message(), "too coarse for the surface curvature") != NULL);
  printf("  %s\n", hx_error_message());
  if (rc != HX_ERR_INVALID_MESH || !strstr(hx_error_message(), "6 element(s) have det J <= 0") || h) fail = 1;
  hx_error_clear();
  hx_mesh_destroy(&m);

  /* (b) swap two corners of one element of a good shell */
  if (tm_shell(1, 1, 1.0, 2.0, &m)) return 1;
  for (int c = 0; c < 3; c++) {
    double *x = hx_mesh_elem_x(m, 2, c);
    double t = x[0];
    x[0] = x[1];
    x[1] = t;
  }
  hx_gid t = m->vert_id[16];
  m->vert_id[16] = m->vert_id[17];
  m->vert_id[17] = t;
  rc = hx_mesh_raise_order(m, 3, &h);
  printf("inverted input: rc %d already_inverted %d\n", rc, strstr(hx_error_message(), "already inverted at order 1") != NULL);
  printf("  %s\n", hx_error_message());
  if (rc != HX_ERR_INVALID_MESH || !strstr(hx_error_message(), "element 2 ") || h) fail = 1;
  hx_error_clear();
  hx_mesh_destroy(&m);

  /* (c) a face tagged twice with different surfaces */
  if (tm_shell(1, 1, 1.0, 2.0, &m)) return 1;
  hx_mesh_add_face(m, 0, 4, 2, 1);
  rc = hx_mesh_raise_order(m, 3, &h);
  printf("face on two surfaces: rc %d  %s\n", rc, hx_error_message());
  if (rc != HX_ERR_INPUT || h) fail = 1;
  hx_error_clear();
  hx_mesh_destroy(&m);
  return tm_finalize(fail);
}
