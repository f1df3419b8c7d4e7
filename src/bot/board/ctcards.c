#include "rlyeh/ctcards.h"

#include <string.h>

#include "rlyeh/ctgame.h"
#include "rlyeh/ctmap.h"
#include "rlyeh/ctnames.h"
#include "rlyeh/i18n.h"

/* A text in each language: English, Dutch. */
struct words {
	const char *en, *nl;
};

static const char *pick(const struct words *w, int lang)
{
	return lang == I18N_NL ? w->nl : w->en;
}

/* ---- event cards (§12) ---- */

struct card_text {
	struct words brief; /* the short text */
	struct words rule;  /* what follows the category in the long text */
};

static const struct card_text cards[CTGAME_KINDS] = {
	/* E01 */
	{ { "Weapon: +1 against cultists (kill on 4). No use limit.",
	    "Wapen: +1 tegen sektariërs (gedood op 4). Onbeperkt bruikbaar." },
	  { "Declared for a combat roll against a cultist: +1. Nothing against a byakhee. No use "
	    "limit.",
	    "Gekozen voor een gevechtsworp tegen een sektariër: +1. Niets tegen een byakhee. "
	    "Onbeperkt bruikbaar." } },
	/* E02 */
	{ { "Weapon: +2 against byakhee (kill on 5). 3 uses, then discarded.",
	    "Wapen: +2 tegen byakhee (gedood op 5). 3 keer, dan afgelegd." },
	  { "Declared for a combat roll against a byakhee: +2. Nothing against cultists. Every "
	    "roll "
	    "it is declared for spends one of its 3 uses, hit or miss; after the third it is "
	    "discarded.",
	    "Gekozen voor een gevechtsworp tegen een byakhee: +2. Niets tegen sektariërs. Elke "
	    "worp "
	    "waarvoor hij gekozen wordt kost een van zijn 3 keer, raak of mis; na de derde wordt "
	    "hij afgelegd." } },
	/* E03 */
	{ { "Weapon: +2 against cultists and byakhee; each roll with it costs 1 bullet first.",
	    "Wapen: +2 tegen sektariërs en byakhee; elke worp ermee kost eerst 1 kogel." },
	  { "Declared for a combat roll: +2 against a cultist or a byakhee, but declaring it costs "
	    "1 "
	    "bullet, paid before rolling, every time. No use limit.",
	    "Gekozen voor een gevechtsworp: +2 tegen een sektariër of een byakhee, maar elke keer "
	    "kost dat 1 kogel, betaald voor je werpt. Onbeperkt bruikbaar." } },
	/* E04 */
	{ { "Weapon: +1 against cultists and byakhee. 4 uses, then discarded.",
	    "Wapen: +1 tegen sektariërs en byakhee. 4 keer, dan afgelegd." },
	  { "Declared for a combat roll: +1 against a cultist or a byakhee. Every roll it is "
	    "declared for spends one of its 4 uses, hit or miss; after the fourth it is discarded.",
	    "Gekozen voor een gevechtsworp: +1 tegen een sektariër of een byakhee. Elke worp "
	    "waarvoor hij gekozen wordt kost een van zijn 4 keer, raak of mis; na de vierde wordt "
	    "hij afgelegd." } },
	/* E05 */
	{ { "Weapon: +1 against byakhee; while in play, sanity checks cost sanity only on a 1.",
	    "Wapen: +1 tegen byakhee; zolang hij in het spel is verlies je verstand alleen bij een "
	    "1." },
	  { "Declared for a combat roll against a byakhee: +1; nothing against cultists. No use "
	    "limit. While it is in play, declared or not, your sanity checks make you lose sanity "
	    "only on a 1 instead of a 1 or 2.",
	    "Gekozen voor een gevechtsworp tegen een byakhee: +1; niets tegen sektariërs. "
	    "Onbeperkt bruikbaar. Zolang hij in het spel is, gekozen of niet, verlies je bij een "
	    "verstandsworp alleen verstand op een 1 in plaats van een 1 of 2." } },
	/* E06 */
	{ { "Item: use it to gain 2 sanity; inside the Pharmacy, sanity back to your starting "
	    "sanity.",
	    "Voorwerp: gebruik het voor 2 verstand; in de Apotheek terug tot je beginverstand." },
	  { "Use it at any of your play points or in another player's reaction window: gain 2 "
	    "sanity, or inside the Pharmacy gain sanity up to your starting sanity. Sanity never "
	    "goes above your starting sanity.",
	    "Gebruik het op een van je speelmomenten of in het reactievenster van een ander: krijg "
	    "2 verstand terug, of in de Apotheek tot je beginverstand. Verstand komt nooit boven "
	    "je beginverstand." } },
	/* E07 */
	{ { "Item: use it to gain 2 hearts; inside the Congregational Hospital, hearts up to 5.",
	    "Voorwerp: gebruik het voor 2 harten; in het Congregationalistisch ziekenhuis tot 5." },
	  { "Use it at any of your play points or in another player's reaction window: gain 2 "
	    "hearts, or inside the Congregational Hospital gain hearts up to 5. You never hold "
	    "more "
	    "than 5 hearts.",
	    "Gebruik het op een van je speelmomenten of in het reactievenster van een ander: krijg "
	    "2 harten, of in het Congregationalistisch ziekenhuis harten tot 5. Je hebt nooit meer "
	    "dan 5 harten." } },
	/* E08 */
	{ { "Item: use it as a byakhee fight starts: in that fight the byakhee dies on a total of "
	    "4+.",
	    "Voorwerp: gebruik het als een gevecht met een byakhee begint: die sterft dan al op "
	    "4+." },
	  { "Use it at the start of one of your fights with a byakhee (moment CS, before the "
	    "sanity "
	    "check): for that whole fight the byakhee is killed on a total of 4 or more instead of "
	    "5.",
	    "Gebruik het bij het begin van een van je gevechten met een byakhee (moment CS, voor "
	    "de "
	    "verstandsworp): dat hele gevecht wordt de byakhee al gedood op een totaal van 4 of "
	    "meer in plaats van 5." } },
	/* E09 */
	{ { "Movement: this turn you walk past enemies; entering a byakhee's square costs a sanity "
	    "check.",
	    "Beweging: deze beurt loop je langs vijanden; een vakje met een byakhee kost een "
	    "verstandsworp." },
	  { "Play it at PP1 to PP4 of your own turn. For the rest of this turn's movement, squares "
	    "with enemies neither stop you nor start a fight, tokens on them are not picked up, "
	    "and each entry into a square with a byakhee costs a sanity check. The fights of steps "
	    "3 and 4 still happen.",
	    "Speel hem op PP1 tot PP4 van je eigen beurt. De rest van de beweging van deze beurt "
	    "houden vakjes met vijanden je niet tegen en beginnen ze geen gevecht, fiches daar "
	    "raap "
	    "je niet op, en elke keer dat je een vakje met een byakhee betreedt kost een "
	    "verstandsworp. De gevechten van stap 3 en 4 gaan gewoon door." } },
	/* E10 */
	{ { "Movement: +3 to your movement total this turn (after your movement roll).",
	    "Beweging: +3 op je bewegingstotaal deze beurt (na je bewegingsworp)." },
	  { "Play it at PP3 or PP4 of your own turn (after the reaction window of step 7, or when "
	    "your walk pauses): +3 to this turn's movement total.",
	    "Speel hem op PP3 of PP4 van je eigen beurt (na het reactievenster van stap 7, of als "
	    "je lopen stilstaat): +3 op het bewegingstotaal van deze beurt." } },
	/* E11 */
	{ { "React: halve the active player's movement total this turn, rounding down.",
	    "Reactie: halveer het bewegingstotaal van de speler die aan de beurt is (naar "
	    "beneden)." },
	  { "Play it only in another player's reaction window, right after their movement total is "
	    "announced: that total is halved, rounding down.",
	    "Speel hem alleen in het reactievenster van een ander, direct nadat diens "
	    "bewegingstotaal bekend is: dat totaal wordt gehalveerd, naar beneden afgerond." } },
	/* E12 */
	{ { "Movement: go to the Church (1,1) at once; you skip steps 6 and 7 this turn.",
	    "Beweging: ga meteen naar de kerk (1,1); je slaat stap 6 en 7 over deze beurt." },
	  { "Play it at PP1 to PP3 of your own turn: your pawn is put on the Church's interior "
	    "square 1,1 (not a walk: no fights, no tokens on the way) and you skip steps 6 and 7, "
	    "the movement, this turn.",
	    "Speel hem op PP1 tot PP3 van je eigen beurt: je pion wordt op het binnenvakje 1,1 van "
	    "de kerk gezet (geen lopen: geen gevechten, geen fiches onderweg) en je slaat stap 6 "
	    "en "
	    "7, de beweging, deze beurt over." } },
	/* E13 */
	{ { "Instant, after a failed combat roll: roll it again without losing a heart.",
	    "Direct, na een mislukte gevechtsworp: werp opnieuw zonder een hart te verliezen." },
	  { "Play it at moment CF of your own fight, after a roll that failed: roll that combat "
	    "roll "
	    "again without losing a heart. Declare a weapon again first (a limited weapon spends "
	    "another use).",
	    "Speel hem op moment CF van je eigen gevecht, na een mislukte worp: werp die "
	    "gevechtsworp opnieuw zonder een hart te verliezen. Kies eerst opnieuw een wapen (een "
	    "beperkt wapen kost dan weer een keer)." } },
	/* E14 */
	{ { "Instant: skip a sanity check that is due in your own turn.",
	    "Direct: sla een verstandsworp over die in je eigen beurt moet." },
	  { "Play it in your own turn when a sanity check is due (a byakhee fight starting, or a "
	    "byakhee square entered under the Elder Sign): that sanity check is skipped.",
	    "Speel hem in je eigen beurt als er een verstandsworp moet (een gevecht met een "
	    "byakhee "
	    "begint, of een vakje met een byakhee onder het Elder Sign): die verstandsworp "
	    "vervalt." } },
	/* E15 */
	{ { "Instant, after your combat roll: +2 to that roll's total.",
	    "Direct, na je gevechtsworp: +2 op het totaal van die worp." },
	  { "Play it at moment CF of your own fight, right after a combat roll and before bullets "
	    "or a heart are spent: +2 to that roll's total, which may turn it into a kill.",
	    "Speel hem op moment CF van je eigen gevecht, direct na een gevechtsworp en voor je "
	    "kogels of een hart besteedt: +2 op het totaal van die worp, wat hem een treffer kan "
	    "maken." } },
	/* E16 */
	{ { "Instant: gain 3 bullets; inside the Police Station, 6.",
	    "Direct: krijg 3 kogels; in het Politiebureau 6." },
	  { "Play it at any of your play points or in another player's reaction window: gain 3 "
	    "bullets from the supply, or 6 when your pawn is inside the Police Station.",
	    "Speel hem op een van je speelmomenten of in het reactievenster van een ander: krijg 3 "
	    "kogels uit de voorraad, of 6 als je pion in het Politiebureau staat." } },
	/* E17 */
	{ { "Instant: every player still in the game gains 1 sanity (never above starting sanity).",
	    "Direct: elke speler die nog meedoet krijgt verstand +1 (nooit boven het "
	    "beginverstand)." },
	  { "Play it at any of your play points or in another player's reaction window: every "
	    "player still in the game gains 1 sanity, never above their starting sanity; a player "
	    "at 0 sanity gains nothing.",
	    "Speel hem op een van je speelmomenten of in het reactievenster van een ander: elke "
	    "speler die nog meedoet krijgt verstand +1, nooit boven het beginverstand; wie op 0 "
	    "verstand staat krijgt niets." } },
	/* E18 */
	{ { "Instant: carry out the map-tile step once more (draw and place a tile).",
	    "Direct: voer de tegelstap nog eens uit (trek en leg een tegel)." },
	  { "Play it at PP2 to PP4 of your own turn: carry out step 2 once more. Tiles are drawn "
	    "until one can be placed; it is placed and gets its enemies and tokens.",
	    "Speel hem op PP2 tot PP4 van je eigen beurt: voer stap 2 nog eens uit. Er worden "
	    "tegels getrokken tot er een past; die wordt gelegd en krijgt zijn vijanden en "
	    "fiches." } },
	/* E19 */
	{ { "Instant, as a byakhee fight starts: it dies at once, no sanity check; draw 1 relic.",
	    "Direct, bij het begin van een byakhee-gevecht: hij sterft meteen, geen verstandsworp; "
	    "1 relikwie." },
	  { "Play it at moment CS of your own fight with a byakhee: the byakhee is killed with no "
	    "sanity check and no roll. You draw 1 relic instead of the usual 2.",
	    "Speel hem op moment CS van je eigen gevecht met een byakhee: de byakhee wordt gedood "
	    "zonder verstandsworp en zonder worp. Je trekt 1 relikwie in plaats van de gewone "
	    "2." } },
	/* E20 */
	{ { "Instant: draw 1 relic; inside a named building, draw 2.",
	    "Direct: trek 1 relikwie; in een gebouw met een naam trek je er 2." },
	  { "Play it at any play point of your own turn: draw 1 relic, or 2 when your pawn is "
	    "inside a named building (T15 to T25). The Church and the Ritual Sites are not named "
	    "buildings.",
	    "Speel hem op een speelmoment van je eigen beurt: trek 1 relikwie, of 2 als je pion in "
	    "een gebouw met een naam staat (T15 tot T25). De kerk en de ritueelplekken zijn geen "
	    "gebouwen met een naam." } },
	/* E21 */
	{ { "Instant: move up to 3 cultists on your tile or the tiles next to it, 1 or 2 squares "
	    "each.",
	    "Direct: verplaats tot 3 sektariërs op je tegel of de tegels ernaast, elk 1 of 2 "
	    "vakjes." },
	  { "Play it at any play point of your own turn: move up to 3 cultists on your tile or on "
	    "an orthogonally adjacent tile, each as in the cultists' move: 1 or 2 squares, not "
	    "back to its start, never into another cultist's square, never off a Ritual Site.",
	    "Speel hem op een speelmoment van je eigen beurt: verplaats tot 3 sektariërs op je "
	    "tegel of op een tegel recht ernaast, elk zoals bij het bewegen van de sektariërs: 1 "
	    "of 2 vakjes, niet terug naar het begin, nooit op het vakje van een andere sektariër, "
	    "nooit van een ritueelplek af." } },
	/* E22 */
	{ { "Automatic (step 1): lose 1 sanity.",
	    "Automatisch (stap 1): je verliest verstand (−1)." },
	  { "You lose 1 sanity, with no roll.", "Je verliest verstand: −1, zonder worp." } },
	/* E23 */
	{ { "Automatic (step 1): 2 cultists from the supply appear on squares linked to yours.",
	    "Automatisch (stap 1): 2 sektariërs uit de voorraad komen op vakjes naast het jouwe." },
	  { "Place 2 cultists from the supply on squares linked to yours that hold no cultist, as "
	    "you choose; when there are too few, on the nearest squares that can take them.",
	    "Zet 2 sektariërs uit de voorraad op vakjes die met het jouwe verbonden zijn en geen "
	    "sektariër hebben, naar keuze; zijn er te weinig, dan op de dichtstbijzijnde vakjes "
	    "waar het kan." } },
	/* E24 */
	{ { "Automatic (step 1): a byakhee lands on your square; you fight it in step 3.",
	    "Automatisch (stap 1): een byakhee landt op je vakje; in stap 3 vecht je ermee." },
	  { "Place 1 byakhee from the supply on your square (if one is there already, on the "
	    "nearest square that can take it). Step 3 then makes you fight a byakhee on your "
	    "square.",
	    "Zet 1 byakhee uit de voorraad op je vakje (staat er al een, dan op het "
	    "dichtstbijzijnde "
	    "vakje waar het kan). In stap 3 vecht je dan met een byakhee op je vakje." } },
	/* E25 */
	{ { "Automatic (step 1): skip steps 6 and 7: no movement this turn.",
	    "Automatisch (stap 1): sla stap 6 en 7 over: geen beweging deze beurt." },
	  { "You skip steps 6 and 7 this turn: no movement roll and no walk.",
	    "Je slaat deze beurt stap 6 en 7 over: geen bewegingsworp en niet lopen." } },
	/* E26 */
	{ { "Automatic (step 1): you cannot declare weapons until the end of this turn.",
	    "Automatisch (stap 1): tot het einde van deze beurt kun je geen wapen kiezen." },
	  { "Until the end of this turn you cannot declare a weapon for a combat roll; your "
	    "weapons "
	    "stay in play.",
	    "Tot het einde van deze beurt kun je geen wapen kiezen voor een gevechtsworp; je "
	    "wapens blijven in het spel." } },
	/* E27 */
	{ { "Automatic (step 1): return half your bullets (rounded down) to the supply.",
	    "Automatisch (stap 1): de helft van je kogels (naar beneden afgerond) gaat terug." },
	  { "Return half of your bullets, rounded down, to the supply (5 bullets: you lose 2).",
	    "Lever de helft van je kogels in bij de voorraad, naar beneden afgerond (5 kogels: je "
	    "verliest er 2)." } },
	/* E28 */
	{ { "Automatic (step 1): lose 1 heart; at 0 hearts you are defeated.",
	    "Automatisch (stap 1): verlies 1 hart; bij 0 harten ben je verslagen." },
	  { "Lose 1 heart. If that leaves you with 0 hearts you are defeated (on a Ritual Site, "
	    "that activates it).",
	    "Verlies 1 hart. Houd je dan 0 harten over, dan ben je verslagen (op een ritueelplek "
	    "activeert dat de plek)." } },
	/* E29 */
	{ { "PvP: you and a player on or next to your square roll 1d6; the lower loses 1 heart.",
	    "PvP: jij en een speler op of naast je vakje werpen 1d6; de laagste verliest 1 hart." },
	  { "Choose another player on your square or a linked one. You both roll 1d6, re-rolling "
	    "ties; the lower roller loses 1 heart and is defeated at 0. Nothing changes these "
	    "rolls.",
	    "Kies een andere speler op je vakje of een verbonden vakje. Jullie werpen allebei 1d6, "
	    "bij gelijkspel opnieuw; wie lager werpt verliest 1 hart en is bij 0 verslagen. Niets "
	    "verandert deze worpen." } },
	/* E30 */
	{ { "PvP: move up to 2 cultists up to 3 squares each, each ending closer to a chosen "
	    "player.",
	    "PvP: verplaats tot 2 sektariërs elk tot 3 vakjes, elk eindigend dichter bij een "
	    "speler." },
	  { "Choose another player: move up to 2 cultists up to 3 squares each, each ending "
	    "strictly closer to that player's pawn. Cultists still never enter another cultist's "
	    "square and never leave a Ritual Site.",
	    "Kies een andere speler: verplaats tot 2 sektariërs elk tot 3 vakjes, elk eindigend "
	    "echt dichter bij de pion van die speler. Sektariërs gaan nog steeds nooit op het "
	    "vakje van een andere sektariër en nooit van een ritueelplek af." } },
	/* E31 */
	{ { "PvP: take one relic of your choice from a player on your square.",
	    "PvP: pak een relikwie naar keuze van een speler op je vakje." },
	  { "Choose another player on your square: take one of their relics, of the type you "
	    "choose.",
	    "Kies een andere speler op je vakje: pak een van diens relikwieën, van de soort die je "
	    "kiest." } },
	/* E32 */
	{ { "PvP: move a byakhee (not on a Ritual Site) onto another player's square.",
	    "PvP: zet een byakhee (niet op een ritueelplek) op het vakje van een andere speler." },
	  { "Choose another player and a byakhee not on a Ritual Site: it moves, with a cultist "
	    "riding on it, onto that player's square (or the nearest square that can take it).",
	    "Kies een andere speler en een byakhee die niet op een ritueelplek staat: hij gaat, "
	    "met een sektariër die meerijdt, naar het vakje van die speler (of het "
	    "dichtstbijzijnde "
	    "vakje waar het kan)." } },
};

