'use strict';
// Cthulhu Dice tables for the benchmark peer: the rules as rlyeh plays them (README) in
// their plain form (3 sanity each, the pool, curse and response, the Eye, madness, the end checked
// after each complete turn), kept in memory only (a Map of channel id -> table), and the messages
// rlyeh sends for them (the same embeds, buttons, custom_ids and narration lines, in English).
// The die is Math.random (not seeded); the computer player picks uniformly at random.
//
// handle() takes one interaction in a neutral form and returns what to send:
//   { kind: 'public', body }   the new table: a slash command answers it as its reply (type 4)
//                              after the previous table lost its buttons; a click updates the
//                              clicked message to drop its buttons (type 7) and sends it as a
//                              follow-up
//   { kind: 'private', body }  an ephemeral reply (flags 64)
// The caller records where the public table went with setLive().

const COLOR = 3050327;
const FACES = ['Yellow Sign', 'Yellow Sign', 'Yellow Sign', 'Yellow Sign', 'Yellow Sign',
  'Tentacle', 'Tentacle', 'Tentacle', 'Tentacle', 'Elder Sign', 'Cthulhu', 'Eye'];
const EYE_FACES = { 'yellow-sign': 'Yellow Sign', tentacle: 'Tentacle', 'elder-sign': 'Elder Sign',
  cthulhu: 'Cthulhu' };
const EYE_FACE_NAMES = { 'yellow sign': 'yellow-sign', tentacle: 'tentacle',
  'elder sign': 'elder-sign', cthulhu: 'cthulhu' };
const LOBBY_TEXT = 'Join with /join; the owner adds computer players with /addbot and starts ' +
  'with /start.';

const tables = new Map();
let nextGame = 1;

function roll() {
  return FACES[Math.floor(Math.random() * FACES.length)];
}

function pick(list) {
  return list[Math.floor(Math.random() * list.length)];
}

function button(style, label, id) {
  return { type: 2, style, label, custom_id: id };
}

function row(buttons) {
  return [{ type: 1, components: buttons }];
}

function prefix(t) {
  return t.game + ':' + t.move + ':';
}

function lobbyBody(t) {
  const lines = t.players.map((p, i) =>
    '\n• ' + p.name + (i === 0 ? ' (owner)' : '') + (p.bot ? ' (computer, random)' : ''));
  const p = prefix(t);
  return {
    content: '',
    embeds: [{
      title: 'A table is open',
      description: 'Game: cthulhu-dice — ' + t.players.length + ' at the table. ' + LOBBY_TEXT +
        lines.join(''),
      color: COLOR,
    }],
    components: row([button(1, 'Join', p + 'join'), button(2, 'Add computer', p + 'addbot'),
      button(1, 'Start', p + 'start'), button(4, 'Leave', p + 'leave')]),
    allowed_mentions: { parse: [] },
  };
}

function sanityText(t, i) {
  const s = t.sanity[i] > 0 ? t.sanity[i] + ' sanity' : 'mad';
  if (t.phase === 'over') return s;
  if (i === t.caster) return s + ' · Caster';
  if (i === t.victim) return s + ' · Victim';
  return s;
}

function describe(t) {
  const name = (i) => t.players[i].name;
  switch (t.phase) {
    case 'curse': return name(t.caster) + ' is the Caster: choose a Victim with /curse <victim>.';
    case 'eye': return name(t.roller) + ' rolled the Eye: choose a face with /eye <face>.';
    case 'respond': return name(t.victim) + ', the Victim, responds to ' + name(t.caster) +
      ': /respond.';
    default: return t.winner >= 0 ? 'Game over: ' + name(t.winner) + ' wins.'
      : 'Game over: Cthulhu wins.';
  }
}

// The human whose move the table waits for, or -1.
function waiting(t) {
  if (t.phase === 'curse') return t.caster;
  if (t.phase === 'eye') return t.roller;
  if (t.phase === 'respond') return t.victim;
  return -1;
}

