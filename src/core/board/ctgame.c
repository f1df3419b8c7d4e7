#include "rlyeh/ctgame.h"

#include <assert.h>
#include <stdio.h>
#include <string.h>

/* ---- tables (§12.2, §13) ---- */

static const struct ctgame_card_info cards[CTGAME_KINDS] = {
	{ "E01", "Trench Knife", 2, CC_WEAPON, 0, 0 },
	{ "E02", "Whaler's Harpoon", 2, CC_WEAPON, 0, 3 },
	{ "E03", "Gangland Chopper", 2, CC_WEAPON, 0, 0 },
	{ "E04", "Coach Gun", 2, CC_WEAPON, 0, 4 },
	{ "E05", "Silvered Sword-Cane", 1, CC_WEAPON, 0, 0 },
	{ "E06", "Laudanum Flask", 2, CC_ITEM, 0, 0 },
	{ "E07", "Surgeon's Satchel", 2, CC_ITEM, 0, 0 },
	{ "E08", "Blessed Candle", 2, CC_ITEM, 0, 0 },
	{ "E09", "Elder Sign", 2, CC_MOVEMENT, 0, 0 },
	{ "E10", "Borrowed Roadster", 2, CC_MOVEMENT, 0, 0 },
	{ "E11", "Harbour Fog", 2, CC_MOVEMENT, 0, 0 },
	{ "E12", "Sanctuary Bells", 1, CC_MOVEMENT, 0, 0 },
	{ "E13", "Second Wind", 2, CC_INSTANT, 0, 0 },
	{ "E14", "Steady Nerves", 2, CC_INSTANT, 0, 0 },
	{ "E15", "Deadeye", 2, CC_INSTANT, 0, 0 },
	{ "E16", "Cartridge Stash", 2, CC_INSTANT, 0, 0 },
	{ "E17", "Hymn at Dawn", 1, CC_INSTANT, 0, 0 },
	{ "E18", "Surveyor's Notes", 2, CC_INSTANT, 0, 0 },
	{ "E19", "Banishing Rite", 1, CC_INSTANT, 0, 0 },
	{ "E20", "Antiquarian's Eye", 1, CC_INSTANT, 0, 0 },
	{ "E21", "Scatter the Faithful", 1, CC_INSTANT, 0, 0 },
	{ "E22", "Whispers in the Walls", 2, CC_AUTOMATIC, 3, 0 },
	{ "E23", "Knock at the Door", 2, CC_AUTOMATIC, 5, 0 },
	{ "E24", "Wings Overhead", 2, CC_AUTOMATIC, 6, 0 },
	{ "E25", "Twisted Ankle", 1, CC_AUTOMATIC, 4, 0 },
	{ "E26", "Jammed Action", 1, CC_AUTOMATIC, 1, 0 },
	{ "E27", "Wet Powder", 1, CC_AUTOMATIC, 2, 0 },
	{ "E28", "Bad Omen", 1, CC_AUTOMATIC, 7, 0 },
	{ "E29", "Back-Alley Brawl", 1, CC_PVP, 0, 0 },
	{ "E30", "Call of the Yellow Sign", 1, CC_PVP, 0, 0 },
	{ "E31", "Light Fingers", 1, CC_PVP, 0, 0 },
	{ "E32", "Sent Your Way", 1, CC_PVP, 0, 0 },
};

static const char *const type_names[CTGAME_TYPES] = { "Amulet", "Dagger", "Idol", "Space Mead",
	                                              "Tome" };

static const char *const variants[CTGAME_TYPES][4] = {
	{ "Jade Scarab", "Tarnished Locket", "Bone Medallion", "Star-Stone Pendant" },
	{ "Obsidian Athame", "Wavy Kris", "Rusted Dirk", "Hooked Blade" },
	{ "Squatting Toad", "Pallid Mask", "Coral Figurine", "Winged Effigy" },
	{ "Golden Flask", "Stoppered Vial", "Amber Phial", "Honeyed Draught" },
	{ "Unbound Folio", "Annotated Grimoire", "Sailor's Codex", "Play-Script in Yellow" },
};

/* First card id of each kind, computed once from the counts. */
static int8_t first_card[CTGAME_KINDS + 1];
static int8_t kind_of[CTGAME_CARDS];

static void tables(void)
{
	if (first_card[CTGAME_KINDS])
		return;
	int id = 0;
	for (int k = 0; k < CTGAME_KINDS; k++) {
		first_card[k] = (int8_t)id;
		for (int c = 0; c < cards[k].count; c++)
			kind_of[id++] = (int8_t)k;
	}
	assert(id == CTGAME_CARDS);
	first_card[CTGAME_KINDS] = (int8_t)id;
}

const struct ctgame_card_info *ctgame_card(int kind)
{
	return kind >= 0 && kind < CTGAME_KINDS ? &cards[kind] : NULL;
}

int ctgame_card_kind(int card)
{
	tables();
	return card >= 0 && card < CTGAME_CARDS ? kind_of[card] : -1;
}

const char *ctgame_type_name(int type)
{
	return type >= 0 && type < CTGAME_TYPES ? type_names[type] : "?";
}

const char *ctgame_relic_variant(int relic)
{
	if (relic < 0 || relic >= CTGAME_RELICS)
		return "?";
	return variants[relic / 16][(relic % 16) / 4];
}

/* ---- phases ---- */

/* The internal program counter. Phases up to PH_LAST_INPUT wait for input;
 * the others run on their own. */
enum phase {
	PH_OVER,
	/* chance */
	PH_DEALER,
	PH_DEAL,
	PH_DRAW_CARD,
	PH_DRAW_RELIC,
	PH_DRAW_TILE,
	PH_DIE,
	/* choices */
	PH_AUTOMATIC,
	PH_PLAY,
	PH_TILE,
	PH_REMOVE,
	PH_TOKENS,
	PH_SITE_BYAKHEE,
	PH_WEAPON,
	PH_FAILED,
	PH_MOVE,
	PH_FIGURE,
	PH_DEST,
	PH_RESEED,
	PH_RELIC_LOSS,
	PH_DISCARD,
	PH_TARGET,
	PH_SQUARE,
	PH_RELIC_TAKE,
	PH_LAST_INPUT = PH_RELIC_TAKE,
	/* automatic */
	PH_TURN,
	PH_STEP1_DONE,
	PH_STEP2,
	PH_STEP3,
	PH_STEP4,
	PH_STEP4_DONE,
	PH_STEP5,
	PH_STEP6,
	PH_RW,
	PH_RW_DONE,
	PH_MOVE_ENTER,
	PH_MOVE_ENTER2,
	PH_MOVE_FOUGHT,
	PH_MOVE_END,
	PH_STEP8,
	PH_STEP9,
	PH_STEP10,
	PH_STEP10_NEXT,
	PH_STEP11,
	PH_END_TURN,
	PH_TILE_BEGIN,
	PH_TILE_PLACED,
	PH_FIGHT_CHECK,
	PH_FIGHT_WON,
	PH_DEFEAT_END,
	PH_ELDER_CHECK,
	PH_ELDER_DONE,
	PH_SUMMONED,
};

/* Turn flags (g->flags). */
enum {
	F_INSANE = 1,     /* B30 */
	F_DEFEATED = 2,   /* B35 */
	F_SKIP67 = 4,     /* E12, E25 */
	F_JAMMED = 8,     /* E26 */
	F_ELDER = 16,     /* E09, B21 */
	F_MOVE_OVER = 32, /* movement ended (B22) */
	F_ABORT = 64,     /* the active player was eliminated: the turn ends (B17) */
	F_MOVING = 128,   /* step 7 is in progress */
};

/* Fight flags (g->fflags). */
enum {
	FF_NERVES = 1,  /* E14: skip the sanity check that is due */
	FF_CANDLE = 2,  /* E08 used in this fight */
	FF_CHECKED = 4, /* the fight's sanity check is done (B25) */
	FF_FOUGHT = 8,  /* a fight happened on the square just entered */
	FF_CS = 16,     /* the CS moment of this fight is past */
};

/* What figure choices are for (g->fmode). */
enum {
	FM_CULTISTS, /* step 8 */
	FM_BYAKHEE,  /* step 9 */
	FM_SCATTER,  /* E21 */
	FM_YELLOW,   /* E30 */
	FM_SENT,     /* E32 */
	FM_KNOCK,    /* E23 (squares) */
};

static void push(struct ctgame *g, int phase)
{
	assert(g->sp < CTGAME_STACK);
	g->stack[g->sp++] = (uint8_t)phase;
}

static void call(struct ctgame *g, int phase, int ret)
{
	push(g, ret);
	g->phase = (uint8_t)phase;
}

static void ret(struct ctgame *g)
{
	assert(g->sp > 0);
	g->phase = g->stack[--g->sp];
}

static int halted(const struct ctgame *g)
{
	return g->end != CE_PLAYING || (g->flags & F_ABORT);
}

/* ---- small queries ---- */

static int tile_of(int sq)
{
	return sq / 9;
}

static int is_site(int tile)
{
	return tile >= CTMAP_SITE_FIRST && tile < CTMAP_SITE_FIRST + CTMAP_SITES;
}

/* A site on the map, face up. */
static int unresolved(const struct ctgame *g, int tile)
{
	return is_site(tile) && g->map.where[tile] == CTMAP_PLACED;
}

static int interior(const struct ctgame *g, int sq)
{
	int k = ctmap_square_kind(&g->map, sq);
	return k == CTMAP_INTERIOR || k == CTMAP_ENTRANCE;
}

/* The pawn is on an interior square of the named building `tile` (B48). */
static int inside(const struct ctgame *g, int seat, int tile)
{
	int sq = g->p[seat].sq;
	return sq >= 0 && tile_of(sq) == tile && interior(g, sq);
}

static int inside_named(const struct ctgame *g, int seat)
{
	int sq = g->p[seat].sq;
	return sq >= 0 && ctmap_tile(tile_of(sq))->cls == CTMAP_CLASS_BUILDING && interior(g, sq);
}

static int enemies_on_tile(const struct ctgame *g, int tile)
{
	for (int l = 0; l < 9; l++)
		if (g->square[tile * 9 + l] & (CS_CULTIST | CS_BYAKHEE))
			return 1;
	return 0;
}

int ctgame_in_hand(const struct ctgame *g, int seat, int kind)
{
	int n = 0;
	tables();
	for (int c = first_card[kind]; c < first_card[kind + 1]; c++)
		n += g->card_at[c] == CW_HAND + seat;
	return n;
}

int ctgame_in_play(const struct ctgame *g, int seat, int kind)
{
	tables();
	for (int c = first_card[kind]; c < first_card[kind + 1]; c++)
		if (g->card_at[c] == CW_PLAY + seat)
			return c;
	return -1;
}

static int hand_card(const struct ctgame *g, int seat, int kind)
{
	for (int c = first_card[kind]; c < first_card[kind + 1]; c++)
		if (g->card_at[c] == CW_HAND + seat)
			return c;
	return -1;
}

static int relic_total(const struct ctgame *g, int seat)
{
	int n = 0;
	for (int t = 0; t < CTGAME_TYPES; t++)
		n += g->p[seat].relics[t];
	return n;
}

static int pile_count(const uint8_t *at, int n, int where)
{
	int k = 0;
	for (int i = 0; i < n; i++)
		k += at[i] == where;
	return k;
}

static int nth_in(const uint8_t *at, int n, int where, int index)
{
	for (int i = 0; i < n; i++)
		if (at[i] == where && index-- == 0)
			return i;
	return -1;
}

static int deck_tiles(const struct ctgame *g)
{
	int n = 0;
	for (int t = 0; t < CTMAP_TILES; t++)
		n += g->map.where[t] == CTMAP_UNPLACED && !(g->tile_discard >> t & 1);
	return n;
}

int ctgame_moment(const struct ctgame *g)
{
	return g->phase == PH_PLAY ? g->moment : 0;
}

/* ---- events and resources ---- */

static void emit(struct game_events *ev, int kind, int seat, int target, int value)
{
	game_emit(ev, kind, seat, target, value);
}

/* B27: gains come from the supply, as far as it goes; hearts stop at 5. */
static void gain_hearts(struct ctgame *g, int seat, int n, struct game_events *ev)
{
	struct ctgame_player *p = &g->p[seat];
	if (n > 5 - p->hearts)
		n = 5 - p->hearts;
	if (n > g->hearts)
		n = g->hearts;
	if (n <= 0)
		return;
	p->hearts = (uint8_t)(p->hearts + n);
	g->hearts = (uint16_t)(g->hearts - n);
	emit(ev, CV_HEARTS, seat, 0, p->hearts);
}

static void gain_bullets(struct ctgame *g, int seat, int n, struct game_events *ev)
{
	struct ctgame_player *p = &g->p[seat];
	if (n > g->bullets)
		n = g->bullets;
	if (n <= 0)
		return;
	p->bullets = (uint8_t)(p->bullets + n);
	g->bullets = (uint16_t)(g->bullets - n);
	emit(ev, CV_BULLETS, seat, 0, p->bullets);
}

static void pay_bullets(struct ctgame *g, int seat, int n, struct game_events *ev)
{
	g->p[seat].bullets = (uint8_t)(g->p[seat].bullets - n);
	g->bullets = (uint16_t)(g->bullets + n);
	emit(ev, CV_BULLETS, seat, 0, g->p[seat].bullets);
}

/* B28, B29: sanity gains stop at S and do nothing at 0. */
static void gain_sanity(struct ctgame *g, int seat, int n, struct game_events *ev)
{
	struct ctgame_player *p = &g->p[seat];
	if (p->out || p->sanity == 0 || p->sanity >= p->start)
		return;
	p->sanity = (uint8_t)(p->sanity + n > p->start ? p->start : p->sanity + n);
	emit(ev, CV_SANITY, seat, p->start, p->sanity);
}

static void discard_card(struct ctgame *g, int seat, int card, struct game_events *ev)
{
	if (g->card_at[card] == CW_HAND + seat)
		g->p[seat].hand--;
	g->card_at[card] = CW_DISCARD;
	g->uses[card] = 0;
	emit(ev, CV_DISCARD, seat, card, 0);
}

static void give_relic(struct ctgame *g, int seat, int relic, struct game_events *ev)
{
	g->relic_at[relic] = (uint8_t)(CW_HAND + seat);
	g->p[seat].relics[relic / 16]++;
	emit(ev, CV_RELIC, seat, relic, 0);
}

/* Moves one relic of `type` (the lowest id) from a seat to the discard. */
static void lose_relic(struct ctgame *g, int seat, int type, struct game_events *ev)
{
	for (int r = type * 16; r < type * 16 + 16; r++)
		if (g->relic_at[r] == CW_HAND + seat) {
			g->relic_at[r] = CW_DISCARD;
			g->p[seat].relics[type]--;
			emit(ev, CV_RELIC_LOST, seat, r, 0);
			return;
		}
	assert(0);
}