/* The long text's opening by category (enum ctgame_category); {n} the
 * copies, {s} the severity. */
static const struct words category[] = {
	{ "Weapon ({n} in the deck). Put it in play at a play point of your own turn: your card of "
	  "the round. You may declare one weapon in play for each combat roll; never two of one "
	  "kind in play; lost on defeat. ",
	  "Wapen ({n} in de stapel). Leg het in het spel op een speelmoment van je eigen beurt: je "
	  "kaart van de ronde. Per gevechtsworp mag je één wapen in het spel kiezen; nooit twee "
	  "van één soort in het spel; weg bij een nederlaag. " },
	{ "Item ({n} in the deck). Put it in play at a play point of your own turn (your card of "
	  "the "
	  "round); use it once later (a use never counts), then it is discarded. Kept on defeat. ",
	  "Voorwerp ({n} in de stapel). Leg het in het spel op een speelmoment van je eigen beurt "
	  "(je kaart van de ronde); gebruik het later één keer (telt nooit mee), dan wordt het "
	  "afgelegd. Blijft bij een nederlaag. " },
	{ "Movement card ({n} in the deck): it acts at once, is discarded, and is your card of the "
	  "round. ",
	  "Bewegingskaart ({n} in de stapel): werkt meteen, wordt afgelegd en is je kaart van de "
	  "ronde. " },
	{ "Instant ({n} in the deck): it acts at once, is discarded, and is your card of the "
	  "round. ",
	  "Directe kaart ({n} in de stapel): werkt meteen, wordt afgelegd en is je kaart van de "
	  "ronde. " },
	{ "Automatic, severity {s} ({n} in the deck). Holding Automatic cards as your turn starts, "
	  "you must play exactly one in step 1. It is not your card of the round; an unwanted one "
	  "may be discarded in step 11. ",
	  "Automatisch, zwaarte {s} ({n} in de stapel). Heb je bij het begin van je beurt "
	  "automatische kaarten, dan speel je er precies één in stap 1. Het is niet je kaart van "
	  "de ronde; een ongewenste mag je in stap 11 afleggen. " },
	{ "Player against player ({n} in the deck): played at a play point of your own turn, then "
	  "discarded; your card of the round. ",
	  "Speler tegen speler ({n} in de stapel): gespeeld op een speelmoment van je eigen beurt, "
	  "dan afgelegd; je kaart van de ronde. " },
};

