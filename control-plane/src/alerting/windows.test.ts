import t from 'tap';
import { activeSilence, isInMaintenance, isMuted, nextOccurrenceStart, occurrenceAt, silenceStatus, type WindowRef } from './windows.js';

/* Time rules across DST changes (Europe/Berlin: 2026-03-29 02:00→03:00, 2026-10-25 03:00→02:00; America/New_York 2026-03-08). */

const M = { id: 'm_1', group_id: 'mg_1', tags: ['api', 'prod'] };
const at = (iso: string) => new Date(iso);

function win(p: Partial<WindowRef>): WindowRef {
  return { scope_type: 'all', scope_ids: [], starts_at: at('2026-03-20T01:30:00Z'), ends_at: at('2026-03-20T02:00:00Z'), recurrence: 'none', recurrence_until: null, ...p };
}

t.test('a daily window keeps its local time across the spring and autumn DST changes', async (t) => {
  // 02:30-03:00 Berlin local (CET, UTC+1) on 2026-03-20.
  const w = win({ recurrence: 'daily' });
  t.ok(isInMaintenance(M, [w], 'Europe/Berlin', at('2026-03-20T01:45:00Z')), 'first occurrence');
  t.ok(isInMaintenance(M, [w], 'Europe/Berlin', at('2026-03-28T01:45:00Z')), 'the day before the change, still UTC+1');
  // After the change Berlin is UTC+2: 02:30 local = 00:30Z.
  t.ok(isInMaintenance(M, [w], 'Europe/Berlin', at('2026-03-30T00:45:00Z')), 'after spring forward: 02:30 local is 00:30Z');
  t.notOk(isInMaintenance(M, [w], 'Europe/Berlin', at('2026-03-30T01:45:00Z')), 'the old UTC time is no longer in it');
  t.ok(isInMaintenance(M, [w], 'Europe/Berlin', at('2026-10-26T01:45:00Z')), 'after fall back: UTC+1 again');
  t.ok(isInMaintenance(M, [w], 'America/New_York', at('2026-03-20T01:45:00Z')), 'the first occurrence is an instant in any zone');
  t.ok(isInMaintenance(M, [w], 'America/New_York', at('2026-03-25T01:45:00Z')), 'New York: same offset after its change (starts after 03-08)');
});

t.test('a weekly window, a monthly window on the 31st, recurrence_until inclusive on a start', async (t) => {
  const weekly = win({ recurrence: 'weekly', starts_at: at('2026-03-24T22:00:00Z'), ends_at: at('2026-03-24T23:00:00Z') }); // Tue 23:00 Berlin
  t.ok(occurrenceAt(weekly, 'Europe/Berlin', at('2026-03-31T21:30:00Z')), 'next Tuesday 23:30 CEST = 21:30Z');
  t.notOk(occurrenceAt(weekly, 'Europe/Berlin', at('2026-04-01T21:30:00Z')), 'not on Wednesday');
  const monthly = win({ recurrence: 'monthly', starts_at: at('2026-01-31T10:00:00Z'), ends_at: at('2026-01-31T11:00:00Z') });
  t.ok(occurrenceAt(monthly, 'UTC', at('2026-02-28T10:30:00Z')), 'February: its last day');
  t.ok(occurrenceAt(monthly, 'UTC', at('2031-03-31T10:30:00Z')), 'five years on');
  const until = win({ recurrence: 'daily', recurrence_until: at('2026-03-22T01:30:00Z') });
  t.ok(occurrenceAt(until, 'UTC', at('2026-03-22T01:59:00Z')), 'an occurrence starting exactly at recurrence_until runs');
  t.notOk(occurrenceAt(until, 'UTC', at('2026-03-23T01:45:00Z')), 'none after it');
  t.notOk(occurrenceAt(win({}), 'UTC', at('2026-03-20T02:00:00Z')), 'the end is exclusive');
  t.notOk(occurrenceAt(win({}), 'UTC', at('2026-03-20T01:29:59Z')), 'not before the start');
});

t.test('scopes: monitor, group, tag, all', async (t) => {
  const inside = at('2026-03-20T01:45:00Z');
  t.ok(isInMaintenance(M, [win({ scope_type: 'monitor', scope_ids: ['m_1'] })], 'UTC', inside));
  t.notOk(isInMaintenance(M, [win({ scope_type: 'monitor', scope_ids: ['m_2'] })], 'UTC', inside));
  t.ok(isInMaintenance(M, [win({ scope_type: 'group', scope_ids: ['mg_1'] })], 'UTC', inside));
  t.notOk(isInMaintenance({ ...M, group_id: null }, [win({ scope_type: 'group', scope_ids: ['mg_1'] })], 'UTC', inside));
  t.ok(isInMaintenance(M, [win({ scope_type: 'tag', scope_ids: ['prod'] })], 'UTC', inside));
  t.notOk(isInMaintenance(M, [win({ scope_type: 'tag', scope_ids: ['edge'] })], 'UTC', inside));
  t.notOk(isInMaintenance(M, [], 'UTC', inside));
});

