#include "rlyeh/i18n.h"

#include <stdarg.h>
#include <string.h>

static const char *const catalog[I18N_COUNT][I18N_LANGS] = {
	[S_LOBBY_TITLE] = { "A table is open", "Er is een tafel geopend" },
	[S_LOBBY_TEXT] = { "Game: {1} — {2} at the table. Join with /join; the owner adds computer "
	                   "players with /addbot and starts with /start.",
	                   "Spel: {1} — {2} aan tafel. Doe mee met /join; de eigenaar voegt "
	                   "computerspelers toe met /addbot en begint met /start." },
	[S_COMPUTER_TAG] = { " (computer, {1})", " (computer, {1})" },
	[S_OWNER_TAG] = { " (owner)", " (eigenaar)" },
	[S_BUTTON_JOIN] = { "Join", "Meedoen" },
	[S_BUTTON_ADDBOT] = { "Add computer", "Computer toevoegen" },
	[S_BUTTON_START] = { "Start", "Beginnen" },
	[S_BUTTON_LEAVE] = { "Leave", "Vertrekken" },
	[S_BUTTON_REMATCH] = { "Rematch", "Revanche" },
	[S_LEFT] = { "{1} leaves the table.", "{1} verlaat de tafel." },
	[S_LOBBY_CLOSED] = { "Nobody is left: the table is closed.",
	                     "Er is niemand meer: de tafel is gesloten." },
	[S_NEW_OWNER] = { "{1} now owns the table.", "{1} is nu de eigenaar van de tafel." },
	[S_RESIGNED] = { "{1} leaves the game; the computer plays their seat (any command by them "
	                 "takes it back).",
	                 "{1} verlaat het spel; de computer speelt verder op die plaats (elk "
	                 "commando van die speler neemt hem terug)." },
	[S_REMOVED] = { "{1} was removed from the table.", "{1} is van tafel verwijderd." },
	[S_STARTED] = { "The game begins: {1} casts first.",
	                "Het spel begint: {1} is de eerste Vervloeker." },
	[S_REMATCH] = { "Rematch! Same table, the previous winner casts first.",
	                "Revanche! Dezelfde tafel, de winnaar van het laatste spel is de eerste "
	                "Vervloeker." },
	[S_CD_REMATCH_DRAWN] = { "Rematch! Same table; Cthulhu won the last game, so the first "
	                         "Caster is drawn.",
	                         "Revanche! Dezelfde tafel; Cthulhu won het laatste spel, dus de "
	                         "eerste Vervloeker wordt geloot." },
	[S_ABORTED] = { "{1} stopped the game.", "{1} heeft het spel gestopt." },
	[S_TIMED_OUT] = { "{1} took too long: the computer made that move.",
	                  "{1} deed er te lang over: de computer heeft die zet gedaan." },
	[S_AUTOPILOT] = { "{1} timed out three times in a row: the computer plays for them until "
	                  "they act again.",
	                  "{1} was drie keer op rij te laat: de computer speelt voor die speler "
	                  "tot die zelf weer iets doet." },
	[S_BACK] = { "{1} is back and plays their own seat again.",
	             "{1} is terug en speelt weer zelf." },
	[S_LANGUAGE_SET] = { "I will answer you in English.",
	                     "Ik antwoord je voortaan in het Nederlands." },
	[S_CALL] = { ", it is your move.", ", jij bent aan zet." },
	[S_REMIND] = { ", the table still waits for your move: {1} s left.",
	               ", de tafel wacht nog op je zet: nog {1} s." },
	[S_NOTIFY_ON] = { "I will call you (a mention) when a table waits for your move.",
	                  "Ik roep je (een vermelding) wanneer een tafel op jouw zet wacht." },
	[S_NOTIFY_OFF] = { "I will no longer call you when a table waits for your move.",
	                   "Ik roep je niet meer wanneer een tafel op jouw zet wacht." },
	[S_ERR_NOTIFY] = { "Choose: /notify on or /notify off.",
	                   "Kies: /notify on of /notify off." },
	[S_LOG_TITLE] = { "The game so far — page {1} of {2}",
	                  "Het spel tot nu toe — pagina {1} van {2}" },
	[S_LOG_EMPTY] = { "Nothing has happened at this table yet.",
	                  "Aan deze tafel is nog niets gebeurd." },
	[S_LOG_MORE] = { "Earlier: /log {1}", "Eerder: /log {1}" },
	[S_LOG_DROPPED] = { "(The oldest moves are left out here; the host's rlyeh export has them "
	                    "all.)",
	                    "(De oudste zetten staan hier niet; rlyeh export van de beheerder "
	                    "heeft ze "
	                    "allemaal.)" },
	[S_ERR_LOG_PAGE] = { "There is no page {1}: the log has {2}.",
	                     "Er is geen pagina {1}: het logboek heeft er {2}." },
	[S_ERR_LOG] = { "The log of this game could not be read.",
	                "Het logboek van dit spel kon niet worden gelezen." },
	[S_ERR_STORAGE] = { "That could not be saved, so nothing changed. Please try again.",
	                    "Dat kon niet worden opgeslagen, dus er is niets veranderd. Probeer "
	                    "het nog eens." },
	[S_ERR_MEMORY] = { "The server is short of memory; the move is saved and will show after a "
	                   "restart.",
	                   "De server heeft te weinig geheugen; de zet is opgeslagen en verschijnt "
	                   "na een herstart." },
	[S_ERR_TABLE_EXISTS] = { "This channel already has a game. Finish it or /abort it first.",
	                         "Dit kanaal heeft al een spel. Speel het uit of stop het eerst "
	                         "met /abort." },
	[S_ERR_OPEN_OPTION] = { "Unknown option \"{1}\". Try: /open [cthulhu-dice|elder-signs] "
	                        "[classic|rival-cults] [2|3] [en|nl].",
	                        "Onbekende optie \"{1}\". Probeer: /open "
	                        "[cthulhu-dice|elder-signs] "
	                        "[classic|rival-cults] [2|3] [en|nl]." },
	[S_ERR_NO_TABLE] = { "There is no game in this channel. Open one with /open.",
	                     "Er is geen spel in dit kanaal. Open er een met /open." },
	[S_ERR_ALREADY_STARTED] = { "The game has already started.", "Het spel is al begonnen." },
	[S_ERR_NOT_STARTED] = { "The game has not started yet.", "Het spel is nog niet begonnen." },
	[S_ERR_OWNER_ONLY] = { "Only the table's owner may use /{1}.",
	                       "Alleen de eigenaar van de tafel mag /{1} gebruiken." },
	[S_ERR_TABLE_FULL] = { "The table is full ({1} {1:player|players}).",
	                       "De tafel is vol ({1} {1:speler|spelers})." },
	[S_ERR_ALREADY_JOINED] = { "You are already at this table.", "Je zit al aan deze tafel." },
	[S_ERR_NOT_MEMBER] = { "You are not playing at this table.",
	                       "Je speelt niet mee aan deze tafel." },
	[S_ERR_POLICY] = { "Unknown computer player \"{1}\". Choose {2}.",
	                   "Onbekende computerspeler \"{1}\". Kies {2}." },
	[S_ERR_USAGE] = { "Usage: {1}", "Gebruik: {1}" },
	[S_ERR_NO_SUCH_MEMBER] = { "Nobody called \"{1}\" is at this table.",
	                           "Er zit niemand met de naam \"{1}\" aan deze tafel." },
	[S_ERR_REMOVE_OWNER] = { "The owner cannot be removed; use /leave or /abort.",
	                         "De eigenaar kan niet worden verwijderd; gebruik /leave of "
	                         "/abort." },
	[S_ERR_TOO_FEW] = { "At least {1} {1:player is|players are} needed to start.",
	                    "Er {1:is|zijn} minstens {1} {1:speler|spelers} nodig om te "
	                    "beginnen." },
	[S_ERR_ABORT_RIGHTS] = { "Only the table's owner or a moderator may stop the game.",
	                         "Alleen de eigenaar van de tafel of een moderator mag het spel "
	                         "stoppen." },
	[S_ERR_NO_FINISHED] = { "There is no finished game here to play again.",
	                        "Er is hier geen afgelopen spel om opnieuw te spelen." },
	[S_ERR_ILLEGAL] = { "That move is not allowed now.", "Die zet mag nu niet." },
	[S_ERR_LANGUAGE] = { "Choose a language: /language en or /language nl.",
	                     "Kies een taal: /language en of /language nl." },
	[S_ERR_STALE_GAME] = { "That button belongs to a game that is over.",
	                       "Die knop hoort bij een spel dat voorbij is." },
	[S_ERR_STALE_MOVE] = { "That button belongs to an earlier move.",
	                       "Die knop hoort bij een eerdere zet." },
	[S_ERR_IDENTITY] = { "Your identity could not be read; nothing changed.",
	                     "Je identiteit kon niet worden gelezen; er is niets veranderd." },
	[S_ERR_UNKNOWN_COMMAND] = { "Unknown command. /help lists them all.",
	                            "Onbekend commando. /help toont ze allemaal." },
	[S_ERR_NOT_COMMAND] = { "Commands start with /, for example /help.",
	                        "Commando's beginnen met /, bijvoorbeeld /help." },
	[S_ERR_ARGS] = { "Too many or too long arguments (or an unclosed quote).",
	                 "Te veel of te lange argumenten (of een open aanhalingsteken)." },
	[S_PRIVATE_TAG] = { "only {1} sees this", "alleen {1} ziet dit" },
	[S_HELP] = { "Commands:\n"
	             "/open [cthulhu-dice|elder-signs] [classic|rival-cults] [2|3] [en|nl] — open "
	             "a "
	             "game in this channel\n"
	             "/join — take a seat · /leave — leave the table (during a game the computer "
	             "plays on)\n"
	             "/addbot [random|heuristic|solver|greedy-2|expect|ev|best] — add a computer "
	             "player (owner; Cthulhu Dice: random, heuristic or solver, Elder Signs: "
	             "greedy-2, expect, ev or best)\n"
	             "/remove <player> — remove a player before the start (owner)\n"
	             "/start [player|random] — start; optionally who casts first (owner)\n"
	             "/status — the table · /rules [game] — the rules · /help — this list\n"
	             "/log [page] — what happened at the table, page 1 the latest (only you see "
	             "it)\n"
	             "/hint — your chance of winning with each choice of your move (only you see "
	             "it; Cthulhu Dice)\n"
	             "/abort — stop the game (owner or moderator) · /rematch — play again, the "
	             "previous winner casts first (after a Cthulhu win the first Caster is "
	             "drawn)\n"
	             "/curse <victim> — as Caster, curse a sane cultist and roll\n"
	             "/eye <Yellow Sign|Tentacle|Elder Sign|Cthulhu> — choose what your Eye "
	             "becomes\n"
	             "/respond — as Victim, roll back at the Caster\n"
	             "Elder Signs: /roll — roll again · /retreat — bank your Elder Signs\n"
	             "CTHULHU!!!: /hand — your cards and choices · /card <name> — what a card, "
	             "tile, "
	             "relic or square says · /discards — the discard piles (only you see these)\n"
	             "/leaderboard [game] [all] [week|month|year] — this server's (or every "
	             "server's) ranking of a game (the table's by default)\n"
	             "/stats [player] [game] [all] [week|month|year] — a player's record\n"
	             "/language <en|nl> — the language I answer you in\n"
	             "/notify <on|off> — be called (mentioned) when a table waits for your move, "
	             "and reminded before it times out (on by default)",
	             "Commando's:\n"
	             "/open [cthulhu-dice|elder-signs] [classic|rival-cults] [2|3] [en|nl] — open "
	             "een spel in dit kanaal\n"
	             "/join — neem plaats · /leave — verlaat de tafel (tijdens een spel speelt de "
	             "computer verder)\n"
	             "/addbot [random|heuristic|solver|greedy-2|expect|ev|best] — voeg een "
	             "computerspeler toe (eigenaar; Cthulhu Dice: random, heuristic of solver, "
	             "Elder Signs: greedy-2, expect, ev of best)\n"
	             "/remove <speler> — verwijder een speler voor het begin (eigenaar)\n"
	             "/start [speler|random] — begin; eventueel wie de eerste Vervloeker is "
	             "(eigenaar)\n"
	             "/status — de tafel · /rules [spel] — de regels · /help — deze lijst\n"
	             "/log [pagina] — wat er aan tafel gebeurde, pagina 1 het laatste (alleen jij "
	             "ziet het)\n"
	             "/hint — je kans om te winnen bij elke keuze van je zet (alleen jij ziet "
	             "het; Cthulhu Dice)\n"
	             "/abort — stop het spel (eigenaar of moderator) · /rematch — speel opnieuw; "
	             "de winnaar van het laatste spel is de eerste Vervloeker (na een winst van "
	             "Cthulhu wordt die geloot)\n"
	             "/curse <slachtoffer> — vervloek als Vervloeker een gezonde sektariër en "
	             "werp\n"
	             "/eye <Het Gele Teken|Tentakel|Teken van de Oude Goden|Cthulhu> — maak een "
	             "keuze voor je Boze Oog\n"
	             "/respond — werp als Slachtoffer terug naar de Vervloeker (de reactie)\n"
	             "Elder Signs: /roll — werp opnieuw · /retreat — trek je terug en bewaar je "
	             "Tekens\n"
	             "CTHULHU!!!: /hand — je kaarten en keuzes · /card (/kaart) <naam> — wat een "
	             "kaart, tegel, relikwie of vakje zegt · /discards (/aflegstapel) — de "
	             "aflegstapels (alleen jij ziet deze)\n"
	             "/leaderboard [spel] [all] [week|month|year] — de ranglijst van deze server "
	             "(of van alle servers) voor een spel (standaard dat van de tafel)\n"
	             "/stats [speler] [spel] [all] [week|month|year] — de resultaten van een "
	             "speler\n"
	             "/language <en|nl> — de taal waarin ik je antwoord\n"
	             "/notify <on|off> — word geroepen (vermeld) wanneer een tafel op jouw zet "
	             "wacht, en herinnerd voor de tijd om is (standaard aan)" },
	[S_OR] = { " or ", " of " },
	[S_CD_YELLOW_SIGN] = { "Yellow Sign", "Het Gele Teken" },
	[S_CD_TENTACLE] = { "Tentacle", "Tentakel" },
	[S_CD_ELDER_SIGN] = { "Elder Sign", "Teken van de Oude Goden" },
	[S_CD_CTHULHU] = { "Cthulhu", "Cthulhu" },
	[S_CD_EYE] = { "Eye", "Boze Oog" },
	[S_CD_TITLE] = { "Cthulhu Dice — turn {1}", "Cthulhu Dice — beurt {1}" },
	[S_CD_TITLE_RIVAL] = { "Cthulhu Dice, Rival Cults — turn {1}",
	                       "Cthulhu Dice, Rivaliserende Sektes — beurt {1}" },
	[S_CD_SANITY] = { "{1} sanity", "{1} {1:Verstandsfiche|Verstandsfiches}" },
	[S_CD_MAD] = { "mad", "waanzinnig" },
	[S_CD_POOL] = { "Cthulhu (the pool)", "Cthulhu (het midden van de tafel)" },
	[S_CD_CASTER_TAG] = { " · Caster", " · Vervloeker" },
	[S_CD_VICTIM_TAG] = { " · Victim", " · Slachtoffer" },
	[S_CD_BUTTON_RESPOND] = { "Respond", "Reageren" },
	[S_CD_WAIT_CURSE] = { "{1} is the Caster: choose a Victim with /curse <victim>.",
	                      "{1} is de Vervloeker: kies een Slachtoffer met /curse "
	                      "<slachtoffer>." },
	[S_CD_WAIT_EYE] = { "{1} rolled the Eye: choose a face with /eye <face>.",
	                    "{1} wierp het Boze Oog: maak een keuze met /eye <kant>." },
	[S_CD_WAIT_RESPOND] = { "{1}, the Victim, responds to {2}: /respond.",
	                        "{1}, het Slachtoffer, werpt terug met {2} als doel (de reactie): "
	                        "/respond." },
	[S_CD_OVER_WIN] = { "Game over: {1} wins.", "Het spel is voorbij: {1} wint." },
	[S_CD_OVER_CTHULHU] = { "Game over: Cthulhu wins.", "Het spel is voorbij: Cthulhu wint." },
	[S_CD_ERR_NOT_YOUR_MOVE] = { "Not your move: {1}", "Jij bent niet aan de beurt: {1}" },
	[S_CD_ERR_NO_VICTIM] = { "There is no cultist \"{1}\" at this table.",
	                         "Er is geen sektariër \"{1}\" aan deze tafel." },
	[S_CD_ERR_SELF] = { "You cannot curse yourself.", "Je kunt jezelf niet vervloeken." },
	[S_CD_ERR_MAD] = { "{1} is mad: the mad cannot be cursed.",
	                   "{1} is waanzinnig: een waanzinnige mag je niet aanvallen." },
	[S_CD_ERR_WHICH] = { "Which cultist of {1}? {2}", "Welke sektariër van {1}? {2}" },
	[S_CD_ERR_FACE] = { "Choose a face: {1}.", "Maak een keuze: {1}." },
	[S_CD_ERR_EYE_EYE] = { "The Eye cannot become the Eye: choose {1}.",
	                       "Het Boze Oog kan geen Boze Oog worden: kies {1}." },
	[S_CD_AWAITS_CURSE] = { "The table waits for you to curse a Victim: /curse <victim>.",
	                        "De tafel wacht tot je een Slachtoffer vervloekt: /curse "
	                        "<slachtoffer>." },
	[S_CD_AWAITS_CURSE_AS] = { "The table waits for you to curse a Victim with {1}: /curse "
	                           "<victim>.",
	                           "De tafel wacht tot je met {1} een Slachtoffer vervloekt: "
	                           "/curse <slachtoffer>." },
	[S_CD_AWAITS_EYE] = { "The table waits for you to choose what the Eye becomes: /eye <{1}>.",
	                      "De tafel wacht tot je kiest wat het Boze Oog wordt: /eye <{1}>." },
	[S_CD_AWAITS_RESPOND] = { "The table waits for you to respond: /respond.",
	                          "De tafel wacht op je reactie: /respond." },
	[S_ES_AWAITS] = { "The table waits for you to roll again or retreat: /roll ({1}% chance of "
	                  "being downed) or /retreat to bank {2} {2:Elder Sign|Elder Signs}.",
	                  "De tafel wacht tot je opnieuw werpt of je terugtrekt: /roll ({1}% kans "
	                  "om geveld te worden) of /retreat om {2} {2:Teken|Tekens} te bewaren." },
	[S_CTP_AWAITS] = { "The table waits for you to decide ({2}): {1}",
	                   "De tafel wacht op je beslissing ({2}): {1}" },
	[S_CTP_MAP_BUTTON] = { "Full map", "Hele kaart" },
	[S_CTP_MAP_TEXT] = { "The whole map, round {1}.", "De hele kaart, ronde {1}." },
	[S_CD_N_CURSE] = { "Turn {1}: {2} curses {3}.", "Beurt {1}: {2} vervloekt {3}." },
	[S_CD_N_ROLL] = { "{1} rolls: {2}.", "{1} werpt: {2}." },
	[S_CD_N_RESPOND] = { "{1} responds: {2}.", "{1} werpt als reactie: {2}." },
	[S_CD_N_EYE] = { "The Eye becomes: {1}.", "Het Boze Oog wordt: {1}." },
	[S_CD_N_LOSE] = { "{1} loses 1 sanity to Cthulhu.",
	                  "{1} verliest 1 Verstandsfiche aan Cthulhu." },
	[S_CD_N_GAIN] = { "{1} takes 1 sanity back from Cthulhu.",
	                  "{1} krijgt 1 Verstandsfiche terug van Cthulhu." },
	[S_CD_N_TAKE] = { "{1} takes 1 sanity from {2}.", "{1} krijgt 1 Verstandsfiche van {2}." },
	[S_CD_N_NOTHING] = { "Nothing happens.", "Er gebeurt niets." },
	[S_CD_N_MAD] = { "{1} goes mad!", "{1} wordt waanzinnig!" },
	[S_CD_N_SANE] = { "{1} is sane again.", "{1} is weer bij volle verstand." },
	[S_CD_N_WIN] = { "{1} is the last sane cultist and wins!",
	                 "{1} is de laatste gezonde sektariër en wint!" },
	[S_CD_N_WIN_RIVAL] = { "{1} wins with {2}, the last sane cultist!",
	                       "{1} wint met {2}, de laatste gezonde sektariër!" },
	[S_CD_OVER_WIN_RIVAL] = { "Game over: {1} wins with {2}.",
	                          "Het spel is voorbij: {1} wint met {2}." },
	[S_CD_N_LOSE_MAD_CASTER] = { "{1} loses 1 sanity to Cthulhu: the Caster, {2}, is mad "
	                             "and may not keep the Tentacle's token (R6).",
	                             "{1} verliest 1 Verstandsfiche aan Cthulhu: de Vervloeker, "
	                             "{2}, is waanzinnig en mag het gestolen Verstandsfiche niet "
	                             "houden (R6)." },
	[S_CD_LOBBY_RIVAL] = { "{1}, Rival Cults with {2} cultists each",
	                       "{1}, Rivaliserende Sektes met elk {2} sektariërs" },
	[S_CD_N_CTHULHU] = { "Everyone is mad: Cthulhu wins!",
	                     "Iedereen is waanzinnig: Cthulhu wint!" },
	[S_CD_RULES] = { "Cthulhu Dice. Every cultist starts with 3 sanity; Cthulhu (the middle) "
	                 "starts empty.\n"
	                 "On your turn you are the Caster: choose a sane Victim (/curse) and roll "
	                 "the die at them. Then the Victim rolls back at you (/respond). Then the "
	                 "next seat casts.\n"
	                 "Yellow Sign: the target loses 1 sanity to Cthulhu. Tentacle: the Caster "
	                 "takes 1 sanity from the Victim, whoever rolled it (a mad Caster's goes "
	                 "to Cthulhu). Elder Sign: the roller takes 1 sanity back from Cthulhu. "
	                 "Cthulhu: everyone who has sanity loses 1 to Cthulhu. Eye: choose any of "
	                 "those (/eye).\n"
	                 "At 0 sanity you are mad: you still cast, but nobody can curse you; an "
	                 "Elder Sign makes you sane again.\n"
	                 "At the end of a turn, the only sane cultist wins; if nobody is sane, "
	                 "Cthulhu wins.\n"
	                 "Rival Cults: two players with 2 or 3 cultists each, taking turns; the "
	                 "owner of the last sane cultist wins.",
	                 "Cthulhu Dice. Elke sektariër begint met 3 Verstandsfiches; Cthulhu (het "
	                 "midden van de tafel) begint leeg.\n"
	                 "In je beurt ben je de Vervloeker: kies een gezond Slachtoffer (/curse) "
	                 "en werp de dobbelsteen met hem als doel. Daarna werpt het Slachtoffer "
	                 "terug, met jou als doel: de reactie (/respond). Daarna is de speler "
	                 "links "
	                 "van de Vervloeker aan de beurt.\n"
	                 "Het Gele Teken: het doelwit verliest 1 Verstandsfiche aan Cthulhu. "
	                 "Tentakel: de Vervloeker krijgt 1 Verstandsfiche van het Slachtoffer, "
	                 "ongeacht wie de Tentakel werpt (is de Vervloeker waanzinnig, dan komt "
	                 "het "
	                 "fiche aan Cthulhu toe). Teken van de Oude Goden: wie het werpt krijgt 1 "
	                 "Verstandsfiche terug van Cthulhu. Cthulhu: iedereen met Verstandsfiches "
	                 "verliest er 1 aan Cthulhu. Boze Oog: maak een keuze uit de lijst "
	                 "hierboven "
	                 "(/eye).\n"
	                 "Zonder Verstandsfiches ben je waanzinnig: je mag nog steeds anderen "
	                 "aanvallen, maar anderen mogen jou niet meer aanvallen; het Teken van de "
	                 "Oude Goden brengt je weer bij volle verstand.\n"
	                 "Aan het einde van een volledige beurt wint de enige gezonde sektariër; "
	                 "is "
	                 "iedereen waanzinnig, dan wint Cthulhu.\n"
	                 "Rivaliserende Sektes: twee spelers met elk 2 of 3 sektariërs, om en om "
	                 "aan de beurt; de winnaar is de speler met de laatste gezonde "
	                 "sektariër." },
	[S_ES_LIBRARY] = { "Library", "Bibliotheek" },
	[S_ES_MUSEUM] = { "Museum", "Museum" },
	[S_ES_TOMB] = { "Tomb", "Graftombe" },
	[S_ES_ELDER_SIGN] = { "Elder Sign", "Teken van de Oude Goden" },
	[S_ES_CLUE] = { "Clue", "Aanwijzing" },
	[S_ES_TENTACLE] = { "Tentacle", "Tentakel" },
	[S_ES_TITLE] = { "Elder Signs — round {1}", "Elder Signs — ronde {1}" },
	[S_ES_TITLE_TIEBREAK] = { "Elder Signs — round {1}, tie-break {2}",
	                          "Elder Signs — ronde {1}, beslissingsronde {2}" },
	[S_ES_SCORE] = { "{1} {1:point|points}", "{1} {1:punt|punten}" },
	[S_ES_TURN_TAG] = { " · to play", " · aan de beurt" },
	[S_ES_TIEBREAK_TAG] = { " · in the tie-break", " · in de beslissingsronde" },
	[S_ES_DEVOURED_TAG] = { " · devoured", " · verslonden" },
	[S_ES_WINNER_TAG] = { " · winner", " · winnaar" },
	[S_ES_HAND] = { "Clue dice in hand", "Aanwijzingen in de hand" },
	[S_ES_STASH] = { "Elder Signs at stake", "Tekens op het spel" },
	[S_ES_TENTACLES] = { "Tentacles", "Tentakels" },
	[S_ES_BAG] = { "The bag", "De zak" },
	[S_ES_NONE] = { "none", "geen" },
	[S_ES_COUNT] = { "{1} {2}", "{1} {2}" },
	[S_ES_WAIT] = { "{1}: /roll to roll again ({2}% chance of being downed) or /retreat to "
	                "bank {3} {3:Elder Sign|Elder Signs}.",
	                "{1}: /roll om opnieuw te werpen ({2}% kans om geveld te worden) of "
	                "/retreat om {3} {3:Teken|Tekens} te bewaren." },
	[S_ES_OVER_WIN] = { "Game over: {1} wins with {2} {2:point|points}.",
	                    "Het spel is voorbij: {1} wint met {2} {2:punt|punten}." },
	[S_ES_BUTTON_ROLL] = { "Roll again", "Opnieuw werpen" },
	[S_ES_BUTTON_RETREAT] = { "Retreat", "Terugtrekken" },
	[S_ES_STARTED] = { "The game begins: {1} opens every round.",
	                   "Het spel begint: {1} opent elke ronde." },
	[S_ES_REMATCH] = { "Rematch! Same table, the previous winner opens every round.",
	                   "Revanche! Dezelfde tafel, de vorige winnaar opent elke ronde." },
	[S_ES_ERR_NOT_YOUR_TURN] = { "Not your turn: it is {1}'s.",
	                             "Jij bent niet aan de beurt: {1} is aan de beurt." },
	[S_ES_ERR_PHASE] = { "There is nothing to decide now.", "Er valt nu niets te beslissen." },
	[S_ES_N_TURN] = { "Round {1}, turn {2}: {3} plays.", "Ronde {1}, beurt {2}: {3} speelt." },
	[S_ES_N_DRAW] = { "{1} draws a {2} die ({3} left in the bag).",
	                  "{1} trekt een steen: {2} (nog {3} in de zak)." },
	[S_ES_N_ROLL] = { "{1} die: {2}.", "Steen {1}: {2}." },
	[S_ES_N_DOWNED] = { "{1} is downed by {2} {2:Tentacle|Tentacles} and loses {3} {3:Elder "
	                    "Sign|Elder Signs} at stake.",
	                    "{1} wordt geveld door {2} {2:Tentakel|Tentakels} en verliest {3} "
	                    "{3:Teken|Tekens} op het spel." },
	[S_ES_N_CONTINUE] = { "{1} rolls again (Clue dice kept: {2}; {3} {3:Elder Sign|Elder "
	                      "Signs} "
	                      "at stake).",
	                      "{1} werpt opnieuw (Aanwijzingen gehouden: {2}; {3} {3:Teken|Tekens} "
	                      "op het spel)." },
	[S_ES_N_REFILL] = { "The bag runs short: {1} Elder Sign {1:die goes|dice go} back in "
	                    "({1:its points still count|their points still count}); it holds "
	                    "{2}.",
	                    "De zak raakt leeg: {1} {1:steen|stenen} met een Teken {1:gaat|gaan} "
	                    "terug ({1:zijn|hun} punten tellen nog); er {2:zit|zitten} er nu {2} "
	                    "in." },
	[S_ES_N_BANK] = { "{1} retreats and banks {2} {2:Elder Sign|Elder Signs}: {3} "
	                  "{3:point|points}.",
	                  "{1} trekt zich terug en bewaart {2} {2:Teken|Tekens}: {3} "
	                  "{3:punt|punten}." },
	[S_ES_N_ROUND] = { "Round {1} is over.", "Ronde {1} is voorbij." },
	[S_ES_N_DEVOURED] = { "{1} is devoured with {2} {2:point|points}.",
	                      "{1} wordt verslonden met {2} {2:punt|punten}." },
	[S_ES_N_TIEBREAK] = { "Tie-break {1}: {2} play one more turn each.",
	                      "Beslissingsronde {1}: {2} spelen elk nog een beurt." },
	[S_ES_N_WIN] = { "{1} wins with {2} {2:point|points} after {3} {3:turn|turns}!",
	                 "{1} wint met {2} {2:punt|punten} na {3} {3:beurt|beurten}!" },
	[S_ES_RULES] = { "Elder Signs. A bag holds 15 dice: 8 Library (3 Elder Signs, 2 Clues, 1 "
	                 "Tentacle), 4 Museum (2/2/2) and 3 Tomb (1/2/3).\n"
	                 "On your turn, draw until you hold 3 dice and roll them. Elder Signs go "
	                 "to your stash (points at stake), Tentacles to your pile, Clue dice stay "
	                 "in "
	                 "hand. At 3 Tentacles you are downed: the stash is lost and the turn "
	                 "ends.\n"
	                 "Otherwise /roll again (keep the Clue dice, draw up to 3, roll them all) "
	                 "or /retreat to add the stash to your score. When the bag runs short, the "
	                 "stash's dice go back into it; their points still count.\n"
	                 "When someone reaches 13, the round is finished; players under 13 are "
	                 "devoured and the highest score wins. Tied leaders play tie-break rounds, "
	                 "one turn each, until one leads.",
	                 "Elder Signs. Een zak bevat 15 stenen: 8 Bibliotheek (3 Tekens van de "
	                 "Oude "
	                 "Goden, 2 Aanwijzingen, 1 Tentakel), 4 Museum (2/2/2) en 3 Graftombe "
	                 "(1/2/3).\n"
	                 "In je beurt trek je tot je 3 stenen hebt en werp je ze. Tekens gaan naar "
	                 "je voorraad (punten op het spel), Tentakels naar je stapel, Aanwijzingen "
	                 "blijven in je hand. Bij 3 Tentakels word je geveld: de voorraad is weg "
	                 "en "
	                 "je beurt is voorbij.\n"
	                 "Anders werp je opnieuw met /roll (houd de Aanwijzingen, trek tot 3, werp "
	                 "ze allemaal) of trek je je terug met /retreat en tel je de voorraad bij "
	                 "je "
	                 "score. Raakt de zak leeg, dan gaan de stenen van de voorraad terug; hun "
	                 "punten tellen nog.\n"
	                 "Haalt iemand 13, dan wordt de ronde uitgespeeld; wie onder 13 blijft "
	                 "wordt "
	                 "verslonden en de hoogste score wint. Staan de leiders gelijk, dan spelen "
	                 "zij beslissingsrondes, één beurt elk, tot er één voor staat." },
	[S_REC_ALL_TIME] = { "all time", "aller tijden" },
	[S_REC_WEEK] = { "this week (since Monday, UTC)", "deze week (sinds maandag, UTC)" },
	[S_REC_MONTH] = { "this month (since the 1st, UTC)", "deze maand (sinds de 1e, UTC)" },
	[S_REC_YEAR] = { "this year (since 1 January, UTC)", "dit jaar (sinds 1 januari, UTC)" },
	[S_REC_TITLE_SERVER] = { "Leaderboard of this server, {1} ({2}):",
	                         "Ranglijst van deze server, {1} ({2}):" },
	[S_REC_TITLE_ALL] = { "Leaderboard of all servers, {1} ({2}):",
	                      "Ranglijst van alle servers, {1} ({2}):" },
	[S_REC_RANK] = { "{1}. {2} — rating {3}: ", "{1}. {2} — waardering {3}: " },
	[S_REC_LINE] = { "{1} {1:game|games} · {2} {2:win|wins} ({3}) · {4} {4:loss|losses} to "
	                 "Cthulhu",
	                 "{1} {1:spel|spellen} · {2} gewonnen ({3}) · {4} verloren aan Cthulhu" },
	[S_HINT_NONE] = { "This game has no hints.", "Dit spel geeft geen tips." },
	[S_HINT_CHOICES] = { "{1}, your chance of winning after each choice, if everyone plays "
	                     "as the solver does from here on: {2}.",
	                     "{1}, je kans om te winnen na elke keuze, als iedereen vanaf nu "
	                     "speelt "
	                     "zoals de solver: {2}." },
	[S_HINT_NOW] = { "{1}, your chance of winning now, if everyone plays as the solver does "
	                 "from here on: {2}.",
	                 "{1}, je kans om te winnen nu, als iedereen vanaf nu speelt zoals de "
	                 "solver: {2}." },
	[S_HINT_BEST] = { "best: {1}", "beste: {1}" },
	[S_HINT_NOT_READY] = { "The analysis of this table is still being computed; ask again in a "
	                       "few seconds.",
	                       "De analyse van deze tafel wordt nog berekend; vraag het over een "
	                       "paar seconden opnieuw." },
	[S_HINT_UNAVAILABLE] = { "The analysis of this table is not available right now.",
	                         "De analyse van deze tafel is nu niet beschikbaar." },
	[S_HINT_TOO_MANY] = { "No hints beyond 6 cultists: the analysis would be too large.",
	                      "Geen tips boven 6 sektariërs: de analyse zou te groot worden." },
	[S_SOLVER_FALLBACK] = { "{1} plays as heuristic: the solver has no analysis beyond 6 "
	                        "cultists.",
	                        "{1} speelt als heuristic: de solver heeft geen analyse boven 6 "
	                        "sektariërs." },
	[S_REC_LINE_PLAIN] = { "{1} {1:game|games} · {2} {2:win|wins} ({3})",
	                       "{1} {1:spel|spellen} · {2} gewonnen ({3})" },
	[S_REC_EMPTY] = { "Nobody is ranked yet: it takes {1} finished {1:game|games}.",
	                  "Nog niemand staat op de ranglijst: daarvoor {1:is|zijn} {1} "
	                  "{1:uitgespeeld spel|uitgespeelde spellen} nodig." },
	[S_REC_UNRANKED] = { "Not ranked yet (fewer than {2} {2:game|games}): {1} "
	                     "{1:player|players}.",
	                     "Nog niet gerangschikt (minder dan {2} {2:spel|spellen}): {1} "
	                     "{1:speler|spelers}." },
	[S_REC_NO_GAMES] = { "No finished games for \"{1}\".",
	                     "Geen uitgespeelde spellen voor \"{1}\"." },
	[S_REC_STATS_SERVER] = { "{1} on this server, {2} ({3}):",
	                         "{1} op deze server, {2} ({3}):" },
	[S_REC_STATS_ALL] = { "{1} on all servers, {2} ({3}):", "{1} op alle servers, {2} ({3}):" },
	[S_REC_STATS_RANKED] = { "rating {1}, rank {2}; ", "waardering {1}, plaats {2}; " },
	[S_REC_STATS_UNRANKED] = { "rating {1}, not ranked before {2} {2:game|games}; ",
	                           "waardering {1}, niet gerangschikt voor {2} "
	                           "{2:spel|spellen}; " },
	[S_CT_DEALER] = { "{1} deals; {2} plays first.", "{1} deelt; {2} begint." },
	[S_CT_TURN] = { "Round {1}, turn {2}: {3} plays.", "Ronde {1}, beurt {2}: {3} speelt." },
	[S_CT_DRAWS] = { "{1} draws a card.", "{1} trekt een kaart." },
	[S_CT_ROLL_MOVE] = { "{1} rolls {2} for movement.", "{1} werpt {2} voor de beweging." },
	[S_CT_ROLL_COMBAT] = { "{1} rolls {2}.", "{1} werpt {2}." },
	[S_CT_ROLL_SANITY] = { "{1} rolls {2} for sanity.", "{1} werpt {2} voor het verstand." },
	[S_CT_ROLL_CULTISTS] = { "{1} rolls {2}: that many cultists move.",
	                         "{1} werpt {2}: zoveel sektariërs bewegen." },
	[S_CT_ROLL_BRAWL] = { "{1} rolls {2} in the brawl.", "{1} werpt {2} in de vechtpartij." },
	[S_CT_TILE_DRAW] = { "{1} draws the tile {2}.", "{1} trekt de tegel {2}." },
	[S_CT_TILE_SKIP] = { "{1} cannot be placed and goes to the map discard pile.",
	                     "{1} past nergens en gaat naar de aflegstapel van de kaart." },
	[S_CT_TILE_RESHUFFLE] = { "The {1} {1:tile|tiles} of the map discard pile "
	                          "{1:becomes|become} the map deck.",
	                          "De {1} {1:tegel|tegels} van de aflegstapel {1:wordt|worden} de "
	                          "stapel van de "
	                          "kaart." },
	[S_CT_PLACE] = { "{1} is placed in cell ({2},{3}).", "{1} komt in vak ({2},{3})." },
	[S_CT_ROTATE] = { "It is turned {1}°.", "Hij is {1}° gedraaid." },
	[S_CT_ROTATE_RELIEF] = { "It is turned {1}° and closes the last open street (B8).",
	                         "Hij is {1}° gedraaid en sluit de laatste open straat af (B8)." },
	[S_CT_ROTATE_FORCED] = { "It is turned {1}°, its entrance to the street (B9).",
	                         "Hij is {1}° gedraaid, met de ingang naar de straat (B9)." },
	[S_CT_ARRIVE_CULTIST] = { "A cultist appears on {1}.",
	                          "Er verschijnt een sektariër op {1}." },
	[S_CT_ARRIVE_BYAKHEE] = { "A byakhee appears on {1}.",
	                          "Er verschijnt een byakhee op {1}." },
	[S_CT_ARRIVE_HEART] = { "A heart lies on {1}.", "Er ligt een hart op {1}." },
	[S_CT_ARRIVE_BULLET] = { "A bullet lies on {1}.", "Er ligt een kogel op {1}." },
	[S_CT_CARD] = { "{1} plays {2}.", "{1} speelt {2}." },
	[S_CT_ITEM] = { "{1} uses {2}.", "{1} gebruikt {2}." },
	[S_CT_DISCARD] = { "{1} discards {2}.", "{1} legt {2} af." },
	[S_CT_MOVE] = { "{1} moves to {2} ({3} left).", "{1} gaat naar {2} (nog {3})." },
	[S_CT_RELOCATE] = { "{1} is put on {2}.", "{1} wordt op {2} gezet." },
	[S_CT_FIGHT_CULTIST] = { "{1} fights the cultist on {2}.",
	                         "{1} vecht met de sektariër op {2}." },
	[S_CT_FIGHT_BYAKHEE] = { "{1} fights the byakhee on {2}.",
	                         "{1} vecht met de byakhee op {2}." },
	[S_CT_WEAPON] = { "{1} takes up {2}.", "{1} grijpt naar {2}." },
	[S_CT_TOTAL] = { "Total {2} against {1}.", "Totaal {2} tegen {1}." },
	[S_CT_KILL_CULTIST] = { "{1} kills the cultist.", "{1} doodt de sektariër." },
	[S_CT_KILL_BYAKHEE] = { "{1} kills the byakhee.", "{1} doodt de byakhee." },
	[S_CT_SPEND] = { "{1} spends {2} {2:bullet|bullets}.",
	                 "{1} besteedt {2} {2:kogel|kogels}." },
	[S_CT_HEARTS] = { "{1} has {2} {2:heart|hearts}.", "{1} heeft {2} {2:hart|harten}." },
	[S_CT_BULLETS] = { "{1} has {2} {2:bullet|bullets}.", "{1} heeft {2} {2:kogel|kogels}." },
	[S_CT_SANITY] = { "{1}: sanity {2}/{3}.", "{1}: verstand {2}/{3}." },
	[S_CT_INSANE] = { "{1} goes insane; starting sanity is now {2}.",
	                  "{1} wordt krankzinnig; het beginverstand is nu {2}." },
	[S_CT_DEFEAT] = { "{1} is defeated on {2}.", "{1} wordt verslagen op {2}." },
	[S_CT_ELIMINATED] = { "{1} is out of the game.", "{1} ligt uit het spel." },
	[S_CT_RELIC] = { "{1} takes a relic: {2} ({3}).", "{1} krijgt een relikwie: {2} ({3})." },
	[S_CT_RELIC_LOST] = { "{1} loses a relic: {2} ({3}).",
	                      "{1} verliest een relikwie: {2} ({3})." },
	[S_CT_TOKEN_HEART] = { "{1} picks up the heart on {2}.", "{1} raapt het hart op {2} op." },
	[S_CT_TOKEN_BULLET] = { "{1} picks up the bullet on {2}.",
	                        "{1} raapt de kogel op {2} op." },
	[S_CT_FIGURE_CULTIST] = { "cultist {1} → {2}", "sektariër {1} → {2}" },
	[S_CT_FIGURE_BYAKHEE] = { "byakhee {1} → {2}", "byakhee {1} → {2}" },
	[S_CT_SANCTIFY] = { "{1} sanctifies {2} ({3} of 3).", "{1} heiligt {2} ({3} van 3)." },
	[S_CT_ACTIVATE] = { "{1} is activated ({2} of 3).", "{1} is geactiveerd ({2} van 3)." },
	[S_CT_REMOVE] = { "The activated {1} is taken off the map.",
	                  "De geactiveerde {1} gaat van de kaart." },
	[S_CT_TOTAL_MOVE] = { "{1} may move {2} {2:square|squares}.",
	                      "{1} mag {2} {2:vakje|vakjes} bewegen." },
	[S_CT_END_SAVED] = { "Three sites are sanctified: Kingsport is saved! Winner: {1}.",
	                     "Drie plekken zijn geheiligd: Kingsport is gered! Winnaar: {1}." },
	[S_CT_END_SUMMONED] = { "Three sites are activated: the King in Yellow arrives! Winner: "
	                        "{1}.",
	                        "Drie plekken zijn geactiveerd: de Koning in het Geel komt! "
	                        "Winnaar: {1}." },
	[S_CT_END_NOBODY] = { "Every investigator is lost: nobody wins.",
	                      "Alle onderzoekers zijn verloren: niemand wint." },
	[S_CT_END_CAPPED] = { "The round cap is reached: the game stops unfinished.",
	                      "De rondelimiet is bereikt: het spel stopt onbeslist." },
	[S_CT_OPT_PASS] = { "Pass", "Passen" },
	[S_CT_OPT_STOP] = { "Stop", "Stoppen" },
	[S_CT_OPT_END_TURN] = { "End turn", "Beurt beëindigen" },
	[S_CT_OPT_PLAY] = { "Play {1}", "Speel {1}" },
	[S_CT_OPT_DISCARD] = { "Discard {1}", "Leg {1} af" },
	[S_CT_OPT_USE] = { "Use {1}", "Gebruik {1}" },
	[S_CT_OPT_SANCTIFY] = { "Sanctify", "Heiligen" },
	[S_CT_OPT_TILE] = { "#{1} cell ({2},{3}) {4}° exits {5}",
	                    "#{1} vak ({2},{3}) {4}° uitgangen {5}" },
	[S_CT_OPT_REMOVE] = { "Remove {1}", "Verwijder {1}" },
	[S_CT_OPT_TOKENS] = { "Tokens {1}", "Fiches {1}" },
	[S_CT_OPT_SQUARE] = { "Square {1}", "Vakje {1}" },
	[S_CT_OPT_NO_WEAPON] = { "No weapon", "Geen wapen" },
	[S_CT_OPT_WEAPON] = { "With {1}", "Met {1}" },
	[S_CT_OPT_SPEND] = { "Spend {1} {1:bullet|bullets}", "Besteed {1} {1:kogel|kogels}" },
	[S_CT_OPT_LOSE] = { "Lose a heart & reroll", "Verlies een hart en werp opnieuw" },
	[S_CT_OPT_NORTH] = { "↑ North", "↑ Noord" },
	[S_CT_OPT_EAST] = { "→ East", "→ Oost" },
	[S_CT_OPT_SOUTH] = { "↓ South", "↓ Zuid" },
	[S_CT_OPT_WEST] = { "← West", "← West" },
	[S_CT_OPT_CULTIST] = { "Cultist on {1}", "Sektariër op {1}" },
	[S_CT_OPT_BYAKHEE] = { "Byakhee on {1}", "Byakhee op {1}" },
	[S_CT_OPT_TO] = { "To {1}", "Naar {1}" },
	[S_CT_SEAT] = { "hearts {1} · bullets {2} · sanity {3}/{4} · cards {5}",
	                "harten {1} · kogels {2} · verstand {3}/{4} · kaarten {5}" },
	[S_CT_SEAT_RELICS] = { " · relics: {1}", " · relikwieën: {1}" },
	[S_CT_SEAT_PLAY] = { " · in play: {1}", " · in het spel: {1}" },
	[S_CT_SEAT_SITES] = { " · sites: {1}", " · plekken: {1}" },
	[S_CT_SEAT_PLAYED] = { " · card played this round", " · kaart gespeeld deze ronde" },
	[S_CT_SEAT_OUT] = { "eliminated", "uitgeschakeld" },
	[S_CT_NONE] = { "none", "geen" },
	[S_CT_USES] = { "{1} ({2} left)", "{1} (nog {2})" },
	[S_CT_PILES] = { "map deck {1} (discard {2}) · events {3} (discard {4}) · relics {5} "
	                 "(discard {6}) · sanctified {7}/3 · activated {8}/3",
	                 "kaartstapel {1} (afgelegd {2}) · gebeurtenissen {3} (afgelegd {4}) · "
	                 "relikwieën {5} (afgelegd {6}) · geheiligd {7}/3 · geactiveerd {8}/3" },
	[S_CT_SUPPLY] = { "supply: {1} {1:cultist|cultists}, {2} byakhee, {3} {3:heart|hearts}, "
	                  "{4} {4:bullet|bullets}",
	                  "voorraad: {1} {1:sektariër|sektariërs}, {2} byakhee, {3} "
	                  "{3:hart|harten}, {4} {4:kogel|kogels}" },
	[S_LEFT_GAME] = { "{1} leaves the game.", "{1} verlaat het spel." },
	[S_CTP_MENU] = { "Choose an option (page {1} of {2})",
	                 "Kies een optie (pagina {1} van {2})" },
	[S_CTP_ASK_AUTOMATIC] = { "{1}: which Automatic card first?",
	                          "{1}: welke automatische kaart eerst?" },
	[S_CTP_ASK_PLAY] = { "{1}: play a card or item, or pass.",
	                     "{1}: speel een kaart of voorwerp, of pas." },
	[S_CTP_ASK_REACT] = { "{1} may react: play a card or pass.",
	                      "{1} mag reageren: speel een kaart of pas." },
	[S_CTP_ASK_TILE] = { "{1}: where does {2} go? The options are numbered on the map.",
	                     "{1}: waar komt {2}? De opties staan genummerd op de kaart." },
	[S_CTP_ASK_REMOVE] = { "{1}: which activated site leaves the map?",
	                       "{1}: welke geactiveerde plek gaat van de kaart?" },
	[S_CTP_ASK_TOKENS] = { "{1}: the building's tokens, hearts or bullets per square.",
	                       "{1}: de fiches van het gebouw, harten of kogels per vakje." },
	[S_CTP_ASK_SITE_BYAKHEE] = { "{1}: where does the site's byakhee stand?",
	                             "{1}: waar staat de byakhee van de plek?" },
	[S_CTP_ASK_WEAPON] = { "{1}: which weapon for this roll?",
	                       "{1}: welk wapen voor deze worp?" },
	[S_CTP_ASK_FAILED] = { "{1}: the roll failed: spend bullets, lose a heart and roll again, "
	                       "or play a card.",
	                       "{1}: de worp mislukt: besteed kogels, verlies een hart en werp "
	                       "opnieuw, of speel een kaart." },
	[S_CTP_ASK_MOVE] = { "{1}: {2} {2:square|squares} left. Give a destination gx,gy (Move), "
	                     "take a step, or Stop.",
	                     "{1}: nog {2} {2:vakje|vakjes}. Geef een bestemming gx,gy (Lopen), "
	                     "zet een stap, of Stoppen." },
	[S_CTP_ASK_FIGURE] = { "{1}: which figure moves?", "{1}: welke figuur beweegt?" },
	[S_CTP_ASK_DEST] = { "{1}: where does it go?", "{1}: waar gaat hij heen?" },
	[S_CTP_ASK_RESEED] = { "{1}: which figure goes back onto the site?",
	                       "{1}: welke figuur komt terug op de plek?" },
	[S_CTP_ASK_RELIC_LOSS] = { "{1}: which relic do you lose?",
	                           "{1}: welk relikwie verlies je?" },
	[S_CTP_ASK_DISCARD] = { "{1}: end the turn, or discard a card.",
	                        "{1}: beëindig de beurt, of leg een kaart af." },
	[S_CTP_ASK_TARGET] = { "{1}: which player?", "{1}: welke speler?" },
	[S_CTP_ASK_SQUARE] = { "{1}: which square?", "{1}: welk vakje?" },
	[S_CTP_ASK_RELIC_TAKE] = { "{1}: which kind of relic do you take?",
	                           "{1}: welk soort relikwie neem je?" },
	[S_CTP_ERR_NOTHING] = { "Nothing is awaited from you now.",
	                        "Er wordt nu niets van je verwacht." },
	[S_CTP_ERR_NOT_YOURS] = { "Not your decision: the table waits for {1}.",
	                          "Niet jouw beslissing: de tafel wacht op {1}." },
	[S_CTP_ERR_OPTION] = { "'{1}' is not an option: choose 1 to {2}.",
	                       "'{1}' is geen optie: kies 1 tot en met {2}." },
	[S_CTP_ERR_TOKENS] = { "'{1}' is not a token pattern: hearts, bullets, alternate, or {2} "
	                       "{2:letter|letters} H or B (K).",
	                       "'{1}' is geen fichepatroon: harten, kogels, afwisselend, of {2} "
	                       "{2:letter|letters} H of K (B)." },
	[S_CTP_ERR_SQUARE] = { "'{1}' is not a square of the map: write gx,gy as on the map's "
	                       "axes.",
	                       "'{1}' is geen vakje van de kaart: schrijf gx,gy zoals op de assen "
	                       "van de kaart." },
	[S_CTP_ERR_UNREACHABLE] = { "{1} cannot be reached with {2} {2:square|squares} left.",
	                            "{1} is niet te bereiken met nog {2} {2:vakje|vakjes}." },
	[S_CTP_ERR_PAGE] = { "'{1}' is not a page: choose 1 to {2}.",
	                     "'{1}' is geen pagina: kies 1 tot en met {2}." },
	[S_CTP_ALL_HEARTS] = { "All hearts", "Alles harten" },
	[S_CTP_ALL_BULLETS] = { "All bullets", "Alles kogels" },
	[S_CTP_ALTERNATE] = { "Alternate", "Afwisselend" },
	[S_CTP_CUSTOM] = { "Custom", "Zelf kiezen" },
	[S_CTP_PATTERN] = { "H or B per square, in reading order",
	                    "H of K per vakje, in leesvolgorde" },
	[S_CTP_MOVE_BUTTON] = { "Move", "Lopen" },
	[S_CTP_DESTINATION] = { "Destination gx,gy", "Bestemming gx,gy" },
	[S_CTP_DISCARD_BUTTON] = { "Discard a card", "Kaart afleggen" },
	[S_CTP_PLAY_BUTTON] = { "Play a card", "Speel een kaart" },
	[S_CTP_HAND_BUTTON] = { "My hand", "Mijn hand" },
	[S_CTP_OVER_SAVED] = { "Three sites are sanctified: Kingsport is saved.",
	                       "Drie plekken zijn geheiligd: Kingsport is gered." },
	[S_CTP_OVER_SUMMONED] = { "Three sites are activated: the King in Yellow arrives.",
	                          "Drie plekken zijn geactiveerd: de Koning in het Geel komt." },
	[S_CTP_OVER_NOBODY] = { "Every investigator is lost: nobody wins.",
	                        "Alle onderzoekers zijn verloren: niemand wint." },
	[S_CTP_OVER_CAPPED] = { "The round cap is reached: the game stops unfinished, without a "
	                        "winner.",
	                        "De rondelimiet is bereikt: het spel stopt onbeslist, zonder "
	                        "winnaar." },
	[S_CTP_VP] = { "{1}: {2} VP", "{1}: {2} OP" },
	[S_CTP_VP_WINNER] = { "{1}: {2} VP — wins", "{1}: {2} OP — wint" },
	[S_CTP_TITLE] = { "CTHULHU!!! — round {1}", "CTHULHU!!! — ronde {1}" },
	[S_CTP_TITLE_OVER] = { "CTHULHU!!! — game over after round {1}",
	                       "CTHULHU!!! — einde na ronde {1}" },
	[S_CTP_HAND_TITLE] = { "Your hand", "Je hand" },
	[S_CTP_NO_HAND] = { "You have no seat in this game.", "Je hebt geen plaats in dit spel." },
	[S_CTP_HAND_EMPTY] = { "No cards.", "Geen kaarten." },
	[S_CTP_PREVIEW] = { "Preview of {1}. Place the tile here?",
	                    "Voorbeeld van {1}. De tegel hier leggen?" },
	[S_CTP_CONFIRM] = { "Confirm", "Bevestigen" },
	[S_CTP_BACK] = { "Back", "Terug" },
	[S_CTP_STARTED] = { "The game begins: the dealer is rolled for, and the hands are dealt.",
	                    "Het spel begint: er wordt om de deler geworpen en de kaarten worden "
	                    "gedeeld." },
	[S_CTP_REMATCH] = { "A new game at the same table.", "Een nieuw spel aan dezelfde tafel." },
	[S_CTP_AUTOPASS_ON] = { "You now pass other players' reaction windows without being asked "
	                        "(/autopass off to be asked again).",
	                        "Je past nu bij de reactievensters van anderen zonder dat het je "
	                        "gevraagd wordt (/autopas uit om weer gevraagd te worden)." },
	[S_CTP_AUTOPASS_OFF] = { "You are asked again in other players' reaction windows.",
	                         "Je wordt weer gevraagd bij de reactievensters van anderen." },
	[S_CTP_WEAPON_ASK] = { "You are now asked for the weapon of every combat roll (/weapon "
	                       "auto for your standing preference).",
	                       "Je wordt nu bij elke gevechtsworp om je wapen gevraagd (/wapen "
	                       "automatisch voor je vaste voorkeur)." },
	[S_CTP_WEAPON_AUTO] = { "Your weapon now follows your standing preference: the highest "
	                        "bonus, free weapons before limited ones, the Chopper last.",
	                        "Je wapen volgt nu je vaste voorkeur: de hoogste bonus, vrije "
	                        "wapens voor beperkte, de Chopper als laatste." },
	/* lobby expiry, names */
	[S_LOBBY_EXPIRED] = { "Nobody has touched this table for a long while: it is closed "
	                      "without a "
	                      "game.",
	                      "Al lang heeft niemand iets aan deze tafel gedaan: hij is gesloten "
	                      "zonder spel." },
	[S_ERR_NAME_TAKEN] = { "{1} is the name of a computer player at this table: join under "
	                       "another name.",
	                       "{1} is de naam van een computerspeler aan deze tafel: doe mee "
	                       "onder "
	                       "een andere naam." },
	[S_IDLE_CLOSED] = { "Nobody has moved for 48 hours: the game is closed without a result.",
	                    "Al 48 uur heeft niemand gezet: het spel wordt gesloten zonder "
	                    "uitslag." },
	[S_PICTURE_AT] = { "picture: {1}", "afbeelding: {1}" },
	[S_PICTURE_NOT_SAVED] = { "picture not saved: {1}", "afbeelding niet bewaard: {1}" },
	[S_CTP_ERR_NOT_OFFERED] = { "'{1}' is not one of the squares offered: see the marked "
	                            "squares, or the list.",
	                            "'{1}' is niet een van de aangeboden vakjes: zie de "
	                            "gemarkeerde vakjes, of de lijst." },
	[S_CTP_ERR_HERE] = { "You are on {1} already.", "Je staat al op {1}." },
	[S_ERR_ALREADY_OUT] = { "{1} is out of this game already: nothing changed.",
	                        "{1} is al uit dit spel: er is niets veranderd." },
	[S_CTP_RELICS_BUTTON] = { "Choose the relics to lose",
	                          "Kies de relikwieën die je verliest" },
	[S_CTP_RELICS_TEXT] = { "Lose {1} {1:relic|relics}. Chosen per type (of held): {2}. {3} "
	                        "chosen.",
	                        "Verlies {1} {1:relikwie|relikwieën}. Gekozen per soort (van je "
	                        "bezit): {2}. "
	                        "{3} gekozen." },
	[S_CTP_ERR_LOSE] = { "'{1}' does not lose {2} {2:relic|relics}: give the relics kept per "
	                     "type, "
	                     "a,b,c,d,e, each at most what you hold.",
	                     "'{1}' verliest geen {2} {2:relikwie|relikwieën}: geef de relikwieën "
	                     "die je houdt "
	                     "per soort, a,b,c,d,e, elk hoogstens wat je hebt." },
	[S_CTP_CONTINUE] = { "Continue to {1}", "Verder naar {1}" },
	[S_CTP_RULES] = { "CTHULHU!!! Investigators walk the streets of Kingsport as its map is "
	                  "laid, tile by tile. On your turn: draw a tile and place it (the options "
	                  "are numbered on the map), roll for movement and walk (/move gx,gy, the "
	                  "arrows, or Stop), fighting the cultists and byakhee you meet; kills "
	                  "give relics. Then the cultists and byakhee move, and you may discard. "
	                  "Stand on a Ritual Site to sanctify it; a pawn defeated on one activates "
	                  "it. Three sanctified sites save Kingsport, three activated ones summon "
	                  "the King in Yellow; victory points (relics, sites) decide the "
	                  "winner.\nYour cards are yours alone: My hand (/hand) shows them and "
	                  "their choices privately. Other players may react after your movement "
	                  "roll. Buttons carry the decision they were made for; a late click is "
	                  "refused. A decision left too long is taken for you; three in a "
	                  "row put your seat on autopilot until you act again. /leave takes you "
	                  "out of the game.\nTable settings at /open: decision:S, quick:S, "
	                  "window:S|off, enemies:auto|manual, confirm:on|off, cap:N|off.",
	                  "CTHULHU!!! Onderzoekers lopen door Kingsport terwijl de kaart tegel "
	                  "voor tegel wordt gelegd. In je beurt: trek een tegel en leg hem (de "
	                  "opties staan genummerd op de kaart), werp voor de beweging en loop (/ga "
	                  "gx,gy, de pijlen, of Stoppen), en vecht met de sektariërs en byakhee "
	                  "die je tegenkomt; wie doodt krijgt relikwieën. Daarna bewegen de "
	                  "sektariërs en byakhee, en mag je afleggen. Sta op een ritueelplek om "
	                  "hem te heiligen; een pion die daar verslagen wordt activeert hem. Drie "
	                  "geheiligde plekken redden Kingsport, drie geactiveerde roepen de Koning "
	                  "in het Geel; overwinningspunten (relikwieën, plekken) bepalen de "
	                  "winnaar.\nJe kaarten zijn alleen van jou: Mijn hand (/hand) toont ze en "
	                  "hun keuzes privé. Andere spelers mogen reageren na je bewegingsworp. "
	                  "Knoppen horen bij de beslissing waarvoor ze gemaakt zijn; een late klik "
	                  "wordt geweigerd. Een beslissing die te lang blijft liggen wordt voor je "
	                  "genomen; drie op rij zetten je plaats op de automatische piloot "
	                  "tot je weer iets doet. /vertrekken haalt je uit het "
	                  "spel.\nTafelinstellingen bij /openen: beslissing:S, snel:S, "
	                  "venster:S|uit, vijanden:automatisch|handmatig, bevestigen:aan|uit, "
	                  "rondes:N|uit." },
	[S_BUTTON_UNAVAILABLE] = { "unavailable", "niet beschikbaar" },
	[S_CTP_NO_PLAYABLE] = { "You have no card you can play now.",
	                        "Je hebt geen kaart die je nu kunt spelen." },
	/* the board game's narration folded, its play points, its status */
	[S_CTF_EVERYONE_DRAWS] = { "Everyone draws {1} {1:card|cards}.",
	                           "Iedereen trekt {1} {1:kaart|kaarten}." },
	[S_CTF_DRAWS] = { "draws {1} {1:card|cards}", "trekt {1} {1:kaart|kaarten}" },
	[S_CTF_SANITY_ROLL] = { "sanity roll {1}", "verstandsworp {1}" },
	[S_CTF_COMBAT_ROLL] = { "rolls {1}", "werpt {1}" },
	[S_CTF_AGAINST] = { " against {1}", " tegen {1}" },
	[S_CTF_TOTAL] = { "total {1} against {2}", "totaal {1} tegen {2}" },
	[S_CTF_KILLS] = { "kills it", "doodt hem" },
	[S_CTF_WITH] = { "with {1}", "met {1}" },
	[S_CTF_SPENDS] = { "spends {1} {1:bullet|bullets} ({2} left)",
	                   "besteedt {1} {1:kogel|kogels} (nog {2})" },
	[S_CTF_BULLETS] = { "now {1} {1:bullet|bullets}", "nu {1} {1:kogel|kogels}" },
	[S_CTF_HEARTS] = { "now {1} {1:heart|hearts}", "nu {1} {1:hart|harten}" },
	[S_CTF_SANITY] = { "sanity {1}/{2}", "verstand {1}/{2}" },
	[S_CTF_INSANE] = { "goes insane (starting sanity now {1})",
	                   "wordt krankzinnig (beginverstand nu {1})" },
	[S_CTF_DEFEAT] = { "is defeated on {1}", "wordt verslagen op {1}" },
	[S_CTF_OUT] = { "is out of the game", "ligt uit het spel" },
	[S_CTF_RELICS] = { "takes {1}", "krijgt {1}" },
	[S_CTF_RELICS_LOST] = { "loses {1}", "verliest {1}" },
	[S_CTF_TOKEN_HEART] = { "picks up the heart on {1}", "raapt het hart op {1} op" },
	[S_CTF_TOKEN_BULLET] = { "picks up the bullet on {1}", "raapt de kogel op {1} op" },
	[S_CTF_PLAYS] = { "plays {1}", "speelt {1}" },
	[S_CTF_USES] = { "uses {1}", "gebruikt {1}" },
	[S_CTF_DISCARDS] = { "discards {1}", "legt {1} af" },
	[S_CTF_PUT] = { "is put on {1}", "wordt op {1} gezet" },
	[S_CTF_MAY_MOVE] = { "may move {1} {1:square|squares}",
	                     "mag {1} {1:vakje|vakjes} bewegen" },
	[S_CTF_MOVES] = { "{1} moves {2} ({3} left)", "{1} loopt {2} (nog {3})" },
	[S_CTF_MOVES_TO] = { "{1} moves {2}", "{1} loopt {2}" },
	[S_CTF_CULTISTS_MOVE] = { "Cultists move: {1}", "Sektariërs bewegen: {1}" },
	[S_CTF_BYAKHEE_MOVE] = { "Byakhee move: {1}", "Byakhee bewegen: {1}" },
	[S_CTF_NEW] = { "New on the map: {1}", "Nieuw op de kaart: {1}" },
	[S_CTF_CULTIST] = { "a cultist on {1}", "een sektariër op {1}" },
	[S_CTF_CULTISTS] = { "cultists on {1}", "sektariërs op {1}" },
	[S_CTF_BYAKHEE] = { "a byakhee on {1}", "een byakhee op {1}" },
	[S_CTF_BYAKHEES] = { "byakhee on {1}", "byakhee op {1}" },
	[S_CTF_HEART] = { "a heart on {1}", "een hart op {1}" },
	[S_CTF_HEARTS_ON] = { "hearts on {1}", "harten op {1}" },
	[S_CTF_BULLET] = { "a bullet on {1}", "een kogel op {1}" },
	[S_CTF_BULLETS_ON] = { "bullets on {1}", "kogels op {1}" },
	[S_CTF_PLACED] = { "placed in cell ({1},{2})", "komt in vak ({1},{2})" },
	[S_CTF_CULTISTS_AROUND] = { "cultists on the 8 squares around {1}",
	                            "sektariërs op de 8 vakjes rond {1}" },
	[S_CTF_LAYS] = { "{1} lays {2} in cell ({3},{4})", "{1} legt {2} in vak ({3},{4})" },
	[S_CTF_ROLL_CULTISTS] = { "{1} rolls {2}, so up to {2} {2:cultist moves|cultists move}",
	                          "{1} werpt {2}, dus tot {2} {2:sektariër beweegt|sektariërs "
	                          "bewegen}" },
	[S_CTF_FIGHTS_CULTIST] = { "fights the cultist", "vecht tegen de sektariër" },
	[S_CTF_FIGHTS_BYAKHEE] = { "fights the byakhee", "vecht tegen de byakhee" },
	[S_CTF_TURNED] = { "turned {1}°", "{1}° gedraaid" },
	[S_CTF_TURNED_RELIEF] = { "turned {1}°, closing the last open street (B8)",
	                          "{1}° gedraaid, sluit de laatste open straat af (B8)" },
	[S_CTF_TURNED_FORCED] = { "turned {1}°, its entrance to the street (B9)",
	                          "{1}° gedraaid, met de ingang naar de straat (B9)" },
	[S_CTW_PP1] = { "{1}: the turn begins (PP1, before the map tile): play a card or item, or "
	                "pass.",
	                "{1}: de beurt begint (PP1, voor de kaarttegel): speel een kaart of "
	                "voorwerp, of pas." },
	[S_CTW_PP2] = { "{1}: the map tile and its fights are done (PP2, before drawing cards): "
	                "play a card or item, or pass.",
	                "{1}: de kaarttegel en zijn gevechten zijn klaar (PP2, voor het trekken "
	                "van kaarten): speel een kaart of voorwerp, of pas." },
	[S_CTW_PP3] = { "{1}: before the first move, {2} {2:square|squares} to go (PP3): play a "
	                "card or item, or pass.",
	                "{1}: voor de eerste stap, nog {2} {2:vakje|vakjes} (PP3): speel een kaart "
	                "of voorwerp, of pas." },
	[S_CTW_PP4] = { "{1}: after the fight, {2} {2:square|squares} left (PP4): play a card or "
	                "item, or pass.",
	                "{1}: na het gevecht, nog {2} {2:vakje|vakjes} (PP4): speel een kaart of "
	                "voorwerp, of pas." },
	[S_CTW_PP4_END] = { "{1}: the movement is over (PP4, before the enemies move): play a card "
	                    "or item, or pass.",
	                    "{1}: het lopen is voorbij (PP4, voor de vijanden bewegen): speel een "
	                    "kaart of voorwerp, of pas." },
	[S_CTW_PP5] = { "{1}: the enemies have moved (PP5, before the discard that ends the turn): "
	                "play a card or item, or pass.",
	                "{1}: de vijanden hebben bewogen (PP5, voor het afleggen dat de beurt "
	                "beëindigt): speel een kaart of voorwerp, of pas." },
	[S_CTW_CS_CULTIST] = { "{1}: the fight against the cultist on {2} begins (CS): play a card "
	                       "or item, or pass.",
	                       "{1}: het gevecht tegen de sektariër op {2} begint (CS): speel een "
	                       "kaart of voorwerp, of pas." },
	[S_CTW_CS_BYAKHEE] = { "{1}: the fight against the byakhee on {2} begins (CS, before the "
	                       "sanity check): play a card or item, or pass.",
	                       "{1}: het gevecht tegen de byakhee op {2} begint (CS, voor de "
	                       "verstandsproef): speel een kaart of voorwerp, of pas." },
	[S_CTW_CHECK] = { "{1}: a sanity check is due on {2}: play a card or item, or pass and "
	                  "roll.",
	                  "{1}: er volgt een verstandsproef op {2}: speel een kaart of voorwerp, "
	                  "of pas en werp." },
	[S_CTW_RW] = { "{1}: reaction window (RW) to {2}'s movement roll, {3} {3:square|squares}: "
	               "play a card or pass.",
	               "{1}: reactievenster (RW) op de bewegingsworp van {2}, {3} "
	               "{3:vakje|vakjes}: speel een kaart of pas." },
	[S_CTW_PASS_PP1] = { "Pass → map tile", "Passen → kaarttegel" },
	[S_CTW_PASS_PP2] = { "Pass → draw cards", "Passen → kaarten trekken" },
	[S_CTW_PASS_PP3] = { "Pass → move", "Passen → lopen" },
	[S_CTW_PASS_PP4] = { "Pass → move on", "Passen → verder lopen" },
	[S_CTW_PASS_PP4_END] = { "Pass → enemies move", "Passen → vijanden bewegen" },
	[S_CTW_PASS_PP5] = { "Pass → discard", "Passen → afleggen" },
	[S_CTW_PASS_CS] = { "Pass → fight", "Passen → vechten" },
	[S_CTW_PASS_CHECK] = { "Pass → sanity roll", "Passen → verstandsworp" },
	[S_CTW_PASS_RW] = { "Pass (no reaction)", "Passen (geen reactie)" },
	[S_CT_SEAT_VP] = { " · {1} VP", " · {1} OP" },
	[S_CT_EFFECTS] = { "in effect this turn: {1}", "van kracht deze beurt: {1}" },
	[S_CT_EFFECT_ELDERSIGN] = { "{1} (enemies do not stop the pawn; entering a byakhee's "
	                            "square costs a sanity check)",
	                            "{1} (vijanden houden de pion niet tegen; het vakje van een "
	                            "byakhee betreden kost een verstandsproef)" },
	[S_CT_EFFECT_JAMMED] = { "{1} (no weapons)", "{1} (geen wapens)" },
	[S_CT_EFFECT_NO_MOVE] = { "no movement (steps 6–7 skipped)",
	                          "niet lopen (stap 6–7 overgeslagen)" },
	[S_CT_EFFECT_NERVES] = { "{1} (the sanity check is skipped)",
	                         "{1} (de verstandsproef vervalt)" },
	/* CTHULHU!!!: card texts, discard piles, the rules pages */
	[S_CTP_CARD_KIND_CARD] = { "event card", "gebeurteniskaart" },
	[S_CTP_CARD_KIND_TILE] = { "map tile", "kaarttegel" },
	[S_CTP_CARD_KIND_TYPE] = { "relic type", "relikwiesoort" },
	[S_CTP_CARD_KIND_SQUARE] = { "square of the map", "vakje van de kaart" },
	[S_CTP_CARD_TITLE] = { "{1} ({2})", "{1} ({2})" },
	[S_CTP_CARD_UNKNOWN] = { "No card, tile, relic or square is called '{1}'.",
	                         "Geen kaart, tegel, relikwie of vakje heet '{1}'." },
	[S_CTP_CARD_SEVERAL] = { "'{1}' fits several: {2}. Type more of the name.",
	                         "'{1}' past bij meerdere: {2}. Typ meer van de naam." },
	[S_CTP_CARD_NEAREST] = { " Did you mean: {1}?", " Bedoel je: {1}?" },
	[S_CTP_CARD_USAGE] = { "/card <name>: a card, tile, relic type or square, e.g. /card "
	                       "Trench "
	                       "Knife.",
	                       "/kaart <naam>: een kaart, tegel, relikwiesoort of vakje, bijv. "
	                       "/kaart Loopgraafmes." },
	[S_CTP_HAND_IN_PLAY] = { "In play:", "In het spel:" },
	[S_CTP_HAND_USES] = { "{1} {1:use|uses} left", "nog {1} keer" },
	[S_CTP_HAND_MENU] = { "Choose a card (its text below it)",
	                      "Kies een kaart (de tekst eronder)" },
	[S_CTP_DISCARDS_TITLE] = { "Discard piles", "Aflegstapels" },
	[S_CTP_DISCARDS_EVENTS] = { "Event cards ({1}): {2}", "Gebeurteniskaarten ({1}): {2}" },
	[S_CTP_DISCARDS_RELICS] = { "Relics ({1}): {2}", "Relikwieën ({1}): {2}" },
	[S_CTP_DISCARDS_TILES] = { "Map tiles ({1}): {2}", "Kaarttegels ({1}): {2}" },
	[S_CTP_DISCARDS_EMPTY] = { "empty", "leeg" },
	[S_CTP_RULES_TURN] = { "Your turn, step by step (PP = a play point, where you may play "
	                       "a card):\n"
	                       "1. Holding Automatic cards, you play one: it happens to you. PP1.\n"
	                       "2. A map tile is drawn; you place it. Its enemies and tokens "
	                       "arrive.\n"
	                       "3–4. You fight a byakhee, then a cultist, on your square. PP2.\n"
	                       "5. You draw event cards until you hold 3.\n"
	                       "6–7. Roll 1d6: your movement total is the roll plus your hearts. "
	                       "Others may react "
	                       "(reaction window), then PP3, then you walk: each step costs 1 "
	                       "point; entering an "
	                       "enemy's square starts a fight; a heart or bullet is picked up on a "
	                       "square with no "
	                       "enemy. PP4 whenever your walk pauses and when it ends.\n"
	                       "8. Roll 1d6: that many cultists move 1 or 2 squares each.\n"
	                       "9. Every byakhee not on a Ritual Site flies to a tile next to its "
	                       "own.\n"
	                       "10. An empty Ritual Site gets a new enemy.\n"
	                       "11. PP5; then discard down to 3 cards (or discard 1 if you like). "
	                       "Next player.\n"
	                       "Cards: one event card per round (from your turn to your next), "
	                       "at a play point of "
	                       "your turn; some cards (their text says so) also in another "
	                       "player's reaction window. "
	                       "Automatic cards and item uses do not count. Weapons and items stay "
	                       "in play. /card "
	                       "<name> tells what a card says.",
	                       "Je beurt, stap voor stap (PP = een speelmoment, waarop je een "
	                       "kaart mag spelen):\n"
	                       "1. Heb je automatische kaarten, dan speel je er een: die overkomt "
	                       "je. PP1.\n"
	                       "2. Er wordt een kaarttegel getrokken; jij legt hem. Zijn vijanden "
	                       "en fiches komen.\n"
	                       "3–4. Je vecht met een byakhee en dan een sektariër op je vakje. "
	                       "PP2.\n"
	                       "5. Je trekt gebeurteniskaarten tot je er 3 hebt.\n"
	                       "6–7. Werp 1d6: je bewegingstotaal is de worp plus je harten. "
	                       "Anderen mogen reageren "
	                       "(reactievenster), dan PP3, dan loop je: elke stap kost 1 punt; een "
	                       "vakje met een "
	                       "vijand betekent een gevecht; een hart of kogel raap je op op een "
	                       "vakje zonder vijand. "
	                       "PP4 als je lopen stilstaat en als het eindigt.\n"
	                       "8. Werp 1d6: zoveel sektariërs gaan elk 1 of 2 vakjes.\n"
	                       "9. Elke byakhee die niet op een ritueelplek staat, vliegt naar een "
	                       "tegel naast de "
	                       "zijne.\n"
	                       "10. Een lege ritueelplek krijgt een nieuwe vijand.\n"
	                       "11. PP5; leg dan af tot 3 kaarten (of leg er 1 af als je wilt). "
	                       "Volgende speler.\n"
	                       "Kaarten: één gebeurteniskaart per ronde (van je beurt tot je "
	                       "volgende), op een "
	                       "speelmoment van je beurt; sommige kaarten (hun tekst zegt het) ook "
	                       "in het "
	                       "reactievenster van een ander. Automatische kaarten en het gebruik "
	                       "van voorwerpen tellen niet. Wapens "
	                       "en voorwerpen blijven in het spel. /kaart <naam> zegt wat een "
	                       "kaart doet." },
	[S_CTP_RULES_COMBAT] = { "Combat: a fight is against one figure. Kill number: cultist "
	                         "4, byakhee 5. A "
	                         "byakhee fight starts with a sanity check. Before each roll you "
	                         "may declare one weapon "
	                         "in play (its bonus against that enemy: /card <weapon>). Roll 1d6 "
	                         "+ bonuses; at "
	                         "moment CF cards like Deadeye (+2) or Second Wind (roll again) "
	                         "may help. Total at least "
	                         "the kill number: the figure dies and you draw 2 relics for a "
	                         "byakhee, 1 for a "
	                         "cultist. Otherwise spend exactly the missing bullets to kill it, "
	                         "or lose 1 heart and "
	                         "roll again. Nobody leaves a fight; on a square with both, the "
	                         "byakhee comes first.\n"
	                         "Hearts: 1 to 5 (3 at the start). At 0 you are defeated: a "
	                         "Ritual Site you stand "
	                         "on is activated; your pawn goes to the Church; your remaining "
	                         "movement and your "
	                         "weapons are lost; you discard half your relics (rounded down); "
	                         "hearts and bullets are "
	                         "set to 3; your starting sanity drops by 1.\n"
	                         "Sanity: a sanity check is a roll of 1d6: a 1 or 2 costs 1 "
	                         "sanity. Your starting "
	                         "sanity is 5. At 0 sanity you go insane: your starting sanity "
	                         "drops by 1 and the rest "
	                         "of your turn is skipped (the fight going on, steps 3–4 and 8–11 "
	                         "still happen); your "
	                         "next turn starts with sanity back at your starting sanity. When "
	                         "your starting sanity "
	                         "falls below 1 you are out of the game for good, and cannot win.",
	                         "Gevecht: een gevecht is tegen één figuur. Te werpen om te "
	                         "doden: sektariër 4, "
	                         "byakhee 5. Een gevecht met een byakhee begint met een "
	                         "verstandsworp. Voor elke worp "
	                         "mag je één wapen in het spel kiezen (zijn bonus tegen die "
	                         "vijand: /kaart <wapen>). "
	                         "Werp 1d6 + bonussen; op moment CF kunnen kaarten als "
	                         "Scherpschutter (+2) of Tweede "
	                         "adem (opnieuw werpen) helpen. Is het totaal minstens het getal, "
	                         "dan sterft de figuur en "
	                         "trek je 2 relikwieën voor een byakhee, 1 voor een sektariër. "
	                         "Anders besteed je precies "
	                         "de ontbrekende kogels om hem te doden, of verlies je 1 hart en "
	                         "werp je opnieuw. "
	                         "Niemand verlaat een gevecht; op een vakje met beide komt de "
	                         "byakhee eerst.\n"
	                         "Harten: 1 tot 5 (3 bij het begin). Bij 0 ben je verslagen: "
	                         "een ritueelplek waar "
	                         "je op staat wordt geactiveerd; je pion gaat naar de kerk; je "
	                         "overige beweging en je "
	                         "wapens ben je kwijt; je legt de helft van je relikwieën af (naar "
	                         "beneden afgerond); "
	                         "harten en kogels worden 3; je beginverstand zakt 1.\n"
	                         "Verstand: een verstandsworp is een worp van 1d6: een 1 of 2 "
	                         "kost verstand. Je "
	                         "beginverstand is 5. Op 0 verstand word je krankzinnig: je "
	                         "beginverstand zakt 1 en de "
	                         "rest van je beurt vervalt (het lopende gevecht, stap 3–4 en 8–11 "
	                         "gaan door); je "
	                         "volgende beurt begint met je verstand weer op je beginverstand. "
	                         "Zakt je beginverstand "
	                         "onder 1, dan lig je voorgoed uit het spel en kun je niet "
	                         "winnen." },
	[S_CTP_RULES_SITES] = { "Relics: five types (Amulet, Dagger, Idol, Space Mead, Tome), "
	                        "drawn for kills. "
	                        "What everyone holds is public.\n"
	                        "Ritual Sites: five are shuffled into the tiles. Each arrives "
	                        "with 8 cultists and 1 "
	                        "byakhee, which never leave it; an empty site gets a new enemy in "
	                        "step 10. To "
	                        "sanctify a site, stand on it with no enemy left, at PP2 or "
	                        "PP4 of your turn, and "
	                        "discard one relic of each of the five types: you keep the tile "
	                        "(12 VP). A player "
	                        "defeated on a site activates it: it is closed for good.\n"
	                        "The end: the game ends at once when the third site is "
	                        "sanctified (Kingsport is "
	                        "saved) or the third is activated (the King in Yellow arrives).\n"
	                        "Scoring: for each relic type you hold n of, 2n−1 VP (1 → 1, 2 "
	                        "→ 3, 3 → 5…), and "
	                        "12 VP for each sanctified site you hold. The most VP wins, in "
	                        "either ending; a tie "
	                        "goes to more sites, then more relics; players still tied share "
	                        "the win.",
	                        "Relikwieën: vijf soorten (Amulet, Dolk, Afgodsbeeld, "
	                        "Ruimtemede, Foliant), "
	                        "getrokken voor wie doodt. Wat iedereen heeft is openbaar.\n"
	                        "Ritueelplekken: vijf zitten tussen de tegels. Elk komt met 8 "
	                        "sektariërs en 1 "
	                        "byakhee, die er nooit af gaan; een lege plek krijgt in stap 10 "
	                        "een nieuwe vijand. Om "
	                        "een plek te heiligen sta je erop zonder vijanden, op PP2 of "
	                        "PP4 van je beurt, en "
	                        "leg je één relikwie van elk van de vijf soorten af: je houdt de "
	                        "tegel (12 OP). Wie "
	                        "op een plek verslagen wordt, activeert hem: hij is voorgoed "
	                        "dicht.\n"
	                        "Het einde: het spel stopt meteen als de derde plek geheiligd "
	                        "is (Kingsport is "
	                        "gered) of de derde geactiveerd (de Koning in het Geel komt).\n"
	                        "Punten: voor elke relikwiesoort waarvan je er n hebt 2n−1 OP "
	                        "(1 → 1, 2 → 3, 3 → "
	                        "5…), en 12 OP voor elke geheiligde plek die je hebt. De meeste OP "
	                        "winnen, bij beide "
	                        "eindes; bij gelijkspel meer plekken, dan meer relikwieën; wie dan "
	                        "nog gelijk staat "
	                        "deelt de winst." },
	[S_CTP_RULES_COMMANDS] = { "Commands (only you see the answers of the first three):\n"
	                           "/hand — your cards with their texts, and your choices\n"
	                           "/card <name> — what a card, tile, relic type or square says, "
	                           "e.g. /card Trench Knife\n"
	                           "/discards — the discard piles: event cards, relics, map tiles\n"
	                           "/pick <n> — choose option n · /place <n> — place the tile (a "
	                           "preview first) · /confirm "
	                           "<n> — without a preview\n"
	                           "/move <gx,gy> [via] — walk to a square · /tokens "
	                           "hearts|bullets|alternate|HBH… — a "
	                           "building's tokens\n"
	                           "/relics, /lose — the relics you lose after a defeat\n"
	                           "/autopass on|off — pass others' reaction windows · /weapon "
	                           "ask|auto — be asked for "
	                           "your weapon or not\n"
	                           "/page <n> — another page of a long list · /status — the table "
	                           "· /rules — these pages",
	                           "Commando's (alleen jij ziet de antwoorden van de eerste "
	                           "drie):\n"
	                           "/hand — je kaarten met hun tekst, en je keuzes\n"
	                           "/kaart <naam> — wat een kaart, tegel, relikwiesoort of vakje "
	                           "zegt, bijv. /kaart "
	                           "Loopgraafmes\n"
	                           "/aflegstapel — de aflegstapels: gebeurteniskaarten, "
	                           "relikwieën, kaarttegels\n"
	                           "/kies <n> — kies optie n · /plaats <n> — leg de tegel (eerst "
	                           "een voorbeeld) · "
	                           "/bevestig <n> — zonder voorbeeld\n"
	                           "/ga <gx,gy> [via] — loop naar een vakje · /fiches "
	                           "harten|kogels|afwisselend|HKH… — de "
	                           "fiches van een gebouw\n"
	                           "/relikwieen, /verlies — de relikwieën die je na een nederlaag "
	                           "verliest\n"
	                           "/autopas aan|uit — pas bij reactievensters van anderen · "
	                           "/wapen vragen|automatisch — "
	                           "of je om je wapen gevraagd wordt\n"
	                           "/pagina <n> — een andere pagina van een lange lijst · /status "
	                           "— de tafel · /rules — "
	                           "deze pagina's" },
	/* /hint: the solver's mix (cdsolve.h); "equilibrium" only where the
	 * table is one (cdsolve_stats: polished) */
	[S_HINT_MIX] = { " The equilibrium plays {1}.", " Het evenwicht speelt {1}." },
	[S_HINT_MIX_PURE] = { " The equilibrium always plays {1}.",
	                      " Het evenwicht speelt altijd {1}." },
	[S_HINT_MIX_SOLVER] = { " The solver plays {1}.", " De solver speelt {1}." },
	[S_HINT_MIX_SOLVER_PURE] = { " The solver always plays {1}.",
	                             " De solver speelt altijd {1}." },
};