/* ---- tiles (§4) ---- */

/* Tiles whose short text is their own; the others' are made from their
 * class and shape. */
static const struct words tile_brief[CTMAP_TILES] = {
	[0] = { "Start tile: every pawn starts on its square 1,1 and returns there when defeated.",
	        "Starttegel: elke pion begint op vakje 1,1 en keert daar terug na een nederlaag." },
	[1] = { "Four-way laid beside the Church at the start: no enemies, no tokens.",
	        "Kruispunt, bij het begin naast de kerk gelegd: geen vijanden, geen fiches." },
	[14] = { "Named building: 2 cultists + 2 tokens on arrival; Laudanum Flask here: full "
	         "sanity.",
	         "Gebouw: 2 sektariërs + 2 fiches bij aankomst; Laudanumflesje hier: vol "
	         "verstand." },
	[16] = { "Named building: 3 cultists + 3 tokens on arrival; Surgeon's Satchel here: 5 "
	         "hearts.",
	         "Gebouw: 3 sektariërs + 3 fiches bij aankomst; Chirurgentas hier: 5 harten." },
	[20] = { "Named building on a four-way: 1 cultist + 1 token; Cartridge Stash here: 6 "
	         "bullets.",
	         "Gebouw op een kruispunt: 1 sektariër + 1 fiche; Patronenvoorraad hier: 6 "
	         "kogels." },
};