/* Tokens of the squares of a tile leaving the board go back to the supply;
 * so do its figures. */
static void clear_tile(struct ctgame *g, int tile)
{
	for (int l = 0; l < 9; l++) {
		uint8_t *s = &g->square[tile * 9 + l];
		g->cultists = (uint16_t)(g->cultists + !!(*s & CS_CULTIST));
		g->byakhee = (uint16_t)(g->byakhee + !!(*s & CS_BYAKHEE));
		g->hearts = (uint16_t)(g->hearts + !!(*s & CS_HEART));
		g->bullets = (uint16_t)(g->bullets + !!(*s & CS_BULLET));
		*s = 0;
	}
}

/* Puts a figure (CS_CULTIST or CS_BYAKHEE) from the supply on a square; B42:
 * nothing when the supply is empty. Returns 1 when placed. */
static int place_figure(struct ctgame *g, int sq, int kind, struct game_events *ev)
{
	uint16_t *supply = kind == CS_CULTIST ? &g->cultists : &g->byakhee;
	if (*supply == 0 || (g->square[sq] & kind))
		return 0;
	(*supply)--;
	g->square[sq] |= (uint8_t)kind;
	emit(ev, CV_ARRIVE, -1, sq, kind);
	return 1;
}

/* B43: the nearest square to `sq` (G distance, ties in reading order)
 * holding none of `deny`, or -1. */
static int nearest_free(const struct ctgame *g, int sq, int deny)
{
	int16_t dist[CTMAP_SQUARES];
	int best = -1;
	ctmap_distances(&g->map, sq, NULL, -1, dist);
	for (int q = 0; q < CTMAP_SQUARES; q++) {
		if (dist[q] < 0 || (g->square[q] & deny))
			continue;
		if (best < 0 || dist[q] < dist[best] ||
		    (dist[q] == dist[best] && ctmap_cmp_reading(&g->map, q, best) < 0))
			best = q;
	}
	return best;
}

/* A card puts a figure on `sq`, or by B43 on the nearest square that can
 * take it. */
static void card_figure(struct ctgame *g, int sq, int kind, struct game_events *ev)
{
	if ((kind == CS_CULTIST ? g->cultists : g->byakhee) == 0)
		return;
	if (g->square[sq] & kind)
		sq = nearest_free(g, sq, kind);
	if (sq >= 0)
		place_figure(g, sq, kind, ev);
}

/* B20: collect the token of the pawn's square if it holds no enemy. */
static void collect(struct ctgame *g, int seat, struct game_events *ev)
{
	int sq = g->p[seat].sq;
	uint8_t *s = &g->square[sq];
	if (*s & (CS_CULTIST | CS_BYAKHEE))
		return;
	if ((*s & CS_HEART) && g->p[seat].hearts < 5) {
		*s &= (uint8_t)~CS_HEART;
		g->p[seat].hearts++;
		emit(ev, CV_TOKEN, seat, sq, CS_HEART);
		emit(ev, CV_HEARTS, seat, 0, g->p[seat].hearts);
	} else if (*s & CS_BULLET) {
		*s &= (uint8_t)~CS_BULLET;
		g->p[seat].bullets++;
		emit(ev, CV_TOKEN, seat, sq, CS_BULLET);
		emit(ev, CV_BULLETS, seat, 0, g->p[seat].bullets);
	}
}

/* ---- scoring and the end (§14) ---- */

int ctgame_vp(const struct ctgame *g, int seat)
{
	const struct ctgame_player *p = &g->p[seat];
	int vp = 0;
	if (seat < 0 || seat >= g->n || p->out)
		return 0;
	for (int t = 0; t < CTGAME_TYPES; t++)
		if (p->relics[t])
			vp += 2 * p->relics[t] - 1;
	for (int i = 0; i < CTMAP_SITES; i++)
		vp += 12 * (p->sites >> i & 1);
	return vp;
}

static int site_count(uint8_t sites)
{
	int n = 0;
	for (; sites; sites &= (uint8_t)(sites - 1))
		n++;
	return n;
}

/* B1, B53: the eligible players with the most VP, then the most sites, then
 * the most relics. */
static int winner_set(const struct ctgame *g)
{
	int best = -1, set = 0;
	long bkey = -1;
	for (int s = 0; s < g->n; s++) {
		if (g->p[s].out)
			continue;
		long key = (long)ctgame_vp(g, s) * 10000 + site_count(g->p[s].sites) * 1000 +
		           relic_total(g, s);
		if (best < 0 || key > bkey) {
			best = s;
			bkey = key;
			set = 1 << s;
		} else if (key == bkey) {
			set |= 1 << s;
		}
	}
	return set;
}

static void end_game(struct ctgame *g, int how, struct game_events *ev)
{
	g->end = (uint8_t)how;
	g->winners = (uint8_t)(how == CE_SAVED || how == CE_SUMMONED ? winner_set(g) : 0);
	g->phase = PH_OVER;
	g->sp = 0;
	emit(ev, CV_END, -1, how, g->winners);
}

/* §14: checked right after each sanctification or activation. */
static void check_end(struct ctgame *g, struct game_events *ev)
{
	if (g->sanctified >= 3)
		end_game(g, CE_SAVED, ev);
	else if (g->activated >= 3)
		end_game(g, CE_SUMMONED, ev);
}

/* §9.4. The active player's turn ends at once (B17); B37 when nobody is left. */
static void eliminate(struct ctgame *g, int seat, struct game_events *ev)
{
	struct ctgame_player *p = &g->p[seat];
	int left = 0;
	for (int c = 0; c < CTGAME_CARDS; c++)
		if (g->card_at[c] == CW_HAND + seat || g->card_at[c] == CW_PLAY + seat)
			discard_card(g, seat, c, ev);
	for (int r = 0; r < CTGAME_RELICS; r++)
		if (g->relic_at[r] == CW_HAND + seat)
			g->relic_at[r] = CW_DISCARD;
	memset(p->relics, 0, sizeof p->relics);
	g->hearts = (uint16_t)(g->hearts + p->hearts);
	g->bullets = (uint16_t)(g->bullets + p->bullets);
	p->hearts = p->bullets = 0;
	p->sanity = 0;
	p->sq = -1;
	p->out = 1;
	p->hand = 0;
	emit(ev, CV_ELIMINATED, seat, 0, 0);
	for (int s = 0; s < g->n; s++)
		left += !g->p[s].out;
	if (!left) {
		end_game(g, CE_NOBODY, ev);
		return;
	}
	if (seat == g->seat)
		g->flags |= F_ABORT;
}

/* §9.2: sanity reached 0. */
static void insanity(struct ctgame *g, int seat, struct game_events *ev)
{
	struct ctgame_player *p = &g->p[seat];
	p->start--;
	emit(ev, CV_INSANE, seat, p->start, 0);
	if (p->start < 1) {
		eliminate(g, seat, ev);
		return;
	}
	if (seat == g->seat) {
		g->flags |= F_INSANE; /* B30 */
		if (g->flags & F_MOVING)
			g->flags |= F_MOVE_OVER; /* B22 */
	}
}

/* B29: a player at 0 ignores sanity losses. */
static void lose_sanity(struct ctgame *g, int seat, struct game_events *ev)
{
	struct ctgame_player *p = &g->p[seat];
	if (p->out || p->sanity == 0)
		return;
	p->sanity--;
	emit(ev, CV_SANITY, seat, p->start, p->sanity);
	if (p->sanity == 0)
		insanity(g, seat, ev);
}

/* The square of the street that faces a site's entrance, or -1. */
static int facing_street(const struct ctgame *g, int tile)
{
	static const int middle[4] = { 1, 5, 7, 3 };
	for (int s = 0; s < 4; s++) {
		int sq = tile * 9 + middle[s];
		if (ctmap_square_kind(&g->map, sq) == CTMAP_ENTRANCE)
			return ctmap_step(&g->map, sq, s);
	}
	return -1;
}

/* B46: pawns on a site that leaves play go to the street facing it. */
static void evacuate(struct ctgame *g, int tile, int street, struct game_events *ev)
{
	for (int s = 0; s < g->n; s++) {
		if (g->p[s].out || g->p[s].sq < 0 || tile_of(g->p[s].sq) != tile)
			continue;
		g->p[s].sq = (int16_t)(street >= 0 ? street : CTGAME_CHURCH_SQ);
		emit(ev, CV_RELOCATE, s, g->p[s].sq, 0);
	}
}

/* §11.5 and B10: the pawn of `seat` was defeated on an unresolved site. */
static void activate(struct ctgame *g, int tile, int seat, struct game_events *ev)
{
	int street = facing_street(g, tile);
	clear_tile(g, tile);
	g->p[seat].sq = CTGAME_CHURCH_SQ;
	evacuate(g, tile, street, ev);
	ctmap_activate(&g->map, tile);
	g->activated++;
	g->act_order[tile - CTMAP_SITE_FIRST] = g->activated;
	emit(ev, CV_ACTIVATE, seat, tile, g->activated);
}

/* §11.4: the active player sanctifies the site under the pawn. */
static void sanctify(struct ctgame *g, struct game_events *ev)
{
	int seat = g->seat, tile = tile_of(g->p[seat].sq);
	int street = facing_street(g, tile);
	for (int t = 0; t < CTGAME_TYPES; t++)
		lose_relic(g, seat, t, ev);
	clear_tile(g, tile);
	evacuate(g, tile, street, ev);
	ctmap_remove(&g->map, tile, CTMAP_SANCTIFIED);
	g->p[seat].sites |= (uint8_t)(1 << (tile - CTMAP_SITE_FIRST));
	g->sanctified++;
	emit(ev, CV_SANCTIFY, seat, tile, g->sanctified);
	if (g->flags & F_MOVING)
		g->flags |= F_MOVE_OVER; /* B45 */
	check_end(g, ev);
}

static int can_sanctify(const struct ctgame *g)
{
	const struct ctgame_player *p = &g->p[g->seat];
	if (p->sq < 0 || !unresolved(g, tile_of(p->sq)) || enemies_on_tile(g, tile_of(p->sq)))
		return 0;
	for (int t = 0; t < CTGAME_TYPES; t++)
		if (!p->relics[t])
			return 0;
	return 1;
}

/* §9.3 steps 1-3, then the relic choice; steps 5-6 in PH_DEFEAT_END, after
 * which the phase `then` follows. A defeat that activates the third site
 * ends the game after the relic choice alone (B54). */
static void defeat(struct ctgame *g, int seat, int then, struct game_events *ev)
{
	struct ctgame_player *p = &g->p[seat];
	int sq = p->sq;
	g->defeated = (uint8_t)seat;
	emit(ev, CV_DEFEAT, seat, sq, 0);
	if (sq >= 0 && unresolved(g, tile_of(sq))) {
		activate(g, tile_of(sq), seat, ev); /* B34 */
		g->loss = (uint8_t)(relic_total(g, seat) / 2);
		if (g->activated >= 3 && g->loss) {
			push(g, PH_SUMMONED);
			g->phase = PH_RELIC_LOSS;
			return;
		}
		check_end(g, ev);
		if (halted(g))
			return;
	}
	p->sq = CTGAME_CHURCH_SQ;
	emit(ev, CV_RELOCATE, seat, p->sq, 0);
	if (seat == g->seat) {
		g->left = 0;
		g->flags |= F_DEFEATED;
		if (g->flags & F_MOVING)
			g->flags |= F_MOVE_OVER;
	}
	for (int c = 0; c < CTGAME_CARDS; c++)
		if (g->card_at[c] == CW_PLAY + seat && cards[kind_of[c]].category == CC_WEAPON)
			discard_card(g, seat, c, ev);
	g->defeated = (uint8_t)seat;
	g->loss = (uint8_t)(relic_total(g, seat) / 2);
	push(g, then);
	if (g->loss) {
		push(g, PH_DEFEAT_END);
		g->phase = PH_RELIC_LOSS;
	} else {
		g->phase = PH_DEFEAT_END;
	}
}

/* §9.3 steps 5-6 (B32, B33). */
static void defeat_end(struct ctgame *g, struct game_events *ev)
{
	int seat = g->defeated;
	struct ctgame_player *p = &g->p[seat];
	int h = 3 - p->hearts;
	if (p->out)
		return; /* left the game during the defeat (ctgame_leave) */
	if (h > g->hearts)
		h = g->hearts;
	p->hearts = (uint8_t)(p->hearts + h);
	g->hearts = (uint16_t)(g->hearts - h);
	if (p->bullets > 3) {
		g->bullets = (uint16_t)(g->bullets + p->bullets - 3);
		p->bullets = 3;
	} else {
		int b = 3 - p->bullets;
		if (b > g->bullets)
			b = g->bullets;
		p->bullets = (uint8_t)(p->bullets + b);
		g->bullets = (uint16_t)(g->bullets - b);
	}
	emit(ev, CV_HEARTS, seat, 0, p->hearts);
	emit(ev, CV_BULLETS, seat, 0, p->bullets);
	p->start--;
	if (p->start < 1) {
		eliminate(g, seat, ev);
		return;
	}
	p->sanity = p->start;
	emit(ev, CV_SANITY, seat, p->start, p->sanity);
}

/* Loses one heart; a defeat at 0 follows, then phase `then`. Returns 1
 * when the defeat began. */
static int lose_heart(struct ctgame *g, int seat, int then, struct game_events *ev)
{
	struct ctgame_player *p = &g->p[seat];
	p->hearts--;
	g->hearts++;
	emit(ev, CV_HEARTS, seat, 0, p->hearts);
	if (p->hearts > 0)
		return 0;
	defeat(g, seat, then, ev);
	return 1;
}

/* ---- figures (§10) ---- */

/* B39, B40 and confinement: the squares a cultist on `from` may end on
 * within `reach` steps, never entering another cultist's square, never
 * leaving a site once on it. Returns how many, written to out in reading
 * order of index (callers sort when order matters). */
static int cultist_dests(const struct ctgame *g, int from, int reach, int16_t *out)
{
	int16_t queue[CTMAP_SQUARES], depth[CTMAP_SQUARES];
	uint8_t seen[CTMAP_BITMAP_BYTES] = { 0 };
	int head = 0, tail = 0, n = 0;
	queue[tail] = (int16_t)from;
	depth[tail++] = 0;
	ctmap_bit_set(seen, from);
	while (head < tail) {
		int q = queue[head], d = depth[head++];
		if (d == reach)
			continue;
		int confine = is_site(tile_of(q)) ? tile_of(q) : -1;
		for (int dir = 0; dir < 4; dir++) {
			int r = ctmap_step(&g->map, q, dir);
			if (r < 0 || ctmap_bit(seen, r) || (g->square[r] & CS_CULTIST))
				continue;
			if (confine >= 0 && tile_of(r) != confine)
				continue;
			ctmap_bit_set(seen, r);
			queue[tail] = (int16_t)r;
			depth[tail++] = (int16_t)(d + 1);
			out[n++] = (int16_t)r;
		}
	}
	return n;
}

