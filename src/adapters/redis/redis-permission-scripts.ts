/**
 * The Redis permission key layout, and the Lua scripts that keep it consistent: each mutation
 * updates an ACE and every index derived from it in one atomic step. Keys are built identically in
 * Node (`permissionKey`) and in Lua (`key`): `<prefix><kind>:<part>|<part>…`, with `\` and `|`
 * escaped by `\`. ARGV[1] of every script is the prefix; scripts touch only keys under it.
 *
 *   u:<user>                          SET principals of the user (user principals)
 *   pu:<principal>                    SET users holding that principal (for removePrincipal)
 *   pz:<principal>                    ZSET the same holders, all scored 0: in byte (code point) order, for pages
 *   g:                                SET principals that have a holder (the groups), for subgroupsOf
 *   a:<object>|<permission>           SET principals of the ACE
 *   o:<object>                        SET permissions with a non-empty ACE on the object
 *   i:<principal>|<permission>|<dir>  SET objects under <dir> on which the principal holds it
 *   d:<dir>                           SET objects under <dir> having any ACE (wildcard deletes)
 *
 * <dir> is "" or a prefix of the object id ending in "/": `/articles/r1` is indexed under "",
 * "/" and "/articles/", so the pattern `/articles/*` reads exactly one set per principal.
 */
import { luaScript } from "./redis-connection.js";

export type KeyKind = "u" | "pu" | "pz" | "g" | "a" | "o" | "i" | "d";

export function permissionKey(prefix: string, kind: KeyKind, ...parts: string[]): string {
  return `${prefix}${kind}:${parts.map((part) => part.replace(/[\\|]/g, "\\$&")).join("|")}`;
}

/** The index directory serving a pattern: its literal prefix up to the last "/" (or ""). */
export function indexDir(pattern: string): string {
  const star = pattern.indexOf("*");
  const literal = star < 0 ? pattern : pattern.slice(0, star);
  return literal.slice(0, literal.lastIndexOf("/") + 1);
}

/** An anchored Lua pattern for an object id pattern: `*` → `.*`, every other character literal. */
export function luaPattern(pattern: string): string {
  let out = "";
  for (const char of pattern) {
    if (char === "*") out += ".*";
    else if (char === "\0") out += "%z";
    else if (/[A-Za-z0-9]/.test(char) || char.charCodeAt(0) >= 0x80) out += char;
    else out += `%${char}`;
  }
  return `^${out}$`;
}

const HELPERS = String.raw`
local P = ARGV[1]
local function esc(s) return (string.gsub(s, "[\\|]", "\\%0")) end
local function key(kind, ...)
  local parts = {...}
  for i = 1, #parts do parts[i] = esc(parts[i]) end
  return P .. kind .. ":" .. table.concat(parts, "|")
end
-- "" and every prefix of the id ending in "/": the directories an object is indexed under.
local function dirs(id)
  local out = {""}
  local i = 0
  while true do
    i = string.find(id, "/", i + 1, true)
    if not i then break end
    out[#out + 1] = string.sub(id, 1, i)
  end
  return out
end
local function ace_add(obj, perm, principal)
  if redis.call("SADD", key("a", obj, perm), principal) == 1 then
    redis.call("SADD", key("o", obj), perm)
    for _, d in ipairs(dirs(obj)) do
      redis.call("SADD", key("i", principal, perm, d), obj)
      redis.call("SADD", key("d", d), obj)
    end
  end
end
local function ace_remove(obj, perm, principal)
  if redis.call("SREM", key("a", obj, perm), principal) == 1 then
    for _, d in ipairs(dirs(obj)) do redis.call("SREM", key("i", principal, perm, d), obj) end
    if redis.call("EXISTS", key("a", obj, perm)) == 0 then
      redis.call("SREM", key("o", obj), perm)
      if redis.call("EXISTS", key("o", obj)) == 0 then
        for _, d in ipairs(dirs(obj)) do redis.call("SREM", key("d", d), obj) end
      end
    end
  end
end
local function delete_object(obj)
  for _, perm in ipairs(redis.call("SMEMBERS", key("o", obj))) do
    for _, principal in ipairs(redis.call("SMEMBERS", key("a", obj, perm))) do ace_remove(obj, perm, principal) end
  end
end
`;

