/**
 * Mocha root hook: once every suite has run, the answers the HTTP tests received must all agree
 * with the OpenAPI document of the server that gave them (openapi-conformance.ts).
 */
import type { Context } from "mocha";
import { checkPendingLogs, conformance } from "./openapi-conformance.js";

export const mochaHooks = {
  async afterAll(this: Context): Promise<void> {
    this.timeout(60_000);
    await checkPendingLogs();
    const { problems, checked } = conformance();
    if (problems.length === 0) return;
    const shown = problems.slice(0, 40).join("\n  ");
    console.error(`OpenAPI conformance:\n  ${problems.join("\n  ")}`);
    throw new Error(
      `${problems.length} answers (of ${checked} checked) disagree with the served OpenAPI document:\n  ${shown}${problems.length > 40 ? "\n  …" : ""}`,
    );
  },
};