static const char *const codes[I18N_LANGS] = { "en", "nl" };

const char *i18n_raw(int lang, int id)
{
	if (lang < 0 || lang >= I18N_LANGS || id < 0 || id >= I18N_COUNT)
		return NULL;
	return catalog[id][lang];
}

const char *i18n_get(int lang, int id)
{
	const char *s = i18n_raw(lang, id);

	if (!s)
		s = i18n_raw(I18N_EN, id);
	return s ? s : "?";
}

/* At form, the "one|other}" of a "{k:one|other}": adds `one` when n is "1",
 * else `other`, sets *end past the '}' and returns 1; 0 when form is not
 * one (nothing added). */
static int plural(struct text *out, const char *form, const char *n, const char **end)
{
	const char *bar = strchr(form, '|'), *close = strchr(form, '}');
	char word[64];
	size_t len;

	if (!bar || !close || bar > close)
		return 0;
	if (strcmp(n, "1") == 0)
		len = (size_t)(bar - form);
	else
		len = (size_t)(close - bar - 1), form = bar + 1;
	if (len >= sizeof(word))
		return 0;
	memcpy(word, form, len);
	word[len] = '\0';
	text_add(out, word);
	*end = close + 1;
	return 1;
}

void i18n_add(struct text *out, int lang, int id, ...)
{
	const char *args[9] = { 0 };
	const char *s = i18n_get(lang, id);
	va_list ap;
	int n = 0;

	va_start(ap, id);
	for (const char *a; n < 9 && (a = va_arg(ap, const char *)) != NULL;)
		args[n++] = a;
	va_end(ap);
	while (*s) {
		const char *brace = strchr(s, '{');
		char chunk[256];
		size_t len;

		if (!brace) {
			text_add(out, s);
			return;
		}
		while (s < brace) {
			len = (size_t)(brace - s) < sizeof(chunk) - 1 ? (size_t)(brace - s)
			                                              : sizeof(chunk) - 1;
			memcpy(chunk, s, len);
			chunk[len] = '\0';
			text_add(out, chunk);
			s += len;
		}
		if (brace[1] >= '1' && brace[1] <= '9' && brace[2] == '}' && args[brace[1] - '1']) {
			text_add(out, args[brace[1] - '1']);
			s = brace + 3;
		} else if (brace[1] >= '1' && brace[1] <= '9' && brace[2] == ':' &&
		           args[brace[1] - '1'] &&
		           plural(out, brace + 3, args[brace[1] - '1'], &s)) {
			continue;
		} else {
			text_add(out, "{");
			s = brace + 1;
		}
	}
}

int i18n_lang(const char *locale)
{
	if (locale && (locale[0] == 'n' || locale[0] == 'N') &&
	    (locale[1] == 'l' || locale[1] == 'L') &&
	    (locale[2] == '\0' || locale[2] == '-' || locale[2] == '_'))
		return I18N_NL;
	return I18N_EN;
}

int i18n_known(const char *code)
{
	for (int l = 0; l < I18N_LANGS; l++)
		if (strcmp(code, codes[l]) == 0)
			return 1;
	return 0;
}

const char *i18n_code(int lang)
{
	return lang >= 0 && lang < I18N_LANGS ? codes[lang] : codes[0];
}
