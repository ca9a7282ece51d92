import { expect } from "chai";
import { MemoryPermissionStore } from "../../src/adapters/memory/memory-permission-store.js";
import { permissionStoreContract } from "../contract/permission-store.contract.js";

permissionStoreContract("memory", (options) => {
  const port = new MemoryPermissionStore(options?.groupMaxDepth);
  return Promise.resolve({ port, reset: () => port.flush(), close: () => port.close() });
});

describe("MemoryPermissionStore", () => {
  it("returns ACL sets that do not alias its own", async () => {
    const store = new MemoryPermissionStore();
    await store.addPrincipalToAce("/a", "read", "u");
    const acl = await store.objectPermissions("/a");
    acl.read?.add("intruder");
    expect([...(await store.objectPermissionPrincipals("/a", "read"))]).to.deep.equal(["u"]);
  });

  it("does not keep a replaced set given by the caller", async () => {
    const store = new MemoryPermissionStore();
    const given = new Set(["u"]);
    await store.replaceObjectPermissions("/a", { read: given });
    given.add("intruder");
    expect([...(await store.objectPermissionPrincipals("/a", "read"))]).to.deep.equal(["u"]);
  });

  describe("reverse index (principal → permission → object ids)", () => {
    const sorted = async (promise: Promise<Set<string>>) => [...(await promise)].sort();

    it("forgets a grant removed from an ACE, and a principal whose last grant went", async () => {
      const store = new MemoryPermissionStore();
      await store.addPrincipalToAce("/articles/a", "read", "u");
      await store.addPrincipalToAce("/articles/b", "read", "u");
      await store.addPrincipalToAce("/articles/b", "read", "v");
      await store.removePrincipalFromAce("/articles/a", "read", "u");
      expect(await sorted(store.principalsAccessibleObjects(["u"], "read", "/articles/*"))).to.deep.equal(["/articles/b"]);
      await store.removePrincipalFromAce("/articles/b", "read", "u");
      expect(await sorted(store.principalsAccessibleObjects(["u"], "read"))).to.deep.equal([]);
      expect(await sorted(store.principalsAccessibleObjects(["v"], "read"))).to.deep.equal(["/articles/b"]);
    });

    it("follows replaceObjectPermissions: dropped principals lose the object, new ones gain it", async () => {
      const store = new MemoryPermissionStore();
      await store.addPrincipalToAce("/articles/a", "write", "u");
      await store.addPrincipalToAce("/articles/a", "read", "u");
      await store.replaceObjectPermissions("/articles/a", { write: ["v", "w"], read: [] });
      expect(await sorted(store.principalsAccessibleObjects(["u"], "write"))).to.deep.equal([]);
      expect(await sorted(store.principalsAccessibleObjects(["u"], "read"))).to.deep.equal([]);
      expect(await sorted(store.principalsAccessibleObjects(["w"], "write", "/articles/a"))).to.deep.equal(["/articles/a"]);
      await store.replaceObjectPermissions("/articles/a", { write: ["w"] });
      expect(await sorted(store.principalsAccessibleObjects(["v"], "write"))).to.deep.equal([]);
    });

    it("follows deletes by id and by wildcard, and flush", async () => {
      const store = new MemoryPermissionStore();
      for (const id of ["/articles", "/articles/a", "/articles/b", "/articlesX/c", "/notes/a"])
        await store.addPrincipalToAce(id, "read", "u");
      await store.deleteObjectPermissions("/articles/a");
      expect(await sorted(store.principalsAccessibleObjects(["u"], "read"))).to.deep.equal([
        "/articles",
        "/articles/b",
        "/articlesX/c",
        "/notes/a",
      ]);
      await store.deleteObjectPermissions("/articles*");
      expect(await sorted(store.principalsAccessibleObjects(["u"], "read"))).to.deep.equal(["/notes/a"]);
      // Re-granting after a delete works from a clean slate.
      await store.addPrincipalToAce("/articles/b", "read", "u");
      expect(await sorted(store.principalsAccessibleObjects(["u"], "read", "/articles/*"))).to.deep.equal(["/articles/b"]);
      await store.flush();
      expect(await sorted(store.principalsAccessibleObjects(["u"], "read"))).to.deep.equal([]);
    });

    it("matches patterns and literal ids only on the callers' grants, through bound permissions", async () => {
      const store = new MemoryPermissionStore();
      await store.addPrincipalToAce("/articles/a", "read", "u");
      await store.addPrincipalToAce("/articles/b", "write", "g");
      await store.addPrincipalToAce("/articles/c", "read", "other");
      await store.addPrincipalToAce("/articles", "write", "g");
      const bound = (objectId: string, permission: string) => [
        { objectId, permission },
        { objectId, permission: "write" },
        { objectId: "/articles", permission: "write" },
      ];
      expect(await sorted(store.principalsAccessibleObjects(["u", "g", "u"], "read", "/articles/*", bound))).to.deep.equal([
        "/articles",
        "/articles/a",
        "/articles/b",
      ]);
      expect(await sorted(store.principalsAccessibleObjects(["u"], "read", "/articles/a"))).to.deep.equal(["/articles/a"]);
      expect(await sorted(store.principalsAccessibleObjects(["u"], "read", "/articles/b"))).to.deep.equal([]);
    });

    it("agrees with a scan of every ACE after random operations", async () => {
      const store = new MemoryPermissionStore();
      const objects = ["/a", "/a/1", "/a/2", "/a/1/x", "/b", "/b/1", "/ab/1"];
      const principals = ["u", "v", "w"];
      const permissions = ["read", "write"];
      let seed = 7;
      const pick = <T>(items: readonly T[]): T => {
        seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
        return items[seed % items.length]!;
      };
      for (let step = 0; step < 400; step += 1) {
        const op = pick([0, 0, 0, 1, 1, 2, 3]);
        if (op === 0) await store.addPrincipalToAce(pick(objects), pick(permissions), pick(principals));
        else if (op === 1) await store.removePrincipalFromAce(pick(objects), pick(permissions), pick(principals));
        else if (op === 2)
          await store.replaceObjectPermissions(pick(objects), { [pick(permissions)]: principals.filter(() => pick([true, false])) });
        else await store.deleteObjectPermissions(pick(["/a/*", "/a/1", "*1", "/b*"]));
        const principal = pick(principals);
        const permission = pick(permissions);
        const pattern = pick(["*", "/a/*", "/a/1", "*1*"]);
        const regexp = new RegExp(`^${pattern.replaceAll("*", ".*")}$`);
        const expected: string[] = [];
        for (const objectId of objects) {
          if (regexp.test(objectId) && (await store.objectPermissionPrincipals(objectId, permission)).has(principal))
            expected.push(objectId);
        }
        expect(await sorted(store.principalsAccessibleObjects([principal], permission, pattern)), `step ${step}`).to.deep.equal(
          expected.sort(),
        );
      }
    });
  });
});
