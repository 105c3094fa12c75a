import type { Db } from '../db/client';
import { log } from '../log';
import type { Services } from '../services';
import { claimJobs, completeJob, failJob } from './jobs';
import { runJob } from './run-job';

export interface WorkCounts {
  jobs_done: number;
  jobs_retried: number;
  jobs_failed: number;
}

const BATCH = 10;

/**
 * Runs due background work until none is due or the time budget is spent (D20). Shared by the
 * in-process worker and the cron route; any number of them may run at once.
 */
export async function runDueWork(db: Db, services: Services, opts: { budgetMs: number }): Promise<WorkCounts> {
  const deadline = Date.now() + opts.budgetMs;
  const counts: WorkCounts = { jobs_done: 0, jobs_retried: 0, jobs_failed: 0 };
  while (Date.now() < deadline) {
    const claimed = await claimJobs(db, BATCH);
    if (claimed.length === 0) break;
    for (const job of claimed) {
      try {
        await runJob(db, services, job);
        await completeJob(db, job);
        counts.jobs_done++;
      } catch (err) {
        const outcome = await failJob(db, job, err);
        counts[outcome === 'failed' ? 'jobs_failed' : 'jobs_retried']++;
        log.warn('background job failed', { job: job.id, kind: job.kind, meeting: job.meetingId, attempt: job.attempts, outcome, err });
      }
    }
  }
  return counts;
}
