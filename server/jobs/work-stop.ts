// What a process's background work answers to when the process shuts down: a signal that says
// "claim nothing more", and the leases it holds right now, so that what it cannot finish in time
// is released (its lease cleared) for another dispatcher to take at once, not when the lease
// runs out. A lease is named by the `locked_until` its claim wrote (as text, to the microsecond):
// a release clears only that lease, never one another dispatcher took after it ran out.

export interface HeldJob {
  lease: string;
  /** Started jobs keep the attempt their claim counted; jobs never started give it back. */
  started: boolean;
}

export class HeldLeases {
  readonly deliveries = new Map<string, string>();
  readonly jobs = new Map<string, HeldJob>();
  /** Released so far, for the shutdown's log. */
  readonly released = { deliveries: 0, jobs: 0 };

  get size(): number {
    return this.deliveries.size + this.jobs.size;
  }
}

export interface WorkStop {
  /** Aborted: claim nothing more; finish what is in flight, release what has not started. */
  readonly signal: AbortSignal;
  readonly leases: HeldLeases;
}

export function createWorkStop(): WorkStop & { stop(): void } {
  const controller = new AbortController();
  return { signal: controller.signal, leases: new HeldLeases(), stop: () => controller.abort() };
}
