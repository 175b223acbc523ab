/** Unit tests of the periods of a stock history (commands/stock-history.ts; docs/api/stock-history.md). */
import { expect } from 'chai';
import { ValidationError } from '@pi/common';
import { addPeriods, historyRange, periodEnd, periodStart } from '../src/commands/stock-history';

describe('commands/stock-history: periods', () => {
  it('starts a week on its Monday and a month on its first, in UTC', () => {
    expect(periodStart('2026-11-27', 'day')).to.equal('2026-11-27');
    expect(periodStart('2026-11-27', 'week')).to.equal('2026-11-23'); // a Friday
    expect(periodStart('2026-11-23', 'week')).to.equal('2026-11-23'); // a Monday
    expect(periodStart('2026-11-29', 'week')).to.equal('2026-11-23'); // a Sunday
    expect(periodStart('2026-03-01', 'week')).to.equal('2026-02-23');
    expect(periodStart('2026-11-27', 'month')).to.equal('2026-11-01');
  });

  it('ends a period at 00:00 UTC of the next one, across months, years and leap days', () => {
    expect(periodEnd('2026-11-27', 'day')).to.equal('2026-11-28T00:00:00.000Z');
    expect(periodEnd('2024-02-28', 'day')).to.equal('2024-02-29T00:00:00.000Z');
    expect(periodEnd('2026-12-28', 'week')).to.equal('2027-01-04T00:00:00.000Z');
    expect(periodEnd('2026-12-01', 'month')).to.equal('2027-01-01T00:00:00.000Z');
    expect(addPeriods('2026-01-01', 'month', -13)).to.equal('2024-12-01');
  });

  it('defaults to 30 days, 12 weeks or 12 months ending with to, and today', () => {
    expect(historyRange({ interval: 'day' }, '2026-11-27')).to.deep.equal({
      from: '2026-10-29',
      to: '2026-11-27',
      firstPeriod: '2026-10-29',
      lastPeriod: '2026-11-27',
    });
    expect(historyRange({ interval: 'week', to: '2026-11-27' })).to.deep.include({ from: '2026-09-07', firstPeriod: '2026-09-07', lastPeriod: '2026-11-23' });
    expect(historyRange({ interval: 'month', to: '2026-11-27' })).to.deep.include({ from: '2025-12-01', firstPeriod: '2025-12-01', lastPeriod: '2026-11-01' });
    expect(historyRange({ interval: 'day', to: '0001-01-05' })).to.deep.include({ from: '0001-01-01' });
  });

  it('allows 400 periods and refuses 401, from after to, and a to whose period ends after the year 9999, naming the field', () => {
    const fieldOf = (fn: () => unknown) => {
      try {
        fn();
      } catch (err) {
        expect(err).to.be.instanceOf(ValidationError);
        return Object.keys((err as ValidationError).details);
      }
      return [];
    };
    expect(historyRange({ interval: 'day', from: '2025-10-24', to: '2026-11-27' })).to.deep.include({ firstPeriod: '2025-10-24' });
    expect(fieldOf(() => historyRange({ interval: 'day', from: '2025-10-23', to: '2026-11-27' }))).to.deep.equal(['from']);
    expect(fieldOf(() => historyRange({ interval: 'month', from: '1993-09-01', to: '2026-12-31' }))).to.deep.equal([]);
    expect(fieldOf(() => historyRange({ interval: 'month', from: '1993-08-31', to: '2026-12-31' }))).to.deep.equal(['from']);
    expect(fieldOf(() => historyRange({ interval: 'day', from: '2026-11-28', to: '2026-11-27' }))).to.deep.equal(['from']);
    expect(fieldOf(() => historyRange({ interval: 'day', to: '9999-12-01' }))).to.deep.equal(['to']);
  });
});
