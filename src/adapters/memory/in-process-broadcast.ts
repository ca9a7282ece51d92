/** ChangeBroadcast within one process (memory storage): signals go straight to the listeners. */
import type { ChangeBroadcast, ChangeSignal } from "../../application/ports/change-broadcast.js";

export class InProcessBroadcast implements ChangeBroadcast {
  private readonly listeners = new Set<(signal: ChangeSignal) => void>();

  publish(signal: ChangeSignal): Promise<void> {
    for (const listener of [...this.listeners]) listener(signal);
    return Promise.resolve();
  }

  subscribe(listener: (signal: ChangeSignal) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  ready(): Promise<void> {
    return Promise.resolve();
  }

  close(): Promise<void> {
    this.listeners.clear();
    return Promise.resolve();
  }
}
