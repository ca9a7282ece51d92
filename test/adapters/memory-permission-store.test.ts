import { expect } from "chai";
import { MemoryPermissionStore } from "../../src/adapters/memory/memory-permission-store.js";
import { permissionStoreContract } from "../contract/permission-store.contract.js";

permissionStoreContract("memory", () => {
  const port = new MemoryPermissionStore();
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
});
