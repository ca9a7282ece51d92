/** The challenges sent with a 401, and what a policy's answer makes of the requester. */
import { expect } from "chai";
import { Authenticator } from "../../src/application/authenticator.js";
import type { AuthenticationPolicy, AuthenticationResult } from "../../src/application/ports/authentication-policy.js";
import { noGroups } from "../../src/application/requester.js";

function policy(name: string, challenge?: string, answer: AuthenticationResult = undefined): AuthenticationPolicy {
  return { name, authenticate: () => answer, ...(challenge === undefined ? {} : { challenge }) };
}

const request = { header: () => undefined };

describe("authenticator", () => {
  it("names every policy's challenge, in order, and none when no policy has one", () => {
    const both = new Authenticator([policy("token"), policy("basicauth", 'Basic realm="Realm"'), policy("other", "Other")], noGroups);
    expect(both.challenge).to.equal('Basic realm="Realm", Other');
    const only = new Authenticator([policy("other", "Other")], noGroups);
    expect(only.challenge).to.equal("Other");
    const none = new Authenticator([policy("token"), policy("portier")], noGroups);
    expect(none.challenge).to.equal(undefined);
    const empty = new Authenticator([], noGroups);
    expect(empty.challenge).to.equal(undefined);
  });

  it("prefixes the first answering policy's id, and adds the principals it returns to the group finder's", async () => {
    const groups = (id: string) => Promise.resolve(id === "sso:ann" ? ["group:stored"] : []);
    const authenticator = new Authenticator(
      [policy("quiet"), policy("sso", undefined, { userId: "ann", principals: ["group:claimed"] }), policy("late", undefined, "x")],
      groups,
    );
    const requester = await authenticator.identify(request);
    expect(requester.userId).to.equal("sso:ann");
    const caller = await requester.caller();
    expect(caller.principals).to.include.members(["sso:ann", "group:claimed", "group:stored", "system.Authenticated"]);
    const again = await requester.resolveAgain?.();
    expect(again?.principals).to.include("group:claimed");
  });

  it("still accepts a bare user id", async () => {
    const requester = await new Authenticator([policy("plain", undefined, "bob")], noGroups).identify(request);
    expect((await requester.caller()).principals).to.include("plain:bob");
  });
});
