/* Pictures of a mesh's quality, drawn with cairo (PNG or SVG by the file's extension):
   histograms of the quality measures and a planar slice through the curved elements
   (hx_slice.h) coloured by a value per element. Every picture is written through a
   temporary file renamed on success. Without cairo in the build, each call fails with a
   message saying so. */
#pragma once
#include "hx_quality.h"
#include "hx_slice.h"

/** Draw the histograms as panels of one image (2 per row, 920 pixels wide) with a title and
    write it to path (.png or .svg). */
int hx_plot_histograms(const char *path, const char *title, const hx_quality_hist *h, int num_panels);

/** The same with a slice (may be NULL) drawn above the histograms across the whole width
    (at most 640 pixels high), its elements coloured by slice->value, named value_name on the
    colour bar (NULL: "value"). num_panels may be 0 when slice is given. */
int hx_plot_quality(const char *path, const char *title, const hx_quality_hist *h, int num_panels, const hx_slice *slice,
                    const char *value_name);

/** The slice alone, width pixels wide (200..20000; the height follows the plane's aspect,
    at most 1.2 times the width), with a title line when title is not NULL. Values below 0
    are drawn red, [0, 1] (or the values' range where it is wider) on the colour scale. */
int hx_plot_slice(const char *path, const char *title, const hx_slice *slice, const char *value_name, int width);