t.test('silences: status by time, the monitor\'s own or an all-monitors one', async (t) => {
  const s1 = { id: 'a', monitor_id: 'm_1', starts_at: at('2026-03-20T00:00:00Z'), ends_at: at('2026-03-20T02:00:00Z') };
  const s2 = { id: 'b', monitor_id: null, starts_at: at('2026-03-20T01:00:00Z'), ends_at: at('2026-03-20T05:00:00Z') };
  const s3 = { id: 'c', monitor_id: 'm_2', starts_at: at('2026-03-20T00:00:00Z'), ends_at: at('2026-03-21T00:00:00Z') };
  t.equal(silenceStatus(s1, at('2026-03-19T23:59:59Z')), 'upcoming');
  t.equal(silenceStatus(s1, at('2026-03-20T00:00:00Z')), 'active');
  t.equal(silenceStatus(s1, at('2026-03-20T02:00:00Z')), 'expired');
  t.equal(activeSilence(M, [s1, s3], at('2026-03-20T00:30:00Z'))?.id, 'a');
  t.equal(activeSilence(M, [s1, s2, s3], at('2026-03-20T01:30:00Z'))?.id, 'b', 'the one ending last');
  t.equal(activeSilence(M, [s3], at('2026-03-20T01:30:00Z')), null, 'another monitor\'s silence');
});

t.test('mute windows in the owner\'s zone, wrapping midnight, across DST', async (t) => {
  const night = { mute_start: '22:00', mute_end: '07:00' };
  t.ok(isMuted(night, 'Europe/Berlin', at('2026-03-28T21:30:00Z')), '22:30 CET');
  t.notOk(isMuted(night, 'Europe/Berlin', at('2026-03-29T05:30:00Z')), '05:30Z is 07:30 CEST after the change: not muted');
  t.ok(isMuted(night, 'Europe/Berlin', at('2026-03-28T05:30:00Z')), 'the same UTC time a day earlier is 06:30 CET: muted');
  t.notOk(isMuted(night, 'Europe/Berlin', at('2026-03-29T12:00:00Z')), 'midday');
  t.ok(isMuted(night, 'Europe/Berlin', at('2026-03-29T04:59:00Z')), '06:59 CEST, after the change');
  t.notOk(isMuted(night, 'Europe/Berlin', at('2026-03-28T06:30:00Z')), '07:30 CET before the change');
  t.ok(isMuted(night, 'UTC', at('2026-03-28T06:30:00Z')), 'the same instant is 06:30 in UTC');
  t.ok(isMuted({ mute_start: '09:00', mute_end: '17:00' }, 'Asia/Shanghai', at('2026-03-28T01:00:00Z')), '09:00 in Shanghai, start inclusive');
  t.notOk(isMuted({ mute_start: '09:00', mute_end: '17:00' }, 'Asia/Shanghai', at('2026-03-28T09:00:00Z')), '17:00 end exclusive');
  t.notOk(isMuted({ mute_start: null, mute_end: null }, 'UTC', at('2026-03-28T01:00:00Z')));
});

t.test('the next occurrence start: one-off, daily across the spring change, monthly on the 31st, recurrence_until', async (t) => {
  const iso = (d: Date | null) => d?.toISOString() ?? null;
  t.equal(iso(nextOccurrenceStart(win({}), 'UTC', at('2026-03-19T00:00:00Z'))), '2026-03-20T01:30:00.000Z', 'a one-off window not started yet');
  t.equal(nextOccurrenceStart(win({}), 'UTC', at('2026-03-20T01:30:00Z')), null, 'started: none left');
  const daily = win({ recurrence: 'daily' });
  t.equal(iso(nextOccurrenceStart(daily, 'Europe/Berlin', at('2026-03-20T01:30:00Z'))), '2026-03-21T01:30:00.000Z', 'the start itself is not after itself');
  t.equal(iso(nextOccurrenceStart(daily, 'Europe/Berlin', at('2026-03-29T12:00:00Z'))), '2026-03-30T00:30:00.000Z', '02:30 local after spring forward is 00:30Z');
  const monthly = win({ recurrence: 'monthly', starts_at: at('2026-01-31T10:00:00Z'), ends_at: at('2026-01-31T11:00:00Z') });
  t.equal(iso(nextOccurrenceStart(monthly, 'UTC', at('2026-02-01T00:00:00Z'))), '2026-02-28T10:00:00.000Z');
  const until = win({ recurrence: 'daily', recurrence_until: at('2026-03-22T01:30:00Z') });
  t.equal(iso(nextOccurrenceStart(until, 'UTC', at('2026-03-21T12:00:00Z'))), '2026-03-22T01:30:00.000Z', 'a start exactly at recurrence_until');
  t.equal(nextOccurrenceStart(until, 'UTC', at('2026-03-22T12:00:00Z')), null, 'none after it');
});