/* A tile's extra sentence, for the long text. */
static const struct words tile_extra[CTMAP_TILES] = {
	[14] = { " Laudanum Flask used inside it restores sanity up to your starting sanity.",
	         " Een Laudanumflesje dat je hier gebruikt geeft verstand tot je beginverstand." },
	[16] = { " Surgeon's Satchel used inside it restores hearts up to 5.",
	         " Een Chirurgentas die je hier gebruikt geeft harten tot 5." },
	[20] = { " Cartridge Stash played inside it gives 6 bullets instead of 3.",
	         " Een Patronenvoorraad die je hier speelt geeft 6 kogels in plaats van 3." },
};

enum shape { FOUR, TEE, STRAIGHT, CORNER };

static const struct words shapes[] = {
	{ "four-way", "kruispunt" },
	{ "T-junction", "T-splitsing" },
	{ "straight", "rechte straat" },
	{ "corner", "bocht" },
};

/* The open sides of tile t at rotation 0 as a bit mask (N E S W). */
static int exits(int t)
{
	static const int middle[4] = { 1, 5, 7, 3 };
	const char *l = ctmap_tile(t)->layout;
	int mask = 0;

	for (int s = 0; s < 4; s++)
		if (l[middle[s]] == CTMAP_STREET || l[middle[s]] == CTMAP_ENTRANCE)
			mask |= 1 << s;
	return mask;
}