function gameBody(t, lines, withContent) {
  const p = prefix(t);
  let buttons;
  if (t.phase === 'curse') {
    buttons = t.players.map((pl, i) => i).filter((i) => i !== t.caster && t.sanity[i] > 0)
      .map((i) => button(4, t.players[i].name, p + 'curse:#' + i));
  } else if (t.phase === 'eye') {
    buttons = Object.entries(EYE_FACES).map(([id, label]) => button(1, label, p + 'eye:' + id));
  } else if (t.phase === 'respond') {
    buttons = [button(1, 'Respond', p + 'respond')];
  } else {
    buttons = [button(1, 'Rematch', p + 'rematch')];
  }
  const who = waiting(t);
  const content = lines.slice();
  const mentions = { parse: [] };
  if (who >= 0) {
    const awaits = t.phase === 'curse'
      ? 'The table waits for you to curse a Victim: /curse <victim>.'
      : t.phase === 'eye'
        ? 'The table waits for you to choose what the Eye becomes: /eye <Yellow Sign|Tentacle|' +
          'Elder Sign|Cthulhu>.'
        : 'The table waits for you to respond: /respond.';
    content.push('<@' + t.players[who].id + '> — ' + awaits);
    mentions.users = [t.players[who].id];
  }
  const fields = t.players.map((pl, i) => ({ name: pl.name, value: sanityText(t, i), inline: true }));
  fields.push({ name: 'Cthulhu (the pool)', value: t.pool + ' sanity', inline: true });
  return {
    content: withContent ? content.join('\n') : '',
    embeds: [{ title: 'Cthulhu Dice — turn ' + t.turn, description: describe(t), color: COLOR,
      fields }],
    components: row(buttons),
    allowed_mentions: withContent ? mentions : { parse: [] },
  };
}

function body(t, lines) {
  return t.phase === 'lobby' ? lobbyBody(t) : gameBody(t, lines || [], lines !== undefined);
}

function loseOne(t, i, lines) {
  if (t.sanity[i] <= 0) return false;
  t.sanity[i]--;
  t.pool++;
  lines.push(t.players[i].name + ' loses 1 sanity to Cthulhu.');
  if (!t.sanity[i]) lines.push(t.players[i].name + ' goes mad!');
  return true;
}

// Resolves a face rolled by `roller` against `target`.
function resolve(t, face, roller, target, lines) {
  const name = (i) => t.players[i].name;
  if (face === 'Yellow Sign') {
    if (!loseOne(t, target, lines)) lines.push('Nothing happens.');
  } else if (face === 'Tentacle') {
    if (t.sanity[t.victim] <= 0) {
      lines.push('Nothing happens.');
    } else if (t.sanity[t.caster] <= 0) {
      t.sanity[t.victim]--;
      t.pool++;
      lines.push(name(t.victim) + ' loses 1 sanity to Cthulhu: the Caster, ' + name(t.caster) +
        ', is mad and may not keep the Tentacle\'s token (R6).');
      if (!t.sanity[t.victim]) lines.push(name(t.victim) + ' goes mad!');
    } else {
      t.sanity[t.victim]--;
      t.sanity[t.caster]++;
      lines.push(name(t.caster) + ' takes 1 sanity from ' + name(t.victim) + '.');
      if (!t.sanity[t.victim]) lines.push(name(t.victim) + ' goes mad!');
    }
  } else if (face === 'Elder Sign') {
    if (!t.pool) {
      lines.push('Nothing happens.');
    } else {
      t.pool--;
      t.sanity[roller]++;
      lines.push(name(roller) + ' takes 1 sanity back from Cthulhu.');
      if (t.sanity[roller] === 1) lines.push(name(roller) + ' is sane again.');
    }
  } else {
    let any = false;
    for (let i = 0; i < t.players.length; i++) any = loseOne(t, i, lines) || any;
    if (!any) lines.push('Nothing happens.');
  }
}