/* §10.3: where a byakhee on `from` may go. */
static int byakhee_dests(const struct ctgame *g, int from, int16_t *out)
{
	static const int dx[4] = { 0, 1, 0, -1 }, dy[4] = { -1, 0, 1, 0 };
	int tile = tile_of(from), n = 0;
	int deny = CS_BYAKHEE | ((g->square[from] & CS_CULTIST) ? CS_CULTIST : 0);
	for (int s = 0; s < 4; s++) {
		int t = ctmap_at(&g->map, g->map.tx[tile] + dx[s], g->map.ty[tile] + dy[s]);
		if (t < 0 || g->map.where[t] != CTMAP_PLACED)
			continue;
		for (int l = 0; l < 9; l++) {
			int q = t * 9 + l;
			if (ctmap_passable(&g->map, q) && !(g->square[q] & deny))
				out[n++] = (int16_t)q;
		}
	}
	return n;
}

/* G distance from every square to the nearest of the targets' pawns (C13),
 * -1 when unreachable; with confine >= 0 only pawns on that tile count and
 * the search stays on it. */
static void target_distances(const struct ctgame *g, uint8_t targets, int confine, int16_t *dist)
{
	int16_t from[CTGAME_MAX];
	int n = 0;
	for (int s = 0; s < g->n; s++) {
		int sq = g->p[s].sq;
		if ((targets >> s & 1) && sq >= 0 && (confine < 0 || tile_of(sq) == confine))
			from[n++] = (int16_t)sq;
	}
	ctmap_distances_from(&g->map, from, n, NULL, confine, dist);
}

/* E30: destinations within 3 squares ending strictly closer to the target;
 * `dist` holds the G distances from the target's pawn. */
static int yellow_dests(const struct ctgame *g, int from, const int16_t *dist, int16_t *out)
{
	int16_t all[CTMAP_SQUARES];
	int n = cultist_dests(g, from, 3, all), k = 0;
	if (dist[from] == 0)
		return 0;
	for (int i = 0; i < n; i++)
		if (dist[all[i]] >= 0 && (dist[from] < 0 || dist[all[i]] < dist[from]))
			out[k++] = all[i];
	return k;
}

/* Whether the cultist on `sq` may be chosen for E21: on the player's tile
 * or an orthogonally adjacent one. */
static int near_tile(const struct ctgame *g, int seat, int sq)
{
	int a = tile_of(g->p[seat].sq), b = tile_of(sq);
	int dx = g->map.tx[a] - g->map.tx[b], dy = g->map.ty[a] - g->map.ty[b];
	return (dx < 0 ? -dx : dx) + (dy < 0 ? -dy : dy) <= 1;
}

/* The destinations of the figure on `from` in the current figure mode. */
static int dests(const struct ctgame *g, int from, int16_t *out)
{
	switch (g->fmode) {
	case FM_BYAKHEE:
		return byakhee_dests(g, from, out);
	case FM_YELLOW: {
		int16_t dist[CTMAP_SQUARES];
		ctmap_distances(&g->map, g->p[g->target].sq, NULL, -1, dist);
		return yellow_dests(g, from, dist, out);
	}
	default:
		return cultist_dests(g, from, 2, out);
	}
}

/* Sorts squares into reading order (insertion sort: lists are short). */
static void sort_reading(const struct ctgame *g, int16_t *q, int n)
{
	int32_t key[CTMAP_SQUARES]; /* the order of ctmap_cmp_reading, one number a square */

	for (int i = 0; i < n; i++)
		key[i] = ctmap_gy(&g->map, q[i]) * 4096 + ctmap_gx(&g->map, q[i]);
	for (int i = 1; i < n; i++) {
		int16_t v = q[i];
		int32_t k = key[i];
		int j = i;
		while (j > 0 && key[j - 1] > k) {
			q[j] = q[j - 1];
			key[j] = key[j - 1];
			j--;
		}
		q[j] = v;
		key[j] = k;
	}
}

/* A cultist on `q` has a legal move of §10.2: a first step exists. */
static int cultist_can_move(const struct ctgame *g, int q)
{
	int confine = is_site(tile_of(q)) ? tile_of(q) : -1;
	for (int d = 0; d < 4; d++) {
		int r = ctmap_step(&g->map, q, d);
		if (r >= 0 && !(g->square[r] & CS_CULTIST) &&
		    (confine < 0 || tile_of(r) == confine))
			return 1;
	}
	return 0;
}

/* The figures that may be chosen next in figure mode `fmode` against seat
 * `target`, those in `moved` (may be NULL) left out, in reading order. */
static int figures_in(const struct ctgame *g, int fmode, int target, const uint8_t *moved,
                      int16_t *out)
{
	int16_t tmp[CTMAP_SQUARES], dist[CTMAP_SQUARES];
	int k = 0;
	int kind = fmode == FM_BYAKHEE || fmode == FM_SENT ? CS_BYAKHEE : CS_CULTIST;
	if (fmode == FM_YELLOW)
		ctmap_distances(&g->map, g->p[target].sq, NULL, -1, dist);
	for (int q = 0; q < CTMAP_SQUARES; q++) {
		uint64_t eight;
		if (q % 8 == 0 && q + 8 <= CTMAP_SQUARES) {
			memcpy(&eight, &g->square[q], 8);
			if (!(eight & (0x0101010101010101ull * (uint8_t)kind))) {
				q += 7; /* no figure of the kind on these eight squares */
				continue;
			}
		}
		if (!(g->square[q] & kind) || ctmap_bit(moved, q))
			continue;
		if (kind == CS_BYAKHEE && is_site(tile_of(q)))
			continue; /* B41 */
		if (fmode == FM_SENT) {
			if (q != g->p[target].sq) /* B49: it must go somewhere */
				out[k++] = (int16_t)q;
			continue;
		}
		if (fmode == FM_SCATTER && !near_tile(g, g->seat, q))
			continue;
		if (fmode == FM_YELLOW    ? yellow_dests(g, q, dist, tmp) > 0
		    : fmode == FM_BYAKHEE ? byakhee_dests(g, q, tmp) > 0
		                          : cultist_can_move(g, q))
			out[k++] = (int16_t)q;
	}
	sort_reading(g, out, k);
	return k;
}

/* The figures the pending figure choice offers. */
static int figures(const struct ctgame *g, int16_t *out)
{
	return figures_in(g, g->fmode, g->target, g->moved, out);
}

/* Moves the figure(s) on `from` to `to`: a cultist, or a byakhee with its
 * rider (§10.3). */
static void move_figure(struct ctgame *g, int from, int to, int kind, struct game_events *ev)
{
	int moving = kind;
	if (kind == CS_BYAKHEE && (g->square[from] & CS_CULTIST))
		moving |= CS_CULTIST;
	g->square[from] &= (uint8_t)~moving;
	g->square[to] |= (uint8_t)moving;
	if (moving & CS_BYAKHEE)
		emit(ev, CV_FIGURE, CS_BYAKHEE, from, to);
	if (moving & CS_CULTIST)
		emit(ev, CV_FIGURE, CS_CULTIST, from, to);
}

/* ---- the map-tile step (§3.6) ---- */

/* The set A of §3.6 and its mode; 0 when the step is skipped (B7-B9). */
static uint32_t tile_candidates(const struct ctgame *g, int *mode)
{
	uint32_t u = 0, a, sites = 0;
	for (int t = 0; t < CTMAP_TILES; t++)
		if (g->map.where[t] == CTMAP_UNPLACED) {
			u |= 1u << t;
			if (is_site(t))
				sites |= 1u << t;
		}
	if (!u)
		return 0;
	if ((a = ctmap_placeable(&g->map, u, CTMAP_STRICT))) {
		*mode = CTMAP_STRICT;
		return a;
	}
	if ((a = ctmap_placeable(&g->map, sites, CTMAP_RELIEF))) {
		*mode = CTMAP_RELIEF;
		return a;
	}
	if (!sites)
		return 0;
	int activated = 0;
	for (int t = CTMAP_SITE_FIRST; t < CTMAP_SITE_FIRST + CTMAP_SITES; t++) {
		if (unresolved(g, t))
			return 0; /* B9 needs no unresolved site on the map */
		activated |= g->map.where[t] == CTMAP_ACTIVATED;
	}
	int first = 0;
	while (!(sites >> first & 1))
		first++;
	if (!activated && !ctmap_placeable(&g->map, 1u << first, CTMAP_FORCED))
		return 0;
	*mode = CTMAP_FORCED;
	return sites;
}

/* Interior squares of a tile on the map, in reading order. */
static int interiors(const struct ctgame *g, int tile, int16_t *out)
{
	int n = 0;
	for (int l = 0; l < 9; l++)
		if (interior(g, tile * 9 + l))
			out[n++] = (int16_t)(tile * 9 + l);
	return n;
}

/* ---- options ---- */

static int add(struct ctgame_option *out, int n, int what, int arg)
{
	assert(n < CTGAME_OPTIONS);
	out[n].what = (uint8_t)what;
	out[n].arg = (int16_t)arg;
	return n + 1;
}

/* Who decides the pending choice. */
static int chooser(const struct ctgame *g)
{
	switch (g->phase) {
	case PH_RELIC_LOSS:
		return g->defeated;
	case PH_PLAY:
		return g->ask_seat;
	default:
		return g->seat;
	}
}

static int someone_gains_sanity(const struct ctgame *g)
{
	for (int s = 0; s < g->n; s++)
		if (!g->p[s].out && g->p[s].sanity > 0 && g->p[s].sanity < g->p[s].start)
			return 1;
	return 0;
}

static int laudanum_works(const struct ctgame *g, int seat)
{
	const struct ctgame_player *p = &g->p[seat];
	return p->sanity > 0 && p->sanity < p->start;
}

static int satchel_works(const struct ctgame *g, int seat)
{
	return g->p[seat].hearts < 5 && g->hearts > 0;
}

/* Another non-eliminated player on `seat`'s square or a square linked to it. */
static int brawl_target(const struct ctgame *g, int seat, int other)
{
	int a = g->p[seat].sq, b = g->p[other].sq;
	if (other == seat || g->p[other].out || a < 0 || b < 0)
		return 0;
	if (a == b)
		return 1;
	for (int d = 0; d < 4; d++)
		if (ctmap_step(&g->map, a, d) == b)
			return 1;
	return 0;
}

static int fingers_target(const struct ctgame *g, int seat, int other)
{
	return other != seat && !g->p[other].out && g->p[other].sq == g->p[seat].sq &&
	       relic_total(g, other) > 0;
}

/* E32 has an effect against `other` (B49): a byakhee off the sites and
 * not on `other`'s square already. */
static int sent_target(const struct ctgame *g, int seat, int other)
{
	if (other == seat || g->p[other].out)
		return 0;
	for (int q = 0; q < CTMAP_SQUARES; q++)
		if ((g->square[q] & CS_BYAKHEE) && !is_site(tile_of(q)) && q != g->p[other].sq)
			return 1;
	return 0;
}

/* E30 has an effect against `other`. */
static int yellow_target(const struct ctgame *g, int seat, int other)
{
	int16_t f[CTMAP_SQUARES];
	if (other == seat || g->p[other].out)
		return 0;
	return figures_in(g, FM_YELLOW, other, NULL, f) > 0;
}

/* Whether playing card `kind` now would have an effect (B49) at the moment. */
static int playable(const struct ctgame *g, int seat, int kind, int m)
{
	const struct ctgame_player *p = &g->p[seat];
	int own = m >= CM_PP1 && m <= CM_PP5;
	int moving_ahead = !(g->flags & (F_SKIP67 | F_DEFEATED | F_MOVE_OVER));
	switch (kind) {
	case CK_KNIFE:
	case CK_HARPOON:
	case CK_CHOPPER:
	case CK_COACHGUN:
	case CK_SWORDCANE:
		return own && ctgame_in_play(g, seat, kind) < 0;
	case CK_LAUDANUM:
	case CK_SATCHEL:
	case CK_CANDLE:
		return own;
	case CK_ELDERSIGN:
		return (m == CM_PP1 || m == CM_PP2 || m == CM_PP3 || m == CM_PP4) && moving_ahead &&
		       !(g->flags & F_ELDER);
	case CK_ROADSTER:
		return (m == CM_PP3 || m == CM_PP4) && moving_ahead;
	case CK_FOG:
		return m == CM_RW && g->total > 0;
	case CK_BELLS: /* B49: nothing to do in the Church with steps 6-7 skipped */
		return (m == CM_PP1 || m == CM_PP2 || m == CM_PP3) &&
		       (p->sq != CTGAME_CHURCH_SQ || moving_ahead);
	case CK_NERVES:
		return (m == CM_CS || m == CM_CHECK) && !(g->fflags & (FF_NERVES | FF_CHECKED)) &&
		       p->sanity > 0;
	case CK_STASH:
		return (own || m == CM_RW) && g->bullets > 0;
	case CK_HYMN:
		return (own || m == CM_RW) && someone_gains_sanity(g);
	case CK_SURVEYOR: {
		int mode;
		return (m == CM_PP2 || m == CM_PP3 || m == CM_PP4 || m == CM_PP4_END) &&
		       tile_candidates(g, &mode) != 0;
	}
	case CK_BANISH:
		return m == CM_CS && g->enemy == CS_BYAKHEE;
	case CK_EYE:
		return own && (pile_count(g->relic_at, CTGAME_RELICS, CW_DECK) +
		                   pile_count(g->relic_at, CTGAME_RELICS, CW_DISCARD) >
		               0);
	case CK_SCATTER: {
		int16_t f[CTMAP_SQUARES];
		return own && figures_in(g, FM_SCATTER, 0, NULL, f) > 0;
	}
	case CK_BRAWL:
	case CK_YELLOW:
	case CK_FINGERS:
	case CK_SENT:
		if (!own)
			return 0;
		for (int o = 0; o < g->n; o++) {
			if (kind == CK_BRAWL && brawl_target(g, seat, o))
				return 1;
			if (kind == CK_FINGERS && fingers_target(g, seat, o))
				return 1;
			if (kind == CK_SENT && sent_target(g, seat, o))
				return 1;
			if (kind == CK_YELLOW && yellow_target(g, seat, o))
				return 1;
		}
		return 0;
	default:
		return 0; /* Automatic cards, and CF cards (offered at CA_FAILED) */
	}
}

