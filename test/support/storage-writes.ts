/** Records every write to a page's localStorage and sessionStorage, for tests that no credential is kept. */

/** The browser's storages as these page functions use them (the tests compile without the DOM's types). */
export interface WebStorage {
  readonly length: number;
  key(index: number): string | null;
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
}
export interface PageGlobals {
  Storage: { prototype: WebStorage };
  localStorage: WebStorage;
  sessionStorage: WebStorage;
  storageWrites: [string, string, string][];
}

/** Every `setItem` of either storage, recorded before the page's own scripts run (an init script). */
export function recordStorageWrites(): void {
  const page = globalThis as unknown as PageGlobals;
  const writes: [string, string, string][] = [];
  page.storageWrites = writes;
  const setItem = page.Storage.prototype.setItem; // eslint-disable-line @typescript-eslint/unbound-method -- called with its storage below
  page.Storage.prototype.setItem = function (this: WebStorage, key: string, value: string) {
    writes.push([this === page.localStorage ? "local" : "session", key, value]);
    setItem.call(this, key, value);
  };
}
