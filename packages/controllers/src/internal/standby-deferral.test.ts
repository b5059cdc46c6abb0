import { recordingLogger } from '@kubeloom/kube/fake';
import { describe, expect, it } from 'vitest';
import { manualClock } from '../../test/manual-clock.ts';
import { StandbyDeferral } from './standby-deferral.ts';

describe('StandbyDeferral', () => {
  it('keeps a standby-only write waiting while moves land, and lets it go once none landed for maxMs', () => {
    const clock = manualClock();
    const logger = recordingLogger();
    const deferral = new StandbyDeferral({ clock, maxMs: 1000, logger });
    const pending = ['web-2'];
    // One reconcile of `k` after another, as the queue's requeues run them.
    const waits = () => deferral.waits('k', deferral.begin('k'), pending);
    expect(waits()).toBe(true);
    clock.advance(900);
    deferral.progress(); // a move landed
    clock.advance(900); // 1,800 ms of waiting, 900 since the last move
    expect(waits()).toBe(true);
    clock.advance(200); // no move for 1,100 ms
    expect(waits()).toBe(false);
    expect(logger.records.filter((r) => r.level === 'warn')).toHaveLength(1);
    // A reconcile that did not wait (it wrote) ends the row: the next wait starts afresh.
    expect(waits()).toBe(true);
  });

  it('does not wait without moves pending, and forgets every row on clear', () => {
    const clock = manualClock();
    const deferral = new StandbyDeferral({ clock, maxMs: 1000, logger: recordingLogger() });
    expect(deferral.waits('k', deferral.begin('k'), [])).toBe(false);
    expect(deferral.waits('k', deferral.begin('k'), ['web-2'])).toBe(true);
    clock.advance(5000);
    deferral.clear();
    expect(deferral.begin('k')).toBeUndefined();
    expect(deferral.waits('k', undefined, ['web-2'])).toBe(true);
  });
});
