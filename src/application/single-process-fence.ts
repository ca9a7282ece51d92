/**
 * The principal fence where one process serves every stream (memory storage): the live feed
 * has already ended this process's affected streams before the change returns, so there is no
 * other process to wait for and no lease to hold.
 */
import type { FenceHandlers, PrincipalFence } from "./ports/principal-fence.js";

export class SingleProcessFence implements PrincipalFence {
  fence(): Promise<void> {
    return Promise.resolve();
  }

  serve(_handlers: FenceHandlers): Promise<() => Promise<void>> {
    return Promise.resolve(() => Promise.resolve());
  }

  admit(): Promise<boolean> {
    return Promise.resolve(true);
  }
}