// After a curse or a response has resolved: on to the response, or the end of the turn.
function afterRoll(t, lines) {
  if (t.roller === t.caster) {
    t.phase = 'respond';
    t.roller = t.victim;
    return;
  }
  const sane = t.sanity.map((s, i) => i).filter((i) => t.sanity[i] > 0);
  if (sane.length <= 1) {
    t.phase = 'over';
    t.winner = sane.length ? sane[0] : -1;
    t.lastWinner = t.winner;
    lines.push(sane.length ? t.players[sane[0]].name + ' is the last sane cultist and wins!'
      : 'Everyone is mad: Cthulhu wins!');
    return;
  }
  t.turn++;
  t.caster = (t.caster + 1) % t.players.length;
  t.victim = -1;
  t.roller = t.caster;
  t.phase = 'curse';
}

// A roll by the roller the table waits for (`face` given: the Eye's choice).
function rollNow(t, lines, face) {
  const roller = t.roller;
  const target = roller === t.caster ? t.victim : t.caster;
  if (!face) {
    face = roll();
    lines.push(t.players[roller].name + (roller === t.caster ? ' rolls: ' : ' responds: ') +
      face + '.');
    if (face === 'Eye') {
      t.phase = 'eye';
      return;
    }
  } else {
    lines.push('The Eye becomes: ' + face + '.');
  }
  resolve(t, face, roller, target, lines);
  afterRoll(t, lines);
}

function curse(t, victim, lines) {
  t.victim = victim;
  t.roller = t.caster;
  lines.push('Turn ' + t.turn + ': ' + t.players[t.caster].name + ' curses ' +
    t.players[victim].name + '.');
  rollNow(t, lines);
}

// The computer players' moves until a human's move or the end.
function computerMoves(t, lines) {
  for (;;) {
    const who = waiting(t);
    if (who < 0 || !t.players[who].bot) return;
    t.move++;
    if (t.phase === 'curse') {
      curse(t, pick(t.players.map((p, i) => i).filter((i) => i !== t.caster && t.sanity[i] > 0)),
        lines);
    } else if (t.phase === 'eye') {
      rollNow(t, lines, pick(Object.values(EYE_FACES)));
    } else {
      rollNow(t, lines);
    }
  }
}

// Starts the table's game (a rematch is a new game, with a new id).
function begin(t, first, lines, rematch) {
  if (rematch) t.game = nextGame++;
  t.move = 0;
  t.turn = 1;
  t.sanity = t.players.map(() => 3);
  t.pool = 0;
  t.caster = first;
  t.victim = -1;
  t.roller = first;
  t.winner = -1;
  t.phase = 'curse';
  lines.push('The game begins: ' + t.players[first].name + ' casts first.');
  computerMoves(t, lines);
}

function privateText(text) {
  return { kind: 'private', body: { content: text, flags: 64, allowed_mentions: { parse: [] } } };
}

function publicBody(t, lines) {
  return { kind: 'public', body: body(t, lines) };
}

