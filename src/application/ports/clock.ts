/** Current time in milliseconds since the epoch. Injected so tests can fix it. */
export interface Clock {
  now(): number;
}

/** Generates ids for records posted without one. Every id matches the record id pattern. */
export interface IdGenerator {
  generate(): string;
}
