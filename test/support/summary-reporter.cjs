// Spec output plus the plain closing line `N passed, N failed[, N skipped]` that CI reads.
const Mocha = require("mocha");
const { EVENT_RUN_END } = Mocha.Runner.constants;

class SummaryReporter extends Mocha.reporters.Spec {
  constructor(runner, options) {
    super(runner, options);
    runner.once(EVENT_RUN_END, () => {
      const { passes, failures, pending } = runner.stats;
      const skipped = pending > 0 ? `, ${pending} skipped` : "";
      process.stdout.write(`\n${passes} passed, ${failures} failed${skipped}\n`);
    });
  }
}
module.exports = SummaryReporter;
