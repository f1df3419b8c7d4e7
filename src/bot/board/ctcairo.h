/* ctcairo: the drawing library, loaded when the first picture is drawn.
 * Private to src/bot/board.
 *
 * A daemon that never draws a map (no board game played since it started)
 * does not map cairo and what it brings (pixman, fontconfig, freetype, the
 * X libraries: about 1.7 MiB resident). The files of the picture include
 * this header after <cairo.h> and call cairo's functions by their names,
 * which it turns into calls through ctcairo_fn, filled by ctcairo_load from
 * the shared library's symbols (the same functions, found by dlsym).
 * Every drawing starts from a surface: each place that makes one calls
 * ctcairo_load first and draws nothing when it fails. */
#ifndef RLYEH_CTCAIRO_H
#define RLYEH_CTCAIRO_H

#include <cairo.h>

#define CTCAIRO_SONAME  "libcairo.so.2"
#define CTCAIRO_FC_FINI "FcFini" /* fontconfig's, through cairo's dependencies */

/* The functions of cairo the picture uses. */
#define CTCAIRO_FUNCTIONS(X)                                                                       \
	X(arc)                                                                                     \
	X(clip)                                                                                    \
	X(close_path)                                                                              \
	X(create)                                                                                  \
	X(curve_to)                                                                                \
	X(debug_reset_static_data)                                                                 \
	X(destroy)                                                                                 \
	X(fill)                                                                                    \
	X(fill_preserve)                                                                           \
	X(font_options_create)                                                                     \
	X(font_options_destroy)                                                                    \
	X(font_options_set_antialias)                                                              \
	X(font_options_set_hint_metrics)                                                           \
	X(font_options_set_hint_style)                                                             \
	X(image_surface_create)                                                                    \
	X(image_surface_get_data)                                                                  \
	X(image_surface_get_height)                                                                \
	X(image_surface_get_stride)                                                                \
	X(image_surface_get_width)                                                                 \
	X(line_to)                                                                                 \
	X(move_to)                                                                                 \
	X(new_sub_path)                                                                            \
	X(paint)                                                                                   \
	X(rectangle)                                                                               \
	X(rel_line_to)                                                                             \
	X(restore)                                                                                 \
	X(save)                                                                                    \
	X(scale)                                                                                   \
	X(select_font_face)                                                                        \
	X(set_dash)                                                                                \
	X(set_font_options)                                                                        \
	X(set_font_size)                                                                           \
	X(set_line_width)                                                                          \
	X(set_source_rgba)                                                                         \
	X(show_text)                                                                               \
	X(status)                                                                                  \
	X(stroke)                                                                                  \
	X(surface_destroy)                                                                         \
	X(surface_flush)                                                                           \
	X(surface_status)                                                                          \
	X(text_extents)                                                                            \
	X(translate)

struct ctcairo_fns {
#define CTCAIRO_FIELD(name) __typeof__(cairo_##name) *name;
	CTCAIRO_FUNCTIONS(CTCAIRO_FIELD)
#undef CTCAIRO_FIELD
	void (*fc_fini)(void);
};

/* The table; every pointer NULL until ctcairo_load succeeds. */
extern struct ctcairo_fns ctcairo_fn;

/* Loads cairo and fills ctcairo_fn, once per process (thread-safe).
 * Returns 0 when it is loaded, or -1 when it could not be (the library or
 * a function missing: logged once to stderr, the table left empty, and
 * every later call returns -1 at once). */
int ctcairo_load(void);

/* 1 when ctcairo_load succeeded in this process (it loads nothing). */
int ctcairo_loaded(void);

#define cairo_arc                           ctcairo_fn.arc
#define cairo_clip                          ctcairo_fn.clip
#define cairo_close_path                    ctcairo_fn.close_path
#define cairo_create                        ctcairo_fn.create
#define cairo_curve_to                      ctcairo_fn.curve_to
#define cairo_debug_reset_static_data       ctcairo_fn.debug_reset_static_data
#define cairo_destroy                       ctcairo_fn.destroy
#define cairo_fill                          ctcairo_fn.fill
#define cairo_fill_preserve                 ctcairo_fn.fill_preserve
#define cairo_font_options_create           ctcairo_fn.font_options_create
#define cairo_font_options_destroy          ctcairo_fn.font_options_destroy
#define cairo_font_options_set_antialias    ctcairo_fn.font_options_set_antialias
#define cairo_font_options_set_hint_metrics ctcairo_fn.font_options_set_hint_metrics
#define cairo_font_options_set_hint_style   ctcairo_fn.font_options_set_hint_style
#define cairo_image_surface_create          ctcairo_fn.image_surface_create
#define cairo_image_surface_get_data        ctcairo_fn.image_surface_get_data
#define cairo_image_surface_get_height      ctcairo_fn.image_surface_get_height
#define cairo_image_surface_get_stride      ctcairo_fn.image_surface_get_stride
#define cairo_image_surface_get_width       ctcairo_fn.image_surface_get_width
#define cairo_line_to                       ctcairo_fn.line_to
#define cairo_move_to                       ctcairo_fn.move_to
#define cairo_new_sub_path                  ctcairo_fn.new_sub_path
#define cairo_paint                         ctcairo_fn.paint
#define cairo_rectangle                     ctcairo_fn.rectangle
#define cairo_rel_line_to                   ctcairo_fn.rel_line_to
#define cairo_restore                       ctcairo_fn.restore
#define cairo_save                          ctcairo_fn.save
#define cairo_scale                         ctcairo_fn.scale
#define cairo_select_font_face              ctcairo_fn.select_font_face
#define cairo_set_dash                      ctcairo_fn.set_dash
#define cairo_set_font_options              ctcairo_fn.set_font_options
#define cairo_set_font_size                 ctcairo_fn.set_font_size
#define cairo_set_line_width                ctcairo_fn.set_line_width
#define cairo_set_source_rgba               ctcairo_fn.set_source_rgba
#define cairo_show_text                     ctcairo_fn.show_text
#define cairo_status                        ctcairo_fn.status
#define cairo_stroke                        ctcairo_fn.stroke
#define cairo_surface_destroy               ctcairo_fn.surface_destroy
#define cairo_surface_flush                 ctcairo_fn.surface_flush
#define cairo_surface_status                ctcairo_fn.surface_status
#define cairo_text_extents                  ctcairo_fn.text_extents
#define cairo_translate                     ctcairo_fn.translate

#endif
