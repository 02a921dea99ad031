/**
 * Sequential round trips from the store calls a request made: calls whose [start, end]
 * intervals overlap were in flight together and cost one round trip between them; what is left
 * is a chain of groups, one after another, which is the request's critical path to the store.
 */
export interface Interval {
  start: number;
  end: number;
}

/**
 * The calls grouped into steps, in time order: a call joins the current step when it starts
 * before every call of the step so far has ended (touching ends do not overlap: the second call
 * was sent after the first one's answer).
 */
export function steps<T extends Interval>(calls: readonly T[]): T[][] {
  const sorted = [...calls].sort((a, b) => a.start - b.start || a.end - b.end);
  const out: T[][] = [];
  let end = -Infinity;
  for (const call of sorted) {
    const current = out.at(-1);
    if (current && call.start < end) {
      current.push(call);
      end = Math.max(end, call.end);
    } else {
      out.push([call]);
      end = call.end;
    }
  }
  return out;
}

/** The number of steps: calls that overlap count once. */
export const sequentialRoundTrips = (calls: readonly Interval[]): number => steps(calls).length;