/* The hand's cards playable at a CA_PLAY node, as options. */
static int hand_plays(const struct ctgame *g, struct ctgame_option *out, int n)
{
	int seat = g->ask_seat;
	uint32_t held = 0; /* bit k: a card of kind k in the hand */
	if (g->p[seat].played)
		return n;
	tables();
	for (int c = 0; c < CTGAME_CARDS; c++)
		if (g->card_at[c] == CW_HAND + seat)
			held |= 1u << kind_of[c];
	for (int k = 0; k < CTGAME_KINDS; k++)
		if ((held >> k & 1) && playable(g, seat, k, g->moment))
			n = add(out, n, CO_CARD, k);
	return n;
}

/* The options of a CA_PLAY node. Under secret hands the items in play come
 * before the hand's cards, so that an item's option number tells nothing
 * of the hand. */
static int plays(const struct ctgame *g, struct ctgame_option *out)
{
	int seat = g->ask_seat, m = g->moment, n = 0;
	n = add(out, n, CO_PASS, 0);
	if (m != CM_RW && (g->flags & F_INSANE))
		return n; /* B30 */
	if ((m == CM_PP2 || m == CM_PP4 || m == CM_PP4_END) && can_sanctify(g))
		n = add(out, n, CO_SANCTIFY, 0);
	if (!g->secret)
		n = hand_plays(g, out, n);
	int items = m == CM_RW || (m >= CM_PP1 && m <= CM_PP5);
	if (items && ctgame_in_play(g, seat, CK_LAUDANUM) >= 0 && laudanum_works(g, seat))
		n = add(out, n, CO_ITEM, CK_LAUDANUM);
	if (items && ctgame_in_play(g, seat, CK_SATCHEL) >= 0 && satchel_works(g, seat))
		n = add(out, n, CO_ITEM, CK_SATCHEL);
	if (m == CM_CS && g->enemy == CS_BYAKHEE && !(g->fflags & FF_CANDLE) &&
	    ctgame_in_play(g, seat, CK_CANDLE) >= 0)
		n = add(out, n, CO_ITEM, CK_CANDLE);
	if (g->secret)
		n = hand_plays(g, out, n);
	return n;
}

int ctgame_could_play(const struct ctgame *g)
{
	const struct ctgame_player *p;
	switch (g->phase) {
	case PH_AUTOMATIC:
		return 1;
	case PH_FAILED: /* E13, E15 */
		p = &g->p[g->seat];
		return p->hand > 0 && !p->played && !(g->flags & F_INSANE);
	case PH_PLAY:
		p = &g->p[g->ask_seat];
		if (p->hand == 0 || p->played || (g->moment != CM_RW && (g->flags & F_INSANE)))
			return 0;
		/* playable() reads public facts only: whether some card, if
		 * held, could be played now. */
		for (int k = 0; k < CTGAME_KINDS; k++)
			if (playable(g, g->ask_seat, k, g->moment))
				return 1;
		return 0;
	default:
		return 0;
	}
}

/* Under secret hands, whether a decision with a single option is asked
 * all the same, because being skipped would tell the table something of
 * the hand: an own play point, CS, a due check or a reaction window, and
 * a failed roll, whenever ctgame_could_play; step 1's choice of Automatic
 * card whenever one is held with another card. B47 plays exactly one of
 * them, so the others stay in the hand unseen: asking only when two kinds
 * are held would show that the hand holds a second Automatic card, while
 * asking whenever another card is held shows no more than the card played
 * and the hand size (the choice itself is listed privately, C4). */
static int ask_anyway(const struct ctgame *g)
{
	if (!g->secret)
		return 0;
	if (g->phase == PH_AUTOMATIC)
		return g->p[g->seat].hand >= 2;
	return ctgame_could_play(g);
}

/* A weapon's bonus against an enemy kind (§12.2). */
static int bonus(int kind, int enemy)
{
	switch (kind) {
	case CK_KNIFE:
		return enemy == CS_CULTIST ? 1 : 0;
	case CK_HARPOON:
		return enemy == CS_BYAKHEE ? 2 : 0;
	case CK_CHOPPER:
		return 2;
	case CK_COACHGUN:
		return 1;
	case CK_SWORDCANE:
		return enemy == CS_BYAKHEE ? 1 : 0;
	default:
		return 0;
	}
}

int ctgame_options(const struct ctgame *g, struct ctgame_option *out)
{
	int n = 0, seat = g->seat;
	const struct ctgame_player *p = &g->p[seat];
	int16_t sq[CTMAP_SQUARES];
	tables();
	switch (g->phase) {
	case PH_AUTOMATIC:
		for (int k = CK_WHISPERS; k <= CK_OMEN; k++)
			if (ctgame_in_hand(g, seat, k))
				n = add(out, n, CO_CARD, k);
		return n;
	case PH_PLAY:
		return plays(g, out);
	case PH_TILE: {
		struct ctmap_option o[CTMAP_OPTIONS_MAX];
		int k = ctmap_options(&g->map, g->aux, (enum ctmap_mode)g->tile_mode, o);
		for (int i = 0; i < k; i++)
			n = add(out, n, CO_TILE, i);
		return n;
	}
	case PH_REMOVE:
		for (int a = 1; a <= CTMAP_SITES; a++)
			for (int i = 0; i < CTMAP_SITES; i++)
				if (g->act_order[i] == a &&
				    g->map.where[CTMAP_SITE_FIRST + i] == CTMAP_ACTIVATED)
					n = add(out, n, CO_TILE, CTMAP_SITE_FIRST + i);
		return n;
	case PH_TOKENS: {
		int k = interiors(g, g->aux, sq);
		for (int m = 0; m < 1 << k; m++)
			n = add(out, n, CO_MASK, m);
		return n;
	}
	case PH_SITE_BYAKHEE:
		for (int l = 0; l < 9; l++)
			n = add(out, n, CO_SQUARE, g->aux * 9 + l);
		return n;
	case PH_WEAPON:
		n = add(out, n, CO_PASS, 0);
		if (g->flags & F_JAMMED)
			return n;
		for (int c = 0; c < CTGAME_CARDS; c++) {
			int k = kind_of[c];
			if (g->card_at[c] != CW_PLAY + seat || cards[k].category != CC_WEAPON ||
			    !bonus(k, g->enemy))
				continue;
			if (k == CK_CHOPPER && p->bullets < 1)
				continue;
			n = add(out, n, CO_WEAPON, c);
		}
		return n;
	case PH_FAILED: {
		int need = g->kill - g->ctotal;
		if (p->bullets >= need)
			n = add(out, n, CO_SPEND, need);
		n = add(out, n, CO_LOSE, 0);
		if (!p->played && !(g->flags & F_INSANE)) {
			if (ctgame_in_hand(g, seat, CK_DEADEYE))
				n = add(out, n, CO_CARD, CK_DEADEYE);
			if (ctgame_in_hand(g, seat, CK_SECONDWIND))
				n = add(out, n, CO_CARD, CK_SECONDWIND);
		}
		return n;
	}
	case PH_MOVE:
		if (g->left > 0)
			for (int d = 0; d < 4; d++)
				if (ctmap_step(&g->map, p->sq, d) >= 0)
					n = add(out, n, CO_DIR, d);
		return add(out, n, CO_STOP, 0);
	case PH_FIGURE: {
		int k = figures(g, sq);
		for (int i = 0; i < k; i++)
			n = add(out, n, CO_SQUARE, sq[i]);
		if (g->fmode == FM_SCATTER || g->fmode == FM_YELLOW)
			n = add(out, n, CO_STOP, 0);
		return n;
	}
	case PH_DEST: {
		int k = dests(g, g->figure, sq);
		sort_reading(g, sq, k);
		for (int i = 0; i < k; i++)
			n = add(out, n, CO_SQUARE, sq[i]);
		return n;
	}
	case PH_RESEED:
		for (int l = 0; l < 9; l++) {
			int q = g->aux * 9 + l;
			if (g->cultists)
				n = add(out, n, CO_FIGURE, q);
			if (g->byakhee)
				n = add(out, n, CO_FIGURE, CTMAP_SQUARES + q);
		}
		return n;
	case PH_RELIC_LOSS:
		for (int t = 0; t < CTGAME_TYPES; t++)
			if (g->p[g->defeated].relics[t])
				n = add(out, n, CO_TYPE, t);
		return n;
	case PH_DISCARD:
		if (p->hand <= CTGAME_HAND)
			n = add(out, n, CO_STOP, 0);
		for (int k = 0; k < CTGAME_KINDS; k++)
			if (ctgame_in_hand(g, seat, k))
				n = add(out, n, CO_CARD, k);
		return n;
	case PH_TARGET:
		for (int o = 0; o < g->n; o++) {
			int ok = 0;
			switch (g->card) {
			case CK_BRAWL:
				ok = brawl_target(g, seat, o);
				break;
			case CK_FINGERS:
				ok = fingers_target(g, seat, o);
				break;
			case CK_YELLOW:
				ok = yellow_target(g, seat, o);
				break;
			default:
				ok = sent_target(g, seat, o);
				break;
			}
			if (ok)
				n = add(out, n, CO_SEAT, o);
		}
		return n;
	case PH_SQUARE: {
		int k = 0;
		for (int d = 0; d < 4; d++) {
			int q = ctmap_step(&g->map, p->sq, d);
			if (q >= 0 && !(g->square[q] & CS_CULTIST))
				sq[k++] = (int16_t)q;
		}
		sort_reading(g, sq, k);
		for (int i = 0; i < k; i++)
			n = add(out, n, CO_SQUARE, sq[i]);
		return n;
	}
	case PH_RELIC_TAKE:
		for (int t = 0; t < CTGAME_TYPES; t++)
			if (g->p[g->target].relics[t])
				n = add(out, n, CO_TYPE, t);
		return n;
	default:
		return 0;
	}
}

/* ---- the turn ---- */

static void play_point(struct ctgame *g, int moment, int then)
{
	g->moment = (uint8_t)moment;
	g->ask_seat = g->seat;
	call(g, PH_PLAY, then);
}

static void roll(struct ctgame *g, int purpose)
{
	g->die_for = (uint8_t)purpose;
	g->phase = PH_DIE;
}

/* §8: a fight against the figure of `kind` on the active pawn's square;
 * phase `then` follows it. */
static void start_fight(struct ctgame *g, int kind, int then, struct game_events *ev)
{
	push(g, then);
	g->enemy = (uint8_t)kind;
	g->kill = kind == CS_CULTIST ? 4 : 5;
	g->fflags = FF_FOUGHT;
	g->weapon = 0;
	emit(ev, CV_FIGHT, g->seat, g->p[g->seat].sq, kind);
	if (kind == CS_BYAKHEE)
		play_point(g, CM_CS, PH_FIGHT_CHECK);
	else
		g->phase = PH_WEAPON;
}

/* §8.4: the figure dies; relics, then the token (B20), then the fight's
 * continuation. */
static void kill_enemy(struct ctgame *g, int relics, struct game_events *ev)
{
	int sq = g->p[g->seat].sq;
	g->square[sq] &= (uint8_t)~g->enemy;
	if (g->enemy == CS_CULTIST)
		g->cultists++;
	else
		g->byakhee++;
	emit(ev, CV_KILL, g->seat, sq, g->enemy);
	g->rcount = (uint8_t)relics;
	call(g, PH_DRAW_RELIC, PH_FIGHT_WON);
}

static void fight_eval(struct ctgame *g, struct game_events *ev)
{
	emit(ev, CV_TOTAL, g->seat, g->kill, g->ctotal);
	if (g->ctotal >= g->kill)
		kill_enemy(g, g->enemy == CS_BYAKHEE ? 2 : 1, ev);
	else
		g->phase = PH_FAILED;
}

static int pop(struct ctgame *g)
{
	assert(g->sp > 0);
	return g->stack[--g->sp];
}

/* Plays a card from a hand (§12.1) and carries out its effect. The phase is
 * left at PH_PLAY (the same play point asks again), or set to the card's
 * follow-up with PH_PLAY pushed. */
static void play_card(struct ctgame *g, int seat, int kind, struct game_events *ev)
{
	struct ctgame_player *p = &g->p[seat];
	int c = hand_card(g, seat, kind), cat = cards[kind].category;
	assert(c >= 0);
	p->hand--;
	if (cat == CC_WEAPON || cat == CC_ITEM) {
		g->card_at[c] = (uint8_t)(CW_PLAY + seat);
		g->uses[c] = cards[kind].uses;
	} else {
		g->card_at[c] = CW_DISCARD;
	}
	if (cat != CC_AUTOMATIC)
		p->played = 1;
	emit(ev, CV_CARD, seat, c, g->phase == PH_PLAY ? g->moment : 0);
	switch (kind) {
	case CK_ELDERSIGN:
		g->flags |= F_ELDER;
		break;
	case CK_ROADSTER:
		g->total = (uint8_t)(g->total + 3);
		g->left = (uint8_t)(g->left + 3);
		emit(ev, CV_TOTAL_MOVE, g->seat, 0, g->total);
		break;
	case CK_FOG:
		g->total = (uint8_t)(g->total / 2);
		g->left = g->total;
		emit(ev, CV_TOTAL_MOVE, g->seat, 0, g->total);
		break;
	case CK_BELLS:
		p->sq = CTGAME_CHURCH_SQ;
		emit(ev, CV_RELOCATE, seat, p->sq, 0);
		g->flags |= F_SKIP67;
		break;
	case CK_NERVES:
		g->fflags |= FF_NERVES;
		break;
	case CK_STASH:
		gain_bullets(g, seat, inside(g, seat, 20) ? 6 : 3, ev); /* T21 Police Station */
		break;
	case CK_HYMN:
		for (int s = 0; s < g->n; s++)
			gain_sanity(g, s, 1, ev);
		break;
	case CK_SURVEYOR:
		call(g, PH_TILE_BEGIN, PH_PLAY);
		break;
	case CK_EYE:
		g->rcount = (uint8_t)(inside_named(g, seat) ? 2 : 1);
		call(g, PH_DRAW_RELIC, PH_PLAY);
		break;
	case CK_BANISH:
		pop(g); /* the fight's check is not reached */
		kill_enemy(g, 1, ev);
		break;
	case CK_SCATTER:
		g->fmode = FM_SCATTER;
		g->count = 3;
		memset(g->moved, 0, sizeof g->moved);
		call(g, PH_FIGURE, PH_PLAY);
		break;
	case CK_BRAWL:
	case CK_YELLOW:
	case CK_FINGERS:
	case CK_SENT:
		g->card = (uint8_t)kind;
		call(g, PH_TARGET, PH_PLAY);
		break;
	default:
		break;
	}
}

