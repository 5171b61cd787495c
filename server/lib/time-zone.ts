/** Dates and hours in the provider's time zone (TIME_ZONE, decision 136), read with the runtime's own zone data. */

/** Whether the runtime knows this IANA time zone name. */
export function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-GB', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

const formats = new Map<string, Intl.DateTimeFormat>();

/** The calendar day (YYYY-MM-DD) and hour (0 to 23) of an instant in a time zone. */
export function localDayAndHour(ms: number, zone: string): { day: string; hour: number } {
  let format = formats.get(zone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-CA', {
      timeZone: zone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      hourCycle: 'h23',
    });
    formats.set(zone, format);
  }
  const parts = Object.fromEntries(format.formatToParts(new Date(ms)).map((part) => [part.type, part.value]));
  return { day: `${parts.year}-${parts.month}-${parts.day}`, hour: Number(parts.hour) };
}

const fullFormats = new Map<string, Intl.DateTimeFormat>();

/** The wall-clock time of an instant in a time zone, read as if it were UTC (milliseconds). */
function wallClockMs(ms: number, zone: string): number {
  let format = fullFormats.get(zone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-CA', {
      timeZone: zone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      hourCycle: 'h23',
    });
    fullFormats.set(zone, format);
  }
  const p = Object.fromEntries(format.formatToParts(new Date(ms)).map((part) => [part.type, Number(part.value)]));
  return Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second) + (ms % 1000);
}

/** The minute of the local day (0 to 1439) of an instant in a time zone. */
export function localMinuteOfDay(ms: number, zone: string): number {
  const wall = wallClockMs(ms, zone);
  return Math.floor((((wall % 86_400_000) + 86_400_000) % 86_400_000) / 60_000);
}

/** The first instant of a calendar day (YYYY-MM-DD) in a time zone; daylight saving changes happen away from midnight. */
export function startOfLocalDay(day: string, zone: string): number {
  const guess = Date.parse(`${day}T00:00:00Z`);
  const first = guess - (wallClockMs(guess, zone) - guess);
  // Once more with the offset at the first answer, which differs from the guess's across a change of offset.
  return guess - (wallClockMs(first, zone) - first);
}
