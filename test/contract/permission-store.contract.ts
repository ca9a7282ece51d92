/**
 * The PermissionStore contract (spec §4.7, port comments in application/ports/permission-store.ts),
 * modelled on Kinto's PermissionTest suite. Every adapter's test file runs it unchanged, so it only
 * uses the port. Failure injection (BackendError) is adapter-specific and lives in adapter tests.
 */
import { expect } from "chai";
import { DEFAULT_GROUP_MAX_DEPTH, type PermissionStore } from "../../src/application/ports/permission-store.js";
import { defaultBoundPermissions, type BoundPermissionsFn } from "../../src/domain/permissions.js";
import { AUTHENTICATED } from "../../src/domain/principals.js";
import type { Harness } from "../support/harness.js";

const sorted = (values: Iterable<string>): string[] => [...values].sort();

/** An ACL as plain sorted arrays, so deep equality ignores Set identity and order. */
function plain(acl: Record<string, Set<string>>): Record<string, string[]> {
  return Object.fromEntries(Object.entries(acl).map(([perm, principals]) => [perm, sorted(principals)]));
}

/** What a test may ask of the store it opens: a depth bound other than the default. */
export interface PermissionStoreOpenOptions {
  readonly groupMaxDepth?: number;
}

export function permissionStoreContract(
  name: string,
  open: (options?: PermissionStoreOpenOptions) => Promise<Harness<PermissionStore>>,
): void {
  describe(`PermissionStore contract [${name}]`, function () {
    let h: Harness<PermissionStore>;
    let store: PermissionStore;

    before(async () => {
      h = await open();
      store = h.port;
    });
    beforeEach(() => h.reset());
    after(() => h?.close());

    describe("schema and health", () => {
      it("initializes the schema idempotently, keeping what is stored", async () => {
        await store.addUserPrincipal("alice", "team");
        await store.addPrincipalToAce("/a/1", "read", "team");
        await store.initializeSchema();
        await store.initializeSchema();
        expect(sorted(await store.userPrincipals("alice"))).to.deep.equal(["team"]);
        expect(plain(await store.objectPermissions("/a/1"))).to.deep.equal({ read: ["team"] });
      });

      it("answers the heartbeat when available", async () => {
        expect(await store.heartbeat()).to.equal(true);
      });

      it("leaves no trace of the heartbeat in user principals", async () => {
        await store.heartbeat();
        expect(sorted(await store.userPrincipals("__heartbeat__"))).to.deep.equal([]);
      });

      it("flushes every ACE and user principal", async () => {
        await store.addUserPrincipal("alice", "group");
        await store.addPrincipalToAce("/a/1", "read", "alice");
        await store.flush();
        expect(sorted(await store.userPrincipals("alice"))).to.deep.equal([]);
        expect(plain(await store.objectPermissions("/a/1"))).to.deep.equal({});
        expect(sorted(await store.principalsAccessibleObjects(["alice"], "read"))).to.deep.equal([]);
        expect(await store.checkPermission("/a/1", "read", ["alice"])).to.equal(false);
      });
    });

    describe("user principals", () => {
      it("adds a principal to a user", async () => {
        await store.addUserPrincipal("foo", "bar");
        expect(sorted(await store.userPrincipals("foo"))).to.deep.equal(["bar"]);
      });

      it("adds a principal to a user only once", async () => {
        await store.addUserPrincipal("foo", "bar");
        await store.addUserPrincipal("foo", "bar");
        expect(sorted(await store.userPrincipals("foo"))).to.deep.equal(["bar"]);
      });

      it("returns an empty set for an unknown user", async () => {
        expect(sorted(await store.userPrincipals("nobody"))).to.deep.equal([]);
      });

      it("removes a principal of an unknown user without failing", async () => {
        await store.removeUserPrincipal("foo", "bar");
        expect(sorted(await store.userPrincipals("foo"))).to.deep.equal([]);
      });

      it("removes one principal of a user", async () => {
        await store.addUserPrincipal("foo", "bar");
        await store.addUserPrincipal("foo", "foobar");
        await store.removeUserPrincipal("foo", "bar");
        expect(sorted(await store.userPrincipals("foo"))).to.deep.equal(["foobar"]);
      });

      it("ignores the removal of a principal the user does not have", async () => {
        await store.addUserPrincipal("foo", "foobar");
        await store.removeUserPrincipal("foo", "bar");
        expect(sorted(await store.userPrincipals("foo"))).to.deep.equal(["foobar"]);
        await store.removeUserPrincipal("foo", "foobar");
        expect(sorted(await store.userPrincipals("foo"))).to.deep.equal([]);
      });

      it("removes a principal from every user", async () => {
        await store.addUserPrincipal("foo1", "bar");
        await store.addUserPrincipal("foo2", "bar");
        await store.addUserPrincipal("foo2", "foobar");
        await store.addUserPrincipal(AUTHENTICATED, "bar");
        await store.removePrincipal("bar");
        await store.removePrincipal("unknown");
        expect(sorted(await store.userPrincipals("foo1"))).to.deep.equal([]);
        expect(sorted(await store.userPrincipals("foo2"))).to.deep.equal(["foobar"]);
        expect(sorted(await store.userPrincipals(AUTHENTICATED))).to.deep.equal([]);
      });

      it("does not remove a removed principal from ACEs", async () => {
        await store.addPrincipalToAce("/buckets/some-bucket", "read", "readers-group");
        await store.addUserPrincipal("alice", "readers-group");
        await store.removePrincipal("readers-group");
        expect(plain(await store.objectPermissions("/buckets/some-bucket"))).to.deep.equal({ read: ["readers-group"] });
        expect(sorted(await store.userPrincipals("alice"))).to.deep.equal([]);
      });

      it("unites a user's principals with those of system.Authenticated", async () => {
        await store.addUserPrincipal(AUTHENTICATED, "everybody-group");
        expect(sorted(await store.userPrincipals("foo"))).to.deep.equal(["everybody-group"]);
        await store.addUserPrincipal("foo", "own-group");
        await store.addUserPrincipal("foo", "everybody-group");
        expect(sorted(await store.userPrincipals("foo"))).to.deep.equal(["everybody-group", "own-group"]);
        expect(sorted(await store.userPrincipals("other"))).to.deep.equal(["everybody-group"]);
      });

      it("returns a fresh set that callers may modify", async () => {
        await store.addUserPrincipal("foo", "bar");
        const first = await store.userPrincipals("foo");
        first.add("intruder");
        first.delete("bar");
        expect(sorted(await store.userPrincipals("foo"))).to.deep.equal(["bar"]);
      });

      it("keeps ids with special characters apart", async () => {
        await store.addUserPrincipal("a:b", "g:1");
        await store.addUserPrincipal("a", "b:g:2");
        await store.addUserPrincipal("a%", "g_3");
        expect(sorted(await store.userPrincipals("a:b"))).to.deep.equal(["g:1"]);
        expect(sorted(await store.userPrincipals("a"))).to.deep.equal(["b:g:2"]);
        expect(sorted(await store.userPrincipals("a%"))).to.deep.equal(["g_3"]);
        expect(sorted(await store.userPrincipals("a_"))).to.deep.equal([]);
      });
    });

    describe("direct principals and members", () => {
      it("gives each id asked its stored principals, one entry per distinct id, empty when none", async () => {
        await store.addUserPrincipal("alice", "group:a");
        await store.addUserPrincipal("alice", "group:b");
        await store.addUserPrincipal("group:a", "group:c");
        await store.addUserPrincipal(AUTHENTICATED, "group:all");
        const direct = await store.directPrincipals(["alice", "group:a", "nobody", "alice"]);
        expect([...direct.keys()].sort()).to.deep.equal(["alice", "group:a", "nobody"]);
        expect(sorted(direct.get("alice") ?? [])).to.deep.equal(["group:a", "group:b"]);
        expect(sorted(direct.get("group:a") ?? [])).to.deep.equal(["group:c"]);
        expect(sorted(direct.get("nobody") ?? ["missing"])).to.deep.equal([]);
        expect((await store.directPrincipals([])).size).to.equal(0);
      });

      it("names the ids holding a principal, system.Authenticated included, never the principal itself", async () => {
        await store.addUserPrincipal("alice", "group:a");
        await store.addUserPrincipal("bob", "group:a");
        await store.addUserPrincipal("bob", "group:b");
        await store.addUserPrincipal(AUTHENTICATED, "group:a");
        await store.addUserPrincipal("group:a", "group:a");
        expect(sorted(await store.membersOf("group:a"))).to.deep.equal([AUTHENTICATED, "alice", "bob"].sort());
        expect(sorted(await store.membersOf("group:b"))).to.deep.equal(["bob"]);
        expect(sorted(await store.membersOf("unknown"))).to.deep.equal([]);
        await store.removeUserPrincipal("bob", "group:a");
        await store.removePrincipal("group:b");
        expect(sorted(await store.membersOf("group:a"))).to.deep.equal([AUTHENTICATED, "alice"].sort());
        expect(sorted(await store.membersOf("group:b"))).to.deep.equal([]);
      });
    });

    describe("nested groups", () => {
      /** Links `ids[0]` to `ids[1]`, `ids[1]` to `ids[2]`... (each a member of the next). */
      async function chain(...ids: string[]): Promise<void> {
        for (let i = 0; i + 1 < ids.length; i += 1) await store.addUserPrincipal(ids[i] ?? "", ids[i + 1] ?? "");
      }
      /** `count` group names `${stem}1`, `${stem}2`... */
      const groups = (stem: string, count: number): string[] => Array.from({ length: count }, (_, i) => `${stem}${i + 1}`);

      it("gives a user the groups of its groups, at several depths, and each member only what lies above it", async () => {
        await chain("alice", "group:editors", "group:staff", "group:everyone");
        await store.addUserPrincipal("bob", "group:staff");
        await store.addUserPrincipal("carol", "group:other");
        expect(sorted(await store.userPrincipals("alice"))).to.deep.equal(["group:editors", "group:everyone", "group:staff"]);
        expect(sorted(await store.userPrincipals("bob"))).to.deep.equal(["group:everyone", "group:staff"]);
        expect(sorted(await store.userPrincipals("group:editors"))).to.deep.equal(["group:everyone", "group:staff"]);
        expect(sorted(await store.userPrincipals("carol"))).to.deep.equal(["group:other"]);
      });

      it("joins the branches of a group held through several paths", async () => {
        await store.addUserPrincipal("alice", "group:a");
        await store.addUserPrincipal("alice", "group:b");
        await store.addUserPrincipal("group:a", "group:top");
        await store.addUserPrincipal("group:b", "group:top");
        await store.addUserPrincipal("group:b", "group:side");
        expect(sorted(await store.userPrincipals("alice"))).to.deep.equal(["group:a", "group:b", "group:side", "group:top"]);
      });

      it(`follows ${DEFAULT_GROUP_MAX_DEPTH} levels by default, the user's own principals being the first, and no more`, async () => {
        const levels = groups("group:level", DEFAULT_GROUP_MAX_DEPTH + 1);
        await chain("alice", ...levels);
        expect(sorted(await store.userPrincipals("alice"))).to.deep.equal(sorted(levels.slice(0, DEFAULT_GROUP_MAX_DEPTH)));
        // The last level is one link away from the second: reached from there.
        expect(sorted(await store.userPrincipals(levels[0] ?? ""))).to.deep.equal(sorted(levels.slice(1)));
      });

      it("expands the principals of system.Authenticated within the same bound, for every user", async () => {
        const levels = groups("group:all", DEFAULT_GROUP_MAX_DEPTH + 1);
        await chain(AUTHENTICATED, ...levels);
        await chain("alice", "group:own", "group:own-top");
        const expected = sorted(levels.slice(0, DEFAULT_GROUP_MAX_DEPTH));
        expect(sorted(await store.userPrincipals("nobody-stored"))).to.deep.equal(expected);
        expect(sorted(await store.userPrincipals("alice"))).to.deep.equal(sorted([...expected, "group:own", "group:own-top"]));
      });

      it("ends cycles: each group of the cycle once, no error", async () => {
        await chain("group:a", "group:b", "group:c", "group:a");
        await store.addUserPrincipal("group:self", "group:self");
        await store.addUserPrincipal("alice", "group:b");
        await store.addUserPrincipal("alice", "group:self");
        expect(sorted(await store.userPrincipals("alice"))).to.deep.equal(["group:a", "group:b", "group:c", "group:self"]);
        expect(sorted(await store.userPrincipals("group:a"))).to.deep.equal(["group:a", "group:b", "group:c"]);
        expect(sorted(await store.membersOf("group:a"))).to.deep.equal(["alice", "group:b", "group:c"]);
        expect(sorted(await store.membersOf("group:self"))).to.deep.equal(["alice"]);
      });

      it("ends a cycle through system.Authenticated", async () => {
        await chain(AUTHENTICATED, "group:all", "group:loop", "group:all");
        expect(sorted(await store.userPrincipals("alice"))).to.deep.equal(["group:all", "group:loop"]);
        expect(sorted(await store.membersOf("group:loop"))).to.deep.equal([AUTHENTICATED, "group:all"].sort());
      });

      it("takes a nested group away from every member of the unlinked group", async () => {
        await chain("group:editors", "group:staff", "group:everyone");
        await store.addUserPrincipal("alice", "group:editors");
        await store.addUserPrincipal("bob", "group:editors");
        await store.addUserPrincipal("carol", "group:staff");
        await store.removeUserPrincipal("group:editors", "group:staff");
        expect(sorted(await store.userPrincipals("alice"))).to.deep.equal(["group:editors"]);
        expect(sorted(await store.userPrincipals("bob"))).to.deep.equal(["group:editors"]);
        expect(sorted(await store.userPrincipals("carol"))).to.deep.equal(["group:everyone", "group:staff"]);
        expect(sorted(await store.membersOf("group:staff"))).to.deep.equal(["carol"]);
      });

      it("names every member of a group through nesting, up to the bound, with system.Authenticated for all", async () => {
        await chain("group:editors", "group:staff", "group:everyone");
        await store.addUserPrincipal("alice", "group:editors");
        await store.addUserPrincipal("bob", "group:staff");
        await store.addUserPrincipal(AUTHENTICATED, "group:editors");
        await store.addUserPrincipal("carol", "group:unrelated");
        expect(sorted(await store.membersOf("group:everyone"))).to.deep.equal(
          [AUTHENTICATED, "alice", "bob", "group:editors", "group:staff"].sort(),
        );
        expect(sorted(await store.membersOf("group:editors"))).to.deep.equal([AUTHENTICATED, "alice"].sort());
        const levels = groups("group:level", DEFAULT_GROUP_MAX_DEPTH + 1);
        await chain("dave", ...levels);
        // dave holds the level-N group, not the next: membersOf agrees with userPrincipals.
        expect([...(await store.membersOf(levels[DEFAULT_GROUP_MAX_DEPTH - 1] ?? ""))]).to.include("dave");
        expect([...(await store.membersOf(levels[DEFAULT_GROUP_MAX_DEPTH] ?? ""))]).not.to.include("dave");
        expect(sorted(await store.membersOf(levels[DEFAULT_GROUP_MAX_DEPTH] ?? ""))).to.deep.equal(sorted(levels.slice(0, -1)));
      });

      it("gives direct principals as stored, never expanded", async () => {
        await chain("alice", "group:editors", "group:staff", "group:everyone");
        await store.addUserPrincipal(AUTHENTICATED, "group:all");
        const direct = await store.directPrincipals(["alice", "group:editors", "group:everyone"]);
        expect(sorted(direct.get("alice") ?? [])).to.deep.equal(["group:editors"]);
        expect(sorted(direct.get("group:editors") ?? [])).to.deep.equal(["group:staff"]);
        expect(sorted(direct.get("group:everyone") ?? [])).to.deep.equal([]);
      });

      it("removes a nested group from its members and leaves its own memberships stored", async () => {
        await chain("group:editors", "group:staff");
        await store.addUserPrincipal("alice", "group:editors");
        await store.addUserPrincipal("alice", "group:readers");
        await store.addUserPrincipal("group:readers", "group:editors");
        await store.removePrincipal("group:editors");
        expect(sorted(await store.userPrincipals("alice"))).to.deep.equal(["group:readers"]);
        expect(sorted(await store.membersOf("group:editors"))).to.deep.equal([]);
        expect(sorted(await store.membersOf("group:staff"))).to.deep.equal(["group:editors"]);
        // Given again, the group brings its own groups back.
        await store.addUserPrincipal("alice", "group:editors");
        expect(sorted(await store.userPrincipals("alice"))).to.deep.equal(["group:editors", "group:readers", "group:staff"]);
      });

      it("expands principals held from elsewhere (a token's groups) as the user's own, level 1", async () => {
        const levels = groups("group:idp", DEFAULT_GROUP_MAX_DEPTH + 1);
        await chain(...levels);
        await store.addUserPrincipal("alice", "group:stored");
        expect(sorted(await store.userPrincipals("alice", [levels[0] ?? "", "group:bare"]))).to.deep.equal(
          sorted([...levels.slice(0, DEFAULT_GROUP_MAX_DEPTH), "group:bare", "group:stored"]),
        );
        expect(sorted(await store.userPrincipals("alice", []))).to.deep.equal(["group:stored"]);
        expect(sorted(await store.userPrincipals("nobody", ["group:bare"]))).to.deep.equal(["group:bare"]);
      });

      it("lists and checks with the expanded principals", async () => {
        await chain("alice", "group:editors", "group:staff");
        await store.addPrincipalToAce("/a/1", "read", "group:staff");
        const principals = [...(await store.userPrincipals("alice"))];
        expect(sorted(await store.principalsAccessibleObjects(principals, "read"))).to.deep.equal(["/a/1"]);
        expect(await store.checkPermission("/a/1", "read", principals)).to.equal(true);
      });

      it("keeps nested ids with `%`, `_`, `*`, `:`, quotes and non-ASCII apart, as plain strings", async () => {
        const odd = ["group:a%", "group:a_", "group:*", "group:a:b", "group:'\"", "group:é😀", "group:a\\"];
        await chain("alice", ...odd);
        await store.addUserPrincipal("group:ab", "group:never");
        await store.addUserPrincipal("group:a", "group:never");
        const bound = odd.slice(0, DEFAULT_GROUP_MAX_DEPTH);
        expect(sorted(await store.userPrincipals("alice"))).to.deep.equal(sorted(bound));
        expect(sorted(await store.membersOf("group:a_"))).to.deep.equal(["alice", "group:a%"]);
        expect(sorted(await store.userPrincipals("bob", ["group:a%"]))).to.deep.equal(sorted(odd.slice(0, DEFAULT_GROUP_MAX_DEPTH)));
      });

      it("answers a dense cycle (every group in every other) and a wide fan within the bound", async () => {
        const ring = groups("group:k", 12);
        for (const member of ring) for (const g of ring) if (member !== g) await store.addUserPrincipal(member, g);
        await store.addUserPrincipal("alice", ring[0] ?? "");
        expect(sorted(await store.userPrincipals("alice"))).to.deep.equal(sorted(ring));
        expect(sorted(await store.membersOf(ring[0] ?? ""))).to.deep.equal(sorted(["alice", ...ring.slice(1)]));
        const wide = groups("group:w", 300);
        for (const g of wide) await store.addUserPrincipal("bob", g);
        for (const [i, g] of wide.entries()) await store.addUserPrincipal(g, `group:parent${i % 10}`);
        const parents = Array.from({ length: 10 }, (_, i) => `group:parent${i}`);
        expect(sorted(await store.userPrincipals("bob"))).to.deep.equal(sorted([...wide, ...parents]));
        expect((await store.membersOf("group:parent3")).size).to.equal(31);
      });

      describe("the tree of a user's principals (principalParents)", () => {
        it("gives each principal the parent at its lowest level, the least id there, through cycles", async () => {
          await chain("alice", "group:a", "group:b", "group:c", "group:a");
          await store.addUserPrincipal("alice", "group:x");
          await store.addUserPrincipal("group:x", "group:c"); // a shorter way to group:c
          await store.addUserPrincipal("group:w", "group:c"); // not reached: nobody holds group:w
          await store.addUserPrincipal(AUTHENTICATED, "group:all");
          await store.addUserPrincipal(AUTHENTICATED, "group:a"); // level 1 from both seeds: the least wins
          await store.addUserPrincipal("group:a", "alice"); // back to a seed: no entry for it
          const parents = await store.principalParents(["alice", AUTHENTICATED]);
          expect(Object.fromEntries([...parents].sort())).to.deep.equal({
            "group:a": "alice",
            "group:all": AUTHENTICATED,
            "group:b": "group:a",
            "group:c": "group:x",
            "group:x": "alice",
          });
          expect((await store.principalParents([])).size).to.equal(0);
          expect((await store.principalParents(["nobody"])).size).to.equal(0);
        });

        it("orders ties by code point and stops at the depth bound, as userPrincipals does", async () => {
          await store.addUserPrincipal("alice", "a\u{1F600}");
          await store.addUserPrincipal("alice", "a\uE000");
          await store.addUserPrincipal("a\u{1F600}", "group:tie");
          await store.addUserPrincipal("a\uE000", "group:tie");
          const levels = groups("group:level", DEFAULT_GROUP_MAX_DEPTH + 1);
          await chain("bob", ...levels);
          expect((await store.principalParents(["alice"])).get("group:tie")).to.equal("a\uE000");
          const bob = await store.principalParents(["bob"]);
          expect(sorted(bob.keys())).to.deep.equal(sorted(await store.userPrincipals("bob")));
          expect(bob.get(levels[1] ?? "")).to.equal(levels[0]);
        });
      });

      describe("a page of members (membersPage)", () => {
        /** Every page of `limit` from the start, as a flat list of [id, through]. */
        async function allPages(principals: readonly string[], limit: number): Promise<[string, string[]][]> {
          const seen: [string, string[]][] = [];
          let after: string | undefined;
          for (let page = 0; page < 100; page += 1) {
            const members = await store.membersPage(principals, after, limit);
            expect(members.length).to.be.at.most(limit);
            seen.push(...members.map((m): [string, string[]] => [m.id, [...m.through]]));
            if (members.length < limit) return seen;
            after = members.at(-1)?.id;
          }
          throw new Error("membersPage never ended");
        }

        it("unites the members of several principals through nesting, each with the principals it holds, never itself", async () => {
          await chain("alice", "group:editors", "group:staff");
          await store.addUserPrincipal("bob", "group:staff");
          await store.addUserPrincipal("carol", "group:other");
          await store.addUserPrincipal("dave", "group:unrelated");
          await store.addUserPrincipal(AUTHENTICATED, "group:other");
          await store.addUserPrincipal("group:other", "group:staff");
          const page = await store.membersPage(["group:staff", "group:editors", "group:other", "group:nobody"], undefined, 10);
          expect(page.map((m) => [m.id, [...m.through]])).to.deep.equal([
            ["alice", ["group:editors", "group:staff"]],
            ["bob", ["group:staff"]],
            ["carol", ["group:other", "group:staff"]],
            ["group:editors", ["group:staff"]],
            ["group:other", ["group:staff"]],
            [AUTHENTICATED, ["group:other", "group:staff"]],
          ]);
        });

        it("pages by id after a cursor, at most `limit` each, every member once, in code point order", async () => {
          const ids = ["Zed", "alice", "a\uE000", "a\u{1F600}", "bob", "b", "group:x", "z"];
          for (const id of ids) await store.addUserPrincipal(id, id === "group:x" ? "group:top" : "group:x");
          // Code points: "Z" < "a" and "a\uE000" < "a\u{1F600}" (UTF-16 units would put the emoji first).
          const expected = ["Zed", "alice", "a\uE000", "a\u{1F600}", "b", "bob", "group:x", "z"];
          for (const limit of [1, 3, 8, 50]) {
            const pages = await allPages(["group:top"], limit);
            expect(pages.map(([id]) => id)).to.deep.equal(expected);
            expect(pages.every(([, through]) => through.length === 1 && through[0] === "group:top")).to.equal(true);
          }
          expect((await store.membersPage(["group:top"], "alice", 2)).map((m) => m.id)).to.deep.equal(["a\uE000", "a\u{1F600}"]);
          expect(await store.membersPage(["group:top"], "zz", 5)).to.deep.equal([]);
          expect((await store.membersPage(["group:top"], "invented-cursor", 1)).map((m) => m.id)).to.deep.equal(["z"]);
        });

        it("ends cycles, follows the depth bound as membersOf does, and answers nothing for nothing", async () => {
          await chain("group:a", "group:b", "group:c", "group:a");
          await store.addUserPrincipal("alice", "group:a");
          const levels = groups("group:level", DEFAULT_GROUP_MAX_DEPTH + 1);
          await chain("dave", ...levels);
          const top = levels[DEFAULT_GROUP_MAX_DEPTH] ?? "";
          const page = await store.membersPage(["group:a", top], undefined, 100);
          expect(page.map((m) => [m.id, [...m.through]])).to.deep.equal([
            ["alice", ["group:a"]],
            ["group:b", ["group:a"]],
            ["group:c", ["group:a"]],
            ...levels.slice(0, -1).map((level): [string, string[]] => [level, [top]]),
          ]);
          expect(sorted(page.filter((m) => m.through.includes(top)).map((m) => m.id))).to.deep.equal(sorted(await store.membersOf(top)));
          expect(await store.membersPage([], undefined, 10)).to.deep.equal([]);
          expect(await store.membersPage(["group:a"], undefined, 0)).to.deep.equal([]);
          expect(await store.membersPage(["group:unknown"], undefined, 10)).to.deep.equal([]);
        });
      });

      describe("the two reads a page of members is made of (subgroupsOf, holdersPage)", () => {
        it("subgroupsOf: the holders of each id that are held themselves, one level, an entry per id", async () => {
          await store.addUserPrincipal("alice", "group:staff");
          await store.addUserPrincipal("group:editors", "group:staff");
          await store.addUserPrincipal("group:empty", "group:staff");
          await store.addUserPrincipal("bob", "group:editors");
          await store.addUserPrincipal("group:deep", "group:editors");
          await store.addUserPrincipal("carol", "group:deep");
          // group:empty holds group:staff but nobody holds it: no subgroup (nothing to walk into).
          const found = await store.subgroupsOf(["group:staff", "group:editors", "group:deep", "group:none", "group:staff"]);
          expect([...found.keys()].sort()).to.deep.equal(["group:deep", "group:editors", "group:none", "group:staff"]);
          expect(sorted(found.get("group:staff") ?? [])).to.deep.equal(["group:editors"]);
          expect(sorted(found.get("group:editors") ?? [])).to.deep.equal(["group:deep"]);
          expect(sorted(found.get("group:deep") ?? [])).to.deep.equal([]);
          expect(sorted(found.get("group:none") ?? [])).to.deep.equal([]);
          // A group that loses its last holder is no subgroup any more.
          await store.removeUserPrincipal("carol", "group:deep");
          expect(sorted((await store.subgroupsOf(["group:editors"])).get("group:editors") ?? [])).to.deep.equal([]);
          await store.removePrincipal("group:deep");
          expect(sorted((await store.subgroupsOf(["group:editors"])).get("group:editors") ?? [])).to.deep.equal([]);
          expect(await store.subgroupsOf([])).to.deep.equal(new Map());
        });

        it("subgroupsOf: finds groups interleaved with plain holders in id order", async () => {
          // Holders a0..a9 of group:top; every other one is itself held (a group).
          for (let i = 0; i < 10; i++) {
            await store.addUserPrincipal(`a${i}`, "group:top");
            if (i % 2 === 0) await store.addUserPrincipal(`u${i}`, `a${i}`);
          }
          expect(sorted((await store.subgroupsOf(["group:top"])).get("group:top") ?? [])).to.deep.equal(["a0", "a2", "a4", "a6", "a8"]);
        });

        it("holdersPage: direct holders only, after the cursor, in code point order, each with the ids it holds", async () => {
          for (const id of ["b", "a\u{1F600}", "a\uE000", "Zed"]) await store.addUserPrincipal(id, "group:x");
          for (const id of ["b", "c"]) await store.addUserPrincipal(id, "group:y");
          await store.addUserPrincipal("deep", "b");
          const all = await store.holdersPage(["group:x", "group:y", "group:x"], undefined, 10);
          expect(all.map((m) => [m.id, [...m.through]])).to.deep.equal([
            ["Zed", ["group:x"]],
            ["a\uE000", ["group:x"]],
            ["a\u{1F600}", ["group:x"]],
            ["b", ["group:x", "group:y"]],
            ["c", ["group:y"]],
          ]);
          expect((await store.holdersPage(["group:x", "group:y"], "a\uE000", 2)).map((m) => m.id)).to.deep.equal(["a\u{1F600}", "b"]);
          expect((await store.holdersPage(["group:y", "group:x"], "b", 5)).map((m) => m.id)).to.deep.equal(["c"]);
          expect(await store.holdersPage(["group:x"], undefined, 0)).to.deep.equal([]);
          expect(await store.holdersPage([], undefined, 3)).to.deep.equal([]);
          await store.removeUserPrincipal("b", "group:x");
          expect((await store.holdersPage(["group:x"], "a", 5)).map((m) => m.id)).to.deep.equal(["a\uE000", "a\u{1F600}"]);
        });
      });

      describe("with a depth bound of 2", () => {
        let shallow: Harness<PermissionStore>;
        before(async () => {
          shallow = await open({ groupMaxDepth: 2 });
        });
        beforeEach(() => shallow.reset());
        after(() => shallow?.close());

        it("reaches level 2 and not level 3, both ways", async () => {
          const port = shallow.port;
          for (const [member, group] of [
            ["alice", "group:1"],
            ["group:1", "group:2"],
            ["group:2", "group:3"],
            [AUTHENTICATED, "group:all1"],
            ["group:all1", "group:all2"],
            ["group:all2", "group:all3"],
          ] as const)
            await port.addUserPrincipal(member, group);
          expect(sorted(await port.userPrincipals("alice"))).to.deep.equal(["group:1", "group:2", "group:all1", "group:all2"]);
          expect(sorted(await port.membersOf("group:2"))).to.deep.equal(["alice", "group:1"]);
          expect(sorted(await port.membersOf("group:3"))).to.deep.equal(["group:1", "group:2"]);
          const page = await port.membersPage(["group:3", "group:all2"], undefined, 10);
          expect(page.map((m) => [m.id, [...m.through]])).to.deep.equal([
            ["group:1", ["group:3"]],
            ["group:2", ["group:3"]],
            ["group:all1", ["group:all2"]],
            [AUTHENTICATED, ["group:all2"]],
          ]);
        });
      });

      describe("with a depth bound of 1 (no nesting)", () => {
        let flat: Harness<PermissionStore>;
        before(async () => {
          flat = await open({ groupMaxDepth: 1 });
        });
        beforeEach(() => flat.reset());
        after(() => flat?.close());

        it("gives only the principals stored for the user and system.Authenticated", async () => {
          const port = flat.port;
          await port.addUserPrincipal("alice", "group:1");
          await port.addUserPrincipal("group:1", "group:2");
          await port.addUserPrincipal(AUTHENTICATED, "group:all");
          await port.addUserPrincipal("group:all", "group:all2");
          expect(sorted(await port.userPrincipals("alice"))).to.deep.equal(["group:1", "group:all"]);
          expect(sorted(await port.membersOf("group:2"))).to.deep.equal(["group:1"]);
        });
      });
    });

    describe("ACEs", () => {
      it("adds a principal to an ACE", async () => {
        await store.addPrincipalToAce("foo", "write", "bar");
        expect(sorted(await store.objectPermissionPrincipals("foo", "write"))).to.deep.equal(["bar"]);
      });

      it("adds a principal to an ACE only once", async () => {
        await store.addPrincipalToAce("foo", "write", "bar");
        await store.addPrincipalToAce("foo", "write", "bar");
        expect(sorted(await store.objectPermissionPrincipals("foo", "write"))).to.deep.equal(["bar"]);
        expect(plain(await store.objectPermissions("foo"))).to.deep.equal({ write: ["bar"] });
      });

      it("removes a principal from an ACE", async () => {
        await store.addPrincipalToAce("foo", "write", "bar");
        await store.addPrincipalToAce("foo", "write", "foobar");
        await store.removePrincipalFromAce("foo", "write", "bar");
        expect(sorted(await store.objectPermissionPrincipals("foo", "write"))).to.deep.equal(["foobar"]);
      });

      it("returns an empty set once the last principal is removed", async () => {
        await store.addPrincipalToAce("foo", "write", "bar");
        await store.removePrincipalFromAce("foo", "write", "bar");
        expect(sorted(await store.objectPermissionPrincipals("foo", "write"))).to.deep.equal([]);
        expect(plain(await store.objectPermissions("foo"))).to.deep.equal({});
        expect(sorted(await store.principalsAccessibleObjects(["bar"], "write"))).to.deep.equal([]);
      });

      it("ignores the removal of a principal absent from the ACE", async () => {
        await store.addPrincipalToAce("foo", "write", "foobar");
        await store.removePrincipalFromAce("foo", "write", "bar");
        await store.removePrincipalFromAce("unknown", "write", "bar");
        expect(sorted(await store.objectPermissionPrincipals("foo", "write"))).to.deep.equal(["foobar"]);
      });

      it("returns an empty set for an unknown ACE", async () => {
        expect(sorted(await store.objectPermissionPrincipals("nothing", "read"))).to.deep.equal([]);
      });

      it("does not let the principals of one permission leak into another", async () => {
        await store.addPrincipalToAce("/a", "write", "w");
        await store.addPrincipalToAce("/a", "record:create", "c");
        expect(sorted(await store.objectPermissionPrincipals("/a", "create"))).to.deep.equal([]);
        expect(sorted(await store.objectPermissionPrincipals("/a", "read"))).to.deep.equal([]);
        expect(sorted(await store.objectPermissionPrincipals("/a", "record:create"))).to.deep.equal(["c"]);
      });

      it("returns a fresh set that callers may modify", async () => {
        await store.addPrincipalToAce("foo", "write", "bar");
        (await store.objectPermissionPrincipals("foo", "write")).add("intruder");
        expect(sorted(await store.objectPermissionPrincipals("foo", "write"))).to.deep.equal(["bar"]);
      });

      it("treats ACE object ids with `:`, `%`, `_`, `*` and glob characters as plain strings", async () => {
        const ids = ["/a:b/1", "/a%/1", "/a_/1", "/a[1]/?", "/a\\b/1", "/é/ü"];
        for (const id of ids) await store.addPrincipalToAce(id, "read", `p-${id}`);
        for (const id of ids) {
          expect(sorted(await store.objectPermissionPrincipals(id, "read"))).to.deep.equal([`p-${id}`]);
        }
        expect(sorted(await store.objectPermissionPrincipals("/ab/1", "read"))).to.deep.equal([]);
        expect(sorted(await store.objectPermissionPrincipals("/a/1", "read"))).to.deep.equal([]);
      });
    });

    describe("checkPermission", () => {
      it("grants a principal holding the ACE", async () => {
        await store.addPrincipalToAce("foo", "write", "bar");
        expect(await store.checkPermission("foo", "write", ["bar"])).to.equal(true);
      });

      it("grants when one of several principals holds it (a group)", async () => {
        await store.addUserPrincipal("foobar", "bar");
        await store.addPrincipalToAce("foo", "write", "bar");
        expect(await store.checkPermission("foo", "write", ["foobar", "bar"])).to.equal(true);
      });

      it("refuses an unknown principal", async () => {
        await store.addPrincipalToAce("foo", "write", "bar");
        expect(await store.checkPermission("foo", "write", ["baz"])).to.equal(false);
        expect(await store.checkPermission("foo", "read", ["bar"])).to.equal(false);
        expect(await store.checkPermission("fo", "write", ["bar"])).to.equal(false);
      });

      it("refuses when nothing is stored", async () => {
        expect(await store.checkPermission("foo", "write", ["bar"])).to.equal(false);
      });

      it("refuses an empty principal list", async () => {
        await store.addPrincipalToAce("foo", "write", "bar");
        expect(await store.checkPermission("foo", "write", [])).to.equal(false);
      });

      it("grants through a bound permission (write implies read)", async () => {
        await store.addPrincipalToAce("foo", "write", "bar");
        const bound: BoundPermissionsFn = (objectId, permission) => [
          { objectId, permission },
          { objectId, permission: "write" },
        ];
        expect(await store.checkPermission("foo", "read", ["bar"], bound)).to.equal(true);
        expect(await store.checkPermission("foo", "read", ["bar"])).to.equal(false);
      });

      it("refuses when the bound permissions are empty", async () => {
        await store.addPrincipalToAce("foo", "write", "bar");
        expect(await store.checkPermission("foo", "write", ["bar"], () => [])).to.equal(false);
      });

      it("grants a record permission through its collection with the default rules", async () => {
        await store.addPrincipalToAce("/articles", "write", "editor");
        await store.addPrincipalToAce("/articles/r1", "read", "reader");
        expect(await store.checkPermission("/articles/r1", "read", ["editor"], defaultBoundPermissions)).to.equal(true);
        expect(await store.checkPermission("/articles/r1", "write", ["editor"], defaultBoundPermissions)).to.equal(true);
        expect(await store.checkPermission("/articles/r1", "read", ["reader"], defaultBoundPermissions)).to.equal(true);
        expect(await store.checkPermission("/articles/r1", "write", ["reader"], defaultBoundPermissions)).to.equal(false);
        expect(await store.checkPermission("/articles/r2", "read", ["reader"], defaultBoundPermissions)).to.equal(false);
        expect(await store.checkPermission("/articles", "create", ["editor"], defaultBoundPermissions)).to.equal(true);
      });

      it("matches bound object ids exactly: `*`, `%` and `_` are not wildcards here", async () => {
        await store.addPrincipalToAce("/a/x", "read", "bar");
        await store.addPrincipalToAce("/b_/1", "read", "bar");
        expect(await store.checkPermission("/a/*", "read", ["bar"])).to.equal(false);
        expect(await store.checkPermission("/a/%", "read", ["bar"])).to.equal(false);
        expect(await store.checkPermission("/bc/1", "read", ["bar"])).to.equal(false);
        expect(await store.checkPermission("/b_/1", "read", ["bar"])).to.equal(true);
      });
    });

    describe("objectPermissionAuthorizedPrincipals", () => {
      it("returns the principals of the exact ACE without bound permissions", async () => {
        await store.addPrincipalToAce("foo", "write", "bar");
        await store.addPrincipalToAce("foo", "read", "baz");
        expect(sorted(await store.objectPermissionAuthorizedPrincipals("foo", "read"))).to.deep.equal(["baz"]);
      });

      it("unites the principals of every bound permission", async () => {
        await store.addPrincipalToAce("foo", "write", "bar");
        await store.addPrincipalToAce("foo", "read", "baz");
        const bound: BoundPermissionsFn = (objectId, permission) => [
          { objectId, permission },
          { objectId, permission: "write" },
        ];
        expect(sorted(await store.objectPermissionAuthorizedPrincipals("foo", "read", bound))).to.deep.equal(["bar", "baz"]);
      });

      it("follows the default inheritance rules to the collection", async () => {
        await store.addPrincipalToAce("/articles", "write", "editor");
        await store.addPrincipalToAce("/articles", "read", "fan");
        await store.addPrincipalToAce("/articles/r1", "read", "reader");
        await store.addPrincipalToAce("/articles/r2", "read", "other");
        expect(sorted(await store.objectPermissionAuthorizedPrincipals("/articles/r1", "read", defaultBoundPermissions))).to.deep.equal([
          "editor",
          "fan",
          "reader",
        ]);
      });

      it("returns an empty set when nothing matches or nothing is bound", async () => {
        expect(sorted(await store.objectPermissionAuthorizedPrincipals("foo", "read"))).to.deep.equal([]);
        await store.addPrincipalToAce("foo", "read", "bar");
        expect(sorted(await store.objectPermissionAuthorizedPrincipals("foo", "read", () => []))).to.deep.equal([]);
      });
    });

    describe("principalsAccessibleObjects", () => {
      async function seedKintoExample(): Promise<void> {
        await store.addPrincipalToAce("id1", "write", "user1");
        await store.addPrincipalToAce("id1", "read", "user1");
        await store.addPrincipalToAce("id1", "read", "group");
        await store.addPrincipalToAce("id2", "write", "user1");
        await store.addPrincipalToAce("id2", "read", "user2");
        await store.addPrincipalToAce("id2", "read", "group");
        await store.addPrincipalToAce("id3", "read", "user2");
        await store.addPrincipalToAce("id4", "object:create", "group");
      }

      it("lists the objects on which the principals hold the permission", async () => {
        await seedKintoExample();
        expect(sorted(await store.principalsAccessibleObjects(["user1", "group"], "read"))).to.deep.equal(["id1", "id2"]);
        expect(sorted(await store.principalsAccessibleObjects(["user2"], "read"))).to.deep.equal(["id2", "id3"]);
        expect(sorted(await store.principalsAccessibleObjects(["user1"], "write"))).to.deep.equal(["id1", "id2"]);
        expect(sorted(await store.principalsAccessibleObjects(["group"], "object:create"))).to.deep.equal(["id4"]);
      });

      it("matches the permission name exactly (no suffix match)", async () => {
        await seedKintoExample();
        expect(sorted(await store.principalsAccessibleObjects(["group"], "create"))).to.deep.equal([]);
      });

      it("returns an empty set for no principals or unknown ones", async () => {
        await seedKintoExample();
        expect(sorted(await store.principalsAccessibleObjects([], "read"))).to.deep.equal([]);
        expect(sorted(await store.principalsAccessibleObjects(["stranger"], "read"))).to.deep.equal([]);
        expect(sorted(await store.principalsAccessibleObjects([], "read", "*", defaultBoundPermissions))).to.deep.equal([]);
      });

      it("does not expand group membership itself", async () => {
        await store.addUserPrincipal("user1", "group");
        await store.addPrincipalToAce("id1", "write", "user1");
        await store.addPrincipalToAce("id2", "write", "group");
        expect(sorted(await store.principalsAccessibleObjects(["user1"], "write"))).to.deep.equal(["id1"]);
      });

      it("filters with a pattern with leading and trailing wildcards", async () => {
        await store.addPrincipalToAce("/url1/id", "write", "user1");
        await store.addPrincipalToAce("/url2/id", "write", "user1");
        expect(sorted(await store.principalsAccessibleObjects(["user1"], "write", "*url1*"))).to.deep.equal(["/url1/id"]);
      });

      it("lets `*` span several path segments, and match nothing", async () => {
        await store.addPrincipalToAce("/url1/id", "write", "user1");
        await store.addPrincipalToAce("/url1/id/sub", "write", "user1");
        await store.addPrincipalToAce("/a/url1/id", "write", "user1");
        await store.addPrincipalToAce("/url1", "write", "user1");
        expect(sorted(await store.principalsAccessibleObjects(["user1"], "write", "/url1/*"))).to.deep.equal(["/url1/id", "/url1/id/sub"]);
        expect(sorted(await store.principalsAccessibleObjects(["user1"], "write", "/url1*"))).to.deep.equal([
          "/url1",
          "/url1/id",
          "/url1/id/sub",
        ]);
      });

      it("matches a pattern without `*` exactly", async () => {
        await store.addPrincipalToAce("/url1", "write", "user1");
        await store.addPrincipalToAce("/url1/id", "write", "user1");
        expect(sorted(await store.principalsAccessibleObjects(["user1"], "write", "/url1"))).to.deep.equal(["/url1"]);
        expect(sorted(await store.principalsAccessibleObjects(["user1"], "write", "/url"))).to.deep.equal([]);
      });

      it("supports a wildcard in the middle of a pattern", async () => {
        await store.addPrincipalToAce("/a/x/c", "read", "u");
        await store.addPrincipalToAce("/a/x/y/c", "read", "u");
        await store.addPrincipalToAce("/a/c", "read", "u");
        await store.addPrincipalToAce("/a/x/d", "read", "u");
        await store.addPrincipalToAce("/b/x/c", "read", "u");
        expect(sorted(await store.principalsAccessibleObjects(["u"], "read", "/a/*/c"))).to.deep.equal(["/a/x/c", "/a/x/y/c"]);
        expect(sorted(await store.principalsAccessibleObjects(["u"], "read", "*/c"))).to.deep.equal([
          "/a/c",
          "/a/x/c",
          "/a/x/y/c",
          "/b/x/c",
        ]);
        expect(sorted(await store.principalsAccessibleObjects(["u"], "read", "/a/*/*"))).to.deep.equal(["/a/x/c", "/a/x/d", "/a/x/y/c"]);
      });

      it("treats `%` and `_` in patterns and ids literally", async () => {
        await store.addPrincipalToAce("/url/a/id/1", "read", "user1");
        await store.addPrincipalToAce("/url/_/id/2", "read", "user1");
        await store.addPrincipalToAce("/url/%/id/3", "read", "user1");
        await store.addPrincipalToAce("/url/ab/id/4", "read", "user1");
        expect(sorted(await store.principalsAccessibleObjects(["user1"], "read", "/url/_/id/*"))).to.deep.equal(["/url/_/id/2"]);
        expect(sorted(await store.principalsAccessibleObjects(["user1"], "read", "/url/%/id/*"))).to.deep.equal(["/url/%/id/3"]);
        expect(sorted(await store.principalsAccessibleObjects(["user1"], "read", "/url/a%"))).to.deep.equal([]);
        expect(sorted(await store.principalsAccessibleObjects(["user1"], "read", "/url/__/id/4"))).to.deep.equal([]);
      });

      it("treats glob and regex characters in patterns literally", async () => {
        await store.addPrincipalToAce("/c/a.b", "read", "u");
        await store.addPrincipalToAce("/c/axb", "read", "u");
        await store.addPrincipalToAce("/c/[x]", "read", "u");
        await store.addPrincipalToAce("/c/x", "read", "u");
        await store.addPrincipalToAce("/c/?", "read", "u");
        await store.addPrincipalToAce("/c/\\", "read", "u");
        expect(sorted(await store.principalsAccessibleObjects(["u"], "read", "/c/a.b"))).to.deep.equal(["/c/a.b"]);
        expect(sorted(await store.principalsAccessibleObjects(["u"], "read", "/c/[x]"))).to.deep.equal(["/c/[x]"]);
        expect(sorted(await store.principalsAccessibleObjects(["u"], "read", "/c/?"))).to.deep.equal(["/c/?"]);
        expect(sorted(await store.principalsAccessibleObjects(["u"], "read", "/c/\\"))).to.deep.equal(["/c/\\"]);
        expect(sorted(await store.principalsAccessibleObjects(["u"], "read", "/c/[*"))).to.deep.equal(["/c/[x]"]);
      });

      it("unites several bound permissions", async () => {
        await store.addPrincipalToAce("/url/a/id/1", "write", "user1");
        await store.addPrincipalToAce("/url/a/id/2", "read", "user1");
        await store.addPrincipalToAce("/url/_/id/2", "read", "user1");
        const bound: BoundPermissionsFn = (objectId) => [
          { objectId, permission: "read" },
          { objectId, permission: "write" },
        ];
        expect(sorted(await store.principalsAccessibleObjects(["user1"], "read", "/url/a/id/*", bound))).to.deep.equal([
          "/url/a/id/1",
          "/url/a/id/2",
        ]);
      });

      it("includes objects granted through the parent's bound permissions (default rules)", async () => {
        await store.addPrincipalToAce("/url/a", "write", "user1");
        await store.addPrincipalToAce("/url/a/id/1", "write", "user1");
        await store.addPrincipalToAce("/url/b/id/1", "write", "user1");
        await store.addPrincipalToAce("/url/a/id/2", "read", "user1");
        await store.addPrincipalToAce("/url/b/id/2", "read", "user1");
        const bound: BoundPermissionsFn = () => [
          { objectId: "/url/a", permission: "write" },
          { objectId: "/url/a", permission: "read" },
          { objectId: "/url/a/id/*", permission: "write" },
          { objectId: "/url/a/id/*", permission: "read" },
        ];
        expect(sorted(await store.principalsAccessibleObjects(["user1"], "read", "/url/a/id/*", bound))).to.deep.equal([
          "/url/a",
          "/url/a/id/1",
          "/url/a/id/2",
        ]);
      });

      it("lists shared records of a collection with defaultBoundPermissions", async () => {
        await store.addPrincipalToAce("/articles/r1", "read", "alice");
        await store.addPrincipalToAce("/articles/r2", "write", "alice");
        await store.addPrincipalToAce("/articles/r3", "read", "bob");
        await store.addPrincipalToAce("/articles/r4", "create", "alice");
        await store.addPrincipalToAce("/articlesx/r5", "read", "alice");
        await store.addPrincipalToAce("/other/r6", "read", "alice");
        const ids = await store.principalsAccessibleObjects(["alice", "system.Everyone"], "read", "/articles/*", defaultBoundPermissions);
        expect(sorted(ids)).to.deep.equal(["/articles/r1", "/articles/r2"]);
        await store.addPrincipalToAce("/articles", "read", "system.Everyone");
        const withCollection = await store.principalsAccessibleObjects(
          ["alice", "system.Everyone"],
          "read",
          "/articles/*",
          defaultBoundPermissions,
        );
        expect(sorted(withCollection)).to.deep.equal(["/articles", "/articles/r1", "/articles/r2"]);
      });

      it("passes `*` to the bound permissions function when no pattern is given", async () => {
        const asked: string[] = [];
        const bound: BoundPermissionsFn = (objectId, permission) => {
          asked.push(`${objectId} ${permission}`);
          return [{ objectId, permission }];
        };
        await store.addPrincipalToAce("/a/1", "read", "u");
        expect(sorted(await store.principalsAccessibleObjects(["u"], "read", undefined, bound))).to.deep.equal(["/a/1"]);
        expect(asked).to.deep.equal(["* read"]);
      });

      it("returns an empty set when the bound permissions are empty", async () => {
        await store.addPrincipalToAce("/a/1", "read", "u");
        expect(sorted(await store.principalsAccessibleObjects(["u"], "read", "*", () => []))).to.deep.equal([]);
      });

      it("forgets objects whose ACE was removed, replaced or deleted", async () => {
        await store.addPrincipalToAce("/a/1", "read", "u");
        await store.addPrincipalToAce("/a/2", "read", "u");
        await store.addPrincipalToAce("/a/3", "read", "u");
        await store.removePrincipalFromAce("/a/1", "read", "u");
        await store.replaceObjectPermissions("/a/2", { read: ["v"] });
        await store.deleteObjectPermissions("/a/3");
        expect(sorted(await store.principalsAccessibleObjects(["u"], "read", "/a/*"))).to.deep.equal([]);
        expect(sorted(await store.principalsAccessibleObjects(["v"], "read", "/a/*"))).to.deep.equal(["/a/2"]);
      });
    });

    describe("manyObjectPermissions", () => {
      it("returns each object's ACL for the permissions asked, in the order asked, empty for objects without ACE", async () => {
        await store.addPrincipalToAce("/m/1", "read", "a");
        await store.addPrincipalToAce("/m/1", "write", "b");
        await store.addPrincipalToAce("/m/1", "create", "c");
        await store.addPrincipalToAce("/m/2", "write", "a");
        await store.addPrincipalToAce("/m/2", "write", "d");
        await store.addPrincipalToAce("/m/1/sub", "read", "e");
        await store.addPrincipalToAce("/m/_", "read", "f");
        const acls = await store.manyObjectPermissions(["/m/3", "/m/2", "/m/1", "/m/*", "/m/2"], ["read", "write", "missing"]);
        expect([...acls.entries()].map(([id, acl]) => [id, plain(acl)])).to.deep.equal([
          ["/m/3", {}],
          ["/m/2", { write: ["a", "d"] }],
          ["/m/1", { read: ["a"], write: ["b"] }],
          ["/m/*", {}],
        ]);
      });

      it("answers empty inputs without failing", async () => {
        await store.addPrincipalToAce("/m/1", "read", "a");
        expect([...(await store.manyObjectPermissions([], ["read"]))]).to.deep.equal([]);
        expect([...(await store.manyObjectPermissions(["/m/1"], []))].map(([id, acl]) => [id, plain(acl)])).to.deep.equal([["/m/1", {}]]);
      });
    });

    describe("objectPermissions", () => {
      it("returns every ACE of the object, and none of its children", async () => {
        await store.addPrincipalToAce("/url/a/id/1", "write", "user1");
        await store.addPrincipalToAce("/url/a/id/1", "write", "user2");
        await store.addPrincipalToAce("/url/a/id/1", "read", "user3");
        await store.addPrincipalToAce("/url/a/id/1", "obj:del", "user1");
        await store.addPrincipalToAce("/url/a/id/1/sub", "create", "me");
        await store.addPrincipalToAce("/url/a/id/10", "read", "other");
        expect(plain(await store.objectPermissions("/url/a/id/1"))).to.deep.equal({
          write: ["user1", "user2"],
          read: ["user3"],
          "obj:del": ["user1"],
        });
      });

      it("restricts the ACL to the permissions asked", async () => {
        await store.addPrincipalToAce("/url/a/id/1", "write", "user1");
        await store.addPrincipalToAce("/url/a/id/1", "write", "user2");
        await store.addPrincipalToAce("/url/a/id/1", "read", "user3");
        await store.addPrincipalToAce("/url/a/id/1", "create", "user1");
        expect(plain(await store.objectPermissions("/url/a/id/1", ["write", "read", "missing"]))).to.deep.equal({
          write: ["user1", "user2"],
          read: ["user3"],
        });
      });

      it("returns an empty ACL for an empty permission list", async () => {
        await store.addPrincipalToAce("/x", "write", "user1");
        expect(plain(await store.objectPermissions("/x", []))).to.deep.equal({});
      });

      it("returns an empty ACL for an unknown object", async () => {
        expect(plain(await store.objectPermissions("/abc"))).to.deep.equal({});
        expect(plain(await store.objectPermissions(""))).to.deep.equal({});
      });

      it("does not treat the object id as a pattern", async () => {
        await store.addPrincipalToAce("/a/1", "read", "u");
        expect(plain(await store.objectPermissions("/a/*"))).to.deep.equal({});
        expect(plain(await store.objectPermissions("/a/_"))).to.deep.equal({});
      });
    });

    describe("replaceObjectPermissions", () => {
      it("replaces every given set and drops emptied ones", async () => {
        await store.replaceObjectPermissions("/o", { write: ["user1", "user2"], read: ["user3"], update: ["user1"], "obj:del": ["user1"] });
        await store.replaceObjectPermissions("/o", { write: ["user1"], read: ["user2"], update: [], "obj:del": ["user1"], new: ["user3"] });
        expect(plain(await store.objectPermissions("/o"))).to.deep.equal({
          write: ["user1"],
          read: ["user2"],
          "obj:del": ["user1"],
          new: ["user3"],
        });
        expect(sorted(await store.objectPermissionPrincipals("/o", "update"))).to.deep.equal([]);
      });

      it("replaces only the given sets", async () => {
        await store.replaceObjectPermissions("/o", { write: ["user1", "user2"], read: ["user3"], "obj:del": ["user1"] });
        await store.replaceObjectPermissions("/o", { write: ["user1"], new: new Set(["user2"]) });
        expect(plain(await store.objectPermissions("/o"))).to.deep.equal({
          write: ["user1"],
          read: ["user3"],
          "obj:del": ["user1"],
          new: ["user2"],
        });
      });

      it("creates the ACL of an object without permissions", async () => {
        await store.replaceObjectPermissions("/o", { write: ["user1"] });
        expect(plain(await store.objectPermissions("/o"))).to.deep.equal({ write: ["user1"] });
        expect(await store.checkPermission("/o", "write", ["user1"])).to.equal(true);
      });

      it("does nothing for an empty dictionary", async () => {
        await store.replaceObjectPermissions("/o", { write: ["user1"] });
        await store.replaceObjectPermissions("/o", {});
        expect(plain(await store.objectPermissions("/o"))).to.deep.equal({ write: ["user1"] });
      });

      it("deduplicates principals", async () => {
        await store.replaceObjectPermissions("/o", { write: ["user1", "user1"] });
        expect(plain(await store.objectPermissions("/o"))).to.deep.equal({ write: ["user1"] });
      });

      it("removes a permission given an empty list", async () => {
        await store.replaceObjectPermissions("/o", { write: ["user1"] });
        await store.replaceObjectPermissions("/o", { write: new Set<string>() });
        expect(plain(await store.objectPermissions("/o"))).to.deep.equal({});
        expect(sorted(await store.principalsAccessibleObjects(["user1"], "write"))).to.deep.equal([]);
      });

      it("accepts an empty list for a new object", async () => {
        await store.replaceObjectPermissions("/new", { write: [] });
        expect(plain(await store.objectPermissions("/new"))).to.deep.equal({});
      });

      it("keeps the reverse lookups in step", async () => {
        await store.replaceObjectPermissions("/c/1", { read: ["a", "b"] });
        await store.replaceObjectPermissions("/c/1", { read: ["b", "c"] });
        expect(sorted(await store.principalsAccessibleObjects(["a"], "read", "/c/*"))).to.deep.equal([]);
        expect(sorted(await store.principalsAccessibleObjects(["c"], "read", "/c/*"))).to.deep.equal(["/c/1"]);
        expect(await store.checkPermission("/c/1", "read", ["a"])).to.equal(false);
        expect(await store.checkPermission("/c/1", "read", ["c"])).to.equal(true);
      });

      it("does not touch other objects", async () => {
        await store.replaceObjectPermissions("/o/1", { read: ["a"] });
        await store.replaceObjectPermissions("/o/10", { read: ["b"] });
        await store.replaceObjectPermissions("/o/1", { read: [] });
        expect(plain(await store.objectPermissions("/o/10"))).to.deep.equal({ read: ["b"] });
      });
    });

    describe("deleteObjectPermissions", () => {
      async function seed(): Promise<void> {
        await store.addPrincipalToAce("/url/a/id/1", "write", "user1");
        await store.addPrincipalToAce("/url/a/id/1", "write", "user2");
        await store.addPrincipalToAce("/url/a/id/1", "read", "user3");
        await store.addPrincipalToAce("/url/a/id/1", "obj:del", "user1");
        await store.addPrincipalToAce("/url/a/id/2", "create", "user3");
        await store.addPrincipalToAce("/url/a/id/3", "create", "user4");
        await store.addPrincipalToAce("/url/b/id/1", "read", "user1");
      }

      it("deletes every ACE of the given objects", async () => {
        await seed();
        await store.deleteObjectPermissions("/url/a/id/1", "/url/a/id/2");
        expect(plain(await store.objectPermissions("/url/a/id/1"))).to.deep.equal({});
        expect(plain(await store.objectPermissions("/url/a/id/2"))).to.deep.equal({});
        expect(plain(await store.objectPermissions("/url/a/id/3"))).to.deep.equal({ create: ["user4"] });
        expect(sorted(await store.principalsAccessibleObjects(["user1", "user2", "user3"], "write"))).to.deep.equal([]);
      });

      it("does nothing without ids", async () => {
        await seed();
        await store.deleteObjectPermissions();
        expect(plain(await store.objectPermissions("/url/a/id/1"))).to.have.keys("write", "read", "obj:del");
      });

      it("ignores unknown ids, leaving the others", async () => {
        await seed();
        const before = plain(await store.objectPermissions("/url/a/id/1"));
        await store.deleteObjectPermissions("/nothing", "/nothing/*");
        expect(before).to.not.deep.equal({});
        expect(plain(await store.objectPermissions("/url/a/id/1"))).to.deep.equal(before);
      });

      it("deletes with wildcard ids", async () => {
        await seed();
        await store.deleteObjectPermissions("/url/a*");
        expect(plain(await store.objectPermissions("/url/a/id/1"))).to.deep.equal({});
        expect(plain(await store.objectPermissions("/url/a/id/3"))).to.deep.equal({});
        expect(plain(await store.objectPermissions("/url/b/id/1"))).to.deep.equal({ read: ["user1"] });
        expect(sorted(await store.principalsAccessibleObjects(["user1"], "read"))).to.deep.equal(["/url/b/id/1"]);
      });

      it("deletes a collection and its subtree with `id` and `id/*`", async () => {
        await store.addPrincipalToAce("/c", "write", "u");
        await store.addPrincipalToAce("/c/1", "read", "u");
        await store.addPrincipalToAce("/c/1/x", "read", "u");
        await store.addPrincipalToAce("/cc/1", "read", "u");
        await store.deleteObjectPermissions("/c", "/c/*");
        expect(sorted(await store.principalsAccessibleObjects(["u"], "read"))).to.deep.equal(["/cc/1"]);
        expect(sorted(await store.principalsAccessibleObjects(["u"], "write"))).to.deep.equal([]);
      });

      it("deletes with a wildcard in the middle of an id", async () => {
        await store.addPrincipalToAce("/a/x/c", "read", "u");
        await store.addPrincipalToAce("/a/x/d", "read", "u");
        await store.deleteObjectPermissions("/a/*/c");
        expect(sorted(await store.principalsAccessibleObjects(["u"], "read"))).to.deep.equal(["/a/x/d"]);
      });

      it("treats `%` and `_` in ids literally", async () => {
        await store.addPrincipalToAce("/p/_", "read", "u");
        await store.addPrincipalToAce("/p/a", "read", "u");
        await store.addPrincipalToAce("/p/%x", "read", "u");
        await store.addPrincipalToAce("/p/yx", "read", "u");
        await store.deleteObjectPermissions("/p/_", "/p/%x");
        expect(sorted(await store.principalsAccessibleObjects(["u"], "read"))).to.deep.equal(["/p/a", "/p/yx"]);
        await store.deleteObjectPermissions("/p/%");
        expect(sorted(await store.principalsAccessibleObjects(["u"], "read"))).to.deep.equal(["/p/a", "/p/yx"]);
      });

      it("never deletes user principals, even with `*`", async () => {
        await store.addUserPrincipal("user:1", "group");
        await store.addPrincipalToAce("/a", "read", "u");
        await store.deleteObjectPermissions("*");
        expect(sorted(await store.userPrincipals("user:1"))).to.deep.equal(["group"]);
        expect(plain(await store.objectPermissions("/a"))).to.deep.equal({});
      });
    });

    describe("empty inputs", () => {
      it("accepts empty strings everywhere without failing", async () => {
        await store.addUserPrincipal("", "");
        expect(sorted(await store.userPrincipals(""))).to.deep.equal([""]);
        await store.removeUserPrincipal("", "");
        expect(sorted(await store.userPrincipals(""))).to.deep.equal([]);
        await store.addUserPrincipal("u", "");
        await store.removePrincipal("");
        expect(sorted(await store.userPrincipals("u"))).to.deep.equal([]);
        await store.addPrincipalToAce("", "", "");
        expect(sorted(await store.objectPermissionPrincipals("", ""))).to.deep.equal([""]);
        expect(sorted(await store.objectPermissionAuthorizedPrincipals("", ""))).to.deep.equal([""]);
        expect(await store.checkPermission("", "", [""])).to.equal(true);
        expect(await store.checkPermission("", "", [])).to.equal(false);
        expect(sorted(await store.principalsAccessibleObjects([""], ""))).to.deep.equal([""]);
        expect(sorted(await store.principalsAccessibleObjects([], ""))).to.deep.equal([]);
        await store.removePrincipalFromAce("", "", "");
        expect(sorted(await store.objectPermissionPrincipals("", ""))).to.deep.equal([]);
        await store.replaceObjectPermissions("", { write: ["w"] });
        expect(plain(await store.objectPermissions("", ["write"]))).to.deep.equal({ write: ["w"] });
        expect(plain(await store.objectPermissions("", []))).to.deep.equal({});
        await store.replaceObjectPermissions("", { write: [] });
        expect(plain(await store.objectPermissions(""))).to.deep.equal({});
        await store.addPrincipalToAce("", "read", "r");
        await store.deleteObjectPermissions("");
        expect(plain(await store.objectPermissions(""))).to.deep.equal({});
      });
    });
  });
}
