/* serve/queue_redis_lua.c: the Lua scripts of the Redis queue. Each change of state is one script,
 * so Redis runs it whole or not at all: a crash of a node or of the network in between leaves
 * nothing half-written. ARGV[1] is the key prefix (the scripts name their keys from it: one
 * Redis, not a cluster). Keys, with P the prefix:
 *   P jobs:LANE   stream of {id}, consumer group "workers" (LANE: jail, js)
 *   P run:ID      hash: status queued|running|done, key, flags, attempt (the fence), entry, lane,
 *                 payload (until done), owner, cancel, aborted, seq, evbytes, idem, result, done
 *   P ev:ID       the run's events (entry id SEQ-0, fields k kind, a attempt, d data), MAXLEN'd
 *   P ch:ID       pub/sub channel: "SEQ ATTEMPT KIND\n" DATA, live; P cancel: "ID ATTEMPT"
 *   P idem:N:KEY:IDEM  the run an API key's Idempotency-Key made (N = the key name's length)
 *   P done        zset of done runs ("ID:LEN:DONEMS", score = P n:doneseq, completion order:
 *                 ties of one millisecond must not go by the ids' letters): resultsMax(Bytes), TTL
 *   P n:queued n:qbytes n:running n:rbytes n:claims n:takeovers n:retries n:failed: counters;
 *   P n:nodes     hash: runs completed per node
 *   P cursor:LANE where XAUTOCLAIM's sweep of the pending entries goes on from */
#include "serve/queue_redis.h"

#define PRELUDE                                                                                    \
    "local p = ARGV[1]\n"                                                                       \
    "local function now_ms()\n"                                                                 \
    "  local t = redis.call('TIME')\n"                                                          \
    "  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)\n"                      \
    "end\n"                                                                                     \
    "local function drop(m, popped)\n"                                                          \
    "  local id, len = string.match(m, '^(.-):(%d+):%d+$')\n"                                   \
    "  redis.call('DECRBY', p .. 'n:rbytes', len)\n"                                            \
    "  if not popped then redis.call('ZREM', p .. 'done', m) end\n"                             \
    "  local rk = p .. 'run:' .. id\n"                                                          \
    "  local ik = redis.call('HGET', rk, 'idem')\n"                                             \
    "  if ik and ik ~= '' then redis.call('DEL', ik) end\n"                                     \
    "  redis.call('DEL', rk)\n"                                                                 \
    "end\n"                                                                                     \
    /* Expired results, then the oldest while over the count or bytes; 64 per call at most. */ \
    "local function evict(now, ttl, rmax, rbmax)\n"                                             \
    "  for _, m in ipairs(redis.call('ZRANGE', p .. 'done', 0, 63)) do\n"                       \
    "    if tonumber(string.match(m, ':(%d+)$')) > now - ttl then break end\n"                 \
    "    drop(m, false)\n"                                                                       \
    "  end\n"                                                                                   \
    "  for _ = 1, 64 do\n"                                                                      \
    "    local b = tonumber(redis.call('GET', p .. 'n:rbytes') or '0')\n"                       \
    "    if redis.call('ZCARD', p .. 'done') <= rmax and b <= rbmax then break end\n"           \
    "    local m = redis.call('ZPOPMIN', p .. 'done')\n"                                        \
    "    if not m[1] then break end\n"                                                          \
    "    drop(m[1], true)\n"                                                                    \
    "  end\n"                                                                                   \
    "end\n"                                                                                     \
    "local function message(seq, att, kind, data)\n"                                            \
    "  return seq .. ' ' .. att .. ' ' .. kind .. '\\n' .. data\n"                              \
    "end\n"                                                                                     \
    /* An event of a running run: kept (within the bounds) and published. */                   \
    "local function event(rk, id, att, kind, data, maxbytes, maxcount)\n"                       \
    "  local b = tonumber(redis.call('HGET', rk, 'evbytes') or '0')\n"                          \
    "  if b + #data > maxbytes then return end\n"                                               \
    "  local seq = redis.call('HINCRBY', rk, 'seq', 1)\n"                                       \
    "  redis.call('HINCRBY', rk, 'evbytes', #data)\n"                                           \
    "  redis.call('XADD', p .. 'ev:' .. id, 'MAXLEN', maxcount, seq .. '-0', 'k', kind,\n"      \
    "             'a', att, 'd', data)\n"                                                       \
    "  redis.call('PUBLISH', p .. 'ch:' .. id, message(seq, att, kind, data))\n"                \
    "end\n"                                                                                     \
    /* A run ends with result: stored for ttl, its entry acked and deleted (in this same */    \
    /* script: never acked without its result), its events dropped, subscribers told. */       \
    "local function finish(rk, id, lane, entry, result, att, ttl, rmax, rbmax)\n"               \
    "  local s = p .. 'jobs:' .. lane\n"                                                        \
    "  if entry and entry ~= '' then\n"                                                         \
    "    redis.call('XACK', s, 'workers', entry)\n"                                             \
    "    redis.call('XDEL', s, entry)\n"                                                        \
    "  end\n"                                                                                   \
    "  local now = now_ms()\n"                                                                  \
    "  local seq = redis.call('HINCRBY', rk, 'seq', 1)\n"                                       \
    "  redis.call('HSET', rk, 'status', 'done', 'result', result, 'done', now)\n"               \
    "  redis.call('HDEL', rk, 'owner', 'aborted', 'cancel', 'payload')\n"                       \
    "  redis.call('PEXPIRE', rk, ttl)\n"                                                        \
    "  local ik = redis.call('HGET', rk, 'idem')\n"                                             \
    "  if ik and ik ~= '' then redis.call('PEXPIRE', ik, ttl) end\n"                            \
    "  redis.call('DEL', p .. 'ev:' .. id)\n"                                                   \
    "  redis.call('ZADD', p .. 'done', redis.call('INCR', p .. 'n:doneseq'),\n"                 \
    "    id .. ':' .. #result .. ':' .. now)\n"                                                   \
    "  redis.call('INCRBY', p .. 'n:rbytes', #result)\n"                                        \
    "  evict(now, ttl, rmax, rbmax)\n"                                                          \
    "  redis.call('PUBLISH', p .. 'ch:' .. id, message(seq, att, 4, result))\n"                 \
    "end\n"

