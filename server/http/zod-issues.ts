import type { z } from 'zod';
import { AppError } from '../errors';

const MALFORMED_CODES = new Set([
  'invalid_type',
  'invalid_format',
  'invalid_union',
  'invalid_key',
  'invalid_element',
  'unrecognized_keys',
]);

function issueStatus(issue: z.core.$ZodIssue): 400 | 422 {
  if (issue.code === 'custom') {
    const status = (issue.params as { status?: number } | undefined)?.status;
    return status === 400 ? 400 : 422;
  }
  return MALFORMED_CODES.has(issue.code) ? 400 : 422;
}

function describeIssue(issue: z.core.$ZodIssue): string {
  const name = issue.path.join('.');
  if (!name) return issue.message;
  return issue.message.startsWith(name) ? issue.message : `${name}: ${issue.message}`;
}

/**
 * A zod failure becomes invalid_request (400) when any issue is a malformed value,
 * otherwise validation_error (422 in Form A). The message names the first issue of that kind.
 */
export function appErrorFromZodIssues(issues: readonly z.core.$ZodIssue[]): AppError {
  const malformed = issues.find((i) => issueStatus(i) === 400);
  if (malformed) return new AppError('invalid_request', describeIssue(malformed));
  const first = issues[0];
  return new AppError('validation_error', first ? describeIssue(first) : 'Invalid request');
}
