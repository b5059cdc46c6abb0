import { describe, expect, it } from 'vitest';
import { resolveTuning } from './informer-tuning.ts';

describe('resolveTuning: list page sizes', () => {
  it('sizes pages by bytes by default, starting at 500 objects', () => {
    expect(resolveTuning()).toMatchObject({ pageSize: 500, pageBytes: 4 * 1024 * 1024 });
    expect(resolveTuning({ pageBytes: 1024 })).toMatchObject({ pageSize: 500, pageBytes: 1024 });
  });

  it('keeps every page at an explicit pageSize unless pageBytes is given too', () => {
    expect(resolveTuning({ pageSize: 40 })).toMatchObject({ pageSize: 40, pageBytes: undefined });
    expect(resolveTuning({ pageSize: 40, pageBytes: 1024 })).toMatchObject({ pageSize: 40, pageBytes: 1024 });
  });

  it('names a bad value', () => {
    expect(() => resolveTuning({ pageBytes: 0 })).toThrow('tuning.pageBytes must be a positive integer');
    expect(() => resolveTuning({ pageSize: -1 })).toThrow('tuning.pageSize must be a positive integer');
  });
});
