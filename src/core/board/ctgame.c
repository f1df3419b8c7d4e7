/* ctgame: the board game's state from outside: the card and relic tables (§12.2,
 * §13), the small queries the other files share, the game_ops boundary and
 * the queries for front ends. The rest of the engine is split by subject
 * (ctgame_int.h lists the files). */
#include "ctgame_int.h"

#include <assert.h>
#include <string.h>

/* ---- tables (§12.2, §13) ---- */

const struct ctgame_card_info ct_cards[CTGAME_KINDS] = {
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
int8_t ct_first_card[CTGAME_KINDS + 1];
int8_t ct_kind_of[CTGAME_CARDS];

void ct_tables(void)
{
	if (ct_first_card[CTGAME_KINDS])
		return;
	int id = 0;
	for (int k = 0; k < CTGAME_KINDS; k++) {
		ct_first_card[k] = (int8_t)id;
		for (int c = 0; c < ct_cards[k].count; c++)
			ct_kind_of[id++] = (int8_t)k;
	}
	assert(id == CTGAME_CARDS);
	ct_first_card[CTGAME_KINDS] = (int8_t)id;
}

const struct ctgame_card_info *ctgame_card(int kind)
{
	return kind >= 0 && kind < CTGAME_KINDS ? &ct_cards[kind] : NULL;
}

int ctgame_card_kind(int card)
{
	ct_tables();
	return card >= 0 && card < CTGAME_CARDS ? ct_kind_of[card] : -1;
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

/* ---- small queries ---- */

/* The pawn is on an interior square of the named building `tile` (B48). */
int ct_inside(const struct ctgame *g, int seat, int tile)
{
	int sq = g->p[seat].sq;
	return sq >= 0 && tile_of(sq) == tile && interior(g, sq);
}

int ct_inside_named(const struct ctgame *g, int seat)
{
	int sq = g->p[seat].sq;
	return sq >= 0 && ctmap_tile(tile_of(sq))->cls == CTMAP_CLASS_BUILDING && interior(g, sq);
}

int ct_enemies_on_tile(const struct ctgame *g, int tile)
{
	for (int l = 0; l < 9; l++)
		if (g->square[tile * 9 + l] & (CS_CULTIST | CS_BYAKHEE))
			return 1;
	return 0;
}

int ctgame_in_hand(const struct ctgame *g, int seat, int kind)
{
	int n = 0;
	ct_tables();
	for (int c = ct_first_card[kind]; c < ct_first_card[kind + 1]; c++)
		n += g->card_at[c] == CW_HAND + seat;
	return n;
}

int ctgame_in_play(const struct ctgame *g, int seat, int kind)
{
	ct_tables();
	for (int c = ct_first_card[kind]; c < ct_first_card[kind + 1]; c++)
		if (g->card_at[c] == CW_PLAY + seat)
			return c;
	return -1;
}

int ct_hand_card(const struct ctgame *g, int seat, int kind)
{
	for (int c = ct_first_card[kind]; c < ct_first_card[kind + 1]; c++)
		if (g->card_at[c] == CW_HAND + seat)
			return c;
	return -1;
}

int ct_relic_total(const struct ctgame *g, int seat)
{
	int n = 0;
	for (int t = 0; t < CTGAME_TYPES; t++)
		n += g->p[seat].relics[t];
	return n;
}

int ct_pile_count(const uint8_t *at, int n, int where)
{
	int k = 0;
	for (int i = 0; i < n; i++)
		k += at[i] == where;
	return k;
}

int ct_nth_in(const uint8_t *at, int n, int where, int index)
{
	for (int i = 0; i < n; i++)
		if (at[i] == where && index-- == 0)
			return i;
	return -1;
}

int ct_deck_tiles(const struct ctgame *g)
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

/* ---- the game_ops boundary ---- */

int ctgame_init(struct ctgame *g, const struct game_setup *setup)
{
	if (setup->players < CTGAME_MIN || setup->players > CTGAME_MAX || setup->per_player ||
	    setup->rounds < 0 || setup->rounds > 10000 || setup->revision < 0)
		return GAME_EARG;
	ct_tables();
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
		out->count = ct_pile_count(g->card_at, CTGAME_CARDS, CW_DECK);
		return;
	case PH_DRAW_RELIC:
		out->node = GAME_NODE_CHANCE;
		out->kind = CTGAME_ROLL_RELIC;
		out->count = ct_pile_count(g->relic_at, CTGAME_RELICS, CW_DECK);
		return;
	case PH_DRAW_TILE:
		out->node = GAME_NODE_CHANCE;
		out->kind = CTGAME_ROLL_TILE;
		out->count = ct_deck_tiles(g);
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
		out->seat = ct_chooser(g);
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
		ct_chance(g, value, ev);
	} else {
		struct ctgame_option opt[CTGAME_OPTIONS];
		if (value < 0 || value >= ctgame_options(g, opt))
			return GAME_EILLEGAL;
		ct_choose(g, &opt[value], ev);
	}
	ct_run(g, ev);
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
	ct_eliminate(g, seat, ev);
	if (g->end == CE_PLAYING && g->activated >= 3)
		ct_check_end(g, ev); /* B54: the leaver was choosing the relics to lose */
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
			g->phase = (uint8_t)ct_pop(g); /* no brawl without the other player */
		} else if (about && (g->phase == PH_RELIC_TAKE ||
		                     ((g->phase == PH_FIGURE || g->phase == PH_DEST) &&
		                      (g->fmode == FM_YELLOW || g->fmode == FM_SENT)))) {
			ret(g); /* the card's effect ends with its target gone */
		}
	}
	ct_run(g, ev);
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
	ct_run(g, ev);
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
	.policies = ct_policies,
};

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
	out->tiles = ct_deck_tiles(g);
	out->tile_discard = __builtin_popcount(g->tile_discard);
	out->cards = ct_pile_count(g->card_at, CTGAME_CARDS, CW_DECK);
	out->card_discard = ct_pile_count(g->card_at, CTGAME_CARDS, CW_DISCARD);
	out->relics = ct_pile_count(g->relic_at, CTGAME_RELICS, CW_DECK);
	out->relic_discard = ct_pile_count(g->relic_at, CTGAME_RELICS, CW_DISCARD);
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