/* Step 1's Automatic card (§12.1, B47). */
static void automatic(struct ctgame *g, int kind, struct game_events *ev)
{
	int seat = g->seat;
	struct ctgame_player *p = &g->p[seat];
	play_card(g, seat, kind, ev);
	g->phase = PH_STEP1_DONE;
	switch (kind) {
	case CK_WHISPERS:
		lose_sanity(g, seat, ev);
		break;
	case CK_KNOCK:
		g->fmode = FM_KNOCK;
		g->count = 2;
		call(g, PH_SQUARE, PH_STEP1_DONE);
		break;
	case CK_WINGS:
		card_figure(g, p->sq, CS_BYAKHEE, ev);
		break;
	case CK_ANKLE:
		g->flags |= F_SKIP67;
		break;
	case CK_JAMMED:
		g->flags |= F_JAMMED;
		break;
	case CK_POWDER:
		if (p->bullets / 2)
			pay_bullets(g, seat, p->bullets / 2, ev);
		break;
	case CK_OMEN:
		lose_heart(g, seat, PH_STEP1_DONE, ev);
		break;
	default:
		break;
	}
}

/* Handles a choice; `o` is one of ctgame_options. */
static void choose(struct ctgame *g, const struct ctgame_option *o, struct game_events *ev)
{
	int seat = g->seat;
	struct ctgame_player *p = &g->p[seat];
	switch (g->phase) {
	case PH_AUTOMATIC:
		automatic(g, o->arg, ev);
		return;
	case PH_PLAY: {
		int rw = g->moment == CM_RW;
		switch (o->what) {
		case CO_PASS:
			ret(g);
			return;
		case CO_SANCTIFY:
			sanctify(g, ev);
			return;
		case CO_ITEM: {
			int c = ctgame_in_play(g, g->ask_seat, o->arg);
			emit(ev, CV_ITEM, g->ask_seat, c, g->moment);
			discard_card(g, g->ask_seat, c, ev);
			if (o->arg == CK_LAUDANUM) {
				struct ctgame_player *q = &g->p[g->ask_seat];
				gain_sanity(g, g->ask_seat,
				            inside(g, g->ask_seat, 14) ? q->start : 2,
				            ev); /* T15 */
			} else if (o->arg == CK_SATCHEL) {
				gain_hearts(g, g->ask_seat, inside(g, g->ask_seat, 16) ? 5 : 2,
				            ev); /* T17 */
			} else {
				g->fflags |= FF_CANDLE;
				g->kill = 4;
			}
			break;
		}
		case CO_CARD:
			play_card(g, g->ask_seat, o->arg, ev);
			break;
		}
		if (rw && !halted(g) && g->phase == PH_PLAY)
			ret(g);
		return;
	}
	case PH_TILE: {
		struct ctmap_option opt[CTMAP_OPTIONS_MAX];
		ctmap_options(&g->map, g->aux, (enum ctmap_mode)g->tile_mode, opt);
		ctmap_place(&g->map, g->aux, opt[o->arg], (enum ctmap_mode)g->tile_mode);
		emit(ev, CV_PLACE, seat, g->aux,
		     (uint8_t)opt[o->arg].tx | (int)(uint8_t)opt[o->arg].ty << 8);
		emit(ev, CV_ROTATE, seat, g->aux, opt[o->arg].rot | g->tile_mode << 4);
		g->phase = PH_TILE_PLACED;
		return;
	}
	case PH_REMOVE:
		ctmap_remove(&g->map, o->arg, CTMAP_REMOVED);
		emit(ev, CV_REMOVE, seat, o->arg, 0);
		g->phase = PH_TILE;
		return;
	case PH_TOKENS: {
		int16_t sq[9];
		int k = interiors(g, g->aux, sq);
		for (int i = 0; i < k; i++) {
			int bullet = o->arg >> i & 1;
			if (bullet ? !g->bullets : !g->hearts)
				bullet = !bullet; /* B38 */
			if (bullet ? !g->bullets : !g->hearts)
				continue;
			if (bullet)
				g->bullets--;
			else
				g->hearts--;
			g->square[sq[i]] |= (uint8_t)(bullet ? CS_BULLET : CS_HEART);
			emit(ev, CV_ARRIVE, -1, sq[i], bullet ? CS_BULLET : CS_HEART);
		}
		ret(g);
		return;
	}
	case PH_SITE_BYAKHEE:
		place_figure(g, o->arg, CS_BYAKHEE, ev); /* B42: the byakhee first */
		for (int l = 0; l < 9; l++)
			if (g->aux * 9 + l != o->arg)
				place_figure(g, g->aux * 9 + l, CS_CULTIST, ev);
		ret(g);
		return;
	case PH_WEAPON:
		g->weapon = 0;
		if (o->what == CO_WEAPON) {
			g->weapon = (uint8_t)(o->arg + 1);
			emit(ev, CV_WEAPON, seat, o->arg, 0);
			if (kind_of[o->arg] == CK_CHOPPER)
				pay_bullets(g, seat, 1, ev);
		}
		roll(g, CD_COMBAT);
		return;
	case PH_FAILED:
		switch (o->what) {
		case CO_SPEND:
			pay_bullets(g, seat, o->arg, ev); /* B23 */
			emit(ev, CV_SPEND, seat, 0, o->arg);
			kill_enemy(g, g->enemy == CS_BYAKHEE ? 2 : 1, ev);
			return;
		case CO_LOSE: {
			int then = pop(g); /* the fight's continuation */
			if (lose_heart(g, seat, then, ev)) {
				g->enemy = 0; /* B26: the fight ends only so */
				return;
			}
			push(g, then);
			g->phase = PH_WEAPON;
			return;
		}
		default:
			play_card(g, seat, o->arg, ev);
			if (o->arg == CK_DEADEYE) {
				g->ctotal = (uint8_t)(g->ctotal + 2);
				fight_eval(g, ev);
			} else {
				g->phase = PH_WEAPON; /* E13: roll again */
			}
			return;
		}
	case PH_MOVE:
		if (o->what == CO_STOP) {
			g->phase = PH_MOVE_END;
			return;
		}
		p->sq = (int16_t)ctmap_step(&g->map, p->sq, o->arg);
		g->left--;
		emit(ev, CV_MOVE, seat, p->sq, g->left);
		g->phase = PH_MOVE_ENTER;
		return;
	case PH_FIGURE:
		if (o->what == CO_STOP) {
			ret(g);
			return;
		}
		if (g->fmode == FM_SENT) {
			int to = g->p[g->target].sq;
			int deny = CS_BYAKHEE | ((g->square[o->arg] & CS_CULTIST) ? CS_CULTIST : 0);
			if (to != o->arg && (g->square[to] & deny))
				to = nearest_free(g, to, deny); /* B43 */
			if (to >= 0 && to != o->arg)
				move_figure(g, o->arg, to, CS_BYAKHEE, ev);
			ret(g);
			return;
		}
		g->figure = o->arg;
		g->phase = PH_DEST;
		return;
	case PH_DEST:
		move_figure(g, g->figure, o->arg, g->fmode == FM_BYAKHEE ? CS_BYAKHEE : CS_CULTIST,
		            ev);
		ctmap_bit_set(g->moved, o->arg);
		if (g->count)
			g->count--;
		g->phase = PH_FIGURE;
		return;
	case PH_RESEED: {
		int kind = o->arg >= CTMAP_SQUARES ? CS_BYAKHEE : CS_CULTIST;
		place_figure(g, o->arg % CTMAP_SQUARES, kind, ev);
		g->phase = PH_STEP10_NEXT;
		return;
	}
	case PH_RELIC_LOSS:
		lose_relic(g, g->defeated, o->arg, ev);
		if (--g->loss == 0)
			ret(g);
		return;
	case PH_DISCARD: {
		int over = p->hand > CTGAME_HAND;
		if (o->what == CO_STOP) {
			g->phase = PH_END_TURN;
			return;
		}
		discard_card(g, seat, hand_card(g, seat, o->arg), ev);
		if (!over || p->hand <= CTGAME_HAND)
			g->phase = PH_END_TURN; /* B16 */
		return;
	}
	case PH_TARGET:
		g->target = (uint8_t)o->arg;
		switch (g->card) {
		case CK_BRAWL:
			roll(g, CD_BRAWL_A);
			return;
		case CK_FINGERS:
			g->phase = PH_RELIC_TAKE;
			return;
		default:
			g->fmode = g->card == CK_YELLOW ? FM_YELLOW : FM_SENT;
			g->count = g->card == CK_YELLOW ? 2 : 1;
			memset(g->moved, 0, sizeof g->moved);
			g->phase = PH_FIGURE;
			return;
		}
	case PH_SQUARE:
		place_figure(g, o->arg, CS_CULTIST, ev);
		g->count--;
		return;
	case PH_RELIC_TAKE: {
		int other = g->target;
		for (int r = o->arg * 16; r < o->arg * 16 + 16; r++)
			if (g->relic_at[r] == CW_HAND + other) {
				g->relic_at[r] = CW_DISCARD;
				g->p[other].relics[o->arg]--;
				emit(ev, CV_RELIC_LOST, other, r, 0);
				give_relic(g, seat, r, ev);
				break;
			}
		ret(g);
		return;
	}
	default:
		assert(0);
	}
}

/* A die showed `v` (1..6). */
static void on_die(struct ctgame *g, int v, struct game_events *ev)
{
	int seat = g->seat;
	struct ctgame_player *p = &g->p[seat];
	switch (g->die_for) {
	case CD_MOVE:
		g->total = (uint8_t)(v + p->hearts); /* B19 */
		g->left = g->total;
		emit(ev, CV_TOTAL_MOVE, seat, v, g->total);
		g->rw = 0;
		for (int s = 0; s < g->n; s++)
			if (s != seat && !g->p[s].out)
				g->rw |= (uint8_t)(1 << s);
		g->phase = PH_RW;
		return;
	case CD_SANITY: {
		int lose = ctgame_in_play(g, seat, CK_SWORDCANE) >= 0 ? v == 1 : v <= 2;
		if (lose)
			lose_sanity(g, seat, ev);
		if (!halted(g))
			ret(g);
		return;
	}
	case CD_COMBAT: {
		int c = g->weapon - 1;
		g->ctotal = (uint8_t)v;
		if (c >= 0) {
			g->ctotal = (uint8_t)(g->ctotal + bonus(kind_of[c], g->enemy));
			if (g->uses[c] && --g->uses[c] == 0)
				discard_card(g, seat, c, ev); /* B24 */
		}
		fight_eval(g, ev);
		return;
	}
	case CD_CULTISTS:
		g->count = (uint8_t)v;
		g->fmode = FM_CULTISTS;
		memset(g->moved, 0, sizeof g->moved);
		call(g, PH_FIGURE, PH_STEP9);
		return;
	case CD_BRAWL_A:
		g->brawl[0] = (uint8_t)v;
		roll(g, CD_BRAWL_B);
		return;
	case CD_BRAWL_B: {
		g->brawl[1] = (uint8_t)v;
		if (g->brawl[0] == g->brawl[1]) {
			roll(g, CD_BRAWL_A);
			return;
		}
		int loser = g->brawl[0] < g->brawl[1] ? seat : g->target;
		int then = pop(g);
		if (!lose_heart(g, loser, then, ev))
			g->phase = (uint8_t)then;
		return;
	}
	default:
		assert(0);
	}
}

static void chance(struct ctgame *g, int value, struct game_events *ev)
{
	int seat = g->seat;
	switch (g->phase) {
	case PH_DEALER:
		g->first = (uint8_t)((value + 1) % g->n); /* B11 */
		g->seat = g->first;
		emit(ev, CV_DEALER, value, g->first, 0);
		g->count = (uint8_t)(CTGAME_HAND * g->n);
		g->phase = PH_DEAL;
		return;
	case PH_DEAL: {
		int c = nth_in(g->card_at, CTGAME_CARDS, CW_DECK, value);
		int to = (g->first + (CTGAME_HAND * g->n - g->count)) % g->n;
		g->card_at[c] = (uint8_t)(CW_HAND + to);
		g->p[to].hand++;
		emit(ev, CV_DEAL, to, c, 0);
		if (--g->count == 0) {
			g->round = 1;
			g->phase = PH_TURN;
		}
		return;
	}
	case PH_DRAW_CARD: {
		int c = nth_in(g->card_at, CTGAME_CARDS, CW_DECK, value);
		g->card_at[c] = (uint8_t)(CW_HAND + seat);
		g->p[seat].hand++;
		emit(ev, CV_DEAL, seat, c, 0);
		g->count--;
		return;
	}
	case PH_DRAW_RELIC:
		give_relic(g, seat, nth_in(g->relic_at, CTGAME_RELICS, CW_DECK, value), ev);
		g->rcount--;
		return;
	case PH_DRAW_TILE: {
		int t = -1;
		for (int i = 0, k = value; i < CTMAP_TILES; i++)
			if (g->map.where[i] == CTMAP_UNPLACED && !(g->tile_discard >> i & 1) &&
			    k-- == 0) {
				t = i;
				break;
			}
		emit(ev, CV_TILE_DRAW, seat, t, 0);
		if (g->tile_set >> t & 1) {
			g->aux = (int16_t)t;
			g->phase = PH_TILE;
		} else {
			g->tile_discard |= 1u << t; /* B7 */
			emit(ev, CV_TILE_SKIP, seat, t, 0);
		}
		return;
	}
	case PH_DIE:
		emit(ev, CV_ROLL, g->die_for == CD_BRAWL_B ? g->target : seat, g->die_for,
		     value + 1);
		on_die(g, value + 1, ev);
		return;
	default:
		assert(0);
	}
}

static int next_seat(const struct ctgame *g, int s)
{
	do
		s = (s + 1) % g->n;
	while (g->p[s].out);
	return s;
}

