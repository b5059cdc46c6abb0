import { describe, expect, it } from 'vitest';
import { LineDecoder } from './line-decoder.ts';

/** Feeds `bytes` in pieces of `size` bytes; returns the lines. */
function decode(bytes: Buffer, size: number): string[] {
  const decoder = new LineDecoder();
  const lines: string[] = [];
  const onLine = (line: string): boolean => {
    lines.push(line);
    return false;
  };
  for (let i = 0; i < bytes.length; i += size) decoder.push(bytes.subarray(i, i + size), onLine);
  decoder.end(onLine);
  return lines;
}

describe('LineDecoder', () => {
  it('splits lines at any chunk boundary, multi-byte characters split across chunks included', () => {
    const text = '{"a":"ä€😀"}\r\n\n{"b":2}\n  \n{"c":"last, unterminated"}';
    const bytes = Buffer.from(text);
    for (const size of [1, 2, 3, 5, 7, bytes.length]) {
      expect(decode(bytes, size)).toEqual(['{"a":"ä€😀"}', '{"b":2}', '  ', '{"c":"last, unterminated"}']);
    }
  });

  it('stops at the line whose callback returns true and drops the rest of the chunk', () => {
    const decoder = new LineDecoder();
    const seen: string[] = [];
    const stopped = decoder.push(Buffer.from('a\nb\nc\n'), (line) => {
      seen.push(line);
      return line === 'b';
    });
    expect(stopped).toBe(true);
    expect(seen).toEqual(['a', 'b']);
  });

  it('refuses an unterminated line longer than the limit', () => {
    const decoder = new LineDecoder(8);
    const none = (): boolean => false;
    decoder.push(Buffer.from('12345'), none);
    expect(() => decoder.push(Buffer.from('6789'), none)).toThrow(RangeError);
  });
});
