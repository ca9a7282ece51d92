/** The heartbeat: every registered check, each bounded by a timeout, run in parallel. */

/** true: healthy, false: failing, null: not configured (e.g. no permission backend). */
export type HealthCheck = () => Promise<boolean | null>;

export class HealthService {
  private readonly checks = new Map<string, HealthCheck>();

  constructor(private readonly timeoutMs: number) {}

  register(name: string, check: HealthCheck): void {
    this.checks.set(name, check);
  }

  /** Each check's result; a check that throws or outlives the timeout counts as failing. */
  async run(): Promise<Record<string, boolean | null>> {
    const entries = await Promise.all([...this.checks].map(async ([name, check]) => [name, await this.bounded(check)] as const));
    return Object.fromEntries(entries);
  }

  private bounded(check: HealthCheck): Promise<boolean | null> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), this.timeoutMs);
    });
    const attempt = Promise.resolve()
      .then(check)
      .catch(() => false); // a check may even throw synchronously
    return Promise.race([attempt, timeout]).finally(() => clearTimeout(timer));
  }
}