/* ARGV: p id key flags lane payload idem queueMax queueMaxBytes. */
static const char enqueue_lua[] = PRELUDE
    "local id, key, flags, lane, payload, idem = ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6],\n"
    "  ARGV[7]\n"
    "local ik = ''\n"
    "if idem ~= '' then\n"
    "  ik = p .. 'idem:' .. #key .. ':' .. key .. ':' .. idem\n"
    "  local old = redis.call('GET', ik)\n"
    "  if old and redis.call('EXISTS', p .. 'run:' .. old) == 1 then return {'ok', old} end\n"
    "end\n"
    "local rk = p .. 'run:' .. id\n"
    "if redis.call('EXISTS', rk) == 1 then return {'taken'} end\n"
    "local q = tonumber(redis.call('GET', p .. 'n:queued') or '0')\n"
    "local qb = tonumber(redis.call('GET', p .. 'n:qbytes') or '0')\n"
    "if q >= tonumber(ARGV[8]) or qb + #payload > tonumber(ARGV[9]) then return {'full'} end\n"
    "local s = p .. 'jobs:' .. lane\n"
    "if redis.call('EXISTS', s) == 0 then\n"
    "  redis.call('XGROUP', 'CREATE', s, 'workers', '0', 'MKSTREAM')\n"
    "end\n"
    "local entry = redis.call('XADD', s, '*', 'id', id)\n"
    "redis.call('HSET', rk, 'status', 'queued', 'key', key, 'flags', flags, 'attempt', 0,\n"
    "  'entry', entry, 'lane', lane, 'payload', payload, 'seq', 0, 'evbytes', 0, 'idem', ik)\n"
    "if ik ~= '' then redis.call('SET', ik, id) end\n"
    "redis.call('INCR', p .. 'n:queued')\n"
    "redis.call('INCRBY', p .. 'n:qbytes', #payload)\n"
    "return {'ok', id}\n";

