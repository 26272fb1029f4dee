/* Packings from DEM codes: the centres and radii of spherical particles read from the files
   that DEM codes and their post-processing write, the form told from the content.

   Forms (docs/pebble.md, "Packings from DEM codes"):
     HX_PARTICLES_TABLE   lines of 'x y z [r]' (read by the pebble mesher's hx_pebble_bed_read)
     HX_PARTICLES_LAMMPS  LAMMPS / LIGGGHTS dump files ('ITEM: TIMESTEP', 'ITEM: ATOMS id type x y z radius')
     HX_PARTICLES_CSV     a table with a header line naming its columns (x, y, z, r / radius / diameter)
     HX_PARTICLES_VTKXML  VTK XML files (.vtu, .vtp): points with a radius or diameter point-data array
     HX_PARTICLES_VTK     legacy VTK files (.vtk, ASCII or BINARY), likewise

   Usage:
     int form;
     HX_CALL(hx_particles_detect(path, &form));
     if (form != HX_PARTICLES_TABLE) {
       hx_particles_opts o; hx_particles_opts_default(&o); o.scale = 1e-3;
       hx_particles *p;
       HX_CALL(hx_particles_read(path, &o, &p));      p->n centres p->xyz, radii p->r
       ...
       hx_particles_destroy(&p);
     } */
#pragma once
#include <stdint.h>

enum { HX_PARTICLES_TABLE = 0, HX_PARTICLES_LAMMPS, HX_PARTICLES_CSV, HX_PARTICLES_VTKXML, HX_PARTICLES_VTK };

typedef struct hx_particles_opts {
  double radius;      /* radius of every particle of a file without a radius or diameter column (in the
                         output's units, not scaled); 0: such a file is an error */
  double scale;       /* every length read from the file is multiplied by this (default 1) */
  int timestep_given; /* LAMMPS dumps: 1 = read the snapshot of `timestep`, 0 = the last one */
  int64_t timestep;   /* the TIMESTEP value to read; HX_PARTICLES_FIRST: the first snapshot */
} hx_particles_opts;
#define HX_PARTICLES_FIRST INT64_MIN

typedef struct hx_particles {
  int64_t n;
  double *xyz;           /* [n][3] centres */
  double *r;             /* [n] radii */
  int *line;             /* [n] the line of the file each particle was read from (0: none, binary data) */
  int form;              /* HX_PARTICLES_* */
  int64_t timestep;      /* LAMMPS: the TIMESTEP of the snapshot read */
  int64_t num_timesteps; /* LAMMPS: snapshots in the file (read up to the chosen one) */
} hx_particles;

void hx_particles_opts_default(hx_particles_opts *o);
/** The form of a packing file from its first bytes (HX_PARTICLES_*). A table is a file whose first
    line that is neither blank nor a '#' comment starts with a number; a line starting with a word
    is a CSV header. HX_ERR_IO when the file cannot be read, HX_ERR_INPUT for a directory or a
    compressed file. */
int hx_particles_detect(const char *path, int *form);
/** The name of a form ("table", "lammps", "csv", "vtk-xml", "vtk"). */
const char *hx_particles_form_name(int form);
/** Read a packing file of any form but HX_PARTICLES_TABLE. LAMMPS dumps are ordered by the atom id
    when they have an id column (the rows of a snapshot come in any order). Every error is one line
    naming path:line and what was expected (missing columns, NaN or infinity, a non-positive
    radius, a layout that is none of the forms). *out is owned by the caller. */
int hx_particles_read(const char *path, const hx_particles_opts *o, hx_particles **out);
void hx_particles_destroy(hx_particles **p);
