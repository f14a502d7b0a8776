-- bench/wasm/real/bench.lua: the Lua workload (run by lua_main.c): fannkuch-redux, binary trees
-- and string building/matching. Deterministic: no math.random, no pairs order in the output.
local N_FANNKUCH, N_TREES, N_STRINGS = 9, 12, 40000

local function fannkuch(n)
  local perm, perm1, count = {}, {}, {}
  local maxflips, checksum, r, nperm = 0, 0, n, 0
  for i = 0, n - 1 do perm1[i] = i end
  while true do
    while r ~= 1 do count[r - 1] = r; r = r - 1 end
    for i = 0, n - 1 do perm[i] = perm1[i] end
    local flips, k = 0, perm[0]
    while k ~= 0 do
      local i, j = 0, k
      while i < j do perm[i], perm[j] = perm[j], perm[i]; i = i + 1; j = j - 1 end
      flips = flips + 1
      k = perm[0]
    end
    if flips > maxflips then maxflips = flips end
    checksum = checksum + (nperm % 2 == 0 and flips or -flips)
    while true do
      if r == n then return checksum, maxflips end
      local p0 = perm1[0]
      for i = 0, r - 1 do perm1[i] = perm1[i + 1] end
      perm1[r] = p0
      count[r] = count[r] - 1
      if count[r] > 0 then break end
      r = r + 1
    end
    nperm = nperm + 1
  end
end

local function tree(d)
  if d == 0 then return {} end
  d = d - 1
  return { tree(d), tree(d) }
end

local function check(t)
  if t[1] then return 1 + check(t[1]) + check(t[2]) end
  return 1
end

local function trees(maxd)
  local long = tree(maxd)
  local out = {}
  for d = 4, maxd, 2 do
    local iters, sum = 1 << (maxd - d + 4), 0
    for _ = 1, iters do sum = sum + check(tree(d)) end
    out[#out + 1] = string.format("%d trees of depth %d check %d", iters, d, sum)
  end
  out[#out + 1] = "long lived check " .. check(long)
  return table.concat(out, "\n")
end

local function strings(n)
  local words, seed = {}, 12345
  for i = 1, n do
    seed = (seed * 1103515245 + 12345) % 2147483648
    words[i] = string.format("w%x_%d", seed % 65536, i % 17)
  end
  local text = table.concat(words, " ")
  local count, hex = 0, 0
  for w in text:gmatch("w(%x+)_1%f[%D]") do count = count + 1; hex = hex + tonumber(w, 16) end
  local upper = text:gsub("_(%d+)", function(d) return "#" .. (d * 3) end):upper()
  local freq = {}
  for c in upper:gmatch("%x") do freq[c] = (freq[c] or 0) + 1 end
  local keys = {}
  for c in pairs(freq) do keys[#keys + 1] = c end
  table.sort(keys)
  local parts = {}
  for _, c in ipairs(keys) do parts[#parts + 1] = c .. "=" .. freq[c] end
  table.sort(words, function(a, b) return a:reverse() < b:reverse() end)
  return string.format("%d %d %d %s %s %s", #text, count, hex, #upper, words[1], words[n]),
    table.concat(parts, " ")
end

local sum, flips = fannkuch(N_FANNKUCH)
print(string.format("fannkuch(%d) checksum %d max flips %d", N_FANNKUCH, sum, flips))
print(trees(N_TREES))
print(strings(N_STRINGS))
print(string.format("%.6f", math.sin(1.5) * math.sqrt(2) + utf8.len("héllo")))
