/**
 * Contract: `lostAccessAfter` gives the losses still in force after t, with the principals whose
 * newest loss each one is (the live feed's question, once per burst).
 */
import { expect } from "chai";
import { scopeOf, seed } from "../record-store/fixture.js";
import type { JournalRef } from "./fixture.js";
import { loseByWrite } from "./lost-access.js";

export function lossesAfterCases({ store, journal }: JournalRef): void {
  const articles = scopeOf("articles");
  const both = () => ({ records: store(), journal: journal() });

  describe("losses after a timestamp", () => {
    it("gives the losses in force after a timestamp, ascending, each with the principals whose newest loss it is", async () => {
      await seed(store(), articles, [{}, {}, {}]);
      const before = await store().collectionTimestamp(articles);
      const [first, second] = await loseByWrite(both(), articles, [
        { id: "r0", principals: ["bob", "carol"] },
        { id: "r1", principals: ["bob"] },
      ]);
      const [third] = await loseByWrite(both(), articles, [{ id: "r0", principals: ["carol"] }]);
      expect(await journal().lostAccessAfter(articles, before)).to.deep.equal([
        { id: "r0", lastModified: first, principals: ["bob"] },
        { id: "r1", lastModified: second, principals: ["bob"] },
        { id: "r0", lastModified: third, principals: ["carol"] },
      ]);
      expect(await journal().lostAccessAfter(articles, second ?? 0)).to.deep.equal([
        { id: "r0", lastModified: third, principals: ["carol"] },
      ]);
      expect(await journal().lostAccessAfter(articles, before, { principals: ["bob", "dave"] }), "bob's alone").to.deep.equal([
        { id: "r0", lastModified: first, principals: ["bob"] },
        { id: "r1", lastModified: second, principals: ["bob"] },
      ]);
      expect(await journal().lostAccessAfter(articles, before, { principals: ["dave"] })).to.deep.equal([]);
      expect(await journal().lostAccessAfter(articles, before, { principals: [] }), "no principals").to.deep.equal([]);
      expect(await journal().lostAccessAfter(articles, before, { limit: 2 }), "the first two").to.deep.equal([
        { id: "r0", lastModified: first, principals: ["bob"] },
        { id: "r1", lastModified: second, principals: ["bob"] },
      ]);
      expect(await journal().lostAccessAfter(articles, before, { principals: ["carol"], limit: 1 }), "carol's first").to.deep.equal([
        { id: "r0", lastModified: third, principals: ["carol"] },
      ]);
      expect(await journal().lostAccessAfter(scopeOf("other"), 0)).to.deep.equal([]);
      await journal().purge(articles);
      expect(await journal().lostAccessAfter(articles, 0)).to.deep.equal([]);
    });

    it("gives a principal's losses whatever its bytes (quotes, backslashes, braces, commas, non-ASCII)", async () => {
      await seed(store(), articles, [{}, {}]);
      const before = await store().collectionTimestamp(articles);
      const odd = `o'brien\\"{a,b}" NULL ünï`;
      const { first } = await journal().stampLostAccess(articles, odd, ["r0"]);
      await journal().stampLostAccess(articles, "bob", ["r1"]);
      expect(await journal().lostAccessAfter(articles, before, { principals: [odd, "dave"] })).to.deep.equal([
        { id: "r0", lastModified: first, principals: [odd] },
      ]);
    });
  });
}
