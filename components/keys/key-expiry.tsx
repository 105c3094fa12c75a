import { Badge } from '../ui/card';
import { formatDateTime } from '../ui/relative-time';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/**
 * "in 59 min", "in 23 h 5 min", "in 7 days": how long until `iso`. Minutes and hours are rounded
 * down (never later than the truth); days to the nearest, so a key made for 7 days says 7.
 */
export function timeUntil(iso: string, now: number): string {
  const left = new Date(iso).getTime() - now;
  if (left <= 0) return 'now';
  if (left < MINUTE) return 'in under a minute';
  if (left < HOUR) return `in ${Math.floor(left / MINUTE)} min`;
  if (left < 2 * DAY) {
    const hours = Math.floor(left / HOUR);
    const minutes = Math.floor((left % HOUR) / MINUTE);
    return minutes === 0 ? `in ${hours} h` : `in ${hours} h ${minutes} min`;
  }
  return `in ${Math.round(left / DAY)} days`;
}

const dateOnly = (iso: string) => new Date(iso).toLocaleDateString(undefined, { dateStyle: 'medium' });

/**
 * When a key stops working. A rolled key in its overlap says so, counts down and
 * names its replacement while that is listed; a key with a chosen expiry shows the date (counting
 * down in its last week). Nothing for a key that never expires.
 */
export function KeyExpiry({
  expiresAt,
  rolled,
  replacedBy = null,
  now,
}: {
  expiresAt: string | null;
  rolled: boolean;
  /** The replacement's masked key, e.g. `mnk_3fZq…9aB2`. */
  replacedBy?: string | null;
  now: number;
}) {
  if (!expiresAt) return null;
  const soon = new Date(expiresAt).getTime() - now < 7 * DAY;
  if (rolled) {
    return (
      <span
        data-testid="key-expiry"
        data-rolled="true"
        className="flex flex-wrap items-center gap-x-2 gap-y-1"
      >
        <Badge color="amber">Rolled · expires {timeUntil(expiresAt, now)}</Badge>
        <span className="text-xs text-zinc-600">
          {replacedBy ? (
            <>
              Replaced by <code className="font-mono text-zinc-800">{replacedBy}</code>, works until{' '}
            </>
          ) : (
            'Works until '
          )}
          <time dateTime={expiresAt} title={formatDateTime(expiresAt)} suppressHydrationWarning>
            {formatDateTime(expiresAt)}
          </time>
        </span>
      </span>
    );
  }
  return (
    <span data-testid="key-expiry" data-rolled="false" className="inline-flex">
      <Badge color={soon ? 'amber' : 'zinc'}>
        {/* One child: a flex badge would drop the space between the word and the date. */}
        <span>
          Expires{' '}
          <time dateTime={expiresAt} title={formatDateTime(expiresAt)} suppressHydrationWarning>
            {soon ? timeUntil(expiresAt, now) : dateOnly(expiresAt)}
          </time>
        </span>
      </Badge>
    </span>
  );
}
