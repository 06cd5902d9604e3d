import t from 'tap';
import type { OncallRotation } from '@vantage/shared-protocol';
import { onCallAt, shiftAt, type OverrideRef } from './rotation.js';

/*
 * Who is on call across Berlin's 2026 daylight-saving changes (spring forward Sunday 29 March
 * 02:00 → 03:00, fall back Sunday 25 October 03:00 → 02:00): a 09:00 handoff stays 09:00 local,
 * so the shift spanning the change lasts 23 or 25 hours.
 */

const A = 'u_a';
const B = 'u_b';
const C = 'u_c';
const tz = 'Europe/Berlin';
const daily = (starts_on: string, extra: Partial<OncallRotation> = {}): OncallRotation => ({ participants: [A, B], starts_on, handoff_time: '09:00', shift_length: 1, shift_unit: 'days', ...extra });
const iso = (s: string) => new Date(s);
const shift = (r: OncallRotation, at: string) => {
  const s = shiftAt(r, tz, iso(at));
  return s && [s.user_id, s.start.toISOString(), s.end.toISOString()];
};

t.test('spring forward: the 09:00 handoff moves from 08:00Z to 07:00Z', async (t) => {
  const r = daily('2026-03-27');
  t.same(shift(r, '2026-03-27T07:59:00Z'), null, 'before the first handoff (09:00 CET = 08:00Z): nobody');
  t.same(shift(r, '2026-03-27T08:00:00Z'), [A, '2026-03-27T08:00:00.000Z', '2026-03-28T08:00:00.000Z'], 'first shift, A');
  t.same(shift(r, '2026-03-29T06:59:00Z'), [B, '2026-03-28T08:00:00.000Z', '2026-03-29T07:00:00.000Z'], '08:59 CEST: still B, whose shift lasts 23 h');
  t.same(shift(r, '2026-03-29T07:00:00Z'), [A, '2026-03-29T07:00:00.000Z', '2026-03-30T07:00:00.000Z'], '09:00 CEST = 07:00Z: A');
  t.same(shift(r, '2026-04-10T06:59:00Z'), [B, '2026-04-09T07:00:00.000Z', '2026-04-10T07:00:00.000Z'], 'turns keep alternating (shift 13: B)');
});

t.test('fall back: the 09:00 handoff moves from 07:00Z to 08:00Z', async (t) => {
  const r = daily('2026-10-23');
  t.same(shift(r, '2026-10-25T07:30:00Z'), [B, '2026-10-24T07:00:00.000Z', '2026-10-25T08:00:00.000Z'], '08:30 CET: B, whose shift lasts 25 h');
  t.same(shift(r, '2026-10-25T08:00:00Z'), [A, '2026-10-25T08:00:00.000Z', '2026-10-26T08:00:00.000Z'], '09:00 CET = 08:00Z: A');
});

t.test('weekly and 12-hour shifts keep their local handoff; a skipped local time moves forward', async (t) => {
  const weekly = daily('2026-03-23', { shift_unit: 'weeks', participants: [A, B, C] });
  t.same(shift(weekly, '2026-03-30T06:59:00Z'), [A, '2026-03-23T08:00:00.000Z', '2026-03-30T07:00:00.000Z'], 'a week of A, an hour short');
  t.same(shift(weekly, '2026-04-06T07:00:00Z'), [C, '2026-04-06T07:00:00.000Z', '2026-04-13T07:00:00.000Z'], 'third week: C');
  const half = daily('2026-03-28', { shift_length: 12, shift_unit: 'hours' });
  t.same(shift(half, '2026-03-29T06:30:00Z'), [B, '2026-03-28T20:00:00.000Z', '2026-03-29T07:00:00.000Z'], '21:00 CET to 09:00 CEST: 11 h');
  t.same(shift(half, '2026-03-29T19:00:00Z'), [B, '2026-03-29T19:00:00.000Z', '2026-03-30T07:00:00.000Z'], '21:00 CEST = 19:00Z');
  const night = daily('2026-03-28', { handoff_time: '02:30' });
  t.same(shift(night, '2026-03-29T01:29:00Z'), [A, '2026-03-28T01:30:00.000Z', '2026-03-29T01:30:00.000Z'], '02:30 does not exist on the 29th: 03:30 CEST = 01:30Z');
  t.same(shift(night, '2026-03-30T00:30:00Z'), [A, '2026-03-30T00:30:00.000Z', '2026-03-31T00:30:00.000Z'], 'then 02:30 CEST = 00:30Z');
});

t.test('the rotation that started last applies; an override wins; replaces_user_id only over that participant', async (t) => {
  const schedule = { time_zone: tz, rotations: [daily('2026-03-01'), daily('2026-04-01', { participants: [C] })] };
  t.match(onCallAt(schedule, [], iso('2026-03-31T12:00:00Z')), { user_id: A, source: 'rotation', rotation_index: 0 }, 'March: the first rotation (day 30 → A)');
  t.match(onCallAt(schedule, [], iso('2026-04-01T07:00:00Z')), { user_id: C, rotation_index: 1, shift_start: '2026-04-01T07:00:00.000Z' }, 'from 1 April 09:00: the second');
  t.match(onCallAt(schedule, [], iso('2026-02-01T00:00:00Z')), { user_id: null, source: null }, 'before any rotation: nobody');
  const o = (id: string, user_id: string, from: string, to: string, replaces_user_id: string | null = null, created = from): OverrideRef =>
    ({ id, user_id, replaces_user_id, starts_at: iso(from), ends_at: iso(to), created_at: iso(created) });
  const overrides = [
    o('oco_1', C, '2026-03-10T00:00:00Z', '2026-03-12T00:00:00Z'),
    o('oco_2', A, '2026-03-11T00:00:00Z', '2026-03-11T06:00:00Z', null, '2026-03-10T01:00:00Z'),
    o('oco_3', C, '2026-03-20T00:00:00Z', '2026-03-25T00:00:00Z', A),
  ];
  t.match(onCallAt(schedule, overrides, iso('2026-03-10T12:00:00Z')), { user_id: C, source: 'override', override_id: 'oco_1', shift_end: '2026-03-12T00:00:00.000Z' });
  t.match(onCallAt(schedule, overrides, iso('2026-03-11T03:00:00Z')), { user_id: A, override_id: 'oco_2' }, 'the newer of two overrides');
  t.match(onCallAt(schedule, overrides, iso('2026-03-12T00:00:00Z')), { user_id: A, source: 'rotation' }, 'end exclusive: back to the rotation (11 March 09:00 → A)');
  t.match(onCallAt(schedule, overrides, iso('2026-03-21T12:00:00Z')), { user_id: C, override_id: 'oco_3' }, 'day 20 → A: replaced by C');
  t.match(onCallAt(schedule, overrides, iso('2026-03-22T12:00:00Z')), { user_id: B, source: 'rotation' }, 'day 21 → B: the override does not replace B');
});
