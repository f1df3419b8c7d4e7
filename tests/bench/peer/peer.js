'use strict';
// The benchmark's peer: a Cthulhu Dice bot written the usual way with discord.js, answering the
// load generator of the fake Discord (tests/fake/fakediscord.c) with the messages rlyeh sends.
//
//   node peer.js client   discord.js 14: a `Client` (intents: Guilds, the default caches)
//   node peer.js core     @discordjs/core 2: `Client` over @discordjs/rest and @discordjs/ws
//
// Environment: DISCORD_TOKEN (the bot token), DISCORD_API (the REST base without the version,
// default https://discord.com/api: the gateway URL comes from GET /gateway/bot as usual),
// PEER_GLOBAL_PER_S (default 10000): @discordjs/rest's globalRequestsPerSecond. The library
// counts every request but the interaction callback against it (default 50), the interaction's
// webhook (follow-ups, edits) included, which Discord's global rate limit leaves out; at 50 the
// bot would cap itself near 50 follow-ups/s.
// State is in memory only (game.js); no database. Prints "ready" on stdout once the commands
// are registered, and a line of counters on stderr every 10 s while it answers.

const game = require('./game');

const flavour = process.argv[2];
const token = process.env.DISCORD_TOKEN;
const api = process.env.DISCORD_API || 'https://discord.com/api';
const globalRequestsPerSecond = Number(process.env.PEER_GLOBAL_PER_S || 10000);
if (!token || (flavour !== 'client' && flavour !== 'core')) {
  console.error('usage: DISCORD_TOKEN=... [DISCORD_API=...] node peer.js client|core');
  process.exit(2);
}

const stats = { answered: 0, failed: 0 };
let lastStats = '';
setInterval(() => {
  const line = JSON.stringify(stats);
  if (line !== lastStats) console.error('peer: ' + line);
  lastStats = line;
}, 10000).unref();

// One channel's interactions in arrival order: a table's move waits for the previous one's
// messages (where the live table is).
const queues = new Map();
function inOrder(channel, work) {
  const run = (queues.get(channel) || Promise.resolve()).then(work).then(() => {
    stats.answered++;
  }, (err) => {
    stats.failed++;
    console.error('peer: ' + channel + ': ' + (err && err.stack ? err.stack : err));
  });
  queues.set(channel, run);
  run.then(() => {
    if (queues.get(channel) === run) queues.delete(channel);
  });
}

function ready(what) {
  console.log('ready ' + what);
}

if (flavour === 'client') {
  const { Client, GatewayIntentBits, Events, InteractionWebhook, MessageFlags } =
    require('discord.js');
  const client = new Client({ intents: [GatewayIntentBits.Guilds], rest: { api, globalRequestsPerSecond } });

  // discord.js takes camelCase message options.
  const options = (b) => ({ content: b.content, embeds: b.embeds, components: b.components,
    allowedMentions: b.allowed_mentions });

  client.once(Events.ClientReady, async (c) => {
    await c.application.commands.set(game.COMMANDS);
    ready('discord.js Client as ' + c.user.id);
  });

  client.on(Events.InteractionCreate, (interaction) => {
    if (!interaction.isChatInputCommand() && !interaction.isButton()) return;
    const channel = interaction.channelId;
    inOrder(channel, async () => {
      const it = { channel, user: { id: interaction.user.id,
        name: interaction.user.globalName || interaction.user.username } };
      if (interaction.isButton()) {
        it.custom_id = interaction.customId;
      } else {
        it.command = interaction.commandName;
        it.options = {};
        for (const o of interaction.options.data) it.options[o.name] = o.value;
      }
      const out = game.handle(it);
      if (out.kind === 'private') {
        await interaction.reply({ ...options(out.body), flags: MessageFlags.Ephemeral });
        return;
      }
      if (interaction.isButton()) {
        await interaction.update({ components: [] });
        const msg = await interaction.followUp(options(out.body));
        game.setLive(channel, { token: interaction.token, messageId: msg.id });
        return;
      }
      const live = game.live(channel);
      if (live) {
        await new InteractionWebhook(client, interaction.applicationId, live.token)
          .editMessage(live.messageId, { components: [] });
      }
      const res = await interaction.reply({ ...options(out.body), withResponse: true });
      game.setLive(channel, { token: interaction.token, messageId: res.resource.message.id });
    });
  });

  client.login(token);
} else {
  const { REST } = require('@discordjs/rest');
  const { WebSocketManager } = require('@discordjs/ws');
  const { Client, GatewayDispatchEvents, InteractionType, MessageFlags } =
    require('@discordjs/core');
  const rest = new REST({ version: '10', api, globalRequestsPerSecond }).setToken(token);
  const gateway = new WebSocketManager({ token, intents: 1 /* Guilds */, rest });
  const client = new Client({ rest, gateway });

  client.once(GatewayDispatchEvents.Ready, async ({ data, api: a }) => {
    await a.applicationCommands.bulkOverwriteGlobalCommands(data.application.id, game.COMMANDS);
    ready('@discordjs/core Client as ' + data.user.id);
  });

  client.on(GatewayDispatchEvents.InteractionCreate, ({ data: i, api: a }) => {
    const button = i.type === InteractionType.MessageComponent;
    if (!button && i.type !== InteractionType.ApplicationCommand) return;
    const channel = i.channel_id;
    inOrder(channel, async () => {
      const user = i.member ? i.member.user : i.user;
      const it = { channel, user: { id: user.id, name: user.global_name || user.username } };
      if (button) {
        it.custom_id = i.data.custom_id;
      } else {
        it.command = i.data.name;
        it.options = {};
        for (const o of i.data.options || []) it.options[o.name] = o.value;
      }
      const out = game.handle(it);
      if (out.kind === 'private') {
        await a.interactions.reply(i.id, i.token, { ...out.body, flags: MessageFlags.Ephemeral });
        return;
      }
      if (button) {
        await a.interactions.updateMessage(i.id, i.token, { components: [] });
        const msg = await a.interactions.followUp(i.application_id, i.token, out.body);
        game.setLive(channel, { token: i.token, messageId: msg.id });
        return;
      }
      const live = game.live(channel);
      if (live) {
        await a.webhooks.editMessage(i.application_id, live.token, live.messageId,
          { components: [] });
      }
      const res = await a.interactions.reply(i.id, i.token, { ...out.body, with_response: true });
      game.setLive(channel, { token: i.token, messageId: res.resource.message.id });
    });
  });

  gateway.connect();
}

for (const sig of ['SIGTERM', 'SIGINT']) process.on(sig, () => process.exit(0));