/* Runs the automatic part of the game until it waits for input. */
static void run(struct ctgame *g, struct game_events *ev)
{
	struct ctgame_option opt[CTGAME_OPTIONS];
	for (;;) {
		if (g->end != CE_PLAYING) {
			g->phase = PH_OVER;
			return;
		}
		if (g->flags & F_ABORT) {
			g->sp = 0;
			g->flags = 0;
			g->phase = PH_END_TURN;
		}
		int seat = g->seat;
		struct ctgame_player *p = &g->p[seat];
		switch (g->phase) {
		case PH_DEALER:
		case PH_DEAL:
		case PH_DIE:
			return;
		case PH_DRAW_CARD:
			if (g->count && !pile_count(g->card_at, CTGAME_CARDS, CW_DECK))
				for (int c = 0; c < CTGAME_CARDS; c++)
					if (g->card_at[c] == CW_DISCARD)
						g->card_at[c] = CW_DECK;
			if (g->count && pile_count(g->card_at, CTGAME_CARDS, CW_DECK))
				return;
			ret(g); /* B50 */
			continue;
		case PH_DRAW_RELIC:
			if (g->rcount && !pile_count(g->relic_at, CTGAME_RELICS, CW_DECK))
				for (int r = 0; r < CTGAME_RELICS; r++)
					if (g->relic_at[r] == CW_DISCARD)
						g->relic_at[r] = CW_DECK; /* B52 */
			if (g->rcount && pile_count(g->relic_at, CTGAME_RELICS, CW_DECK))
				return;
			g->rcount = 0;
			ret(g);
			continue;
		case PH_DRAW_TILE:
			if (!deck_tiles(g)) {
				emit(ev, CV_TILE_RESHUFFLE, seat, 0,
				     __builtin_popcount(g->tile_discard));
				g->tile_discard = 0;
			}
			return;
		case PH_TILE:
			if (ctgame_options(g, opt) == 0) {
				g->phase = PH_REMOVE; /* B9 */
				continue;
			}
			break;
		case PH_FIGURE:
			if (g->count == 0) {
				ret(g);
				continue;
			}
			break;
		case PH_SQUARE:
			if (g->count == 0 || !g->cultists) {
				ret(g);
				continue;
			}
			if (ctgame_options(g, opt) == 0) {
				card_figure(g, p->sq, CS_CULTIST, ev); /* B43 */
				g->count--;
				continue;
			}
			break;
		case PH_MOVE:
			if ((g->flags & (F_MOVE_OVER | F_SKIP67 | F_DEFEATED | F_INSANE)) ||
			    g->left == 0) {
				g->phase = PH_MOVE_END;
				continue;
			}
			break;
		case PH_OVER:
			return;
		case PH_TURN:
			p->played = 0;
			if (p->sanity == 0) {
				p->sanity = p->start;
				emit(ev, CV_SANITY, seat, p->start, p->sanity);
			}
			g->flags = 0;
			g->fflags = 0;
			g->total = g->left = 0;
			g->enemy = 0;
			g->sp = 0;
			emit(ev, CV_TURN, seat, g->round,
			     (int)(g->turns + 1 > 32767 ? 32767 : g->turns + 1));
			g->phase = PH_AUTOMATIC;
			for (int k = CK_WHISPERS; k <= CK_OMEN; k++)
				if (ctgame_in_hand(g, seat, k))
					goto ask;
			g->phase = PH_STEP1_DONE;
			continue;
		case PH_STEP1_DONE:
			play_point(g, CM_PP1, PH_STEP2);
			continue;
		case PH_STEP2:
			if (g->flags & F_INSANE)
				g->phase = PH_STEP3;
			else
				call(g, PH_TILE_BEGIN, PH_STEP3);
			continue;
		case PH_TILE_BEGIN: {
			int mode = CTMAP_STRICT;
			g->tile_set = tile_candidates(g, &mode);
			g->tile_mode = (uint8_t)mode;
			if (!g->tile_set)
				ret(g);
			else
				g->phase = PH_DRAW_TILE;
			continue;
		}
		case PH_TILE_PLACED: {
			int t = g->aux;
			switch (ctmap_tile(t)->cls) {
			case CTMAP_CLASS_ROAD:
				place_figure(g, t * 9 + 4, CS_BYAKHEE, ev);
				ret(g);
				break;
			case CTMAP_CLASS_BUILDING: {
				int16_t sq[9];
				int k = interiors(g, t, sq);
				for (int i = 0; i < k; i++)
					place_figure(g, sq[i], CS_CULTIST, ev);
				g->phase = PH_TOKENS;
				break;
			}
			default:
				g->phase = PH_SITE_BYAKHEE;
				break;
			}
			continue;
		}
		case PH_STEP3:
			if (!(g->flags & F_DEFEATED) && (g->square[p->sq] & CS_BYAKHEE))
				start_fight(g, CS_BYAKHEE, PH_STEP4, ev);
			else
				g->phase = PH_STEP4;
			continue;
		case PH_STEP4:
			if (!(g->flags & F_DEFEATED) && (g->square[p->sq] & CS_CULTIST))
				start_fight(g, CS_CULTIST, PH_STEP4_DONE, ev);
			else
				g->phase = PH_STEP4_DONE;
			continue;
		case PH_STEP4_DONE:
			play_point(g, CM_PP2, PH_STEP5);
			continue;
		case PH_STEP5:
			g->phase = PH_STEP6;
			if (!(g->flags & F_INSANE) && p->hand < CTGAME_HAND) {
				g->count = (uint8_t)(CTGAME_HAND - p->hand); /* B15 */
				call(g, PH_DRAW_CARD, PH_STEP6);
			}
			continue;
		case PH_STEP6:
			if (g->flags & (F_SKIP67 | F_INSANE | F_DEFEATED))
				g->phase = PH_STEP8;
			else
				roll(g, CD_MOVE);
			continue;
		case PH_RW: {
			int s = seat;
			g->phase = PH_RW_DONE;
			for (int i = 1; i < g->n; i++) {
				s = (seat + i) % g->n;
				if (g->rw >> s & 1) {
					g->rw &= (uint8_t) ~(1 << s);
					if (g->p[s].out)
						continue;
					g->moment = CM_RW;
					g->ask_seat = (uint8_t)s;
					call(g, PH_PLAY, PH_RW);
					break;
				}
			}
			continue;
		}
		case PH_RW_DONE:
			g->flags |= F_MOVING;
			play_point(g, CM_PP3, PH_MOVE);
			continue;
		case PH_MOVE_ENTER: {
			uint8_t here = g->square[p->sq];
			g->fflags = 0;
			if (g->flags & F_ELDER) { /* B21 */
				if (here & CS_BYAKHEE) {
					g->moment = CM_CHECK;
					g->ask_seat = (uint8_t)seat;
					call(g, PH_PLAY, PH_ELDER_CHECK);
				} else {
					g->phase = PH_ELDER_DONE;
				}
				continue;
			}
			if (here & CS_BYAKHEE) {
				start_fight(g, CS_BYAKHEE, PH_MOVE_ENTER2, ev);
			} else if (here & CS_CULTIST) {
				g->phase = PH_MOVE_ENTER2;
			} else {
				collect(g, seat, ev);
				g->phase = PH_MOVE;
			}
			continue;
		}
		case PH_ELDER_CHECK:
			g->phase = PH_ELDER_DONE;
			if (!(g->fflags & FF_NERVES) && p->sanity > 0) {
				push(g, PH_ELDER_DONE);
				roll(g, CD_SANITY);
			}
			continue;
		case PH_ELDER_DONE:
			collect(g, seat, ev);
			g->phase = PH_MOVE;
			continue;
		case PH_MOVE_ENTER2:
			/* B35, B30: no further fight after a defeat or insanity */
			if (!(g->flags & (F_DEFEATED | F_INSANE)) &&
			    (g->square[p->sq] & CS_CULTIST)) {
				uint8_t keep = g->fflags & FF_FOUGHT;
				start_fight(g, CS_CULTIST, PH_MOVE_FOUGHT, ev);
				g->fflags |= keep;
			} else {
				g->phase = PH_MOVE_FOUGHT;
			}
			continue;
		case PH_MOVE_FOUGHT:
			if ((g->fflags & FF_FOUGHT) &&
			    !(g->flags & (F_MOVE_OVER | F_DEFEATED | F_INSANE)) && g->left > 0)
				play_point(g, CM_PP4, PH_MOVE);
			else
				g->phase = PH_MOVE;
			continue;
		case PH_MOVE_END:
			g->flags |= F_MOVE_OVER;
			g->left = 0;
			if (g->flags & F_SKIP67)
				g->phase = PH_STEP8;
			else
				play_point(g, CM_PP4_END, PH_STEP8);
			continue;
		case PH_STEP8:
			g->flags &= (uint8_t) ~(F_MOVING | F_ELDER);
			roll(g, CD_CULTISTS);
			continue;
		case PH_STEP9:
			g->fmode = FM_BYAKHEE;
			g->count = 255;
			memset(g->moved, 0, sizeof g->moved);
			call(g, PH_FIGURE, PH_STEP10);
			continue;
		case PH_STEP10:
			g->count = 0;
			for (int i = 0; i < CTMAP_SITES; i++)
				if (unresolved(g, CTMAP_SITE_FIRST + i))
					g->count |= (uint8_t)(1 << i);
			g->phase = PH_STEP10_NEXT;
			continue;
		case PH_STEP10_NEXT: {
			int best = -1;
			for (int i = 0; i < CTMAP_SITES; i++) {
				int t = CTMAP_SITE_FIRST + i;
				if (!(g->count >> i & 1))
					continue;
				if (best < 0 || g->map.ty[t] < g->map.ty[best] ||
				    (g->map.ty[t] == g->map.ty[best] &&
				     g->map.tx[t] < g->map.tx[best]))
					best = t;
			}
			if (best < 0) {
				play_point(g, CM_PP5, PH_STEP11);
				continue;
			}
			g->count &= (uint8_t) ~(1 << (best - CTMAP_SITE_FIRST));
			if (!enemies_on_tile(g, best) && (g->cultists || g->byakhee)) {
				g->aux = (int16_t)best; /* B44 */
				g->phase = PH_RESEED;
				break;
			}
			continue;
		}
		case PH_STEP11:
			g->phase = PH_DISCARD;
			continue;
		case PH_END_TURN: {
			int s = next_seat(g, seat);
			int at = (seat - g->first + g->n) % g->n, to = (s - g->first + g->n) % g->n;
			g->flags = 0;
			g->sp = 0;
			g->turns++;
			if (to <= at) {
				if (g->cap && g->round >= g->cap) {
					end_game(g, CE_CAPPED, ev); /* C19 */
					continue;
				}
				g->round++;
			}
			g->seat = (uint8_t)s;
			g->phase = PH_TURN;
			continue;
		}
		case PH_FIGHT_CHECK:
			if (!(g->fflags & FF_CHECKED) && !(g->fflags & FF_NERVES) &&
			    p->sanity > 0) {
				g->fflags |= FF_CHECKED; /* B25 */
				push(g, PH_WEAPON);
				roll(g, CD_SANITY);
			} else {
				g->fflags |= FF_CHECKED;
				g->phase = PH_WEAPON;
			}
			continue;
		case PH_FIGHT_WON:
			collect(g, seat, ev);
			g->enemy = 0;
			ret(g);
			continue;
		case PH_DEFEAT_END:
			defeat_end(g, ev);
			if (!halted(g))
				ret(g);
			continue;
		case PH_SUMMONED:
			check_end(g, ev);
			continue;
		default:
			break;
		}
	ask:
		if (g->phase > PH_LAST_INPUT)
			continue;
		int n = ctgame_options(g, opt);
		if (n >= 2 || (n == 1 && ask_anyway(g)))
			return;
		if (n == 0) {
			/* a figure or reseed list that ran dry */
			if (g->phase == PH_FIGURE) {
				ret(g);
				continue;
			}
			assert(0);
			return;
		}
		choose(g, &opt[0], ev);
	}
}

/* ---- the game_ops boundary ---- */

int ctgame_init(struct ctgame *g, const struct game_setup *setup)
{
	if (setup->players < CTGAME_MIN || setup->players > CTGAME_MAX || setup->per_player ||
	    setup->rounds < 0 || setup->rounds > 10000 || setup->revision < 0)
		return GAME_EARG;
	tables();
	memset(g, 0, sizeof *g);
	ctmap_init(&g->map);
	g->n = (uint8_t)setup->players;
	g->cap = (uint16_t)setup->rounds;
	g->secret = setup->revision >= CTGAME_REV_SECRET;
	g->cultists = CTGAME_CULTISTS;
	g->byakhee = CTGAME_BYAKHEE;
	g->hearts = (uint16_t)(CTGAME_HEARTS - 3 * g->n);
	g->bullets = (uint16_t)(CTGAME_BULLETS - 3 * g->n);
	for (int s = 0; s < g->n; s++) {
		struct ctgame_player *p = &g->p[s];
		p->hearts = p->bullets = 3;
		p->sanity = p->start = 5;
		p->sq = CTGAME_CHURCH_SQ; /* B13 */
	}
	for (int s = g->n; s < CTGAME_MAX; s++)
		g->p[s].sq = -1;
	g->phase = PH_DEALER;
	return GAME_OK;
}

void ctgame_step(const struct ctgame *g, struct game_step *out)
{
	struct ctgame_option opt[CTGAME_OPTIONS];
	out->seat = g->seat;
	out->count = 0;
	switch (g->phase) {
	case PH_OVER:
		out->node = GAME_NODE_OVER;
		out->seat = -1;
		out->kind = 0;
		return;
	case PH_DEALER:
		out->node = GAME_NODE_CHANCE;
		out->kind = CTGAME_ROLL_DEALER;
		out->seat = -1;
		out->count = g->n;
		return;
	case PH_DEAL:
	case PH_DRAW_CARD:
		out->node = GAME_NODE_CHANCE;
		out->kind = CTGAME_ROLL_CARD;
		out->count = pile_count(g->card_at, CTGAME_CARDS, CW_DECK);
		return;
	case PH_DRAW_RELIC:
		out->node = GAME_NODE_CHANCE;
		out->kind = CTGAME_ROLL_RELIC;
		out->count = pile_count(g->relic_at, CTGAME_RELICS, CW_DECK);
		return;
	case PH_DRAW_TILE:
		out->node = GAME_NODE_CHANCE;
		out->kind = CTGAME_ROLL_TILE;
		out->count = deck_tiles(g);
		return;
	case PH_DIE:
		out->node = GAME_NODE_CHANCE;
		out->kind = CTGAME_ROLL_DIE;
		out->seat = g->die_for == CD_BRAWL_B ? g->target : g->seat;
		out->count = 6;
		return;
	default:
		out->node = GAME_NODE_CHOICE;
		out->kind = CA_AUTOMATIC + (g->phase - PH_AUTOMATIC);
		out->seat = chooser(g);
		out->count = ctgame_options(g, opt);
		for (int i = 0; i < out->count && i < GAME_MAX_OPTIONS; i++)
			out->options[i] = i;
		return;
	}
}

int ctgame_apply(struct ctgame *g, int value, struct game_events *ev)
{
	if (g->phase == PH_OVER)
		return GAME_EOVER;
	if (g->phase > PH_LAST_INPUT)
		return GAME_EPHASE;
	if (g->phase < PH_AUTOMATIC) {
		struct game_step st;
		ctgame_step(g, &st);
		if (value < 0 || value >= st.count)
			return GAME_EILLEGAL;
		chance(g, value, ev);
	} else {
		struct ctgame_option opt[CTGAME_OPTIONS];
		if (value < 0 || value >= ctgame_options(g, opt))
			return GAME_EILLEGAL;
		choose(g, &opt[value], ev);
	}
	run(g, ev);
	return GAME_OK;
}

