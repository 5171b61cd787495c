import { describe, expect, it } from 'vitest';
import { csvCell, csvLine } from './csv';

describe('csvCell', () => {
  it.each([
    ['=HYPERLINK("http://evil.example")', `"'=HYPERLINK(""http://evil.example"")"`],
    ['+1+2', `"'+1+2"`],
    ['-2+3', `"'-2+3"`],
    ['@SUM(A1)', `"'@SUM(A1)"`],
    ['\tcmd', `"'\tcmd"`],
    ['plain text', '"plain text"'],
    ['a "quote", and comma', '"a ""quote"", and comma"'],
  ])('writes %j safely for a spreadsheet', (value, expected) => {
    expect(csvCell(value)).toBe(expected);
  });

  it('writes null and undefined as empty cells and numbers as they are', () => {
    expect([csvCell(null), csvCell(undefined), csvCell(42), csvCell(false)]).toEqual(['""', '""', '"42"', '"false"']);
  });

  it('joins a line with commas and ends it with CRLF', () => {
    expect(csvLine(['a', 1, null])).toBe('"a","1",""\r\n');
  });
});