/* ARGV: p me visibilityMs maxAttempts ttl resultsMax resultsMaxBytes failCode eventsMaxBytes
 * eventsMax mode entry nlanes lane...
 * mode claim: takes a claim whose holder stopped heartbeating (XAUTOCLAIM, the PEL swept one
 * entry at a time from a cursor per lane), else the oldest new entry of the lanes (XREADGROUP),
 * and starts it: attempt + 1, the fence. A run out of attempts, or cancelled while its worker
 * was lost, ends here instead. mode start: starts entry, which this consumer's blocking
 * XREADGROUP got (if it still holds it). mode requeue: gives entry back unstarted (a blocking
 * read of two lanes got one of each: the younger goes to the stream's end again).
 * Replies {claim, id, key, flags, payload, attempt, entry, lane}, {again} (an entry was dropped
 * or given back: call again), or {empty} (block in XREADGROUP). */
static const char claim_lua[] = PRELUDE
    "local me, vis, maxatt = ARGV[2], ARGV[3], tonumber(ARGV[4])\n"
    "local ttl, rmax, rbmax, code = tonumber(ARGV[5]), tonumber(ARGV[6]), tonumber(ARGV[7]),\n"
    "  ARGV[8]\n"
    "local evmax, evcount = tonumber(ARGV[9]), tonumber(ARGV[10])\n"
    "local mode, given = ARGV[11], ARGV[12]\n"
    "local lanes = {}\n"
    "for i = 14, 13 + tonumber(ARGV[13]) do lanes[#lanes + 1] = ARGV[i] end\n"
    "local function field(flat, name)\n"
    "  for i = 1, #flat, 2 do if flat[i] == name then return flat[i + 1] end end\n"
    "end\n"
    "local function older(a, b)\n"
    "  local am, as = string.match(a, '(%d+)-(%d+)')\n"
    "  local bm, bs = string.match(b, '(%d+)-(%d+)')\n"
    "  if tonumber(am) ~= tonumber(bm) then return tonumber(am) < tonumber(bm) end\n"
    "  return tonumber(as) < tonumber(bs)\n"
    "end\n"
    "local function failed(id, att)\n"
    "  return '{\"id\":\"' .. id .. '\",\"ok\":false,\"value\":null,\"stdout\":\"\",' ..\n"
    "    '\"stderr\":\"\",\"stdoutTruncated\":false,\"stderrTruncated\":false,\"error\":' ..\n"
    "    '{\"code\":\"' .. code .. '\",\"message\":\"this run was claimed ' .. att ..\n"
    "    ' time(s) (config maxAttempts) and each worker running it was lost (it died, froze ' ..\n"
    "    'or lost Redis) before it stored a result\"},\"durationMs\":0}'\n"
    "end\n"
    "local function start(lane, entry, taken)\n"
    "  local s = p .. 'jobs:' .. lane\n"
    "  local id = field(entry[2], 'id')\n"
    "  local rk = p .. 'run:' .. id\n"
    "  local st = redis.call('HMGET', rk, 'status', 'attempt', 'cancel', 'aborted', 'flags',\n"
    "    'key', 'payload')\n"
    "  if not st[1] or st[1] == 'done' then\n"
    "    redis.call('XACK', s, 'workers', entry[1])\n"
    "    redis.call('XDEL', s, entry[1])\n"
    "    return nil\n"
    "  end\n"
    "  local att = tonumber(st[2])\n"
    "  if st[1] == 'queued' then\n"
    "    redis.call('DECR', p .. 'n:queued')\n"
    "    redis.call('DECRBY', p .. 'n:qbytes', #st[7])\n"
    "    redis.call('INCR', p .. 'n:running')\n"
    "  end\n"
    "  if taken then redis.call('INCR', p .. 'n:takeovers') end\n"
    "  if st[3] == '1' or att >= maxatt then\n"
    "    redis.call('DECR', p .. 'n:running')\n"
    "    if st[3] ~= '1' then redis.call('INCR', p .. 'n:failed') end\n"
    "    finish(rk, id, lane, entry[1], st[3] == '1' and st[4] or failed(id, att), att, ttl,\n"
    "      rmax, rbmax)\n"
    "    return nil\n"
    "  end\n"
    "  att = att + 1\n"
    "  redis.call('HSET', rk, 'status', 'running', 'attempt', att, 'owner', me)\n"
    "  redis.call('INCR', p .. 'n:claims')\n"
    "  if att > 1 then\n"
    "    redis.call('INCR', p .. 'n:retries')\n"
    "    redis.call('DEL', p .. 'ev:' .. id)\n"
    "    redis.call('HSET', rk, 'evbytes', 0)\n"
    "  end\n"
    "  if tonumber(st[5]) % 2 == 1 then event(rk, id, att, 1, 'running', evmax, evcount) end\n"
    "  return {'claim', id, st[6], st[5], st[7], tostring(att), entry[1], lane}\n"
    "end\n"
    "if mode ~= 'claim' then\n"
    "  local s = p .. 'jobs:' .. lanes[1]\n"
    "  local mine = redis.call('XPENDING', s, 'workers', given, given, 1, me)[1]\n"
    "  local e = redis.call('XRANGE', s, given, given)[1]\n"
    "  if not mine then return {'again'} end\n"
    "  if e and mode == 'start' then return start(lanes[1], e, false) or {'again'} end\n"
    "  redis.call('XACK', s, 'workers', given)\n"
    "  redis.call('XDEL', s, given)\n"
    "  local rk = e and p .. 'run:' .. field(e[2], 'id')\n"
    "  if rk and redis.call('HGET', rk, 'status') == 'queued' then\n"
    "    redis.call('HSET', rk, 'entry', redis.call('XADD', s, '*', 'id', field(e[2], 'id')))\n"
    "  end\n"
    "  return {'again'}\n"
    "end\n"
    "for _, lane in ipairs(lanes) do\n"
    "  local s = p .. 'jobs:' .. lane\n"
    "  local ck = p .. 'cursor:' .. lane\n"
    "  local cur = redis.call('GET', ck) or '0-0'\n"
    "  local r = redis.pcall('XAUTOCLAIM', s, 'workers', me, vis, cur, 'COUNT', 1)\n"
    "  if r.err then\n" /* no stream or no group yet (or lost): made, from its start */
    "    redis.call('XGROUP', 'CREATE', s, 'workers', '0', 'MKSTREAM')\n"
    "  else\n"
    "    if r[1] ~= cur then redis.call('SET', ck, r[1]) end\n"
    "    local e = r[2][1]\n"
    "    if e and e[2] then return start(lane, e, true) or {'again'} end\n"
    "  end\n"
    "end\n"
    "local best, bestlane = nil, lanes[1]\n"
    "if #lanes > 1 then\n"
    "  bestlane = nil\n"
    "  for _, lane in ipairs(lanes) do\n"
    "    local s = p .. 'jobs:' .. lane\n"
    "    local g = redis.call('XINFO', 'GROUPS', s)[1]\n"
    "    local nxt = redis.call('XRANGE', s, '(' .. field(g, 'last-delivered-id'), '+',\n"
    "      'COUNT', 1)[1]\n"
    "    if nxt and (not best or older(nxt[1], best)) then best, bestlane = nxt[1], lane end\n"
    "  end\n"
    "end\n"
    "if bestlane then\n"
    "  local r = redis.call('XREADGROUP', 'GROUP', 'workers', me, 'COUNT', 1, 'STREAMS',\n"
    "    p .. 'jobs:' .. bestlane, '>')\n"
    "  if r and r[1] and r[1][2][1] then\n"
    "    return start(bestlane, r[1][2][1], false) or {'again'}\n"
    "  end\n"
    "end\n"
    "return {'empty'}\n";

