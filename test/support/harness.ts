/** What a contract suite needs from an adapter's test file. */
export interface Harness<P> {
  port: P;
  /** Empties the backend between tests. */
  reset(): Promise<void>;
  close(): Promise<void>;
}
