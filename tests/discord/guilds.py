"""Forty guilds spread over four shards, and players who play Cthulhu Dice in
one channel of each: what the sharding tests (shard_test, failover_test,
scale_test) share."""
import time

import run_tests as rt

SHARDS = 4
GUILDS = [str(((k + 1) << 22) | 77) for k in range(40)]  # guild k on shard (k + 1) % 4


def shard_of(guild):
    return (int(guild) >> 22) % SHARDS


def live(fake):
    """shard -> connection id of its live session."""
    return {x["shard"]: x["conn"] for x in fake.state()["live"] if x.get("shard") is not None}


def in_channel(d, guild, channel):
    d["guild_id"] = guild
    d["channel_id"] = channel
    return d


class Players:
    """Plays Cthulhu Dice in every guild's channel (channel_of: guild -> channel) by reading
    the live table and clicking the awaited move's button; a click that changed nothing within
    4 s is sent again. Guilds in `paused` make no move."""

    def __init__(self, fake, channel_of):
        self.fake = fake
        self.channel_of = channel_of
        self.tables = {g: rt.Table(fake, channel_of[g]) for g in GUILDS}
        self.clicked = {}  # guild -> (message id, time)
        self.paused = set()

    def in_guild(self, d, guild):
        return in_channel(d, guild, self.channel_of[guild])

    def open_all(self):
        for g in GUILDS:
            for user, cmd in (("alice", "open"), ("bob", "join"), ("carol", "join")):
                self.fake.dispatch(self.in_guild(rt.slash(rt.USERS[user], cmd), g))
        time.sleep(0.5)
        for g in GUILDS:
            self.fake.dispatch(self.in_guild(rt.slash(rt.USERS["alice"], "start"), g))

    def step(self, guilds=None):
        """One move in each game (of `guilds`) that awaits one; returns how many are over."""
        over = 0
        for g in guilds or GUILDS:
            t = self.tables[g]
            t.refresh()
            if rt.game_over(t):
                over += 1
                continue
            if g in self.paused:
                continue
            uid, _, custom = rt.whose_turn(t)
            if not custom:
                continue
            last = self.clicked.get(g)
            if last and last[0] == t.message_id and time.time() - last[1] < 4:
                continue
            rt.LIVE[t.channel] = t.message_id
            self.fake.dispatch(self.in_guild(rt.click(uid, custom, t.message_id, t.channel), g))
            self.clicked[g] = (t.message_id, time.time())
        return over