/* ARGV: p id attempt me lane entry. Resets the entry's idle time (XCLAIM JUSTID, to itself)
 * only while this attempt owns the run: a heartbeat never steals a claim back. */
static const char heartbeat_lua[] =
    "local p = ARGV[1]\n"
    "local st = redis.call('HMGET', p .. 'run:' .. ARGV[2], 'status', 'attempt', 'cancel')\n"
    "if st[1] ~= 'running' or st[2] ~= ARGV[3] then return 'stale' end\n"
    "redis.call('XCLAIM', p .. 'jobs:' .. ARGV[5], 'workers', ARGV[4], 0, ARGV[6], 'JUSTID')\n"
    "if st[3] == '1' then return 'cancelled' end\n"
    "return 'ok'\n";

/* ARGV: p id attempt kind data eventsMaxBytes eventsMax. */
static const char publish_lua[] =
    PRELUDE "local rk = p .. 'run:' .. ARGV[2]\n"
            "local st = redis.call('HMGET', rk, 'status', 'attempt')\n"
            "if st[1] ~= 'running' or st[2] ~= ARGV[3] then return 'stale' end\n"
            "event(rk, ARGV[2], ARGV[3], tonumber(ARGV[4]), ARGV[5], tonumber(ARGV[6]),\n"
            "  tonumber(ARGV[7]))\n"
            "return 'ok'\n";