int ctgame_leave(struct ctgame *g, int seat, struct game_events *ev)
{
	if (g->phase == PH_OVER)
		return GAME_EOVER;
	if (g->phase == PH_DEALER || g->phase == PH_DEAL)
		return GAME_EPHASE;
	if (seat < 0 || seat >= g->n || g->p[seat].out)
		return GAME_EARG;
	eliminate(g, seat, ev);
	if (g->end == CE_PLAYING && g->activated >= 3)
		check_end(g, ev); /* B54: the leaver was choosing the relics to lose */
	if (g->end == CE_PLAYING && !(g->flags & F_ABORT)) {
		/* the decisions and dice that were the leaver's, or about them */
		int about = g->target == seat;
		if (g->phase == PH_PLAY && g->moment == CM_RW && g->ask_seat == seat) {
			ret(g); /* a pass */
		} else if (g->phase == PH_RELIC_LOSS && g->defeated == seat) {
			g->loss = 0;
			ret(g);
		} else if (about && g->phase == PH_DIE &&
		           (g->die_for == CD_BRAWL_A || g->die_for == CD_BRAWL_B)) {
			g->phase = (uint8_t)pop(g); /* no brawl without the other player */
		} else if (about && (g->phase == PH_RELIC_TAKE ||
		                     ((g->phase == PH_FIGURE || g->phase == PH_DEST) &&
		                      (g->fmode == FM_YELLOW || g->fmode == FM_SENT)))) {
			ret(g); /* the card's effect ends with its target gone */
		}
	}
	run(g, ev);
	return GAME_OK;
}

int ctgame_begin_turn(struct ctgame *g, int seat, struct game_events *ev)
{
	if (g->end != CE_PLAYING)
		return GAME_EOVER;
	if (seat < 0 || seat >= g->n || g->p[seat].out)
		return GAME_EARG;
	g->seat = (uint8_t)seat;
	g->sp = 0;
	if (g->round == 0)
		g->round = 1;
	g->phase = PH_TURN;
	run(g, ev);
	return GAME_OK;
}

void ctgame_result(const struct ctgame *g, struct game_result *out)
{
	int w = -1, best = 0;
	out->over = g->end != CE_PLAYING;
	if (g->winners && !(g->winners & (g->winners - 1)))
		for (w = 0; !(g->winners >> w & 1); w++)
			;
	for (int s = 0; s < g->n; s++)
		if ((g->winners >> s & 1) && ctgame_vp(g, s) > best)
			best = ctgame_vp(g, s);
	out->winner = w;
	out->player = w;
	out->turns = (int)g->turns;
	out->points = best;
}

uint64_t ctgame_hash(const struct ctgame *g)
{
	const unsigned char *b = (const unsigned char *)g;
	uint64_t h = 1469598103934665603ull;
	size_t i = 0;
	for (; i + 8 <= sizeof *g; i += 8) {
		uint64_t w;
		memcpy(&w, b + i, 8);
		h = (h ^ w) * 0x9e3779b97f4a7c15ull;
		h ^= h >> 29;
	}
	for (; i < sizeof *g; i++)
		h = (h ^ b[i]) * 1099511628211ull;
	return h;
}

/* ---- invariants (§16) ---- */

#define FAIL(k, ...)                                                                               \
	do {                                                                                       \
		snprintf(why, n, __VA_ARGS__);                                                     \
		return k;                                                                          \
	} while (0)

int ctgame_check(const struct ctgame *g, char *why, size_t n)
{
	int hearts = g->hearts, bullets = g->bullets, cultists = g->cultists, byakhee = g->byakhee;
	int hand[CTGAME_MAX] = { 0 }, relics[CTGAME_MAX][CTGAME_TYPES] = { { 0 } };
	tables();
	for (int q = 0; q < CTMAP_SQUARES; q++) {
		uint8_t s = g->square[q];
		if (s && !ctmap_passable(&g->map, q))
			FAIL(3, "square %d holds %#x but is not on the board", q, s);
		hearts += !!(s & CS_HEART);
		bullets += !!(s & CS_BULLET);
		cultists += !!(s & CS_CULTIST);
		byakhee += !!(s & CS_BYAKHEE);
	}
	for (int s = 0; s < g->n; s++) {
		const struct ctgame_player *p = &g->p[s];
		hearts += p->hearts;
		bullets += p->bullets;
		if (p->out) {
			if (p->sq != -1 || p->hearts || p->bullets)
				FAIL(3, "eliminated seat %d still has a pawn or tokens", s);
			continue;
		}
		int defeating = (g->phase == PH_RELIC_LOSS || g->phase == PH_DEFEAT_END ||
		                 g->end != CE_PLAYING) &&
		                g->defeated == s;
		if (p->hearts > 5 || (p->hearts < 1 && !defeating))
			FAIL(5, "seat %d has %d hearts", s, p->hearts);
		if (p->start < 1 || p->start > 5 || p->sanity > p->start)
			FAIL(5, "seat %d sanity %d/%d", s, p->sanity, p->start);
		if (p->sq < 0 || !ctmap_passable(&g->map, p->sq))
			FAIL(3, "seat %d pawn on square %d", s, p->sq);
	}
	if (hearts != CTGAME_HEARTS || bullets != CTGAME_BULLETS)
		FAIL(1, "tokens: %d hearts, %d bullets", hearts, bullets);
	if (cultists != CTGAME_CULTISTS || byakhee != CTGAME_BYAKHEE)
		FAIL(2, "figures: %d cultists, %d byakhee", cultists, byakhee);
	for (int c = 0; c < CTGAME_CARDS; c++) {
		int w = g->card_at[c], s = w & 0x0f;
		if (w == CW_DECK || w == CW_DISCARD)
			continue;
		if ((w & 0xf0) != CW_HAND && (w & 0xf0) != CW_PLAY)
			FAIL(6, "card %d is nowhere (%#x)", c, w);
		if (s >= g->n || g->p[s].out)
			FAIL(6, "card %d with seat %d", c, s);
		if ((w & 0xf0) == CW_HAND)
			hand[s]++;
		else if (cards[kind_of[c]].category == CC_WEAPON) {
			for (int d = first_card[kind_of[c]]; d < c; d++)
				if (g->card_at[d] == w)
					FAIL(6, "seat %d has two %s in play", s,
					     cards[kind_of[c]].id);
		} else if (cards[kind_of[c]].category != CC_ITEM) {
			FAIL(6, "card %d (%s) in play", c, cards[kind_of[c]].id);
		}
	}
	for (int r = 0; r < CTGAME_RELICS; r++) {
		int w = g->relic_at[r];
		if (w == CW_DECK || w == CW_DISCARD)
			continue;
		if ((w & 0xf0) != CW_HAND || (w & 0x0f) >= g->n)
			FAIL(6, "relic %d is nowhere (%#x)", r, w);
		relics[w & 0x0f][r / 16]++;
	}
	for (int s = 0; s < g->n; s++) {
		if (hand[s] != g->p[s].hand || hand[s] > CTGAME_HAND)
			FAIL(5, "seat %d hand %d (counted %d)", s, hand[s], g->p[s].hand);
		if (memcmp(relics[s],
		           (int[CTGAME_TYPES]){ g->p[s].relics[0], g->p[s].relics[1],
		                                g->p[s].relics[2], g->p[s].relics[3],
		                                g->p[s].relics[4] },
		           sizeof relics[s]))
			FAIL(6, "seat %d relic counts disagree", s);
	}
	int sanct = 0, act = 0, owned = 0;
	for (int t = 0; t < CTMAP_TILES; t++) {
		int w = g->map.where[t];
		if (w == CTMAP_PLACED || w == CTMAP_ACTIVATED) {
			if (ctmap_at(&g->map, g->map.tx[t], g->map.ty[t]) != t)
				FAIL(8, "tile %d is not in its cell", t);
		}
		if (w == CTMAP_SANCTIFIED)
			sanct++;
		if (w == CTMAP_ACTIVATED || w == CTMAP_REMOVED)
			act++;
		if ((w == CTMAP_ACTIVATED || w == CTMAP_REMOVED || w == CTMAP_SANCTIFIED) &&
		    !is_site(t))
			FAIL(8, "tile %d resolved but not a site", t);
		if ((g->tile_discard >> t & 1) && w != CTMAP_UNPLACED)
			FAIL(8, "tile %d on the map discard and the map", t);
	}
	for (int s = 0; s < g->n; s++)
		owned += site_count(g->p[s].sites);
	if (sanct != g->sanctified || act != g->activated || owned != sanct)
		FAIL(8, "sites: %d sanctified (%d held, counter %d), %d activated (counter %d)",
		     sanct, owned, g->sanctified, act, g->activated);
	/* 9: matching sides, except activated sites' walls and sites placed by B9 */
	for (int t = 0; t < CTMAP_TILES; t++) {
		static const int dx[4] = { 0, 1, 0, -1 }, dy[4] = { -1, 0, 1, 0 };
		if (g->map.where[t] != CTMAP_PLACED || g->map.forced[t])
			continue;
		for (int d = 0; d < 4; d++) {
			int u = ctmap_at(&g->map, g->map.tx[t] + dx[d], g->map.ty[t] + dy[d]);
			if (u < 0 || g->map.where[u] != CTMAP_PLACED || g->map.forced[u])
				continue;
			if (ctmap_open(&g->map, t, d) != ctmap_open(&g->map, u, (d + 2) % 4))
				FAIL(9, "tiles %s and %s do not match", ctmap_tile(t)->id,
				     ctmap_tile(u)->id);
		}
	}
	/* 9: G is connected */
	{
		int16_t dist[CTMAP_SQUARES], all[CTMAP_SQUARES];
		int k = ctmap_squares(&g->map, all);
		ctmap_distances(&g->map, CTGAME_CHURCH_SQ, NULL, -1, dist);
		for (int i = 0; i < k; i++)
			if (dist[all[i]] < 0)
				FAIL(9, "square %d,%d cannot be reached from the Church",
				     ctmap_gx(&g->map, all[i]), ctmap_gy(&g->map, all[i]));
	}
	if ((g->phase == PH_DISCARD || (g->phase == PH_PLAY && g->moment == CM_PP5)) &&
	    (g->cultists || g->byakhee))
		for (int t = CTMAP_SITE_FIRST; t < CTMAP_SITE_FIRST + CTMAP_SITES; t++)
			if (unresolved(g, t) && !enemies_on_tile(g, t))
				FAIL(10, "site %s holds no enemy after step 10", ctmap_tile(t)->id);
	switch (g->end) {
	case CE_PLAYING:
		if (g->sanctified >= 3 || (g->activated >= 3 && g->phase != PH_RELIC_LOSS))
			FAIL(11, "three sites resolved but the game goes on");
		break;
	case CE_SAVED:
		if (g->sanctified != 3 || g->activated > 2)
			FAIL(11, "saved with %d/%d", g->sanctified, g->activated);
		break;
	case CE_SUMMONED:
		if (g->activated != 3 || g->sanctified > 2)
			FAIL(11, "summoned with %d/%d", g->sanctified, g->activated);
		break;
	default:
		break;
	}
	if ((g->end == CE_SAVED || g->end == CE_SUMMONED) && g->winners != winner_set(g))
		FAIL(12, "winners %#x, expected %#x", g->winners, winner_set(g));
	if (g->end == CE_PLAYING && g->winners)
		FAIL(12, "winners before the end");
	return 0;
}

/* ---- policies (§17, C13) ---- */

static int find_opt(const struct ctgame_option *o, int n, int what, int arg)
{
	for (int i = 0; i < n; i++)
		if (o[i].what == what && (arg < 0 || o[i].arg == arg))
			return i;
	return -1;
}

/* C13's targets: the other players' pawns, the active player's if none. */
static uint8_t hunt_targets(const struct ctgame *g)
{
	uint8_t t = 0;
	for (int s = 0; s < g->n; s++)
		if (s != g->seat && !g->p[s].out)
			t |= (uint8_t)(1 << s);
	return t ? t : (uint8_t)(1 << g->seat);
}

static int manhattan(const struct ctgame *g, uint8_t targets, int q)
{
	int best = 1 << 20, x = ctmap_gx(&g->map, q), y = ctmap_gy(&g->map, q);
	for (int s = 0; s < g->n; s++) {
		if (!(targets >> s & 1) || g->p[s].sq < 0)
			continue;
		int dx = x - ctmap_gx(&g->map, g->p[s].sq), dy = y - ctmap_gy(&g->map, g->p[s].sq);
		int m = (dx < 0 ? -dx : dx) + (dy < 0 ? -dy : dy);
		if (m < best)
			best = m;
	}
	return best;
}

/* D(q) of C13 for a cultist standing on `from`: confined to its site. */
static int hunt_d(const int16_t *free_d, const int16_t *conf_d, int from, int q)
{
	int d = is_site(tile_of(from)) ? conf_d[q] : free_d[q];
	return d < 0 ? 1 << 20 : d;
}

int ctgame_hunt(const struct ctgame *g)
{
	struct ctgame_option o[CTGAME_OPTIONS];
	int n = ctgame_options(g, o), best = 0;
	uint8_t targets = hunt_targets(g);
	if (g->phase == PH_RESEED) {
		int entrance = -1;
		for (int l = 0; l < 9; l++)
			if (ctmap_square_kind(&g->map, g->aux * 9 + l) == CTMAP_ENTRANCE)
				entrance = g->aux * 9 + l;
		int i = find_opt(o, n, CO_FIGURE, entrance);
		if (i < 0)
			i = find_opt(o, n, CO_FIGURE, CTMAP_SQUARES + entrance);
		return i < 0 ? 0 : i;
	}
	if (g->fmode == FM_BYAKHEE) {
		long bkey = -1;
		for (int i = 0; i < n; i++) {
			long key = manhattan(g, targets, o[i].arg);
			if (bkey < 0 || key < bkey) {
				bkey = key;
				best = i;
			}
		}
		return best; /* options come in reading order: ties keep the first */
	}
	if (g->fmode != FM_CULTISTS)
		return 0;
	int16_t free_d[CTMAP_SQUARES], conf_d[CTMAP_SQUARES];
	int site = -1;
	target_distances(g, targets, -1, free_d);
	if (g->phase == PH_DEST && is_site(tile_of(g->figure))) {
		site = tile_of(g->figure);
		target_distances(g, targets, site, conf_d);
	}
	long bkey = -1;
	for (int i = 0; i < n; i++) {
		int q = o[i].arg;
		long key;
		if (o[i].what != CO_SQUARE)
			continue;
		if (g->phase == PH_DEST) {
			key = hunt_d(free_d, conf_d, g->figure, q);
		} else {
			int d;
			if (is_site(tile_of(q))) {
				int here = 0;
				for (int s = 0; s < g->n; s++)
					here |= (targets >> s & 1) && g->p[s].sq >= 0 &&
					        tile_of(g->p[s].sq) == tile_of(q);
				d = 1 << 20;
				if (here) {
					target_distances(g, targets, tile_of(q), conf_d);
					d = conf_d[q] < 0 ? 1 << 20 : conf_d[q];
				}
			} else {
				d = free_d[q] < 0 ? 1 << 20 : free_d[q];
			}
			int group = d == 0 ? 2 : d == 1 << 20 ? 1 : 0;
			key = (long)group << 24 | d;
		}
		if (bkey < 0 || key < bkey) {
			bkey = key;
			best = i;
		}
	}
	return best;
}

