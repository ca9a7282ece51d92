/** The challenge sent with a 401: the first policy's that has one. */
import { expect } from "chai";
import { Authenticator } from "../../src/application/authenticator.js";
import type { AuthenticationPolicy } from "../../src/application/ports/authentication-policy.js";
import { noGroups } from "../../src/application/requester.js";

function policy(name: string, challenge?: string): AuthenticationPolicy {
  return { name, authenticate: () => undefined, ...(challenge === undefined ? {} : { challenge }) };
}

describe("authenticator", () => {
  it("takes the challenge of the first policy that has one, and none when no policy has one", () => {
    const first = new Authenticator([policy("token"), policy("basicauth", 'Basic realm="Realm"'), policy("other", "Other")], noGroups);
    expect(first.challenge).to.equal('Basic realm="Realm"');
    const only = new Authenticator([policy("other", "Other")], noGroups);
    expect(only.challenge).to.equal("Other");
    const none = new Authenticator([policy("token"), policy("portier")], noGroups);
    expect(none.challenge).to.equal(undefined);
    const empty = new Authenticator([], noGroups);
    expect(empty.challenge).to.equal(undefined);
  });
});
