/* ctcombat: the fights (§8): starting one, the sanity check of a fight
 * against a byakhee (B25), the weapon, the combat roll, a failed roll paid
 * for with bullets or a heart, and the figure's death. */
#include "ctgame_int.h"

/* ---- fights (§8) ---- */

/* §8: a fight against the figure of `kind` on the active pawn's square;
 * phase `then` follows it. */
void ct_start_fight(struct ctgame *g, int kind, int then, struct game_events *ev)
{
	push(g, then);
	g->enemy = (uint8_t)kind;
	g->kill = kind == CS_CULTIST ? 4 : 5;
	g->fflags = FF_FOUGHT;
	g->weapon = 0;
	emit(ev, CV_FIGHT, g->seat, g->p[g->seat].sq, kind);
	if (kind == CS_BYAKHEE)
		ct_play_point(g, CM_CS, PH_FIGHT_CHECK);
	else
		g->phase = PH_WEAPON;
}

/* §8.4: the figure dies; relics, then the token (B20), then the fight's
 * continuation. */
void ct_kill_enemy(struct ctgame *g, int relics, struct game_events *ev)
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

/* The combat total against the kill value (§8.3): the figure dies, or the
 * roll failed. */
static void fight_eval(struct ctgame *g, struct game_events *ev)
{
	emit(ev, CV_TOTAL, g->seat, g->kill, g->ctotal);
	if (g->ctotal >= g->kill)
		ct_kill_enemy(g, g->enemy == CS_BYAKHEE ? 2 : 1, ev);
	else
		g->phase = PH_FAILED;
}

/* The weapon chosen (§8.2, C11), or none; the combat roll follows. */
void ct_fight_weapon(struct ctgame *g, const struct ctgame_option *o, struct game_events *ev)
{
	int seat = g->seat;
	g->weapon = 0;
	if (o->what == CO_WEAPON) {
		g->weapon = (uint8_t)(o->arg + 1);
		emit(ev, CV_WEAPON, seat, o->arg, 0);
		if (ct_kind_of[o->arg] == CK_CHOPPER)
			ct_pay_bullets(g, seat, 1, ev);
	}
	ct_roll(g, CD_COMBAT);
}

/* The roll failed (§8.4): bullets, a heart, or a card that helps. */
void ct_fight_failed(struct ctgame *g, const struct ctgame_option *o, struct game_events *ev)
{
	int seat = g->seat;
	switch (o->what) {
	case CO_SPEND:
		ct_pay_bullets(g, seat, o->arg, ev); /* B23 */
		emit(ev, CV_SPEND, seat, 0, o->arg);
		ct_kill_enemy(g, g->enemy == CS_BYAKHEE ? 2 : 1, ev);
		return;
	case CO_LOSE: {
		int then = ct_pop(g); /* the fight's continuation */
		if (ct_lose_heart(g, seat, then, ev)) {
			g->enemy = 0; /* B26: the fight ends only so */
			return;
		}
		push(g, then);
		g->phase = PH_WEAPON;
		return;
	}
	default:
		ct_play_card(g, seat, o->arg, ev);
		if (o->arg == CK_DEADEYE) {
			g->ctotal = (uint8_t)(g->ctotal + 2);
			fight_eval(g, ev);
		} else {
			g->phase = PH_WEAPON; /* E13: roll again */
		}
		return;
	}
}

/* The combat die showed `v`: the weapon's bonus and use (B24), then the
 * outcome. */
void ct_fight_roll(struct ctgame *g, int v, struct game_events *ev)
{
	int seat = g->seat;
	int c = g->weapon - 1;
	g->ctotal = (uint8_t)v;
	if (c >= 0) {
		g->ctotal = (uint8_t)(g->ctotal + ct_bonus(ct_kind_of[c], g->enemy));
		if (g->uses[c] && --g->uses[c] == 0)
			ct_discard_card(g, seat, c, ev); /* B24 */
	}
	fight_eval(g, ev);
}

/* PH_FIGHT_CHECK: the sanity check of a fight (B25), unless E14 or 0 sanity
 * spares it; the weapon follows. */
int ct_ph_fight_check(struct ctgame *g, struct game_events *ev)
{
	struct ctgame_player *p = &g->p[g->seat];
	(void)ev;
	if (!(g->fflags & FF_CHECKED) && !(g->fflags & FF_NERVES) && p->sanity > 0) {
		g->fflags |= FF_CHECKED; /* B25 */
		push(g, PH_WEAPON);
		ct_roll(g, CD_SANITY);
	} else {
		g->fflags |= FF_CHECKED;
		g->phase = PH_WEAPON;
	}
	return RUN_NEXT;
}

/* PH_FIGHT_WON: the relics are drawn; the token (B20), and the fight is over. */
int ct_ph_fight_won(struct ctgame *g, struct game_events *ev)
{
	int seat = g->seat;
	ct_collect(g, seat, ev);
	g->enemy = 0;
	ret(g);
	return RUN_NEXT;
}