/* C11's default weapon order: the highest bonus, free unlimited weapons
 * before limited ones, the Chopper last, then the lowest card id. */
static int weapon_key(const struct ctgame *g, int c)
{
	int k = kind_of[c];
	int cost = k == CK_CHOPPER ? 2 : cards[k].uses ? 1 : 0;
	return (10 - bonus(k, g->enemy)) * 1000 + cost * 100 + c;
}

static int baseline_play(const struct ctgame *g, const struct ctgame_option *o, int n)
{
	int seat = g->ask_seat, m = g->moment, i;
	const struct ctgame_player *p = &g->p[seat];
	if (m == CM_RW)
		return 0;
	if (m == CM_CS || m == CM_CHECK) {
		if ((i = find_opt(o, n, CO_ITEM, CK_CANDLE)) >= 0)
			return i;
		if (p->hearts <= 2 && (i = find_opt(o, n, CO_CARD, CK_BANISH)) >= 0)
			return i;
		if (p->sanity <= 2 && (i = find_opt(o, n, CO_CARD, CK_NERVES)) >= 0)
			return i;
		return 0;
	}
	if ((i = find_opt(o, n, CO_SANCTIFY, -1)) >= 0)
		return i; /* BP6 */
	if (m == CM_PP1) {
		if (p->hearts == 1 && (i = find_opt(o, n, CO_CARD, CK_BELLS)) >= 0)
			return i;
		for (int k = CK_KNIFE; k <= CK_SWORDCANE; k++)
			if ((i = find_opt(o, n, CO_CARD, k)) >= 0)
				return i;
		for (int k = CK_LAUDANUM; k <= CK_CANDLE; k++)
			if ((i = find_opt(o, n, CO_CARD, k)) >= 0)
				return i;
	}
	if (m == CM_PP2) {
		if (p->bullets <= 2 && (i = find_opt(o, n, CO_CARD, CK_STASH)) >= 0)
			return i;
		if (p->sanity < p->start && (i = find_opt(o, n, CO_CARD, CK_HYMN)) >= 0)
			return i;
		if ((i = find_opt(o, n, CO_CARD, CK_SURVEYOR)) >= 0)
			return i;
		if ((i = find_opt(o, n, CO_CARD, CK_EYE)) >= 0)
			return i;
	}
	if (p->hearts <= 2 && (i = find_opt(o, n, CO_ITEM, CK_SATCHEL)) >= 0)
		return i;
	if (p->sanity >= 1 && p->sanity <= 2 && (i = find_opt(o, n, CO_ITEM, CK_LAUDANUM)) >= 0)
		return i;
	return 0;
}

/* BP5's target square, or -1 to stay. */
static int baseline_target(const struct ctgame *g)
{
	const struct ctgame_player *p = &g->p[g->seat];
	int16_t dist[CTMAP_SQUARES];
	int best = -1;
	ctmap_distances(&g->map, p->sq, NULL, -1, dist);
#define NEARER(q)                                                                                  \
	(best < 0 || dist[q] < dist[best] ||                                                       \
	 (dist[q] == dist[best] && ctmap_cmp_reading(&g->map, q, best) < 0))
	int all = 1;
	for (int t = 0; t < CTGAME_TYPES; t++)
		all &= p->relics[t] > 0;
	if (all) {
		int site = -1, entrance = -1;
		for (int t = CTMAP_SITE_FIRST; t < CTMAP_SITE_FIRST + CTMAP_SITES; t++) {
			if (!unresolved(g, t))
				continue;
			for (int l = 0; l < 9; l++) {
				int q = t * 9 + l;
				if (ctmap_square_kind(&g->map, q) != CTMAP_ENTRANCE || dist[q] < 0)
					continue;
				if (entrance < 0 || dist[q] < dist[entrance] ||
				    (dist[q] == dist[entrance] &&
				     ctmap_cmp_reading(&g->map, q, entrance) < 0)) {
					entrance = q;
					site = t;
				}
			}
		}
		if (site >= 0) {
			for (int l = 0; l < 9; l++) {
				int q = site * 9 + l;
				if ((g->square[q] & (CS_CULTIST | CS_BYAKHEE)) && dist[q] >= 0 &&
				    NEARER(q))
					best = q;
			}
			return best >= 0 ? best : entrance;
		}
	}
	if (p->hearts <= 2) {
		for (int q = 0; q < CTMAP_SQUARES; q++)
			if ((g->square[q] & CS_HEART) && dist[q] >= 0 && NEARER(q))
				best = q;
		if (best >= 0)
			return best;
	}
	for (int q = 0; q < CTMAP_SQUARES; q++)
		if ((g->square[q] & (CS_CULTIST | CS_BYAKHEE)) && dist[q] >= 0 && NEARER(q))
			best = q;
#undef NEARER
	return best;
}

static int baseline_move(const struct ctgame *g, const struct ctgame_option *o, int n)
{
	uint8_t enemy[CTMAP_BITMAP_BYTES] = { 0 }, dirs[CTMAP_SQUARES];
	int to = baseline_target(g), from = g->p[g->seat].sq, i;
	if (to < 0 || to == from)
		return find_opt(o, n, CO_STOP, -1);
	for (int q = 0; q < CTMAP_SQUARES; q++)
		if (g->square[q] & (CS_CULTIST | CS_BYAKHEE))
			ctmap_bit_set(enemy, q);
	if (ctmap_route(&g->map, from, to, enemy, -1, dirs) <= 0)
		return find_opt(o, n, CO_STOP, -1);
	i = find_opt(o, n, CO_DIR, dirs[0]);
	return i >= 0 ? i : find_opt(o, n, CO_STOP, -1);
}

static int baseline(const struct ctgame *g)
{
	struct ctgame_option o[CTGAME_OPTIONS];
	int n = ctgame_options(g, o), seat = g->seat, best = 0;
	const struct ctgame_player *p = &g->p[seat];
	switch (g->phase) {
	case PH_AUTOMATIC:
		for (int i = 1; i < n; i++)
			if (cards[o[i].arg].severity < cards[o[best].arg].severity)
				best = i;
		return best; /* BP2 */
	case PH_PLAY:
		return baseline_play(g, o, n);
	case PH_TILE: { /* BP1 */
		struct ctmap_option c[CTMAP_OPTIONS_MAX];
		int t = tile_of(p->sq), bd = -1;
		ctmap_options(&g->map, g->aux, (enum ctmap_mode)g->tile_mode, c);
		for (int i = 0; i < n; i++) {
			int dx = c[i].tx - g->map.tx[t], dy = c[i].ty - g->map.ty[t];
			int d = (dx < 0 ? -dx : dx) + (dy < 0 ? -dy : dy);
			if (bd < 0 || d < bd) {
				bd = d;
				best = i;
			}
		}
		return best;
	}
	case PH_TOKENS:
		return 0xa & (n - 1); /* Alternate, hearts first */
	case PH_SITE_BYAKHEE:
		return 4; /* the centre */
	case PH_WEAPON:
		for (int i = 1; i < n; i++)
			if (best == 0 || weapon_key(g, o[i].arg) < weapon_key(g, o[best].arg))
				best = i;
		return best;
	case PH_FAILED: { /* BP3 */
		int need = g->kill - g->ctotal, i;
		if (need <= 2 && (i = find_opt(o, n, CO_CARD, CK_DEADEYE)) >= 0)
			return i;
		if (p->hearts == 1 && p->bullets < need &&
		    (i = find_opt(o, n, CO_CARD, CK_SECONDWIND)) >= 0)
			return i;
		if ((i = find_opt(o, n, CO_SPEND, -1)) >= 0 && (need <= 2 || p->hearts == 1))
			return i;
		return find_opt(o, n, CO_LOSE, -1);
	}
	case PH_MOVE:
		return baseline_move(g, o, n);
	case PH_FIGURE:
	case PH_DEST:
	case PH_RESEED:
		return ctgame_hunt(g); /* BP7 */
	case PH_RELIC_LOSS:            /* BP9 */
		for (int i = 1; i < n; i++)
			if (g->p[g->defeated].relics[o[i].arg] >
			    g->p[g->defeated].relics[o[best].arg])
				best = i;
		return best;
	case PH_DISCARD: { /* BP10 */
		int over = p->hand > CTGAME_HAND, pick = -1;
		for (int i = 0; i < n; i++) {
			if (o[i].what != CO_CARD)
				continue;
			int sev = cards[o[i].arg].severity;
			if (pick < 0 || sev > cards[o[pick].arg].severity ||
			    (sev == cards[o[pick].arg].severity && o[i].arg > o[pick].arg))
				pick = i;
		}
		if (over)
			return pick;
		if (pick >= 0 && cards[o[pick].arg].severity)
			return pick;
		return find_opt(o, n, CO_STOP, -1);
	}
	default:
		return 0; /* B9 removal: the earliest activated; targets: the lowest seat */
	}
}

int ctgame_policy_baseline(const void *state, const struct game_step *step, struct rng *rng)
{
	(void)step;
	(void)rng;
	return baseline(state);
}

int ctgame_policy_random(const void *state, const struct game_step *step, struct rng *rng)
{
	(void)state;
	return (int)rng_below(rng, (uint32_t)step->count);
}

static const struct game_policy policies[] = {
	{ "baseline", ctgame_policy_baseline },
	{ "random", ctgame_policy_random },
	{ NULL, NULL },
};

GAME_OPS_ADAPTERS(ctgame)

const struct game_ops ctgame_ops = {
	.name = "cthulhu",
	.state_size = sizeof(struct ctgame),
	.seats_max = CTGAME_MAX,
	.scores = 1,
	.init = ops_init,
	.step = ops_step,
	.apply = ops_apply,
	.result = ops_result,
	.seats = ops_seats,
	.policies = policies,
};

/* ---- movement by destination (C9, C10) ---- */

int ctgame_reachable(const struct ctgame *g, int16_t *out)
{
	int16_t dist[CTMAP_SQUARES];
	int n = 0, from;
	if (g->phase != PH_MOVE)
		return 0;
	from = g->p[g->seat].sq;
	ctmap_distances(&g->map, from, NULL, -1, dist);
	for (int q = 0; q < CTMAP_SQUARES; q++)
		if (dist[q] > 0 && dist[q] <= g->left)
			out[n++] = (int16_t)q;
	sort_reading(g, out, n);
	return n;
}

int ctgame_route(const struct ctgame *g, int to, uint8_t *dirs)
{
	uint8_t enemy[CTMAP_BITMAP_BYTES] = { 0 };
	if (g->phase != PH_MOVE || to < 0 || to >= CTMAP_SQUARES)
		return -1;
	for (int q = 0; q < CTMAP_SQUARES; q++)
		if (g->square[q] & (CS_CULTIST | CS_BYAKHEE))
			ctmap_bit_set(enemy, q);
	return ctmap_route(&g->map, g->p[g->seat].sq, to, enemy, g->left, dirs);
}

/* ---- timeouts (C15) ---- */

int ctgame_default(const struct ctgame *g)
{
	struct ctgame_option o[CTGAME_OPTIONS];
	int n = ctgame_options(g, o), i;
	const struct ctgame_player *p = &g->p[g->seat];
	if (n == 0)
		return 0;
	switch (g->phase) {
	case PH_PLAY:
		i = find_opt(o, n, CO_SANCTIFY, -1);
		return i >= 0 ? i : find_opt(o, n, CO_PASS, -1);
	case PH_FAILED: {
		int need = g->kill - g->ctotal;
		if ((i = find_opt(o, n, CO_SPEND, -1)) >= 0 && (need <= 2 || p->hearts == 1))
			return i;
		return find_opt(o, n, CO_LOSE, -1);
	}
	case PH_MOVE:
		return find_opt(o, n, CO_STOP, -1);
	case PH_DISCARD:
		if (p->hand > CTGAME_HAND)
			return baseline(g);
		return find_opt(o, n, CO_STOP, -1);
	case PH_SQUARE:
	case PH_TARGET:
	case PH_RELIC_TAKE:
		return 0;
	case PH_FIGURE:
	case PH_DEST:
		if (g->fmode != FM_CULTISTS && g->fmode != FM_BYAKHEE)
			return 0;
		return baseline(g);
	default:
		return baseline(g);
	}
}

/* ---- queries for front ends ---- */

int ctgame_tile_options(const struct ctgame *g, int *tile, struct ctmap_option *out)
{
	if (g->phase != PH_TILE)
		return -1;
	*tile = g->aux;
	return ctmap_options(&g->map, g->aux, (enum ctmap_mode)g->tile_mode, out);
}

int ctgame_enemy_move(const struct ctgame *g)
{
	return g->phase == PH_RESEED || ((g->phase == PH_FIGURE || g->phase == PH_DEST) &&
	                                 (g->fmode == FM_CULTISTS || g->fmode == FM_BYAKHEE));
}

int ctgame_figure_kind(const struct ctgame *g)
{
	if (g->phase != PH_FIGURE && g->phase != PH_DEST)
		return 0;
	return g->fmode == FM_BYAKHEE || g->fmode == FM_SENT ? CS_BYAKHEE : CS_CULTIST;
}

void ctgame_piles(const struct ctgame *g, struct ctgame_piles *out)
{
	out->tiles = deck_tiles(g);
	out->tile_discard = __builtin_popcount(g->tile_discard);
	out->cards = pile_count(g->card_at, CTGAME_CARDS, CW_DECK);
	out->card_discard = pile_count(g->card_at, CTGAME_CARDS, CW_DISCARD);
	out->relics = pile_count(g->relic_at, CTGAME_RELICS, CW_DECK);
	out->relic_discard = pile_count(g->relic_at, CTGAME_RELICS, CW_DISCARD);
}

int ctgame_effects(const struct ctgame *g)
{
	int fx = 0;

	if (g->end)
		return 0;
	if (g->flags & F_ELDER)
		fx |= CX_ELDER;
	if (g->flags & F_JAMMED)
		fx |= CX_JAMMED;
	if (g->flags & F_SKIP67)
		fx |= CX_NO_MOVE;
	if (g->enemy && (g->fflags & FF_NERVES))
		fx |= CX_NERVES;
	return fx;
}