static int interior(int t)
{
	int n = 0;

	for (int i = 0; i < 9; i++)
		n += ctmap_tile(t)->layout[i] == CTMAP_INTERIOR ||
		     ctmap_tile(t)->layout[i] == CTMAP_ENTRANCE;
	return n;
}

static enum shape shape_of(int t)
{
	int e = exits(t), n = __builtin_popcount((unsigned)e);

	if (n == 4)
		return FOUR;
	if (n == 3)
		return TEE;
	return e == 5 || e == 10 ? STRAIGHT : CORNER;
}

static void add_exits(int t, int lang, struct text *out)
{
	static const char *const en = "NESW", *const nl = "NOZW";
	int e = exits(t), any = 0;

	for (int s = 0; s < 4; s++)
		if (e >> s & 1)
			text_addf(out, "%s%c", any++ ? " " : "", (lang == I18N_NL ? nl : en)[s]);
}

static void tile_short(int t, int lang, struct text *out)
{
	const char *shape = pick(&shapes[shape_of(t)], lang);
	int k = interior(t);

	if (tile_brief[t].en) {
		text_add(out, pick(&tile_brief[t], lang));
		return;
	}
	switch (ctmap_tile(t)->cls) {
	case CTMAP_CLASS_ROAD:
		if (lang == I18N_NL)
			text_addf(out,
			          "Straattegel, %s: komt met 1 byakhee op het middelste vakje.",
			          shape);
		else
			text_addf(out,
			          "Street tile, %s: arrives with 1 byakhee on its centre square.",
			          shape);
		break;
	case CTMAP_CLASS_BUILDING:
		if (lang == I18N_NL)
			text_addf(
			    out,
			    "Gebouw met een naam (%s): %d sektariërs en %d fiches bij aankomst.",
			    shape, k, k);
		else
			text_addf(out, "Named building (%s): %d cultists and %d tokens on arrival.",
			          shape, k, k);
		break;
	case CTMAP_CLASS_SITE:
		text_add(out,
		         lang == I18N_NL
		             ? "Ritueelplek: 8 sektariërs + 1 byakhee. Leeg? Heilig hem met 1 "
		               "relikwie per soort: 12 OP."
		             : "Ritual Site: 8 cultists + 1 byakhee. Cleared, sanctify it with 1 "
		               "relic per type: 12 VP.");
		break;
	default:
		break;
	}
}

static void tile_long(int t, int lang, struct text *out)
{
	const char *shape = pick(&shapes[shape_of(t)], lang);
	int k = interior(t), nl = lang == I18N_NL;

	switch (ctmap_tile(t)->cls) {
	case CTMAP_CLASS_CHURCH:
		text_add(
		    out,
		    nl ? "De starttegel in vak (0,0), uitgangen N O Z W. Elke pion begint op "
		         "het binnenvakje 1,1, en een verslagen pion gaat daar terug. Hij "
		         "krijgt geen vijanden of fiches en is voor kaarten nooit een gebouw "
		         "met een naam."
		       : "The start tile in cell (0,0), exits N E S W. Every pawn starts on "
		         "its interior square 1,1, and a defeated pawn goes back there. It gets "
		         "no enemies or tokens and is never a named building for cards.");
		return;
	case CTMAP_CLASS_ROAD:
		if (t == 1) {
			text_add(
			    out,
			    nl ? "Een kruispunt dat bij het begin naast de kerk ligt (vak "
			         "(1,0)), uitgangen N O Z W. Het krijgt geen vijanden of fiches."
			       : "A four-way laid beside the Church at the start (cell (1,0)), "
			         "exits N E S W. It gets no enemies or tokens.");
			return;
		}
		text_addf(out,
		          nl ? "Een gewone straattegel (%s), uitgangen "
		             : "A plain %s street tile, "
		               "exits ",
		          shape);
		add_exits(t, lang, out);
		text_add(out,
		         nl ? " voor het draaien. Wordt hij gelegd, dan komt er 1 byakhee op het "
		              "middelste vakje. Zijn naam is alleen een straatnaam: het is geen "
		              "gebouw met een naam."
		            : " before it is turned. When it is placed, 1 byakhee comes on its "
		              "centre square. Its name is only a street's: it is not a named "
		              "building.");
		return;
	case CTMAP_CLASS_BUILDING:
		text_addf(out,
		          nl ? "Een gebouw met een naam aan een %s, uitgangen "
		             : "A named building on a %s, exits ",
		          shape);
		add_exits(t, lang, out);
		if (nl)
			text_addf(
			    out,
			    " voor het draaien, met %d binnenvakjes. Wordt hij gelegd, dan krijgt "
			    "elk binnenvakje 1 sektariër en 1 fiche, een hart of een kogel naar "
			    "keuze van wie legt. Het Oog van de antiquair trekt hier 2 relikwieën.",
			    k);
		else
			text_addf(
			    out,
			    " before it is turned, with %d interior squares. When it is placed, "
			    "every interior square gets 1 cultist and 1 token, a heart or a bullet "
			    "as the placer chooses. Antiquarian's Eye played inside it draws 2 "
			    "relics.",
			    k);
		if (tile_extra[t].en)
			text_add(out, pick(&tile_extra[t], lang));
		return;
	case CTMAP_CLASS_SITE:
		text_add(
		    out,
		    nl ? "Een ritueelplek: 9 binnenvakjes, alleen te betreden door de ingang "
		         "(zuid voor het draaien), die naar een straat wijst. Komt met 8 "
		         "sektariërs en 1 byakhee; die gaan er nooit af, en een lege plek "
		         "krijgt in stap 10 een nieuwe vijand. Sta je erop zonder vijanden, "
		         "leg dan op PP2 of PP4 1 relikwie van elk van de 5 soorten af om hem "
		         "te heiligen (12 OP). Wie erop verslagen wordt, activeert hem. 3 "
		         "geheiligde of 3 geactiveerde plekken beëindigen het spel."
		       : "A Ritual Site: 9 interior squares, entered only by its entrance (south "
		         "before turning), which faces a street. Arrives with 8 cultists and 1 "
		         "byakhee; they never leave it, and an empty site gets a new enemy in "
		         "step 10. On it with no enemy left, at PP2 or PP4, discard 1 relic of "
		         "each of the 5 types to sanctify it (12 VP). A player defeated on it "
		         "activates it. 3 sanctified or 3 activated sites end the game.");
		return;
	default:
		return;
	}
}

