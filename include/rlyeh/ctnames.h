/* ctnames: the names of the CTHULHU!!! board game's cards, tiles and relics
 * in the bot's languages (enum i18n_lang). The engine's tables carry the
 * English names of the rules file; this module adds the Dutch ones, so a
 * table can name everything in the language of its messages. */
#ifndef RLYEH_CTNAMES_H
#define RLYEH_CTNAMES_H

/* The name of event card kind `kind` (0..31, E01..E32), tile `tile`
 * (0..29, T01..T30), relic type `type` (0..4) and relic id `relic`
 * (0..79, its cosmetic variant) in language `lang`. Every result is a
 * static string; an id out of range gives "?", an unknown language English. */
const char *ctnames_card(int kind, int lang);
const char *ctnames_tile(int tile, int lang);
const char *ctnames_type(int type, int lang);
const char *ctnames_relic(int relic, int lang);

#endif