/** ARGV: prefix, object id, permission, principal. */
export const ADD_ACE = luaScript(`${HELPERS}
ace_add(ARGV[2], ARGV[3], ARGV[4])
return 1`);

/** ARGV: prefix, object id, permission, principal. */
export const REMOVE_ACE = luaScript(`${HELPERS}
ace_remove(ARGV[2], ARGV[3], ARGV[4])
return 1`);

/** ARGV: prefix, object id, then per permission: name, count, principals… (deduplicated). */
export const REPLACE_ACL = luaScript(`${HELPERS}
local obj = ARGV[2]
local i = 3
while i <= #ARGV do
  local perm = ARGV[i]
  local count = tonumber(ARGV[i + 1])
  local wanted = {}
  for j = 1, count do wanted[ARGV[i + 1 + j]] = true end
  for _, principal in ipairs(redis.call("SMEMBERS", key("a", obj, perm))) do
    if not wanted[principal] then ace_remove(obj, perm, principal) end
  end
  for principal in pairs(wanted) do ace_add(obj, perm, principal) end
  i = i + 2 + count
end
return 1`);

/**
 * ARGV: prefix, limit, then per id: id, directory, Lua pattern ("" for an exact id). A wildcard id
 * is matched against the objects indexed under its directory, never against the keyspace. Deletes
 * at most `limit` objects so one call never blocks Redis for long; returns how many it deleted.
 */
export const DELETE_OBJECTS = luaScript(`${HELPERS}
local limit = tonumber(ARGV[2])
local deleted = 0
local function delete_counted(obj)
  if deleted < limit and redis.call("EXISTS", key("o", obj)) == 1 then
    delete_object(obj)
    deleted = deleted + 1
  end
end
for i = 3, #ARGV, 3 do
  local id, dir, pattern = ARGV[i], ARGV[i + 1], ARGV[i + 2]
  if pattern == "" then
    delete_counted(id)
  else
    for _, obj in ipairs(redis.call("SMEMBERS", key("d", dir))) do
      if deleted >= limit then break end
      if string.find(obj, pattern) then delete_counted(obj) end
    end
  end
end
return deleted`);

/** ARGV: prefix, principal. Removes it from every user, through the principal → users index. */
export const REMOVE_PRINCIPAL = luaScript(`${HELPERS}
local principal = ARGV[2]
for _, user in ipairs(redis.call("SMEMBERS", key("pu", principal))) do
  redis.call("SREM", key("u", user), principal)
end
redis.call("DEL", key("pu", principal))
redis.call("DEL", key("pz", principal))
redis.call("SREM", key("g"), principal)
return 1`);

/** ARGV: prefix, user, principal. Takes the principal from the user; a principal left without holders is no group any more. */
export const REMOVE_USER_PRINCIPAL = luaScript(`${HELPERS}
local user, principal = ARGV[2], ARGV[3]
redis.call("SREM", key("u", user), principal)
redis.call("SREM", key("pu", principal), user)
redis.call("ZREM", key("pz", principal), user)
if redis.call("EXISTS", key("pu", principal)) == 0 then redis.call("SREM", key("g"), principal) end
return 1`);

/** ARGV: prefix, object id. Returns a consistent snapshot: {permission, {principals…}, …}. */
export const OBJECT_ACL = luaScript(`${HELPERS}
local obj = ARGV[2]
local out = {}
for _, perm in ipairs(redis.call("SMEMBERS", key("o", obj))) do
  out[#out + 1] = perm
  out[#out + 1] = redis.call("SMEMBERS", key("a", obj, perm))
end
return out`);