/* ---- relic types (§13) ---- */

static void type_short(int lang, struct text *out)
{
	text_add(out, lang == I18N_NL ? "Relikwiesoort: 1 van elk van de 5 soorten heiligt een "
	                                "plek; n van een soort = 2n−1 OP."
	                              : "Relic type: 1 of each of the 5 types sanctifies a site; n "
	                                "of one type score 2n−1 VP.");
}

static void type_long(int type, int lang, struct text *out)
{
	int nl = lang == I18N_NL;

	text_addf(out,
	          nl ? "%s: een van de 5 relikwiesoorten, 16 kaarten ("
	             : "%s: one of the 5 relic "
	               "types, 16 cards (",
	          ctnames_type(type, lang));
	for (int v = 0; v < 4; v++)
		text_addf(out, "%s%s", v ? ", " : "", ctnames_relic(type * 16 + v * 4, lang));
	text_add(out,
	         nl ? ": alleen het uiterlijk verschilt). Een gedode byakhee geeft 2 "
	              "relikwieën, een sektariër 1. Een ritueelplek heiligen kost 1 relikwie van "
	              "elke soort. Aan het eind levert n van een soort 2n−1 OP op (1, 3, 5…). "
	              "Bij een nederlaag verlies je de helft, naar beneden afgerond. Wat "
	              "iedereen heeft is openbaar."
	            : ": only the looks differ). A killed byakhee gives 2 relics, a cultist 1. "
	              "Sanctifying a Ritual Site costs 1 relic of each type. At the end, n of "
	              "one type score 2n−1 VP (1, 3, 5…). A defeat costs half your relics, "
	              "rounded down. What everyone holds is public.");
}

/* ---- square kinds (§3.1) ---- */

struct square_text {
	struct words name, brief, rule;
};

static const struct square_text squares[CTCARDS_SQUARES] = {
	[CTCARDS_STREET] = { { "Street", "Straat" },
	                     { "Street: walk on it; an enemy here stops you for a fight, a token "
	                       "is picked up.",
	                       "Straat: loop erover; een vijand hier houdt je tegen voor een "
	                       "gevecht, een fiche raap "
	                       "je op." },
	                     { "A street square (paved or dirt: no difference). Each step to a "
	                       "linked square costs 1 "
	                       "movement point. Entering a square with an enemy stops you: fight "
	                       "the byakhee first, "
	                       "then the cultist; if you live you may walk on. A heart or bullet "
	                       "is picked up on "
	                       "entering a square with no enemy. Between tiles you cross only "
	                       "where two streets meet "
	                       "in the middle of a side.",
	                       "Een straatvakje (verhard of onverhard: geen verschil). Elke stap "
	                       "naar een verbonden "
	                       "vakje kost 1 bewegingspunt. Een vakje met een vijand houdt je "
	                       "tegen: vecht eerst met "
	                       "de byakhee, dan met de sektariër; overleef je het, dan mag je "
	                       "verder. Een hart of "
	                       "kogel raap je op als je een vakje zonder vijand betreedt. Tussen "
	                       "tegels steek je "
	                       "alleen over waar twee straten elkaar midden op een zijde "
	                       "raken." } },
	[CTCARDS_INTERIOR] = { { "Building interior", "Binnenvakje" },
	                       { "Inside a building: enter it from any passable square of the same "
	                         "tile; no doors.",
	                         "In een gebouw: te betreden vanaf elk begaanbaar vakje van "
	                         "dezelfde tegel; geen "
	                         "deuren." },
	                       { "A square inside a named building, the Church or a Ritual Site. "
	                         "It is entered like a "
	                         "street, from any linked passable square of the same tile: there "
	                         "are no doors. "
	                         "\"Inside X\" on a card means your pawn stands on one of X's "
	                         "interior squares. A named "
	                         "building arrives with a cultist and a token on each of them.",
	                         "Een vakje binnen in een gebouw met een naam, de kerk of een "
	                         "ritueelplek. Je betreedt "
	                         "het als een straat, vanaf elk verbonden begaanbaar vakje van "
	                         "dezelfde tegel: er zijn "
	                         "geen deuren. \"In X\" op een kaart betekent dat je pion op een "
	                         "binnenvakje van X "
	                         "staat. Een gebouw met een naam komt met een sektariër en een "
	                         "fiche op elk ervan." } },
	[CTCARDS_ENTRANCE] = { { "Entrance", "Ingang" },
	                       { "A Ritual Site's entrance: the middle of one side, the site's "
	                         "only link to a street.",
	                         "Ingang van een ritueelplek: het midden van één zijde, de enige "
	                         "verbinding met een "
	                         "straat." },
	                       { "The interior square in the middle of one side of a Ritual Site "
	                         "(south before "
	                         "turning), its only link to the street outside. A site is always "
	                         "placed with its "
	                         "entrance facing a street, never another entrance. Cultists may "
	                         "walk in through it; "
	                         "enemies on a site never leave. Pawns on a site that is "
	                         "sanctified or activated are "
	                         "put on the street square facing the entrance.",
	                         "Het binnenvakje midden op één zijde van een ritueelplek (zuid "
	                         "voor het draaien), de "
	                         "enige verbinding met de straat. Een plek wordt altijd gelegd met "
	                         "de ingang naar een "
	                         "straat, nooit naar een andere ingang. Sektariërs kunnen erdoor "
	                         "naar binnen; vijanden "
	                         "op een plek gaan er nooit af. Pionnen op een plek die geheiligd "
	                         "of geactiveerd wordt, "
	                         "komen op het straatvakje voor de ingang." } },
	[CTCARDS_BLOCKED] = { { "Blocked", "Geblokkeerd" },
	                      { "Blocked (yards, houses, cliffs): no pawn or enemy may enter it.",
	                        "Geblokkeerd (tuinen, huizen, kliffen): geen pion of vijand mag "
	                        "erop." },
	                      { "A blocked square: yards, unnamed houses, cliffs. No pawn or "
	                        "figure may enter or cross "
	                        "it. A tile side whose middle square is blocked is a wall, and a "
	                        "new tile may never "
	                        "put a street against a wall.",
	                        "Een geblokkeerd vakje: tuinen, huizen zonder naam, kliffen. Geen "
	                        "pion of figuur mag "
	                        "erop of erdoor. Een zijde van een tegel met een geblokkeerd "
	                        "middenvakje is een muur, "
	                        "en een nieuwe tegel mag nooit een straat tegen een muur "
	                        "leggen." } },
	[CTCARDS_OPEN] = { { "Open street", "Open straat" },
	                   { "Open street: a street at the map's edge; the next tile may be placed "
	                     "against it.",
	                     "Open straat: een straat aan de rand van de kaart; daar mag de "
	                     "volgende tegel komen." },
	                   { "A street leaving a placed tile in the middle of a side where no tile "
	                     "lies yet (an "
	                     "arrow on the map). New tiles join the map there: a new tile meets at "
	                     "least one open "
	                     "street with a street of its own, and its other sides match their "
	                     "neighbours (street to "
	                     "street, wall to wall). Only the last tile, or a Ritual Site when "
	                     "nothing else fits, "
	                     "may close the last open street.",
	                     "Een straat die een gelegde tegel midden op een zijde verlaat waar "
	                     "nog geen tegel ligt "
	                     "(een pijl op de kaart). Daar komen nieuwe tegels: een nieuwe tegel "
	                     "sluit met een "
	                     "eigen straat aan op minstens één open straat, en zijn andere zijden "
	                     "passen bij de "
	                     "buren (straat bij straat, muur bij muur). Alleen de laatste tegel, "
	                     "of een "
	                     "ritueelplek als niets anders past, mag de laatste open straat "
	                     "afsluiten." } },
	[CTCARDS_ACTIVATED] = { { "Activated site", "Geactiveerde plek" },
	                        { "Activated Ritual Site: face down, closed on every side; nobody "
	                          "can enter it.",
	                          "Geactiveerde ritueelplek: omgedraaid, aan alle kanten dicht; "
	                          "niemand kan erop." },
	                        { "A Ritual Site on which a player was defeated. Its enemies went "
	                          "back to the supply and "
	                          "the tile lies face down: no squares to enter and a wall on "
	                          "every side, so the street "
	                          "facing it is a dead end. Three activated sites end the game: "
	                          "the King in Yellow "
	                          "arrives, and the most VP still wins.",
	                          "Een ritueelplek waarop een speler verslagen is. Zijn vijanden "
	                          "gingen terug naar de "
	                          "voorraad en de tegel ligt omgedraaid: geen vakjes om te "
	                          "betreden en aan elke kant "
	                          "een muur, dus de straat ervoor loopt dood. Drie geactiveerde "
	                          "plekken beëindigen het "
	                          "spel: de Koning in het Geel komt, en de meeste OP winnen "
	                          "toch." } },
	[CTCARDS_SANCTIFIED] = { { "Sanctified site", "Geheiligde plek" },
	                         { "Sanctified Ritual Site: taken off the map by its player (12 "
	                           "VP); the cell is empty "
	                           "again.",
	                           "Geheiligde ritueelplek: van de kaart genomen door de speler "
	                           "(12 OP); het vak is weer "
	                           "leeg." },
	                         { "A Ritual Site sanctified by a player who stood on it with no "
	                           "enemy on it and "
	                           "discarded 1 relic of each of the 5 types, at PP2 or PP4 of "
	                           "their own turn. The "
	                           "player keeps the tile for 12 VP; its cell is empty and the "
	                           "street facing it open "
	                           "again. Three sanctified sites end the game: Kingsport is "
	                           "saved.",
	                           "Een ritueelplek die een speler heeft geheiligd: die stond erop "
	                           "zonder vijanden en "
	                           "legde 1 relikwie van elk van de 5 soorten af, op PP2 of PP4 "
	                           "van de eigen beurt. De "
	                           "speler houdt de tegel voor 12 OP; het vak is weer leeg en de "
	                           "straat ervoor weer "
	                           "open. Drie geheiligde plekken beëindigen het spel: Kingsport "
	                           "is gered." } },
};

