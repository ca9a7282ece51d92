/**
 * The per-address bounds on userinfo lookups, on their own: the refusal budget per window, the
 * share of the concurrent slots, charges given back for accepted tokens, and bounded memory.
 */
import { expect } from "chai";
import { MAX_ADDRESSES, UserinfoAdmission, type LookupTicket } from "../../src/adapters/auth/openid/userinfo-admission.js";

function ticket(admission: UserinfoAdmission, address: string): LookupTicket {
  const admitted = admission.admit(address);
  if (typeof admitted === "string") return expect.fail(`${address}: ${admitted}`);
  return admitted;
}

describe("userinfo admission per client address", () => {
  let clock = 0;
  const now = () => clock;

  it("spends the budget on refusals only, and gives it back when the window ends", () => {
    const admission = new UserinfoAdmission(3, 60_000, now);
    for (let i = 0; i < 3; i += 1) ticket(admission, "a").finish(true);
    expect(admission.admit("a")).to.equal("spent");
    expect(admission.admit("b")).to.not.be.a("string");
    clock += 59_999;
    expect(admission.admit("a")).to.equal("spent");
    clock += 1;
    ticket(admission, "a").finish(false);
    for (let i = 0; i < 3; i += 1) ticket(admission, "a").finish(false); // accepted: no charge
    for (let i = 0; i < 3; i += 1) ticket(admission, "a").finish(true);
    expect(admission.admit("a")).to.equal("spent");
  });

  it("charges a lookup while it runs, also into the next window, and once whatever finish is called", () => {
    const admission = new UserinfoAdmission(2, 1000, now);
    const running = ticket(admission, "a");
    clock += 1000;
    const second = ticket(admission, "a");
    expect(admission.admit("a")).to.equal("spent");
    running.finish(false);
    running.finish(false);
    second.finish(true);
    ticket(admission, "a").finish(true);
    expect(admission.admit("a")).to.equal("spent");
  });

  it("gives an address 4 of the 16 slots: busy beyond, and other addresses served", () => {
    const admission = new UserinfoAdmission(100, 60_000, now);
    const held = Array.from({ length: 4 }, () => ticket(admission, "a"));
    expect(admission.admit("a")).to.equal("busy");
    const others = ["b", "c", "d"].flatMap((address) => Array.from({ length: 4 }, () => ticket(admission, address)));
    expect(admission.admit("e")).to.equal("busy"); // 16 running
    held[0]?.finish(true);
    ticket(admission, "e").finish(true);
    for (const t of [...held, ...others]) t.finish(true);
    expect(admission.admit("a")).to.not.be.a("string");
  });

  it("keeps at most MAX_ADDRESSES addresses, forgetting those whose window is over first", () => {
    const admission = new UserinfoAdmission(1, 1000, now);
    for (let i = 0; i < MAX_ADDRESSES; i += 1) ticket(admission, `old-${i}`).finish(true);
    clock += 1000;
    ticket(admission, "late").finish(true);
    expect(admission.addressesKept).to.equal(1);
    for (let i = 0; i < MAX_ADDRESSES + 50; i += 1) ticket(admission, `new-${i}`).finish(true);
    expect(admission.addressesKept).to.equal(MAX_ADDRESSES);
    // In-window addresses forgotten (oldest first) only when the map is full: the newest are still counted.
    expect(admission.admit(`new-${MAX_ADDRESSES + 49}`)).to.equal("spent");
  });
});
