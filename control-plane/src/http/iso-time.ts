/*
 * How the API writes an instant: ISO 8601 (RFC 3339) in UTC with milliseconds
 * (`2026-12-01T13:39:45.283Z`), as the API pages write instants (docs/api/checks.md), byte for byte
 * what `Date.prototype.toISOString` gives.
 * V8's toISOString goes through its date cache and took about 1.2 µs a call here, 400 calls for a
 * list page of 100 monitors (docs/benchmarks.md "Monitor list, uptime and stats latency"); the
 * arithmetic below takes about a quarter of that.
 */

/** "00".."99" and "000".."999", so no padding is computed per call. */
const PAD2 = Array.from({ length: 100 }, (_, i) => String(i).padStart(2, '0'));
const PAD3 = Array.from({ length: 1000 }, (_, i) => String(i).padStart(3, '0'));
const DAY_MS = 86_400_000;
/** 10000-01-01T00:00:00Z: from there on toISOString writes a six-digit year with a sign. */
const YEAR_10000_MS = 253_402_300_800_000;

/**
 * `d` as `YYYY-MM-DDTHH:mm:ss.sssZ`, exactly `d.toISOString()`. Instants from 1970 up to the end
 * of year 9999 are formatted here (the days to a civil date by H. Hinnant's `civil_from_days`,
 * proleptic Gregorian as ECMA-262 21.4.1 defines it); any other instant goes to toISOString itself.
 * @throws RangeError for an invalid date, as toISOString does
 */
export function isoTime(d: Date): string {
  const ms = d.getTime();
  if (!(ms >= 0 && ms < YEAR_10000_MS)) return d.toISOString();
  const days = Math.floor(ms / DAY_MS);
  let rest = ms - days * DAY_MS;
  // civil_from_days: eras of 400 years (146,097 days) counted from 0000-03-01.
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const doe = z - era * 146_097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  const year = yoe + era * 400 + (month <= 2 ? 1 : 0);
  const hour = Math.floor(rest / 3_600_000);
  rest -= hour * 3_600_000;
  const minute = Math.floor(rest / 60_000);
  rest -= minute * 60_000;
  const second = Math.floor(rest / 1000);
  return `${year}-${PAD2[month]}-${PAD2[day]}T${PAD2[hour]}:${PAD2[minute]}:${PAD2[second]}.${PAD3[rest - second * 1000]}Z`;
}
