/* Plots of quality histograms, drawn with cairo (PNG or SVG by extension).
   Without cairo in the build, hx_plot_histograms fails with a message saying so. */
#pragma once
#include "hx_quality.h"

/** Draw the histograms as panels of one image (2 per row) with a title and write
    it to path (.png or .svg), through a temporary file renamed on success. */
int hx_plot_histograms(const char *path, const char *title, const hx_quality_hist *h, int num_panels);