// One interaction: { channel, user: {id, name}, command (a slash command's name) or custom_id (a
// click), options: {name: value} }.
function handle(it) {
  let t = tables.get(it.channel);
  const lines = [];
  let action = it.command;
  let arg = it.options || {};
  if (it.custom_id) {
    const parts = it.custom_id.split(':');
    if (!t || String(t.game) !== parts[0] || String(t.move) !== parts[1]) {
      return privateText('That table has moved on; use /status to see it.');
    }
    action = parts[2];
    if (action === 'curse') arg = { victim: Number(parts[3].slice(1)) };
    if (action === 'eye') arg = { face: parts[3] };
  }
  if (action === 'open') {
    if (t && t.phase !== 'over') return privateText('A table is already open in this channel.');
    t = { game: nextGame++, move: 0, phase: 'lobby', players: [it.user], live: null,
      lastWinner: -1, bots: 0 };
    tables.set(it.channel, t);
    return publicBody(t);
  }
  if (!t) return privateText('No table is open in this channel: /open starts one.');
  if (action === 'status') {
    return { kind: 'private', body: { ...body(t), flags: 64 } };
  }
  const seat = t.players.findIndex((p) => p.id === it.user.id);
  if (t.phase === 'lobby') {
    if (action === 'join') {
      if (seat >= 0) return privateText('You are at this table already.');
      t.players.push(it.user);
    } else if (action === 'addbot') {
      if (seat !== 0) return privateText('Only the owner adds computer players.');
      t.bots++;
      t.players.push({ id: '0', name: 'random-bot-' + t.bots, bot: true });
    } else if (action === 'leave') {
      if (seat < 0) return privateText('You are not at this table.');
      t.players.splice(seat, 1);
      if (!t.players.length) {
        tables.delete(it.channel);
        return { kind: 'public', body: { content: 'The table is closed.', components: [],
          allowed_mentions: { parse: [] } } };
      }
    } else if (action === 'start') {
      if (seat !== 0) return privateText('Only the owner starts the game.');
      if (t.players.length < 2) return privateText('At least two players are needed.');
      let first = Math.floor(Math.random() * t.players.length);
      if (arg.first) {
        const f = t.players.findIndex((p) => p.id === arg.first);
        if (f >= 0) first = f;
      }
      begin(t, first, lines);
      return publicBody(t, lines);
    } else {
      return privateText('The game has not started yet.');
    }
    return publicBody(t);
  }
  if (action === 'rematch') {
    if (t.phase !== 'over') return privateText('The game is still going on.');
    if (t.lastWinner >= 0) {
      lines.push('Rematch! Same table, the previous winner casts first.');
      begin(t, t.lastWinner, lines, true);
    } else {
      lines.push('Rematch! Same table; Cthulhu won the last game, so the first Caster is drawn.');
      begin(t, Math.floor(Math.random() * t.players.length), lines, true);
    }
    return publicBody(t, lines);
  }
  const who = waiting(t);
  if (who < 0 || who !== seat) return privateText('It is not your move.');
  if (action === 'curse' && t.phase === 'curse') {
    let victim = arg.victim;
    if (typeof victim === 'string') victim = t.players.findIndex((p) => p.id === victim);
    if (!(victim >= 0 && victim < t.players.length && victim !== t.caster &&
      t.sanity[victim] > 0)) return privateText('That cultist cannot be cursed.');
    t.move++;
    curse(t, victim, lines);
  } else if (action === 'eye' && t.phase === 'eye') {
    const id = EYE_FACES[arg.face] ? arg.face : EYE_FACE_NAMES[String(arg.face).toLowerCase()];
    if (!id) return privateText('Choose Yellow Sign, Tentacle, Elder Sign or Cthulhu.');
    t.move++;
    rollNow(t, lines, EYE_FACES[id]);
  } else if (action === 'respond' && t.phase === 'respond') {
    t.move++;
    rollNow(t, lines);
  } else {
    return privateText('That is not the move the table waits for.');
  }
  computerMoves(t, lines);
  return publicBody(t, lines);
}

// The live public table of a channel: {token, messageId} of the message that has its buttons.
function live(channel) {
  const t = tables.get(channel);
  return t ? t.live : null;
}

function setLive(channel, where) {
  const t = tables.get(channel);
  if (t) t.live = where;
}

// The slash commands, as a bulk overwrite (PUT /applications/{id}/commands).
const COMMANDS = [
  { name: 'open', description: 'Open a game in this channel', type: 1 },
  { name: 'join', description: 'Join the table in this channel', type: 1 },
  { name: 'addbot', description: 'Add a computer player (owner)', type: 1 },
  { name: 'leave', description: 'Leave the table', type: 1 },
  { name: 'start', description: 'Start the game (owner)', type: 1,
    options: [{ type: 6, name: 'first', description: 'Who casts first', required: false }] },
  { name: 'curse', description: 'Curse a Victim', type: 1,
    options: [{ type: 6, name: 'victim', description: 'The Victim', required: true }] },
  { name: 'eye', description: 'Choose what the Eye becomes', type: 1,
    options: [{ type: 3, name: 'face', description: 'The face', required: true,
      choices: Object.values(EYE_FACES).map((f) => ({ name: f, value: f }))}] },
  { name: 'respond', description: 'Roll the response', type: 1 },
  { name: 'rematch', description: 'The same table again', type: 1 },
  { name: 'status', description: 'Show the table', type: 1 },
];

module.exports = { handle, live, setLive, tables, COMMANDS };
