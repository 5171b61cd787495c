/**
 * The written time kept for something that reached the server at `arrival`: the device's own time of writing,
 * never later than its arrival nor earlier than `floor` (what it answers, or its author's account), and the
 * arrival time when the device gave none. A skewed clock is clamped, never refused (decision 119).
 */
export function boundWrittenAt(written: number | undefined, floor: number, arrival: number): number {
  if (written === undefined) return arrival;
  return Math.min(arrival, Math.max(floor, written));
}