/* ARGV: p id attempt result ttl resultsMax resultsMaxBytes me. The fence: only the attempt that
 * owns the run stores; a stale one changes nothing. */
static const char complete_lua[] = PRELUDE
    "local rk = p .. 'run:' .. ARGV[2]\n"
    "local st = redis.call('HMGET', rk, 'status', 'attempt', 'lane', 'entry')\n"
    "if st[1] ~= 'running' or st[2] ~= ARGV[3] then return 'stale' end\n"
    "redis.call('DECR', p .. 'n:running')\n"
    "finish(rk, ARGV[2], st[3], st[4], ARGV[4], ARGV[3], tonumber(ARGV[5]), tonumber(ARGV[6]),\n"
    "  tonumber(ARGV[7]))\n"
    "redis.call('HINCRBY', p .. 'n:nodes', ARGV[8], 1)\n"
    "return 'ok'\n";

/* ARGV: p id abortedJson ttl resultsMax resultsMaxBytes. Queued: done at once. Running: flagged
 * (heartbeats answer cancelled; a takeover ends it with abortedJson) and announced. */
static const char cancel_lua[] = PRELUDE
    "local rk = p .. 'run:' .. ARGV[2]\n"
    "local st = redis.call('HMGET', rk, 'status', 'attempt', 'lane', 'entry', 'payload',\n"
    "  'cancel')\n"
    "if not st[1] then return 'none' end\n"
    "if st[1] == 'queued' then\n"
    "  redis.call('DECR', p .. 'n:queued')\n"
    "  redis.call('DECRBY', p .. 'n:qbytes', #st[5])\n"
    "  finish(rk, ARGV[2], st[3], st[4], ARGV[3], st[2], tonumber(ARGV[4]), tonumber(ARGV[5]),\n"
    "    tonumber(ARGV[6]))\n"
    "  return 'queued'\n"
    "end\n"
    "if st[1] == 'running' and st[6] ~= '1' then\n"
    "  redis.call('HSET', rk, 'cancel', '1', 'aborted', ARGV[3])\n"
    "  redis.call('PUBLISH', p .. 'cancel', ARGV[2] .. ' ' .. st[2])\n"
    "end\n"
    "return st[1]\n";

/* ARGV: p maxIdleMs nlanes lane...: deletes the group's consumers that hold nothing and have
 * not read for maxIdleMs (workers gone: every restart of a node is a new consumer). Atomic, so
 * a consumer with pending entries is never deleted (that would drop its claims); a live one
 * reads at least every second, and one that comes back is made again by its next read. */
static const char gc_lua[] =
    "local p, maxidle, n = ARGV[1], tonumber(ARGV[2]), 0\n"
    "local function field(flat, name)\n"
    "  for i = 1, #flat, 2 do if flat[i] == name then return flat[i + 1] end end\n"
    "end\n"
    "for i = 4, 3 + tonumber(ARGV[3]) do\n"
    "  local s = p .. 'jobs:' .. ARGV[i]\n"
    "  local cs = redis.pcall('XINFO', 'CONSUMERS', s, 'workers')\n"
    "  if not cs.err then\n"
    "    for _, c in ipairs(cs) do\n"
    "      if field(c, 'pending') == 0 and field(c, 'idle') > maxidle then\n"
    "        redis.call('XGROUP', 'DELCONSUMER', s, 'workers', field(c, 'name'))\n"
    "        n = n + 1\n"
    "      end\n"
    "    end\n"
    "  end\n"
    "end\n"
    "return n\n";

const char *const rq_script_text[RQ_SCRIPTS] = {
    [RQ_ENQUEUE] = enqueue_lua, [RQ_CLAIM] = claim_lua,       [RQ_HEARTBEAT] = heartbeat_lua,
    [RQ_PUBLISH] = publish_lua, [RQ_COMPLETE] = complete_lua, [RQ_CANCEL] = cancel_lua,
    [RQ_GC] = gc_lua,
};
