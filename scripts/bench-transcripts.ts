import { demoMeetings } from '../server/seed/demo-meetings';

/** Realistic sentences: the demo meetings' own, cycled. */
const DEMO_SEGMENTS = demoMeetings.flatMap((m) => m.segments);

/**
 * The transcript the benchmarks record for their `meeting`-th meeting: `segments` segments of
 * 6 s, each meeting a different rotation of the demo meetings' sentences and speakers.
 */
export function benchSegments(meeting: number, segments: number) {
  return Array.from({ length: segments }, (_, s) => {
    const demo = DEMO_SEGMENTS[(meeting * 7 + s) % DEMO_SEGMENTS.length];
    return {
      speaker: demo?.speaker ?? `Speaker ${s % 4}`,
      content: demo?.content ?? 'Let us start.',
      start_time: s * 6,
      end_time: s * 6 + 5.5,
    };
  });
}
