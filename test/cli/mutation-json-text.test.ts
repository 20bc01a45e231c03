import { describe, expect, it } from 'vitest';
import { jsonTextStyle, setJsonText } from '../../src/cli/json-text.js';

/**
 * T45: init edits a person's JSON files by the bytes of what it sets, inserts or removes, in the
 * file's own indentation and line endings. Each case is the exact text before and after.
 */
describe('T45 setJsonText: minimal edits in the file\'s own style', () => {
  it('T45 reads the indentation unit and the line ending from the file (two spaces and LF when it shows none)', () => {
    expect(jsonTextStyle('{\n\t"a": 1\n}')).toEqual({ unit: '\t', eol: '\n' });
    expect(jsonTextStyle('{\r\n    "a": 1\r\n}')).toEqual({ unit: '    ', eol: '\r\n' });
    expect(jsonTextStyle('{"a": 1}')).toEqual({ unit: '  ', eol: '\n' });
    // The unit is read where a line starts a key, a closing bracket or a comment, not elsewhere.
    expect(jsonTextStyle('{\n   \n  "a": [\n      1\n  ]\n}')).toEqual({ unit: '  ', eol: '\n' });
    expect(jsonTextStyle('{\n // note\n "a": 1\n}')).toEqual({ unit: ' ', eol: '\n' });
  });

  it('T45 replaces a value where it is, multi-line values at its indentation', () => {
    expect(setJsonText('{\n  "a": 1,\n  "b": 2\n}\n', ['a'], 10)).toBe('{\n  "a": 10,\n  "b": 2\n}\n');
    expect(setJsonText('{\n  "x": {\n    "a": 1\n  }\n}', ['x', 'a'], { k: [1] })).toBe('{\n  "x": {\n    "a": {\n      "k": [\n        1\n      ]\n    }\n  }\n}');
    expect(setJsonText('{\r\n\t"a": 1\r\n}', ['a'], { b: 2 })).toBe('{\r\n\t"a": {\r\n\t\t"b": 2\r\n\t}\r\n}');
  });

  it('T45 removes a member with the comma that belongs to it: the one before it, or after it when it is first', () => {
    const text = '{\n  "a": 1,\n  "b": 2,\n  "c": 3\n}';
    expect(setJsonText(text, ['a'], undefined)).toBe('{\n  "b": 2,\n  "c": 3\n}');
    expect(setJsonText(text, ['b'], undefined)).toBe('{\n  "a": 1,\n  "c": 3\n}');
    expect(setJsonText(text, ['c'], undefined)).toBe('{\n  "a": 1,\n  "b": 2\n}');
    expect(setJsonText('{\n  "only": true\n}', ['only'], undefined)).toBe('{}');
    expect(setJsonText('{"l": [1, 2, 3]}', ['l', 1], undefined)).toBe('{"l": [1, 3]}');
    expect(setJsonText('{"l": [1, 2, 3]}', ['l', 0], undefined)).toBe('{"l": [2, 3]}');
    // Removing what is not there changes nothing.
    expect(setJsonText(text, ['z'], undefined)).toBe(text);
    expect(setJsonText(text, ['z', 'y'], undefined)).toBe(text);
  });

  it('T45 appends a member after the last one, on its own line where they are on lines, on the line where they share one', () => {
    expect(setJsonText('{\n    "a": 1\n}', ['b'], 2)).toBe('{\n    "a": 1,\n    "b": 2\n}');
    expect(setJsonText('{"a": 1}', ['b'], { c: [3] })).toBe('{"a": 1, "b": {"c":[3]}}');
    expect(setJsonText('{\n  "a": 1\n}', ['b'], { c: 3 })).toBe('{\n  "a": 1,\n  "b": {\n    "c": 3\n  }\n}');
    expect(setJsonText('{\n  "l": [\n    1\n  ]\n}', ['l', 1], 'two')).toBe('{\n  "l": [\n    1,\n    "two"\n  ]\n}');
    expect(setJsonText('{"l": [1]}', ['l', 1], 2)).toBe('{"l": [1, 2]}');
  });

  it('T45 fills an empty container at one level deeper than its line, and builds the objects a path lacks', () => {
    expect(setJsonText('{}', ['a'], 1)).toBe('{\n  "a": 1\n}');
    expect(setJsonText('{\n  "l": []\n}', ['l', 0], 'x')).toBe('{\n  "l": [\n    "x"\n  ]\n}');
    expect(setJsonText('{}', ['hooks', 'Stop'], [])).toBe('{\n  "hooks": {\n    "Stop": []\n  }\n}');
    expect(setJsonText('{\n\t"a": {}\n}', ['a', 'b', 'c'], true)).toBe('{\n\t"a": {\n\t\t"b": {\n\t\t\t"c": true\n\t\t}\n\t}\n}');
    expect(setJsonText('{\r\n  "a": 1\r\n}', ['b', 'c'], 2)).toBe('{\r\n  "a": 1,\r\n  "b": {\r\n    "c": 2\r\n  }\r\n}');
  });

  it('T45 keeps comments and digits it does not touch', () => {
    const text = '{\n  // the model\n  "model": "opus",\n  "big": 12345678901234567890\n}';
    expect(setJsonText(text, ['x'], 1)).toBe('{\n  // the model\n  "model": "opus",\n  "big": 12345678901234567890,\n  "x": 1\n}');
    expect(setJsonText(setJsonText(text, ['x'], 1), ['x'], undefined)).toBe(text);
  });

  it('T45 refuses what it cannot edit: a text that is no JSON, a value in the way, an array index past the end', () => {
    expect(() => setJsonText('', ['a'], 1)).toThrow('not a JSON text');
    expect(() => setJsonText('{"a": "text"}', ['a', 'b'], 1)).toThrow('cannot set ["a","b"]: string is in the way');
    expect(() => setJsonText('{"l": [1]}', ['l', 5], 1)).toThrow('cannot set ["l",5]: array is in the way');
    expect(() => setJsonText('[1]', ['a'], 1)).toThrow('cannot set ["a"]: array is in the way');
  });
});