/* ---- the interface ---- */

int ctcards_count(int kind)
{
	switch (kind) {
	case CTCARDS_CARD:
		return CTGAME_KINDS;
	case CTCARDS_TILE:
		return CTMAP_TILES;
	case CTCARDS_TYPE:
		return CTGAME_TYPES;
	case CTCARDS_SQUARE:
		return CTCARDS_SQUARES;
	default:
		return 0;
	}
}

static int exists(int kind, int id)
{
	return id >= 0 && id < ctcards_count(kind);
}

const char *ctcards_name(int kind, int id, int lang)
{
	if (!exists(kind, id))
		return "?";
	switch (kind) {
	case CTCARDS_CARD:
		return ctnames_card(id, lang);
	case CTCARDS_TILE:
		return ctnames_tile(id, lang);
	case CTCARDS_TYPE:
		return ctnames_type(id, lang);
	default:
		return pick(&squares[id].name, lang);
	}
}

void ctcards_short(int kind, int id, int lang, struct text *out)
{
	if (!exists(kind, id))
		return;
	switch (kind) {
	case CTCARDS_CARD:
		text_add(out, pick(&cards[id].brief, lang));
		break;
	case CTCARDS_TILE:
		tile_short(id, lang, out);
		break;
	case CTCARDS_TYPE:
		type_short(lang, out);
		break;
	default:
		text_add(out, pick(&squares[id].brief, lang));
		break;
	}
}

void ctcards_long(int kind, int id, int lang, struct text *out)
{
	const struct ctgame_card_info *info;

	if (!exists(kind, id))
		return;
	switch (kind) {
	case CTCARDS_CARD:
		info = ctgame_card(id);
		for (const char *p = pick(&category[info->category], lang); *p; p++) {
			if (strncmp(p, "{n}", 3) == 0 || strncmp(p, "{s}", 3) == 0) {
				text_addf(out, "%d", p[1] == 'n' ? info->count : info->severity);
				p += 2;
			} else
				text_addf(out, "%c", *p);
		}
		text_add(out, pick(&cards[id].rule, lang));
		break;
	case CTCARDS_TILE:
		tile_long(id, lang, out);
		break;
	case CTCARDS_TYPE:
		type_long(id, lang, out);
		break;
	default:
		text_add(out, pick(&squares[id].rule, lang));
		break;
	}
}

/* ---- finding a typed name ---- */

#define KEY_MAX 64

