/* analyze: `rlyeh analyze`, the headline numbers of Cthulhu Dice from the
 * solved tables (cdsolve.h). */
#ifndef RLYEH_ANALYZE_H
#define RLYEH_ANALYZE_H

/* Prints, for 2..CDSOLVE_MAX_CULTISTS cultists and Rival Cults 2x2 and 2x3,
 * seat 0 casting first: each seat's win chance, Cthulhu's, the expected
 * number of complete turns (exact, from the table), and what the solve
 * took (sweeps, residual, seconds, memory). --random evaluates the uniform
 * "random" policy instead. Returns 0, or 2 on a usage error. */
int analyze_main(int argc, char **argv);

#endif
