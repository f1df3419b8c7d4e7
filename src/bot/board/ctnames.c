#include "rlyeh/ctnames.h"

#include "rlyeh/ctgame.h"
#include "rlyeh/ctmap.h"
#include "rlyeh/i18n.h"

static const char *const cards_nl[CTGAME_KINDS] = {
	"Loopgraafmes",
	"Walvisvaardersharpoen",
	"Gangstermitrailleur",
	"Koetsgeweer",
	"Verzilverde degenstok",
	"Laudanumflesje",
	"Chirurgentas",
	"Gewijde kaars",
	"Elder Sign", /* the rules refer to it by this name */
	"Geleende roadster",
	"Havenmist",
	"Toevluchtsklokken",
	"Tweede adem",
	"Stalen zenuwen",
	"Scherpschutter",
	"Patronenvoorraad",
	"Hymne bij dageraad",
	"Aantekeningen van de landmeter",
	"Bezweringsrite",
	"Oog van de antiquair",
	"Verstrooi de gelovigen",
	"Gefluister in de muren",
	"Geklop op de deur",
	"Vleugels boven je hoofd",
	"Verzwikte enkel",
	"Vastgelopen mechaniek",
	"Nat kruit",
	"Slecht voorteken",
	"Vechtpartij in de steeg",
	"Roep van het Gele Teken",
	"Lange vingers",
	"Jouw kant op gestuurd",
};

static const char *const tiles_nl[CTMAP_TILES] = {
	"De kerk",
	"Kruising Kerkstraat",
	"Havenkruispunt",
	"Marktkruispunt",
	"Mistkruispunt (onverhard)",
	"Splitsing Voorstraat",
	"Splitsing Kringhof",
	"Splitsing Achterstraat",
	"Waterstraat",
	"Groene Laan (onverhard)",
	"Kadestraat",
	"Bocht in het klifpad (onverhard)",
	"Bocht Scheepsstraat",
	"Lantaarnbocht",
	"Apotheek",
	"Begraafheuvel (onverhard pad)",
	"Congregationalistisch ziekenhuis",
	"Hall School",
	"Het huis van de Verschrikkelijke Oude Man",
	"Vuurtoren North Point",
	"Politiebureau",
	"Scheepsleverancier Ward",
	"Historisch Genootschap",
	"Taveerne Het Kromme Anker",
	"Het Vreemde Hoge Huis",
	"Crypte op Central Hill",
	"Schouwburg Carcosa",
	"Verdronken kapel",
	"Menhirs van Kingsport Head",
	"Gewelf van de lantaarnopsteker",
};

static const char *const types_nl[CTGAME_TYPES] = { "Amulet", "Dolk", "Afgodsbeeld", "Ruimtemede",
	                                            "Foliant" };

static const char *const variants_nl[CTGAME_TYPES][4] = {
	{ "Jade scarabee", "Dof medaillon", "Benen penning", "Sterrensteenhanger" },
	{ "Obsidiaan athame", "Golvende kris", "Roestige ponjaard", "Haakkling" },
	{ "Gehurkte pad", "Bleek masker", "Koralen beeldje", "Gevleugeld beeld" },
	{ "Gouden fles", "Gesloten flacon", "Amberen ampul", "Honingdrank" },
	{ "Ongebonden folio", "Geannoteerd grimoire", "Zeemanscodex", "Toneeltekst in het geel" },
};

const char *ctnames_card(int kind, int lang)
{
	if (kind < 0 || kind >= CTGAME_KINDS)
		return "?";
	return lang == I18N_NL ? cards_nl[kind] : ctgame_card(kind)->name;
}

const char *ctnames_tile(int tile, int lang)
{
	if (tile < 0 || tile >= CTMAP_TILES)
		return "?";
	return lang == I18N_NL ? tiles_nl[tile] : ctmap_tile(tile)->name;
}

const char *ctnames_type(int type, int lang)
{
	if (type < 0 || type >= CTGAME_TYPES)
		return "?";
	return lang == I18N_NL ? types_nl[type] : ctgame_type_name(type);
}

const char *ctnames_relic(int relic, int lang)
{
	if (relic < 0 || relic >= CTGAME_RELICS)
		return "?";
	return lang == I18N_NL ? variants_nl[relic / 16][relic % 16 / 4]
	                       : ctgame_relic_variant(relic);
}