/* 1 when s begins with the k lower case ASCII bytes of w, in any case. */
static int starts_ci(const char *s, const char *w, size_t k)
{
	for (size_t i = 0; i < k; i++) {
		char c = s[i] >= 'A' && s[i] <= 'Z' ? (char)(s[i] - 'A' + 'a') : s[i];
		if (c != w[i])
			return 0;
	}
	return 1;
}

/* The key a name is compared by: lower case ASCII letters and digits,
 * accented Latin letters as their base letter, everything else left out,
 * and a leading article ("the ", "de ", "het ") too. */
static void key_of(const char *s, char *key)
{
	/* U+00C0..U+00FF, as the second byte after 0xC3 gives them */
	static const char latin[] = "aaaaaaaceeeeiiiidnooooo ouuuuyts"
	                            "aaaaaaaceeeeiiiidnooooo ouuuuyty";
	static const char *const articles[] = { "the ", "de ", "het " };
	size_t n = 0;

	for (size_t a = 0; a < sizeof(articles) / sizeof(articles[0]); a++) {
		size_t k = strlen(articles[a]);
		if (starts_ci(s, articles[a], k) && s[k]) {
			s += k;
			break;
		}
	}
	for (const unsigned char *p = (const unsigned char *)s; *p && n + 1 < KEY_MAX; p++) {
		char c = 0;
		if (*p >= 'A' && *p <= 'Z')
			c = (char)(*p - 'A' + 'a');
		else if ((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9'))
			c = (char)*p;
		else if (*p == 0xC3 && p[1] >= 0x80 && p[1] <= 0xBF) {
			c = latin[p[1] - 0x80];
			p++;
		}
		if (c && c != ' ')
			key[n++] = c;
	}
	key[n] = '\0';
}

/* The k-th name of a thing (its names in each language, its id, a relic
 * type's variants in each language), NULL past the last. */
static const char *name_at(int kind, int id, int k)
{
	if (k < I18N_LANGS)
		return ctcards_name(kind, id, k);
	k -= I18N_LANGS;
	if (kind == CTCARDS_CARD)
		return k == 0 ? ctgame_card(id)->id : NULL;
	if (kind == CTCARDS_TILE)
		return k == 0 ? ctmap_tile(id)->id : NULL;
	if (kind == CTCARDS_TYPE && k < 4 * I18N_LANGS)
		return ctnames_relic(id * 16 + k / I18N_LANGS * 4, k % I18N_LANGS);
	return NULL;
}

/* The edit distance of a and b (insertions, deletions, changes), each
 * shorter than KEY_MAX. */
static int distance(const char *a, const char *b)
{
	int row[KEY_MAX + 1], la = (int)strlen(a), lb = (int)strlen(b);

	for (int j = 0; j <= lb; j++)
		row[j] = j;
	for (int i = 1; i <= la; i++) {
		int diag = row[0];
		row[0] = i;
		for (int j = 1; j <= lb; j++) {
			int up = row[j], best = diag + (a[i - 1] != b[j - 1]);
			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			diag = up;
			row[j] = best;
		}
	}
	return row[lb];
}

/* How well key q matches thing (kind, id): 0 exactly, 1 a name begins with
 * it, 2 a name holds it, else 3 + the smallest edit distance to a name or
 * to a name's beginning as long as q. */
static int score(const char *q, int kind, int id)
{
	char key[KEY_MAX], head[KEY_MAX];
	const char *name;
	size_t lq = strlen(q);
	int best = 1000;

	for (int k = 0; (name = name_at(kind, id, k)) != NULL; k++) {
		int d;
		key_of(name, key);
		if (strcmp(key, q) == 0)
			return 0;
		if (strncmp(key, q, lq) == 0)
			d = 1;
		else if (lq >= 3 && strstr(key, q))
			d = 2;
		else {
			d = 3 + distance(q, key);
			text_copy(head, lq + 1 < sizeof(head) ? lq + 1 : sizeof(head), key);
			if (3 + distance(q, head) < d)
				d = 3 + distance(q, head);
		}
		if (d < best)
			best = d;
	}
	return best;
}

int ctcards_find(const char *typed, struct ctcards_ref *found, struct ctcards_ref *sugg, int max,
                 int *nsugg)
{
	char q[KEY_MAX];
	int best = 1000, count = 0, limit;

	*nsugg = 0;
	key_of(typed ? typed : "", q);
	if (!q[0])
		return 0;
	for (int kind = 0; kind < CTCARDS_KINDS; kind++)
		for (int id = 0; id < ctcards_count(kind); id++) {
			int s = score(q, kind, id);
			if (s < best) {
				best = s;
				count = 0;
			}
			if (s == best && count++ == 0) {
				found->kind = kind;
				found->id = id;
			}
		}
	if (best <= 2 && count == 1)
		return 1;
	/* several matches, or the names nearest in spelling */
	limit = best <= 2 ? best : 3 + (int)strlen(q) / 3 + 1;
	if (best > 2 && best + 1 < limit)
		limit = best + 1;
	for (int s = best; s <= limit && *nsugg < max; s++)
		for (int kind = 0; kind < CTCARDS_KINDS && *nsugg < max; kind++)
			for (int id = 0; id < ctcards_count(kind) && *nsugg < max; id++)
				if (score(q, kind, id) == s) {
					sugg[*nsugg].kind = kind;
					sugg[*nsugg].id = id;
					(*nsugg)++;
				}
	return best <= 2 ? -1 : 0;
}

/* 1 when a name of (kind, id) begins with q (how = 0) or holds it (1). */
static int named(const char *q, int kind, int id, int how)
{
	char key[KEY_MAX];
	const char *name;

	for (int k = 0; (name = name_at(kind, id, k)) != NULL; k++) {
		key_of(name, key);
		if (how == 0 ? strncmp(key, q, strlen(q)) == 0 : strstr(key, q) != NULL)
			return 1;
	}
	return 0;
}

int ctcards_complete(const char *typed, struct ctcards_ref *out, int max)
{
	char q[KEY_MAX];
	int n = 0;

	key_of(typed ? typed : "", q);
	for (int how = 0; how < 2 && n < max; how++)
		for (int kind = 0; kind < CTCARDS_KINDS && n < max; kind++)
			for (int id = 0; id < ctcards_count(kind) && n < max; id++)
				if (named(q, kind, id, how) &&
				    (how == 0 || !named(q, kind, id, 0))) {
					out[n].kind = kind;
					out[n].id = id;
					n++;
				}
	return n;
}
