/**
 * Makes a principal change wait until no serving process can still stream what the old
 * principals granted (docs/feed-fence.md). The live feed ends this process's streams itself, at
 * once; the fence covers the others: it resolves once every other serving process has ended the
 * streams of callers holding the principal, or has lost its lease (a process that cannot renew
 * its lease ends all its streams by itself before the lease runs out).
 */

/** What a serving process does when told to by the fence; both are synchronous. */
export interface FenceHandlers {
  /** Ends this process's streams of callers holding `principal` (with `resync`). */
  readonly endStreamsOf: (principal: string) => void;
  /** Ends every stream of this process: its lease lapsed, so it may have missed fences. */
  readonly endEveryStream: () => void;
}

export interface PrincipalFence {
  /**
   * Resolves once no other serving process streams to callers holding `principal` on what they
   * held before; waits at most about one lease for a process that crashed. Rejects when that
   * cannot be established (the database is away): the change fails, its effect stays.
   */
  fence(principal: string): Promise<void>;
  /**
   * Takes part as a serving process: takes a lease before resolving (so before the process
   * accepts connections), keeps it and obeys fences. The returned function leaves and gives the
   * lease up.
   */
  serve(handlers: FenceHandlers): Promise<() => Promise<void>>;
  /**
   * Whether this process may open a stream now: its lease runs, or a renewal tried at once got
   * one. New streams are refused otherwise.
   */
  admit(): Promise<boolean>;
}
